"""The benchmarks' own machinery, on tiny inputs (the figures themselves come from benchmark.py runs)."""
from __future__ import annotations

import sys

import pytest

from benchmarks.measure.commands import bench_commands, run_process


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
    stages = run["stages"]
    ratio = stages["fit_and_evaluate"] / (stages["load_and_annotate"] + stages["featurize"])
    assert run["fit_over_read_and_featurize"] == pytest.approx(ratio)
    assert figures["fit_over_read_and_featurize_median"] == pytest.approx(ratio)


def test_the_fit_over_read_and_featurize_ratio_counts_the_parse_as_reading():
    from benchmarks.measure.commands import fit_over_read_and_featurize
    assert fit_over_read_and_featurize({"load_and_annotate": 8.2, "featurize": 5.5, "fit_and_evaluate": 13.7}) == pytest.approx(1.0)
    assert fit_over_read_and_featurize({"load_and_annotate": 5.0, "parse": 3.0, "featurize": 2.0,
                                        "fit_and_evaluate": 30.0}) == pytest.approx(3.0)
    assert fit_over_read_and_featurize({"featurize": 2.0}) is None


def test_the_machine_record_says_which_kernels_ran():
    # Every benchmark record carries the CPU, numpy's SIMD groups and OpenBLAS's kernel beside its
    # figures; switched off in a child, numpy's groups above its baseline are gone from its record.
    import json
    import os
    import subprocess

    from benchmarks.measure.machine import describe, machine
    here = machine()
    assert here["cpu"] and here["cores"] >= here["usable_cores"] >= 1 and here["numpy_simd"]["baseline"] is not None
    assert here["blas"] and all({"library", "kernel", "threads"} <= set(b) for b in here["blas"])
    assert describe(here).startswith(here["cpu"])
    if not here["numpy_simd"]["found"]:
        pytest.skip("numpy found no SIMD group above its baseline on this CPU")
    code = "import json; from benchmarks.measure.machine import machine; print(json.dumps(machine()))"
    groups = ",".join(here["numpy_simd"]["found"])
    child = subprocess.run([sys.executable, "-c", code], env={**os.environ, "NPY_DISABLE_CPU_FEATURES": groups},
                           capture_output=True, text=True, timeout=120, check=True)
    there = json.loads(child.stdout)
    assert there["numpy_simd"] == {"baseline": here["numpy_simd"]["baseline"], "found": []}
    assert there["settings"]["NPY_DISABLE_CPU_FEATURES"] == groups
    assert "only" in describe(there)


def test_the_benchmark_default_is_snli_size():
    from benchmarks import benchmark
    from benchmarks.synthetic import SNLI_TRAIN_PAIRS
    assert benchmark.SNLI_TRAIN_PAIRS == SNLI_TRAIN_PAIRS


def test_the_featurizing_benchmark_alternates_our_runs_with_hashing_vectorizer_s(monkeypatch):
    # The ratio against HashingVectorizer is only fair if both see the same machine: a round of
    # ours, then one of theirs, rather than all of ours and then all of theirs.
    from benchmarks.synthetic import generate_pairs
    from benchmarks.measure import featurizing
    calls = []
    featurize, hashing = featurizing._featurize, featurizing._hashing_seconds
    monkeypatch.setattr(featurizing, "_featurize",
                        lambda pairs, **params: (calls.append(("ours", len(pairs))), featurize(pairs, **params))[1])
    monkeypatch.setattr(featurizing, "_hashing_seconds", lambda pairs: (calls.append(("hashing", len(pairs))),
                                                                        hashing(pairs))[1])
    pairs = generate_pairs(300, seed=0)
    figures = featurizing.bench_features(pairs, repeats=3, dict_pairs=50, jobs=1)
    assert calls[:6] == [("ours", 300), ("hashing", 300)] * 3
    assert len(figures["hashing_ngrams"]["runs"]) == 3 and figures["hashing_ngrams"]["interleaved"]
    rounds = figures["ratio_vs_hashing_ngrams_by_round"]
    assert rounds == [h / ours for h, ours in zip(figures["hashing_ngrams"]["runs"], figures["featurize_runs"])]
    assert figures["ratio_vs_hashing_ngrams"] == pytest.approx(
        figures["hashing_ngrams"]["seconds"] / figures["featurize_seconds"])


def test_the_featurizing_benchmark_measures_the_similarity_types_alone():
    # `benchmark.py --types similarity`: each type of the group alone; the ones that read spelling,
    # WordNet or parses on real SICK pairs, said so, and without --data-dir not measured, said so.
    from benchmarks.measure import featurizing
    from benchmarks.synthetic import generate_pairs
    from nli_baselines.features import BUILTIN, resolve
    names = resolve("similarity")
    assert set(names) <= set(BUILTIN)
    figures = featurizing.bench_types(generate_pairs(200, seed=0), names)
    real = {"char_ngrams", "mt_metrics", "lcs", "wordnet_similarity", "aligned_share"}
    assert real <= set(featurizing.REAL_PAIRS)
    assert set(figures["per_type"]) == set(names) - real and figures["pairs"] == 200
    assert all(figures["per_type_notes"][name].startswith("not measured: needs real pairs") for name in real)


@pytest.mark.slow
def test_the_strongest_benchmark_runs_cold_then_warm(real_wordnet):
    # ~40 s: two real runs of --features strongest on 400 generated pairs.
    figures = bench_commands("strongest", None, n_pairs=400, seed=0, repeats=1, dev_pairs=400)["strongest"]
    (run,) = figures["runs"]
    for kind in ("cold", "warm"):
        assert run[kind]["command"][2:6] == ["--dataset", "snli", "--features", "strongest"]
        assert {"load_and_annotate", "parse", "featurize", "fit_and_evaluate"} <= set(run[kind]["stages"])
        assert {"alignment", "syntax"} <= set(run[kind]["featurize_by_type"])
    assert figures["cold"]["wall_seconds_median"] == run["cold"]["wall_seconds"]
    assert run["cold"]["dev_accuracy"] == run["warm"]["dev_accuracy"]  # the cache changes no number


@pytest.mark.slow
def test_parses_read_off_the_snli_sample_s_trees_agree_with_the_parser(data_dir, real_wordnet):
    from benchmarks.measure.tree_parses import bench_tree_parses
    record = bench_tree_parses(data_dir / "snli_1.0_sample" / "snli_1.0_dev.jsonl", Cs=(0.03,), folds=3)["tree_parses"]
    assert record["pairs"] == 1273 and record["read_off_trees"] == record["sentences"] == 1697
    assert record["uas"] > 0.88 and record["las"] > 0.86 and record["identical_cells"] > 0.97
    cv = record["cv"]["0.03"]
    assert abs(cv["accuracy_trees"] - cv["accuracy_parser"]) < 0.02
