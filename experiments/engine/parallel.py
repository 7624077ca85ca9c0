"""Where the grids run: local joblib workers, or an existing Dask distributed cluster.

Every grid of the suite (paper-table rows, ablation tables, C grids, learning-curve points) is
a joblib `Parallel` call; inside `grid_backend("dask", ADDRESS)` joblib hands its tasks to the
cluster's workers instead, for grids that outgrow one machine.
"""
from __future__ import annotations

import contextlib
import os
import sys

import joblib

from .errors import UsageError

BACKENDS = ("local", "dask")


@contextlib.contextmanager
def grid_backend(backend: str = "local", scheduler: str | None = None):
    if backend == "local":
        yield None
        return
    if backend != "dask":
        raise UsageError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    if not scheduler:
        raise UsageError("--backend dask needs --scheduler ADDRESS of a running Dask scheduler "
                         "(e.g. tcp://127.0.0.1:8786)")
    try:
        from dask.distributed import Client
    except ImportError:
        from features.commands import install_command
        raise UsageError(f"the dask backend needs Dask: {install_command('dask')}") from None
    try:
        client = Client(scheduler, timeout=30)
    except OSError as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    try:
        with joblib.parallel_config(backend="dask"):
            yield client
    finally:
        client.close()


def n_jobs(backend: str, jobs: int) -> int:
    """Dask schedules over all its workers; locally, the requested count."""
    return -1 if backend == "dask" else jobs


def resolve_jobs(jobs: int, note=lambda message: print(f"note: {message}", file=sys.stderr)) -> int:
    """Workers to start: -1 means one per core, and more than the cores is capped at the cores
    (`note` says so): extra local processes only add start-up time and memory."""
    cores = os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0 or jobs < -1:
        raise UsageError(f"--jobs takes a positive number of workers, or -1 for one per core; got {jobs!r}")
    if jobs == -1:
        return cores
    if jobs > cores:
        note(f"--jobs {jobs} is more than the {cores} cores of this machine; using {cores}")
        return cores
    return jobs
