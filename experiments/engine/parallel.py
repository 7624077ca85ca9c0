"""Where the grids run: local joblib workers, or an existing Dask distributed cluster.

Every grid of the suite (paper-table rows, ablation tables, C grids, learning-curve points) is
a joblib `Parallel` call; inside `grid_backend("dask", ADDRESS)` joblib hands its tasks to the
cluster's workers instead, for grids that outgrow one machine.
"""
from __future__ import annotations

import contextlib

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
        raise UsageError("the dask backend needs Dask: pip install -e '.[dask]'") from None
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
