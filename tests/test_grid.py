"""Grids: the ablation table, and the same results on a Dask LocalCluster as on local workers."""
from __future__ import annotations

import os

import pytest

import nli_baselines as nb
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.engine.parallel import grid_backend


def metrics_by_row(record):
    return {r["name"]: (r["metrics"]["dev"]["accuracy"], r.get("selection", {}).get("chosen")) for r in record["rows"]}


def test_ablation_table_rows():
    record = nb.run(dataset="demo", ablation_table=True, features="unlexicalized", quiet=True, C=1.0,
                    jobs=2).record
    assert [r["name"] for r in record["rows"]] == ["unlexicalized", "-bleu", "-length_diff", "-overlap"]
    assert record["rows"][1]["features"] == ["length_diff", "overlap"]


@pytest.fixture
def environment_restored():
    """Dask's LocalCluster leaves OMP_NUM_THREADS=1 (and more) in os.environ for its workers; later
    tests that start processes (the notebook's kernel) would inherit them and run on one thread."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.mark.slow  # a cluster of worker processes: ~25 s
def test_dask_local_cluster_gives_the_local_results(environment_restored):
    distributed = pytest.importorskip("dask.distributed", reason="the dask extra is not installed")
    config = dict(dataset="demo", paper_table=True, quiet=True, C=(0.1, 1.0))
    local = nb.run(**config, jobs=2).record
    with distributed.LocalCluster(host="127.0.0.1", n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote = nb.run(**config, backend="dask", scheduler=cluster.scheduler_address).record
    assert metrics_by_row(remote) == metrics_by_row(local)


def test_dask_backend_needs_a_scheduler():
    with pytest.raises(UsageError, match="--scheduler"):
        with grid_backend("dask", None):
            pass


def _shared_sum(handle, index):
    obj = handle.get()
    return index, float(obj["matrix"][index].sum()), obj["words"][index]


def test_shared_object_reaches_each_worker_without_riding_on_every_task():
    """A grid's large input is one file the local workers load once; a task carries only its path."""
    import pickle

    import numpy as np
    from joblib import Parallel, delayed

    from nli_baselines.experiments.engine.parallel import shared

    obj = {"matrix": np.arange(200_000, dtype=float).reshape(1000, 200), "words": [f"w{i}" for i in range(1000)]}
    with shared(obj, "local", 2) as handle:
        assert len(pickle.dumps(handle)) < 500  # the task's argument: a path, not 1.6 MB of numbers
        got = Parallel(n_jobs=2)(delayed(_shared_sum)(handle, i) for i in (0, 7, 999))
        folder = os.path.dirname(handle.path)
    assert got == [(0, float(sum(range(200))), "w0"), (7, float(sum(range(1400, 1600))), "w7"),
                   (999, float(sum(range(199_800, 200_000))), "w999")]
    assert not os.path.exists(folder)  # removed with the grid
    with shared(obj, "local", 1) as handle:  # one job: in this process, the object itself
        assert handle.get() is obj


def test_a_feature_type_defined_in_a_notebook_reaches_the_workers():
    """A notebook's function lives in __main__, which worker processes do not have: the grid's
    shared file must carry it by value (cloudpickle), as joblib carries task arguments."""
    from nli_baselines.features import register_feature, unregister_feature

    def not_in_hypothesis(pair):
        return {"not": float("not" in pair.hypothesis_tokens)}

    not_in_hypothesis.__module__ = "__main__"  # as defined in a notebook cell
    register_feature("nb_not", not_in_hypothesis)
    try:
        record = nb.run(dataset="demo", features="unlexicalized,nb_not", ablation_table=True, jobs=2,
                        C=1.0, quiet=True).record
    finally:
        unregister_feature("nb_not")
    assert [r["name"] for r in record["rows"]][-1] == "-nb_not"
    full, without = record["rows"][0], record["rows"][-1]
    assert full["n_columns"] == without["n_columns"] + 1
