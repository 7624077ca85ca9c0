"""The `quantifiers` feature type: quantifier classes, numbers and monotonicity, by hand, on the tiny
test WordNet (tests/wordnet_fixture.py)."""
from __future__ import annotations

from nli_baselines.features.types.quantifiers import CLASSES, NUMBER_WORDS, Quantifiers
from tests.conftest import parsed_pair


def nonzero(pairs, wordnet_dir) -> list[dict]:
    feature = Quantifiers(scale="none", wordnet_dir=wordnet_dir)
    return [{c: v for c, v in zip(feature.columns, row.tolist()) if v} for row in feature.raw_values(pairs)]


SUBJECT_VERB = "1:det 2:nsubj 2:ROOT"


def pair(premise, hypothesis, ptags, htags, plemmas, hlemmas, pparse=SUBJECT_VERB, hparse=SUBJECT_VERB, id="q"):
    return parsed_pair(premise, hypothesis, ptags, htags, plemmas, hlemmas, pparse, hparse, id=id)


def test_numbers_by_hand(tiny_wordnet):
    pairs = [
        pair("Two dogs sit", "Three dogs sit", "CD NNS VBP", "CD NNS VBP", "two dog sit", "three dog sit",
             "1:nummod 2:nsubj 2:ROOT", "1:nummod 2:nsubj 2:ROOT", id="2-3"),
        pair("Two dogs sit", "2 dogs sit", "CD NNS VBP", "CD NNS VBP", "two dog sit", "2 dog sit",
             "1:nummod 2:nsubj 2:ROOT", "1:nummod 2:nsubj 2:ROOT", id="2-2"),
        # "a" counts as one against an explicit number; "the" and "a" alone are no numbers at all
        pair("A dog sits", "Two dogs sit", "DT NN VBZ", "CD NNS VBP", "a dog sit", "two dog sit",
             SUBJECT_VERB, "1:nummod 2:nsubj 2:ROOT", id="a-2"),
        pair("The dog sits", "A dog sits", "DT NN VBZ", "DT NN VBZ", "the dog sit", "a dog sit", id="the-a"),
        pair("The dog sits", "Two dogs sit", "DT NN VBZ", "CD NNS VBP", "the dog sit", "two dog sit",
             SUBJECT_VERB, "1:nummod 2:nsubj 2:ROOT", id="the-2"),
    ]
    two_three, two_two, a_two, the_a, the_two = nonzero(pairs, tiny_wordnet)
    assert two_three == {"numbers_premise": 1, "numbers_hypothesis": 1, "numbers_unmatched": 1, "number_mismatch": 1}
    assert two_two == {"numbers_premise": 1, "numbers_hypothesis": 1, "number_match": 1}
    assert a_two == {"numbers_hypothesis": 1, "numbers_unmatched": 1, "number_mismatch": 1}
    assert the_a == {"quantifier_match": 1}  # both plain existential determiners
    assert the_two == {"numbers_hypothesis": 1, "numbers_unmatched": 1, "number_hypothesis_only": 1}


def test_quantifier_classes_and_monotonicity(tiny_wordnet):
    pairs = [
        # upward: a dog sits => an animal sits (the hypothesis noun is more general)
        pair("A dog sits", "An animal sits", "DT NN VBZ", "DT NN VBZ", "a dog sit", "an animal sit", id="up"),
        # downward: every dog sits does not give every animal sits
        pair("Every dog sits", "Every animal sits", "DT NN VBZ", "DT NN VBZ", "every dog sit", "every animal sit",
             id="down"),
        # no animal sits => no dog sits (more specific under a downward quantifier)
        pair("No animal sits", "No dog sits", "DT NN VBZ", "DT NN VBZ", "no animal sit", "no dog sit", id="no"),
        pair("A man sits", "No man sits", "DT NN VBZ", "DT NN VBZ", "a man sit", "no man sit", id="flip"),
        pair("All dogs sit", "Some dogs sit", "DT NNS VBP", "DT NNS VBP", "all dog sit", "some dog sit", id="all"),
    ]
    up, down, no, flip, every = nonzero(pairs, tiny_wordnet)
    assert up == {"quantifier_match": 1, "monotone_entailing": 1}
    assert down == {"universal_premise": 1, "universal_hypothesis": 1, "quantifier_match": 1,
                    "monotone_violating": 1}
    assert no == {"negative_premise": 1, "negative_hypothesis": 1, "quantifier_match": 1, "monotone_entailing": 1}
    assert flip == {"negative_hypothesis": 1, "quantifier_differs": 1, "negative_flip": 1}
    assert every == {"universal_premise": 1, "quantifier_differs": 1, "universal_flip": 1}


def test_word_lists_are_lowercase_and_disjoint():
    seen = [w for words in CLASSES.values() for w in words]
    assert len(seen) == len(set(seen)) and all(w == w.lower() for w in seen)
    assert NUMBER_WORDS["two"] == 2 and NUMBER_WORDS["dozen"] == 12
