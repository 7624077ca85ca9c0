"""The similarity feature types (issue 47): char_ngrams, idf_overlap, mt_metrics, wordnet_similarity,
aligned_share, agreement and lcs: hand-computed values, sacrebleu equality (chrF, chrF++, TER),
NLTK equality (path similarity, on the real WordNet), and their fitted state in a model file."""
from __future__ import annotations

import json
import math
import random
from difflib import SequenceMatcher

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.lib_ter import translation_edit_rate as sacrebleu_ter

from nli_baselines.features import GROUPS, PairFeaturizer, resolve
from nli_baselines.features.featurizer_state import dump_featurizer, load_featurizer
from nli_baselines.features.storage.schema import Reader, StateError, Writer
from nli_baselines.features.text import characters
from nli_baselines.features.text.characters import word_pieces
from nli_baselines.features.text.ter import translation_edit_rate
from nli_baselines.features.text.wordnet_data import WordNetMissingError
from nli_baselines.features.text.wordnet_relations import WordNetRelations
from nli_baselines.features.types.agreement import Agreement, number_value
from nli_baselines.features.types.aligned_share import AlignedShare
from nli_baselines.features.types.char_ngrams import CharNgrams
from nli_baselines.features.types.idf_overlap import IdfOverlap
from nli_baselines.features.types.lcs import Lcs
from nli_baselines.features.types.mt_metrics import MtMetrics
from nli_baselines.features.types.wordnet_similarity import WordNetSimilarity
from tests.conftest import make_pair, parsed_pair
from tests.test_alignment import BITES, NOT_RUNNING
from tests.test_wordnet_features import lemma_pair


def row(feature, pair) -> dict:
    return dict(zip(feature.columns, feature.raw_values([pair])[0].tolist()))


def random_pairs(seed: int, n: int, vocab: str, longest: int = 12) -> list:
    rng = random.Random(seed)
    words = vocab.split()
    return [make_pair(" ".join(rng.choice(words) for _ in range(rng.randint(0, longest))),
                      " ".join(rng.choice(words) for _ in range(rng.randint(0, longest))), id=str(i))
            for i in range(n)]


# ------------------------------------------------------------------ char_ngrams


def test_char_ngrams_by_hand():
    # Hypothesis "ab", premise "abc". Character n-grams: hypothesis a b ab, premise a b c ab bc abc.
    # Orders 1 and 2 are effective (both have n-grams): precision 1 and 1, recall 2/3 and 1/2.
    # chrF (beta 2) of the averages P = 1, R = 7/12: 5 P R / (4 P + R) = 7/11; reversed, P and R
    # swap: 7/8. chrF++ adds word unigrams "ab" / "abc" (no match: P = R = 0): P = 2/3, R = 7/18,
    # 5 P R / (4 P + R) = 14/33.
    values = row(CharNgrams(scale="none"), make_pair("abc", "ab"))
    assert values["chrf"] == pytest.approx(7 / 11) and values["chrf_reverse"] == pytest.approx(7 / 8)
    assert values["chrf_pp"] == pytest.approx(14 / 33)
    assert [values[f"hyp_in_premise_{n}"] for n in range(1, 7)] == [1, 1, 0, 0, 0, 0]
    assert [values[f"premise_in_hyp_{n}"] for n in range(1, 7)] == pytest.approx([2 / 3, 1 / 2, 0, 0, 0, 0])


def test_char_ngrams_run_across_words_and_clip_repeats():
    # Whitespace is removed: "a b" is "ab", whose bigram the premise "ab" holds. "aa" holds two
    # a's, the premise one: one clipped match of two.
    values = row(CharNgrams(scale="none"), make_pair("ab", "a b"))
    assert values["hyp_in_premise_2"] == 1 and values["chrf"] == 1.0
    assert row(CharNgrams(scale="none"), make_pair("a", "aa"))["hyp_in_premise_1"] == 0.5


