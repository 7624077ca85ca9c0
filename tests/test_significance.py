"""Significance: McNemar's exact test and the paired bootstrap, by hand; compare.py on two records."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import binom

from nli_baselines.experiments.stats.significance import compare_predictions, mcnemar, paired_bootstrap


def test_mcnemar_exact_by_hand():
    a = np.array([1] * 12 + [0] * 7 + [1] * 50 + [0] * 10, dtype=bool)
    b = np.array([0] * 12 + [1] * 7 + [1] * 50 + [0] * 10, dtype=bool)
    result = mcnemar(a, b)
    assert (result["a_only"], result["b_only"]) == (12, 7)
    # Two-sided exact binomial test of 7 of 19 disagreements at p = 1/2.
    assert result["p"] == pytest.approx(2 * binom.cdf(7, 19, 0.5))
    assert mcnemar(a, a)["p"] == 1.0 and mcnemar([True], [False])["p"] == 1.0
    with pytest.raises(ValueError, match="different numbers of pairs"):
        mcnemar([True, False], [True])


def test_paired_bootstrap_interval():
    a = np.array([1, 1, 1, 0] * 50, dtype=bool)
    b = np.array([1, 0, 1, 0] * 50, dtype=bool)
    result = paired_bootstrap(a, b, resamples=2000, seed=1)
    assert result["delta"] == 0.25
    low, high = result["interval"]
    assert low < 0.25 < high and 0.15 < low and high < 0.35
    assert paired_bootstrap(a, b, resamples=2000, seed=1) == result  # seeded


def test_compare_refuses_different_pairs():
    a = {"ids": ["1", "2"], "gold": ["x", "y"], "predicted": ["x", "x"]}
    with pytest.raises(ValueError, match="different pairs"):
        compare_predictions(a, {**a, "ids": ["1", "3"]})
    with pytest.raises(ValueError, match="different gold labels"):
        compare_predictions(a, {**a, "gold": ["x", "x"]})
    same = compare_predictions(a, a)
    assert same["delta"] == 0 and same["mcnemar_p"] == 1.0 and same["accuracy_a"] == 0.5


def test_compare_cli_on_two_runs(cli, tmp_path):
    for name, extra in (("full", []), ("ablated", ["--ablate", "cross_bigrams"])):
        done = cli("run", "--dataset", "demo", "--quiet", "--C", "1", "--out", tmp_path / f"{name}.json", *extra)
        assert done.returncode == 0, done.stderr
    done = cli("compare", tmp_path / "full.json", tmp_path / "ablated.json", "--out", tmp_path / "cmp.json")
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "cmp.json").read_text())
    full, ablated = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("full", "ablated"))
    assert result["pairs"] == 1000 and result["accuracy_a"] == full["metrics"]["dev"]["accuracy"]
    assert result["delta"] == pytest.approx(full["metrics"]["dev"]["accuracy"] - ablated["metrics"]["dev"]["accuracy"])
    gold = np.array(full["rows"][0]["predictions"]["gold"])
    right_a = np.array(full["rows"][0]["predictions"]["predicted"]) == gold
    right_b = np.array(ablated["rows"][0]["predictions"]["predicted"]) == gold
    assert result["mcnemar"]["a_only"] == int(np.sum(right_a & ~right_b))
    assert "McNemar's exact test" in done.stdout and "95% interval of the difference" in done.stdout
    assert "chance alone would give a split this uneven" in done.stdout  # p read in words
    table = cli("run", "--dataset", "demo", "--quiet", "--C", "1", "--ablation-table", "--features", "unlexicalized",
                "--out", tmp_path / "table.json")
    assert table.returncode == 0, table.stderr
    rows = json.loads((tmp_path / "table.json").read_text())["rows"]
    assert "delta" not in rows[0] and all({"delta", "mcnemar_p", "vs"} <= set(r) for r in rows[1:])
    assert rows[1]["vs"] == "unlexicalized" and "vs reference" in table.stdout
    ambiguous = cli("compare", tmp_path / "table.json", tmp_path / "full.json")
    assert ambiguous.returncode == 2 and "pick one with --row-a" in ambiguous.stderr
    picked = cli("compare", tmp_path / "table.json", tmp_path / "table.json", "--row-a", "unlexicalized",
                 "--row-b=-bleu")
    # A row's delta is its accuracy minus the full set's: A (full) - B (-bleu) is its negation.
    assert picked.returncode == 0, picked.stderr
    assert f"difference A - B {-100 * rows[1]['delta']:+.1f} points" in picked.stdout
    # The API gives the same comparison.
    import nli_baselines as nb
    assert nb.compare(tmp_path / "full.json", tmp_path / "ablated.json")["delta"] == result["delta"]
