"""The word alignment (`features.text.word_alignment`) and the `alignment` feature type, on pairs annotated and
parsed by hand and the tiny test WordNet (tests/wordnet_fixture.py)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nli_baselines.features.text.word_alignment import STRENGTH, align, sides
from nli_baselines.features.text.wordnet_relations import WordNetRelations
from nli_baselines.features.types.alignment import Alignment
from tests.conftest import parsed_pair


def values(pairs, wordnet_dir) -> list[dict]:
    feature = Alignment(scale="none", wordnet_dir=wordnet_dir)
    return [dict(zip(feature.columns, row.tolist())) for row in feature.raw_values(pairs)]


# "The man bites the dog" / "A person bites a cat": man -> person is a hypernym (aligned), bite is
# the same lemma, dog / cat are co-hyponyms (a conflict).
BITES = parsed_pair("The man bites the dog", "A person bites a cat", "DT NN VBZ DT NN", "DT NN VBZ DT NN",
                    "the man bite the dog", "a person bite a cat",
                    "1:det 2:nsubj 2:ROOT 4:det 2:dobj", "1:det 2:nsubj 2:ROOT 4:det 2:dobj", id="bites")
# Negation on one side, at an aligned verb; "quickly" has no premise partner.
NOT_RUNNING = parsed_pair("Two dogs are not running", "Three dogs run quickly", "CD NNS VBP RB VBG", "CD NNS VBP RB",
                          "two dog be not run", "three dog run quickly",
                          "1:nummod 4:nsubj 4:aux 4:neg 4:ROOT", "1:nummod 2:nsubj 2:ROOT 2:advmod", id="not")


def test_alignment_levels_by_hand(tiny_wordnet):
    relations = WordNetRelations(data_dir=tiny_wordnet)
    p, h, _ = sides([BITES, NOT_RUNNING], relations, parse=True, name="test")
    a = align(p, h, relations)
    # Hypothesis tokens: a person bites a cat | three dogs run quickly.
    assert a.strength.tolist() == [-1, STRENGTH["hypernym"], STRENGTH["exact"], -1, STRENGTH["cohyponym"],
                                   -1, STRENGTH["exact"], STRENGTH["same"], STRENGTH["unrelated"]]
    assert a.partner.tolist() == [-1, 1, 2, -1, 4, -1, 6, 9, -1]  # flat premise indices
    # Premise: "are" is an auxiliary and "not" a negation word: neither takes part.
    assert a.premise_strength.tolist() == [-1, STRENGTH["hypernym"], STRENGTH["exact"], -1, STRENGTH["cohyponym"],
                                           -1, STRENGTH["exact"], -1, -1, STRENGTH["same"]]


def test_hand_computed_columns(tiny_wordnet):
    bites, not_running = values([BITES, NOT_RUNNING], tiny_wordnet)
    expected = {"share_aligned_noun": 0.5, "share_aligned_verb": 1.0, "share_aligned_adj": 1.0,
                "share_aligned_adv": 1.0, "conflict_noun": 1, "premise_unaligned_noun": 1,
                "share_aligned": 2 / 3, "share_exact": 1 / 3, "share_premise_covered": 2 / 3,
                "premise_unaligned": 1, "jaccard": 1 / 5,  # {man, bite, dog} vs {person, bite, cat}
                "dependents_kept": 1, "dependents_conflict": 1, "share_dependents_kept": 0.5}
    assert {k: v for k, v in bites.items() if v} == pytest.approx(expected)
    assert not_running["negation_mismatch"] == 1  # run is negated in the premise only
    assert not_running["unaligned_adv"] == 1 and not_running["unaligned"] == 1
    assert not_running["dependents_new"] == 1 and not_running["dependents_kept"] == 1  # quickly; dogs
    assert not_running["share_aligned_noun"] == 1.0 and not_running["jaccard"] == pytest.approx(2 / 3)


def test_a_hypothesis_without_content_words_is_fully_aligned(tiny_wordnet):
    pair = parsed_pair("A dog sits", "It is", "DT NN VBZ", "PRP VBZ", "a dog sit", "it be",
                       "1:det 2:nsubj 2:ROOT", "1:nsubj 1:ROOT", id="empty")
    row, = values([pair], tiny_wordnet)
    assert row["share_aligned"] == 1.0 and row["unaligned"] == 0 and row["share_dependents_kept"] == 1.0
    assert row["premise_unaligned"] == 2  # dog and sit ("be", even as the root, is no content word)


words = st.sampled_from(["dog", "cat", "man", "person", "sit", "stand", "tall", "quickly"])


@settings(max_examples=30, deadline=None)
@given(st.lists(words, min_size=1, max_size=5))
def test_identical_sentences_align_fully(tiny_wordnet, tokens):
    tags = {"sit": "VBZ", "stand": "VBZ", "tall": "JJ", "quickly": "RB"}
    text = " ".join(tokens)
    tag_text = " ".join(tags.get(t, "NN") for t in tokens)
    parse = " ".join(f"0:{'ROOT' if i == 0 else 'dep'}" for i in range(len(tokens)))
    pair = parsed_pair(text, text, tag_text, tag_text, text, text, parse, parse, id="same")
    row, = values([pair], tiny_wordnet)
    assert row["share_aligned"] == 1.0 and row["share_exact"] == 1.0 and row["jaccard"] == 1.0
    assert row["unaligned"] == 0 and row["premise_unaligned"] == 0
    assert all(0.0 <= row[c] <= 1.0 for c in row if c.startswith("share"))


def test_a_fitted_alignment_travels_in_a_model_file(tiny_wordnet, monkeypatch):
    # The model file keeps the type's declared values; its WordNetRelations come from this
    # process's own NLTK path, never from the file.
    from nli_baselines.features import PairFeaturizer
    from nli_baselines.features.featurizer_state import dump_featurizer, load_featurizer
    from nli_baselines.features.storage.schema import Reader, Writer
    monkeypatch.setenv("NLTK_DATA", str(tiny_wordnet))
    featurizer = PairFeaturizer(features="alignment").fit([BITES, NOT_RUNNING])
    writer = Writer()
    tree = json.loads(json.dumps(dump_featurizer(featurizer, writer, "featurizer")))
    restored = load_featurizer(tree, Reader(writer.arrays), "featurizer")
    assert (restored.transform([BITES, NOT_RUNNING]) != featurizer.transform([BITES, NOT_RUNNING])).nnz == 0
