"""The benchmarks' own machinery, on tiny inputs (the figures themselves come from benchmark.py runs)."""
from __future__ import annotations

import sys

from experiments.measure.commands import bench_commands, run_process


def test_run_process_times_a_child_and_its_peak_memory(tmp_path):
    grow = "x = bytearray(64 * 2 ** 20); import sys; print('done', file=sys.stderr)"
    figures = run_process([sys.executable, "-c", grow], tmp_path / "child")
    assert figures["wall_seconds"] > 0 and figures["peak_rss_bytes"] >= 64 * 2 ** 20
    assert "done" in figures["stderr_tail"] and len(figures["load_average_before"]) == 3


def test_the_main_job_benchmark_reads_the_record_of_a_real_run():
    # A dev split as large as train, so that --tune-on auto chooses C on dev along the path, as it
    # does at SNLI scale (below 50,000 training pairs with a smaller dev split it cross-validates).
    figures = bench_commands("main_job", None, n_pairs=1200, seed=0, repeats=1, dev_pairs=1200)["main_job"]
    run, = figures["runs"]
    assert run["command"][:6] == ["python", "experiments/run.py", "--dataset", "snli", "--ablate", "cross_bigrams"]
    assert set(run["stages"]) >= {"load_and_annotate", "featurize", "fit_and_evaluate"}
    assert run["chosen"]["C"] > 0 and not run["refit"] and figures["every_fit_converged"]
    assert run["scores"] and run["fits"] and 0 < run["dev_accuracy"] <= 1
    assert figures["wall_seconds_median"] == run["wall_seconds"] and figures["same_choice_every_run"]


def test_the_benchmark_default_is_snli_size():
    from experiments import benchmark
    from experiments.corpora.synthetic import SNLI_TRAIN_PAIRS
    assert benchmark.SNLI_TRAIN_PAIRS == SNLI_TRAIN_PAIRS