@pytest.mark.parametrize("lowercase", [True, False])
def test_chrf_equals_sacrebleu(lowercase):
    pairs = random_pairs(7, 400, "a b c the Man dog . , Dog's it's U.S. -x ab cd 'quoted' naïve aa aaa")
    pairs.append(make_pair("A man sleeps .", "A man sleeps ."))
    values = CharNgrams(lowercase=lowercase, scale="none").raw_values(pairs)
    for column, words, reverse in ((0, 0, False), (1, 0, True), (2, 2, False), (3, 2, True)):
        metric = sacrebleu.metrics.CHRF(word_order=words, lowercase=lowercase)
        expected = [metric.sentence_score(p.premise if reverse else p.hypothesis,
                                          [p.hypothesis if reverse else p.premise]).score / 100 for p in pairs]
        np.testing.assert_allclose(values[:, column], expected, rtol=0, atol=1e-12)
    assert values[-1, :4].tolist() == [1.0] * 4


def test_chrf_pp_words_split_punctuation_as_sacrebleu():
    assert word_pieces("U.S.") == ["U.S", "."] and word_pieces("'quoted'") == ["'quoted", "'"]
    assert word_pieces("-x") == ["-", "x"] and word_pieces(".") == ["."] and word_pieces("a b,") == ["a", "b", ","]


def test_char_ngrams_count_chunks_of_any_size(monkeypatch):
    pairs = random_pairs(3, 200, "ab ba abc cab a b . bb")
    whole = CharNgrams(scale="none").raw_values(pairs)
    monkeypatch.setattr(characters, "CHUNK_CHARACTERS", 7)
    assert (CharNgrams(scale="none").raw_values(pairs) == whole).all()


def test_char_ngrams_spell_words_training_never_saw():
    feature = CharNgrams(scale="none").fit([make_pair("a dog", "a cat")])
    X = feature.transform([make_pair("the zebra", "a zebra")]).toarray()
    # "thezebra" vs "azebra": unigrams a z e b r a in the premise (one a, t h e z e b r a: a once).
    assert X[0, feature.columns.index("hyp_in_premise_5")] == pytest.approx(1 / 2)  # zebra, (azebr no)


# ------------------------------------------------------------------ idf_overlap


def test_idf_overlap_by_hand():
    pairs = [make_pair("the dog runs", "the dog sleeps", premise_tags="DT NN VBZ", hypothesis_tags="DT NN VBZ"),
             make_pair("a cat", "a cat a cat", premise_tags="DT NN", hypothesis_tags="DT NN DT NN")]
    feature = IdfOverlap(scale="none")
    X = feature.fit_transform(pairs).toarray()
    # Four documents; df: the 2, dog 2, runs 1, a 2, cat 2, sleeps 1.
    assert feature.documents_ == 4
    idf2, idf1 = math.log(5 / 3) + 1, math.log(5 / 2) + 1
    assert feature.idf_.tolist() == pytest.approx([idf2, idf2, idf1, idf2, idf2, idf1])
    covered = 2 * idf2 / (2 * idf2 + idf1)  # the, dog of the, dog, sleeps
    cosine = 2 * idf2 ** 2 / (2 * idf2 ** 2 + idf1 ** 2)
    content = idf2 / (idf2 + idf1)  # dog of dog, sleeps ("the" is no content word)
    assert X[0].tolist() == pytest.approx([covered, covered, covered, cosine, content, content, content,
                                           idf2 ** 2 / (idf2 ** 2 + idf1 ** 2)])
    assert X[1].tolist() == pytest.approx([1.0] * 8)  # "a cat a cat" is "a cat" twice: the same direction


def test_idf_overlap_weighs_unseen_words_as_the_rarest_and_counts_a_shared_premise_once():
    premise = make_pair("a man sleeps", "a man", id="0")
    shared = [premise, premise.with_label("neutral"), make_pair("a woman", "a man", id="2")]
    feature = IdfOverlap(scale="none").fit(shared)
    assert feature.documents_ == 2 + 3  # the premise "a man sleeps" (its one tuple) once, "a woman", 3 hypotheses
    values = feature.transform([make_pair("a zebra", "a zebra")]).toarray()
    assert values[0, 0] == 1.0
    unseen = feature.transform([make_pair("a", "a zebra")]).toarray()[0, 0]
    idf_a, idf_new = math.log(6 / (1 + 5)) + 1, math.log(6) + 1  # "a" is in every document
    assert unseen == pytest.approx(idf_a / (idf_a + idf_new))


