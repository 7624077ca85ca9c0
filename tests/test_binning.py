"""Discretized copies of real-valued features: edges fitted on train, one bin per value, readable names."""
from __future__ import annotations

import numpy as np
import pytest

from nli_baselines.features import PairFeaturizer
from nli_baselines.features.columns.binning import bin_index, bin_names, fit_edges
from nli_baselines.features.types.length_diff import LengthDiff
from tests.conftest import make_pair


def test_integer_values_get_a_bin_each_and_the_ends_stay_open():
    edges = fit_edges(np.array([-3, -3, -1, 0, 0, 2]), bins=5, integer=True)
    assert edges.tolist() == [-2.5, -0.5, 0.5]  # 4 values seen, at most 5 bins: one per value
    assert bin_names(edges, integer=True) == ["bin=..-3", "bin=-2..-1", "value=0", "bin=1.."]
    assert bin_index(np.array([-9, -3, -2, -1, 0, 1, 2, 7]), edges).tolist() == [0, 0, 1, 1, 2, 3, 3, 3]


@pytest.mark.parametrize("n_edges", [0, 1, 4, 16, 17, 40])
def test_bin_index_counts_the_edges_at_or_below_each_value_as_a_binary_search_does(n_edges):
    rng = np.random.default_rng(n_edges)
    edges = np.unique(rng.normal(size=n_edges).round(1))
    values = np.concatenate([rng.normal(size=500).round(1), edges, [np.nan, np.inf, -np.inf, -0.0, 0.0]])
    expected = np.searchsorted(edges, values, side="right")  # NaN sorts last: in the top bin
    got = bin_index(values, edges)
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()
    assert bin_index(np.arange(-3, 4), edges).tolist() == np.searchsorted(edges, np.arange(-3.0, 4.0), "right").tolist()


def test_too_many_integer_values_fall_back_to_quantiles_between_integers():
    values = np.arange(-10, 10)
    edges = fit_edges(values, bins=4, integer=True)
    assert len(edges) == 3 and all(e % 1 == 0.5 for e in edges)
    assert (fit_edges(values, bins=4, integer=True, integer_mode="quantiles") == edges).all()
    assert len(fit_edges(np.array([1, 2, 3]), bins=5, integer=True, integer_mode="quantiles")) <= 4


def test_real_values_use_quantiles_and_ties_at_the_minimum_leave_no_empty_bin():
    bleu = np.array([0, 0, 0, 0, 0, 0.2, 0.4, 0.6, 0.8, 1.0])
    edges = fit_edges(bleu, bins=4, integer=False)
    assert edges.min() > 0  # half the values are 0: the first bin is [.., first edge) and holds them
    counts = np.bincount(bin_index(bleu, edges), minlength=len(edges) + 1)
    assert counts.min() > 0 and counts.sum() == 10
    assert bin_names(np.array([0.123456, 0.5]), integer=False) == ["bin=..0.123", "bin=0.123..0.5", "bin=0.5.."]
    assert fit_edges(bleu, bins=0, integer=False).size == 0 and fit_edges(np.zeros(0), 5, False).size == 0


def test_length_diff_binned_columns_and_names():
    train = [make_pair("a b c d", "a b"), make_pair("a", "a b c"), make_pair("a b", "a b"), make_pair("a b", "a")]
    feature = LengthDiff(scale="none", bins=5).fit(train)  # differences -2, 2, 0, -1
    # Seen values -2, -1, 0, 2: edges halfway between them, so 1 (never seen) shares the last bin with 2.
    assert feature.get_feature_names_out().tolist() == [
        "length_diff:hyp_minus_premise", "length_diff:bin=..-2", "length_diff:value=-1", "length_diff:value=0",
        "length_diff:bin=1.."]
    X = feature.transform([make_pair("a b c", "a"), make_pair("a", "a b c d e f")]).toarray()
    assert X.tolist() == [[-2, 1, 0, 0, 0], [5, 0, 0, 0, 1]]  # unseen 5 falls in the open last bin
    assert [feature.feature_name(i) for i in range(5)] == feature.get_feature_names_out().tolist()


def test_bins_are_a_featurizer_option(tiny):
    off = PairFeaturizer(features="unlexicalized", bins=0).fit(tiny)
    on = PairFeaturizer(features="unlexicalized", bins=3).fit(tiny)
    assert off.n_features_out_ == 6 and on.n_features_out_ > 6
    names = on.get_feature_names_out()
    assert list(names[:6]) == list(off.get_feature_names_out()) or names[0] == "bleu:score"
    assert any(n.startswith("overlap:count_all:") for n in names) and any(":bin=" in n for n in names)
    X = on.transform(tiny)
    assert X.shape == (len(tiny), len(names))
    with pytest.raises(ValueError, match="bins must be at least 0"):
        PairFeaturizer(bins=-1).fit(tiny)
