"""The `syntax` feature type: roles, voice and negation scope from parses written by hand, on the tiny
test WordNet (tests/wordnet_fixture.py)."""
from __future__ import annotations

import numpy as np

from nli_baselines.features.types.syntax import Syntax
from tests.conftest import parsed_pair


def nonzero(pairs, wordnet_dir) -> list[dict]:
    feature = Syntax(scale="none", wordnet_dir=wordnet_dir)
    return [{c: v for c, v in zip(feature.columns, row.tolist()) if v} for row in feature.raw_values(pairs)]


ACTIVE = "1:det 2:nsubj 2:ROOT 4:det 2:dobj"


def test_subject_verb_object_by_hand(tiny_wordnet):
    pairs = [
        # man -> person (hypernym: match), bite = bite, dog / cat co-hyponyms (conflict)
        parsed_pair("The man bites the dog", "A person bites a cat", "DT NN VBZ DT NN", "DT NN VBZ DT NN",
                    "the man bite the dog", "a person bite a cat", ACTIVE, ACTIVE, id="svo"),
        # the same words, subject and object swapped
        parsed_pair("The dog bites the man", "The man bites the dog", "DT NN VBZ DT NN", "DT NN VBZ DT NN",
                    "the dog bite the man", "the man bite the dog", ACTIVE, ACTIVE, id="swap"),
    ]
    svo, swap = nonzero(pairs, tiny_wordnet)
    # Triples: (bite, person) aligns to the premise arc (bite, man); (bite, cat) is a conflict.
    assert svo == {"subject_match": 1, "verb_match": 1, "object_conflict": 1, "triples_matched": 1,
                   "share_triples_matched": 0.5, "triples_unmatched": 1}
    # dog and man meet only at organism (3 steps up): unrelated in the tiny WordNet.
    assert swap == {"subject_differs": 1, "verb_match": 1, "object_differs": 1, "roles_swapped": 1,
                    "triples_matched": 2, "share_triples_matched": 1.0}


def test_passive_voice_keeps_the_logical_roles(tiny_wordnet):
    pair = parsed_pair("The cat is bitten by the dog", "No animal bites the cat", "DT NN VBZ VBN IN DT NN",
                       "DT NN VBZ DT NN", "the cat be bite by the dog", "no animal bite the cat",
                       "1:det 3:nsubjpass 3:auxpass 3:ROOT 3:agent 6:det 4:pobj", ACTIVE, id="passive")
    row, = nonzero([pair], tiny_wordnet)
    # The agent (dog) is the logical subject, matched by the more general "animal"; the passive
    # subject (cat) is the logical object. "No animal" negates the hypothesis' predicate.
    assert row == {"subject_match": 1, "verb_match": 1, "object_match": 1, "passive_premise": 1,
                   "voice_differs": 1, "negated_verb_hypothesis": 1, "negation_scope_differs": 1,
                   "triples_matched": 2, "share_triples_matched": 1.0}


def test_negation_scope_and_missing_roles(tiny_wordnet):
    pairs = [
        parsed_pair("The dog is not running", "The dog runs", "DT NN VBZ RB VBG", "DT NN VBZ",
                    "the dog be not run", "the dog run", "1:det 4:nsubj 4:aux 4:neg 4:ROOT",
                    "1:det 2:nsubj 2:ROOT", id="neg"),
        parsed_pair("The man eats", "The man eats no dog", "DT NN VBZ", "DT NN VBZ DT NN", "the man eat",
                    "the man eat no dog", "1:det 2:nsubj 2:ROOT", ACTIVE, id="obj"),
        # "there is a man sitting": the predicate is the verb the existential introduces
        parsed_pair("There is a man sitting", "A man sits", "EX VBZ DT NN VBG", "DT NN VBZ", "there be a man sit",
                    "a man sit", "1:expl 1:ROOT 3:det 1:attr 3:acl", "1:det 2:nsubj 2:ROOT", id="there"),
    ]
    neg, obj, there = nonzero(pairs, tiny_wordnet)
    assert neg == {"subject_match": 1, "verb_match": 1, "negated_verb_premise": 1, "negation_scope_differs": 1,
                   "triples_matched": 1, "share_triples_matched": 1.0}
    assert obj == {"subject_match": 1, "verb_match": 1, "object_missing_premise": 1, "negated_object_hypothesis": 1,
                   "negation_scope_differs": 1, "triples_matched": 1, "share_triples_matched": 0.5,
                   "triples_unmatched": 1}
    assert there["subject_match"] == 1 and there["verb_match"] == 1 and "verb_differs" not in there


def test_a_batch_whose_every_premise_or_hypothesis_is_empty(tiny_wordnet):
    # Once an IndexError: with no token on one side, no index could be clipped to a token.
    from nli_baselines.features.types.alignment import Alignment
    from nli_baselines.features.types.quantifiers import Quantifiers
    full = parsed_pair("The man bites the dog", "A person bites a cat", "DT NN VBZ DT NN", "DT NN VBZ DT NN",
                       "the man bite the dog", "a person bite a cat", ACTIVE, ACTIVE, id="full")
    no_hypothesis = parsed_pair("The man bites the dog", "", "DT NN VBZ DT NN", "", "the man bite the dog", "",
                                ACTIVE, "", id="h")
    no_premise = parsed_pair("", "The man bites the dog", "", "DT NN VBZ DT NN", "", "the man bite the dog", "",
                             ACTIVE, id="p")
    for cls in (Syntax, Alignment, Quantifiers):
        feature = cls(scale="none", wordnet_dir=tiny_wordnet).fit([full])
        for batch in ([no_hypothesis], [no_premise], [no_premise, no_hypothesis]):
            values = feature.raw_values(batch)
            assert values.shape == (len(batch), len(feature.columns)) and np.isfinite(values).all()
    # The empty side has no roles; the hypothesis' arcs have nothing to match.
    assert nonzero([no_hypothesis], tiny_wordnet) == [{"subject_missing_hypothesis": 1, "verb_missing_hypothesis": 1,
                                                       "object_missing_hypothesis": 1, "share_triples_matched": 1.0}]
    assert nonzero([no_premise], tiny_wordnet) == [{"subject_missing_premise": 1, "verb_missing_premise": 1,
                                                    "object_missing_premise": 1, "triples_unmatched": 2}]