def test_idf_travels_in_the_model_file_and_is_checked():
    pairs = [make_pair("the dog runs", "the dog sleeps"), make_pair("a cat", "a cat sleeps")]
    featurizer = PairFeaturizer(features="idf_overlap,char_ngrams,mt_metrics,agreement,lcs", min_count=1).fit(pairs)
    writer = Writer()
    tree = json.loads(json.dumps(dump_featurizer(featurizer, writer, "featurizer")))
    restored = load_featurizer(tree, Reader(writer.arrays), "featurizer")
    unseen = [make_pair("a zebra runs", "the cat runs")]
    assert (restored.transform(unseen) != featurizer.transform(unseen)).nnz == 0
    assert restored.types_["idf_overlap"].idf_.tolist() == featurizer.types_["idf_overlap"].idf_.tolist()
    arrays = dict(writer.arrays)
    arrays["featurizer.fitted.idf_overlap.idf"] = arrays["featurizer.fitted.idf_overlap.idf"][:-1]
    with pytest.raises(StateError, match="idf_overlap.idf: n_words is"):
        load_featurizer(tree, Reader(arrays), "featurizer")
    arrays["featurizer.fitted.idf_overlap.idf"] = np.zeros(len(featurizer.encoder_.words_))
    with pytest.raises(StateError, match="idf_overlap.idf: holds 0.0, below 1.0"):
        load_featurizer(tree, Reader(arrays), "featurizer")


# ------------------------------------------------------------------ mt_metrics and TER


def test_ter_by_hand():
    pairs = [make_pair("c d a b", "a b c d"),  # one shift of "a b" (or "c d"): 1 edit of 4
             make_pair("the cat sat on the mat", "the cat sat"),  # 3 insertions of 6; reversed 3 deletions of 3
             make_pair("", "a b"), make_pair("", "")]  # an empty reference: 1 with edits, else 0
    values = MtMetrics(scale="none").raw_values(pairs)
    assert values[:, 0].tolist() == [0.25, 0.5, 1.0, 0.0]
    assert values[:, 1].tolist()[:2] == [0.25, 1.0]


def test_ter_and_reverse_bleu_equal_sacrebleu():
    pairs = random_pairs(11, 300, "a b c the man dog . , Dog it's", longest=14)
    for lowercase in (True, False):
        values = MtMetrics(lowercase=lowercase, scale="none").raw_values(pairs)
        ter = sacrebleu.metrics.TER(case_sensitive=not lowercase)
        bleu = sacrebleu.metrics.BLEU(tokenize="none", effective_order=True, lowercase=lowercase)
        for column, score in ((0, lambda p: ter.sentence_score(p.hypothesis, [p.premise]).score / 100),
                              (1, lambda p: ter.sentence_score(p.premise, [p.hypothesis]).score / 100),
                              (2, lambda p: min(bleu.sentence_score(p.premise, [p.hypothesis]).score / 100, 1.0))):
            np.testing.assert_allclose(values[:, column], [score(p) for p in pairs], rtol=0, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=16), st.lists(st.sampled_from("abcde"), max_size=16))
def test_ter_equals_tercom_on_any_pair(hypothesis, reference):
    ids = {w: i for i, w in enumerate("abcde")}
    edits, length = translation_edit_rate(np.array([ids[w] for w in hypothesis], dtype=np.int64),
                                          np.array([0, len(hypothesis)]),
                                          np.array([ids[w] for w in reference], dtype=np.int64),
                                          np.array([0, len(reference)]))
    assert (int(edits[0]), int(length[0])) == sacrebleu_ter(hypothesis, reference)


def test_ter_of_long_sentences_keeps_tercom_s_beam_and_candidate_limit():
    # References past 24 words: the beam no longer covers the matrix; a two-word vocabulary gives
    # thousands of candidate shifts, past tercom's limit of 1,000.
    rng = random.Random(5)
    problems = [([rng.choice("ab") for _ in range(rng.randint(25, 40))],
                 [rng.choice("ab") for _ in range(rng.randint(25, 45))]) for _ in range(3)]
    problems += [(list("abcdefgh" * 4), list("efghabcd" * 4))]
    ids = {w: i for i, w in enumerate("abcdefgh")}
    hyp = [np.array([ids[w] for w in h], dtype=np.int64) for h, _ in problems]
    ref = [np.array([ids[w] for w in r], dtype=np.int64) for _, r in problems]
    offsets = [np.concatenate([[0], np.cumsum([len(x) for x in side])]) for side in (hyp, ref)]
    edits, lengths = translation_edit_rate(np.concatenate(hyp), offsets[0], np.concatenate(ref), offsets[1])
    assert list(zip(edits.tolist(), lengths.tolist())) == [sacrebleu_ter(h, r) for h, r in problems]


