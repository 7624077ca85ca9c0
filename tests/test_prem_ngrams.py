"""`prem_ngrams`: the premise's unigrams and bigrams, the premise-only counterpart of `hyp_ngrams`."""
from __future__ import annotations

from nli_baselines.features import PairFeaturizer
from nli_baselines.features.types.hyp_ngrams import HypNgrams
from nli_baselines.features.types.prem_ngrams import PremNgrams
from tests.conftest import make_pair

PAIRS = [make_pair("A man sleeps .", "A person rests .", id="a"), make_pair("A dog sleeps .", "It rests .", id="b")]


def test_names_are_the_premise_ngrams():
    feature = PremNgrams(min_count=1)
    X = feature.fit_transform(PAIRS)
    names = list(feature.get_feature_names_out())
    assert sorted(names) == sorted(["prem_ngrams:a", "prem_ngrams:man", "prem_ngrams:sleeps", "prem_ngrams:.",
                                    "prem_ngrams:dog", "prem_ngrams:a man", "prem_ngrams:man sleeps",
                                    "prem_ngrams:sleeps .", "prem_ngrams:a dog", "prem_ngrams:dog sleeps"])
    row_b = {names[j] for j in X[1].indices}
    assert row_b == {"prem_ngrams:a", "prem_ngrams:dog", "prem_ngrams:sleeps", "prem_ngrams:.", "prem_ngrams:a dog",
                     "prem_ngrams:dog sleeps", "prem_ngrams:sleeps ."}


def test_swapping_the_sides_gives_hyp_ngrams_columns():
    swapped = [make_pair(p.hypothesis, p.premise, id=p.id) for p in PAIRS]
    premise = PremNgrams(min_count=1).fit(PAIRS)
    hypothesis = HypNgrams(min_count=1).fit(swapped)
    strip = [name.split(":", 1)[1] for name in premise.get_feature_names_out()]
    assert sorted(strip) == sorted(name.split(":", 1)[1] for name in hypothesis.get_feature_names_out())
    featurizer = PairFeaturizer(features="premise_only", min_count=1).fit(PAIRS)
    assert featurizer.get_feature_names_out()[0].startswith("prem_ngrams:")
