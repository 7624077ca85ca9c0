"""Where the grids run: local joblib workers, or an existing Dask distributed cluster.

Every grid of the suite (paper-table rows, ablation tables, C grids, learning-curve points) is
a joblib `Parallel` call; inside `grid_backend("dask", ADDRESS)` joblib hands its tasks to the
cluster's workers instead, for grids that outgrow one machine.
"""
from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import tempfile

import cloudpickle
import joblib

from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.features.runtime.commands import install_command

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
        # lazy: Dask is an extra (dask), needed only with --backend dask
        from dask.distributed import Client
    except ImportError:
        raise UsageError(f"the dask backend needs Dask: {install_command('dask')}") from None
    try:
        client = Client(scheduler, timeout=30)
    except (OSError, ValueError, TypeError) as exc:  # ValueError: an address that is not one ("missing port")
        raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {exc} (an address looks like "
                         "tcp://host:8786)") from None
    try:
        with joblib.parallel_config(backend="dask"):
            yield client
    except Exception as exc:
        # The scheduler or its workers lost mid-grid: the grid cannot finish; say so in one line.
        # lazy: Dask is an extra (dask), needed only with --backend dask
        from dask.distributed import CancelledError
        from dask.distributed import TimeoutError as DaskTimeout
        if isinstance(exc, (CancelledError, DaskTimeout)) or type(exc).__name__ in ("FutureCancelledError",
                                                                                     "CommClosedError"):
            raise UsageError(f"the Dask cluster at {scheduler} went away during the grid ({type(exc).__name__}: "
                             f"{str(exc)[:200]}); nothing was written: start it again and rerun") from None
        raise
    finally:
        client.close()


def n_jobs(backend: str, jobs: int) -> int:
    """Dask schedules over all its workers; locally, the requested count."""
    return -1 if backend == "dask" else jobs


class _Inline:
    """The object itself: tasks that run in this process, or on a cluster that ships arguments."""

    def __init__(self, obj):
        self.obj = obj

    def get(self):
        return self.obj


class _OnDisk:
    """A file each local worker process loads once, on its first task."""

    def __init__(self, path: str):
        self.path = path

    def get(self):
        if _LOADED.get("path") != self.path:
            _LOADED.clear()  # a worker outlives its grid: keep one grid's object, not every one
            with open(self.path, "rb") as handle:
                _LOADED.update(path=self.path, obj=pickle.load(handle))
        return _LOADED["obj"]


_LOADED: dict = {}


@contextlib.contextmanager
def shared(obj, backend: str = "local", jobs: int = 1):
    """A handle whose `get()` returns `obj` inside the tasks of one grid.

    joblib pickles a task's arguments for every task: at SNLI scale the annotated splits take
    ~6 s to pickle and ~6 s to unpickle, which a learning curve's 30 points paid each. Local
    workers instead load one file once each; tasks run in this process (`jobs` 1) read `obj`
    itself, and a Dask cluster gets it as an argument (its workers need not share this machine's
    disk). The file is written by cloudpickle, as joblib sends tasks, so that feature types
    defined in a notebook or a script travel by value.
    """
    if backend != "local" or jobs == 1:
        yield _Inline(obj)
        return
    folder = tempfile.mkdtemp(prefix="nli-grid-")
    try:
        path = os.path.join(folder, "shared.pickle")
        with open(path, "wb") as handle:
            cloudpickle.dump(obj, handle, protocol=pickle.HIGHEST_PROTOCOL)
        yield _OnDisk(path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