# ------------------------------------------------------------------ wordnet_similarity


def test_path_similarity_on_the_tiny_wordnet(tiny_wordnet):
    relations = WordNetRelations(data_dir=tiny_wordnet)
    # man -> adult -> person (and man -> male -> person): 2 steps; man / woman meet at adult;
    # dog -> carnivore -> animal -> organism <- person <- adult <- man: 6 steps; verbs and
    # adjectives meet at NLTK's fake root at worst (sit / stand: one step up each).
    assert relations.path_similarity("man", "person", "n") == pytest.approx(1 / 3)
    assert relations.path_similarity("man", "woman", "n") == pytest.approx(1 / 3)
    assert relations.path_similarity("dog", "man", "n") == pytest.approx(1 / 7)
    assert relations.path_similarity("man", "adult_male", "n") == 1.0  # synonyms
    assert relations.path_similarity("run", "walk", "v") == pytest.approx(1 / 3)  # via move
    assert relations.path_similarity("run", "sit", "v") == pytest.approx(1 / 4)  # move, then the root
    assert relations.path_similarity("tall", "short", "a") == pytest.approx(1 / 3)
    assert relations.path_similarity("quokka", "dog", "n") == 0.0
    assert relations.path_similarity("quokka", "quokka", "n") == 1.0
    with pytest.raises(ValueError, match="pos must be one of"):
        relations.path_similarity("man", "person", "x")


def test_path_similarity_equals_nltk_on_the_real_wordnet(real_wordnet):
    relations = WordNetRelations()
    wn = relations.reader
    for a, b, pos in [("dog", "cat", "n"), ("man", "woman", "n"), ("car", "automobile", "n"), ("run", "walk", "v"),
                      ("eat", "drink", "v"), ("big", "large", "a"), ("red", "blue", "a"), ("quickly", "slowly", "r"),
                      ("person", "man", "n"), ("play", "perform", "v"), ("guitar", "piano", "n")]:
        best = max((s.path_similarity(t) or 0.0 for s in wn.synsets(a, pos) for t in wn.synsets(b, pos)), default=0.0)
        assert relations.path_similarity(a, b, pos) == pytest.approx(best), (a, b)


def test_wordnet_similarity_by_hand(tiny_wordnet):
    feature = WordNetSimilarity(wordnet_dir=tiny_wordnet, scale="none")
    pair = lemma_pair("A man runs", "A woman walks quickly", "DT NN VBZ", "DT NN VBZ RB", "a man run",
                      "a woman walk quickly")
    # Hypothesis: woman ~ man 1/3, walk ~ run 1/3, quickly has no adverb to meet: (1/3 + 1/3 + 0) / 3.
    # Premise: man ~ woman 1/3, run ~ walk 1/3.
    assert row(feature, pair) == pytest.approx({"hyp_to_premise": 2 / 9, "premise_to_hyp": 1 / 3, "mean": 5 / 18})
    same = lemma_pair("A man runs", "A man runs", "DT NN VBZ", "DT NN VBZ", "a man run", "a man run")
    empty = lemma_pair("A man runs", "It is", "DT NN VBZ", "PRP VBZ", "a man run", "it be")
    assert list(row(feature, same).values()) == [1.0, 1.0, 1.0]
    assert row(feature, empty)["hyp_to_premise"] == 1.0 and row(feature, empty)["premise_to_hyp"] == 0.0


def test_wordnet_similarity_fails_clearly_without_wordnet(tmp_path, monkeypatch):
    import nltk.data
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "empty"))
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "other")])
    pair = lemma_pair("A man runs", "A man runs", "DT NN VBZ", "DT NN VBZ", "a man run", "a man run")
    with pytest.raises(WordNetMissingError, match="python experiments/download.py wordnet"):
        WordNetSimilarity().fit([pair])


# ------------------------------------------------------------------ aligned_share


