"""The `negation` feature type: negation words on one side of the pair, hand-computed."""
from __future__ import annotations

import pickle
import random

import pytest

from nli_baselines.features import PairFeaturizer
from nli_baselines.features.registry import FEATURE_TYPES
from nli_baselines.features.types.negation import NEGATION_WORDS, Negation
from tests.conftest import TINY, make_pair

COLUMNS = ["premise_only", "hypothesis_only", "both", "premise_count", "hypothesis_count"]


def values(pairs, **params) -> list[dict]:
    feature = Negation(scale="none", **params)
    return [dict(zip(COLUMNS, row.tolist())) for row in feature.raw_values(pairs)]


def row(premise_only=0, hypothesis_only=0, both=0, premise_count=0, hypothesis_count=0) -> dict:
    return dict(zip(COLUMNS, map(float, (premise_only, hypothesis_only, both, premise_count, hypothesis_count))))


def test_hand_computed_values():
    pairs = [
        make_pair("A man is not sleeping", "A man is sleeping"),
        make_pair("A man is sleeping", "Nobody is sleeping"),
        make_pair("The dog does n't bark", "No dog barks , never"),
        make_pair("A dog barks", "A dog barks loudly"),
        make_pair("", ""),
        make_pair("Without a hat", "NOTHING"),
    ]
    assert values(pairs) == [
        row(premise_only=1, premise_count=1),
        row(hypothesis_only=1, hypothesis_count=1),
        row(both=1, premise_count=1, hypothesis_count=2),
        row(),
        row(),
        row(both=1, premise_count=1, hypothesis_count=1),  # matched lowercased
    ]


def test_words_are_matched_lowercased_whatever_the_encoder_does():
    pair = make_pair("No man sleeps", "A man sleeps")
    assert values([pair], lowercase=False) == values([pair], lowercase=True) == [row(premise_only=1, premise_count=1)]


def test_the_list_is_one_lowercase_constant():
    assert all(w == w.lower() for w in NEGATION_WORDS)
    assert {"not", "n't", "no", "never", "nobody", "nothing", "none", "nowhere", "neither", "nor",
            "without"} <= NEGATION_WORDS
    assert not {"hardly", "barely", "a", "know", "note"} & NEGATION_WORDS


def test_negation_words_unseen_in_training_still_count():
    feature = Negation(scale="none").fit([make_pair("A man sleeps", "A man sleeps")])
    unseen = [make_pair("Nobody sleeps", "A man sleeps"), make_pair("A cat sleeps", "Neither cat sleeps nor eats")]
    assert feature.transform(unseen).toarray().tolist() == [[1, 0, 0, 1, 0], [0, 1, 0, 0, 2]]
    featurizer = PairFeaturizer(features="negation", scale="none", bins=0, n_jobs=1).fit([make_pair("a b", "a b")])
    assert featurizer.transform(unseen).toarray().tolist() == [[1, 0, 0, 1, 0], [0, 1, 0, 0, 2]]


def test_batch_equals_a_per_pair_reference():
    rng = random.Random(3)
    vocabulary = ["a", "man", "Not", "no", "n't", "sleeps", "never", "knot", "none", "."]
    pairs = [make_pair(" ".join(rng.choices(vocabulary, k=rng.randint(0, 6))),
                       " ".join(rng.choices(vocabulary, k=rng.randint(0, 6))), id=str(i)) for i in range(200)]
    feature = Negation(scale="none").fit(pairs[:50])  # the rest partly unseen
    got = feature.transform(pairs).toarray()
    for pair, out in zip(pairs, got):
        p = sum(t.lower() in NEGATION_WORDS for t in pair.premise_tokens)
        h = sum(t.lower() in NEGATION_WORDS for t in pair.hypothesis_tokens)
        assert out.tolist() == [p > 0 and h == 0, h > 0 and p == 0, p > 0 and h > 0, p, h], pair


def test_names_align_with_columns_and_it_is_registered():
    plain = Negation().fit(TINY)
    assert plain.get_feature_names_out().tolist() == [f"negation:{c}" for c in COLUMNS]
    binned = Negation(bins=5)
    X = binned.fit_transform(TINY)  # "No dogs are running": one hypothesis with a negation word
    names = binned.get_feature_names_out().tolist()
    assert len(names) == X.shape[1] and "negation:hypothesis_only:bin=1.." in names
    assert FEATURE_TYPES["negation"] is Negation and not getattr(Negation, "needs_lemmas", False)
    restored = pickle.loads(pickle.dumps(binned))
    assert (restored.transform(TINY) != X).nnz == 0


def test_single_pair_is_refused():
    with pytest.raises(ValueError, match="sequence of pairs"):
        Negation().fit(TINY[0])