def test_aligned_share_by_hand(tiny_wordnet):
    feature = AlignedShare(wordnet_dir=tiny_wordnet, scale="none")
    bites, not_running = (dict(zip(feature.columns, r.tolist())) for r in feature.raw_values([BITES, NOT_RUNNING]))
    # person (hypernym of man) and bite (the same word) align; cat / dog are co-hyponyms: a conflict.
    assert bites == pytest.approx({"hyp_aligned": 2 / 3, "premise_aligned": 2 / 3, "both_aligned": 2 / 3,
                                   "hyp_same": 1 / 3, "premise_same": 1 / 3})
    # dogs (exact) and run (lemma of running) align, quickly does not; the premise's content words are
    # dogs and running ("are" is an auxiliary, "not" a negation word).
    assert not_running == pytest.approx({"hyp_aligned": 2 / 3, "premise_aligned": 1.0, "both_aligned": 4 / 5,
                                         "hyp_same": 2 / 3, "premise_same": 1.0})


# ------------------------------------------------------------------ agreement


def test_number_values():
    assert number_value("1,000", "CD") == 1000 and number_value("2.5", "CD") == 2.5 and number_value("-3", "CD") == -3
    assert number_value("two", "CD") == 2 and math.isnan(number_value("two", "NN"))
    assert math.isnan(number_value("1,00", "CD")) and math.isnan(number_value("a", "DT"))


def test_agreement_by_hand():
    feature = Agreement(scale="none")
    paid = make_pair("John paid 1,000 dollars to Mary", "Mary did not pay John 2 dollars",
                     premise_tags="NNP VBD CD NNS TO NNP", hypothesis_tags="NNP VBD RB VB NNP CD NNS")
    two = make_pair("Two dogs run in Paris", "2 dogs run in paris", premise_tags="CD NNS VBP IN NNP",
                    hypothesis_tags="CD NNS VBP IN NN")
    first, second = (dict(zip(feature.columns, r.tolist())) for r in feature.raw_values([paid, two]))
    assert first == pytest.approx({
        "numbers_log_count": math.log(3), "numbers_dice": 0.0, "numbers_subset": 0.0, "numbers_hyp_only": 1,
        "numbers_premise_only": 1, "names_log_count": math.log(5), "names_dice": 1.0, "names_subset": 1.0,
        "names_hyp_only": 0, "names_premise_only": 0, "negation_differs": 1.0, "negation_both": 0.0})
    # Two and 2 agree; "paris" is tagged NN in the hypothesis: the premise's name only.
    assert second["numbers_dice"] == 1.0 and second["names_premise_only"] == 1 and second["names_subset"] == 1.0
    assert second["names_dice"] == 0.0 and second["negation_differs"] == 0.0


# ------------------------------------------------------------------ lcs


def test_lcs_by_hand():
    feature = Lcs(scale="none")
    values = row(feature, make_pair("the dog runs in the park", "a dog runs in a park"))
    # Words: dog runs in park in order (4 of 6 each); "dog runs in" consecutively (3). Characters:
    # "adogrunsinapark" (15) against "thedogrunsinthepark" (19): "dogrunsin" + "park", 13.
    assert values == pytest.approx({"subsequence_words_hyp": 4 / 6, "subsequence_words_premise": 4 / 6,
                                    "substring_words_hyp": 3 / 6, "substring_words_premise": 3 / 6,
                                    "subsequence_chars_hyp": 13 / 15, "subsequence_chars_premise": 13 / 19})
    assert list(row(feature, make_pair("a", "")).values()) == [0.0] * 6


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=9), st.lists(st.sampled_from("abc"), max_size=9))
def test_longest_common_run_is_the_longest_common_substring_of_words(premise, hypothesis):
    values = Lcs(scale="none").raw_values([make_pair(" ".join(premise), " ".join(hypothesis))])[0]
    longest = SequenceMatcher(None, premise, hypothesis, autojunk=False).find_longest_match(
        0, len(premise), 0, len(hypothesis)).size
    assert values[2] * len(hypothesis) == pytest.approx(longest) if hypothesis else values[2] == 0.0


# ------------------------------------------------------------------ the group


def test_the_similarity_group():
    assert GROUPS["similarity"] == ("char_ngrams", "idf_overlap", "mt_metrics", "wordnet_similarity", "aligned_share",
                                    "agreement", "lcs")
    assert resolve("similarity") == list(GROUPS["similarity"])
