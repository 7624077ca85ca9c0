"""Feature types: hand-computed values, sacrebleu equality, properties, and the estimator contract."""
from __future__ import annotations

import importlib
import pickle
import random
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from nli_baselines.features import (BUILTIN, FEATURE_TYPES, GROUPS, PAPER_TYPES, PairFeaturizer, register_feature,
                                    resolve, unregister_feature)
from nli_baselines.features.registry import build
from nli_baselines.features.types.bleu import Bleu
from nli_baselines.features.types.cross_bigrams import CrossBigrams
from nli_baselines.features.types.cross_unigrams import CrossUnigrams
from nli_baselines.features.types.hyp_ngrams import HypNgrams
from nli_baselines.features.types.length_diff import LengthDiff
from nli_baselines.features.types.overlap import Overlap
from nli_baselines.features.types.prem_ngrams import PremNgrams
from tests.conftest import TINY, make_pair, remember_tiny_parses
from tests.wordnet_fixture import write_tiny_wordnet


def row_names(feature, pair, fit_on=None):
    """Names of the nonzero columns of `pair`, the feature fitted on `fit_on` (default: the pair)."""
    feature.fit(fit_on or [pair])
    X = feature.transform([pair])
    names = feature.get_feature_names_out()
    return sorted(names[c] for c in X.indices)


# ------------------------------------------------------------------ hand-computed values


def test_overlap_counts_and_pos_filter():
    pair = make_pair("The old man sleeps", "The man sleeps soundly", premise_tags="DT JJ NN VBZ",
                     hypothesis_tags="DT NN VBZ RB")
    # all words: the, man, sleeps occur in the premise (3 of 4); content words (NN*, VB*, JJ*, RB*)
    # of the hypothesis: man, sleeps, soundly; the premise has man and sleeps as content words.
    assert Overlap().raw_values([pair]).tolist() == [[3, 0.75, 2, pytest.approx(2 / 3)]]


def test_overlap_content_requires_content_on_both_sides():
    pair = make_pair("walk the dog", "the walk", premise_tags="IN DT NN", hypothesis_tags="DT NN")
    # "walk" is NN in the hypothesis but IN in the premise: a word match, not a content match.
    assert Overlap().raw_values([pair]).tolist() == [[2, 1.0, 0, 0.0]]


def test_overlap_repeated_words_and_empty_hypothesis():
    repeated = make_pair("a dog", "a dog and a cat", premise_tags="DT NN", hypothesis_tags="DT NN CC DT NN")
    empty = make_pair("a dog", "", premise_tags="DT NN")
    values = Overlap().raw_values([repeated, empty])
    assert values[0].tolist() == [2, 0.4, 1, 0.5]  # the premise's one "a" covers one of two; content: dog
    assert values[1].tolist() == [0, 1.0, 0, 1.0]  # nothing to cover: full overlap by convention
    positions = Overlap(count="positions").raw_values([repeated])
    assert positions[0].tolist() == [3, 0.6, 1, 0.5]  # every hypothesis "a" found in the premise counts


def test_length_diff():
    pairs = [make_pair("a b c d", "a b"), make_pair("a", "a b c"), make_pair("", "")]
    assert LengthDiff().raw_values(pairs).ravel().tolist() == [-2, 2, 0]


def test_scaling_of_real_values():
    pairs = [make_pair("a b c d", "a b"), make_pair("a", "a b c d e"), make_pair("a b", "a b")]  # -2, 4, 0
    maxabs = LengthDiff(scale="maxabs")
    assert maxabs.fit_transform(pairs).toarray().ravel().tolist() == [-0.5, 1.0, 0.0]
    assert maxabs.transform([make_pair("a", "a b c d e f g h i")]).toarray().tolist() == [[2.0]]  # train's scale
    standard = LengthDiff(scale="standard").fit_transform(pairs).toarray().ravel()
    np.testing.assert_allclose(standard, (np.array([-2, 4, 0]) - 2 / 3) / np.std([-2, 4, 0]), rtol=1e-6)
    assert LengthDiff(scale="none").fit_transform(pairs).toarray().ravel().tolist() == [-2, 4, 0]
    constant = LengthDiff(scale="maxabs").fit_transform([make_pair("a", "a")] * 2).toarray()
    assert constant.tolist() == [[0.0], [0.0]]  # an all-zero column is left as it is, not divided by 0
    with pytest.raises(ValueError, match="scale must be one of 'none', 'standard', 'maxabs'"):
        LengthDiff(scale="minmax").fit(pairs)


def test_hyp_ngrams_one_token_and_punctuation():
    assert row_names(HypNgrams(), make_pair("x y", "Dogs")) == ["hyp_ngrams:dogs"]
    assert row_names(HypNgrams(), make_pair("x", "A dog .")) == [
        "hyp_ngrams:.", "hyp_ngrams:a", "hyp_ngrams:a dog", "hyp_ngrams:dog", "hyp_ngrams:dog ."]
    assert row_names(HypNgrams(lowercase=False), make_pair("x", "A a")) == [
        "hyp_ngrams:A", "hyp_ngrams:A a", "hyp_ngrams:a"]
    assert row_names(HypNgrams(), make_pair("x", "")) == []


def test_cross_unigrams_share_a_tag():
    pair = make_pair("The man runs .", "A person walks .", premise_tags="DT NN VBZ .",
                     hypothesis_tags="DT NN VBZ .")
    assert row_names(CrossUnigrams(tag_match="exact"), pair) == [
        "cross_unigrams:.|.", "cross_unigrams:man|person", "cross_unigrams:runs|walks", "cross_unigrams:the|a"]


def test_cross_unigrams_tag_match_exact_vs_first_letter():
    pair = make_pair("dogs run", "a dog ran", premise_tags="NNS VBP", hypothesis_tags="DT NN VBD")
    assert row_names(CrossUnigrams(tag_match="exact"), pair) == []
    assert row_names(CrossUnigrams(tag_match="first_letter"), pair) == [
        "cross_unigrams:dogs|dog", "cross_unigrams:run|ran"]


def test_cross_bigrams_second_word_rule():
    pair = make_pair("the man runs", "a woman walks fast", premise_tags="DT NN VBZ",
                     hypothesis_tags="DT NN VBZ RB")
    # Premise bigrams end in NN (the man) and VBZ (man runs); hypothesis bigrams end in NN, VBZ, RB.
    assert row_names(CrossBigrams(tag_match="exact"), pair) == [
        "cross_bigrams:man runs|woman walks", "cross_bigrams:the man|a woman"]
    # The first word's tag does not matter: "big man" (JJ NN) still pairs with "a woman" (DT NN).
    other = make_pair("big man", "a woman", premise_tags="JJ NN", hypothesis_tags="DT NN")
    assert row_names(CrossBigrams(tag_match="exact"), other) == ["cross_bigrams:big man|a woman"]


def test_cross_bigrams_repeated_bigram_is_one_indicator():
    pair = make_pair("a dog a dog", "a dog", premise_tags="DT NN DT NN", hypothesis_tags="DT NN")
    feature = CrossBigrams(tag_match="exact").fit([pair])
    X = feature.transform([pair])
    assert X.nnz == 1 and X.data.tolist() == [1.0]
    assert feature.get_feature_names_out().tolist() == ["cross_bigrams:a dog|a dog"]


@pytest.mark.parametrize("min_count", [1, 2, 3])
@pytest.mark.parametrize("kind", [CrossUnigrams, CrossBigrams, HypNgrams, PremNgrams])
def test_packed_and_generic_key_paths_give_the_same_columns(kind, min_count, monkeypatch):
    # The packed path of cross_bigrams also leaves out hypothesis bigrams rarer than min_count.
    from benchmarks.synthetic import generate_pairs
    pairs = TINY + generate_pairs(300, seed=4, vocab_size=60)
    params = {"min_count": min_count, **({"tag_match": "exact"} if "tag_match" in kind().get_params() else {})}
    packed = kind(**params).fit(pairs)
    # A batch encoded by the fitted encoder holds unseen bigrams (id -1), which neither path keys.
    other = packed.encoder_.encode(generate_pairs(120, seed=5, vocab_size=80))
    assert (other.hypothesis.bigram_at < 0).sum() > 20
    packed_other = kind(**params).fit(other)
    monkeypatch.setattr(kind, "_packed_keys", lambda self, batch, row_bits: None)
    generic = kind(**params).fit(pairs)
    assert (packed.keys_.keys == generic.keys_.keys).all() and len(packed.keys_) > 50
    assert (packed.transform(pairs) != generic.transform(pairs)).nnz == 0
    assert (packed.fit_transform(pairs) != generic.fit_transform(pairs)).nnz == 0
    generic_other = kind(**params).fit(other)
    assert (packed_other.keys_.keys == generic_other.keys_.keys).all()
    assert (packed_other.transform(other) != generic_other.transform(other)).nnz == 0


def test_dense_matrix_is_the_sparse_values_then_the_bin_indicators():
    from benchmarks.synthetic import generate_pairs
    pairs = TINY + generate_pairs(200, seed=6, vocab_size=30)
    zeros_left_out = 0
    for feature in (Overlap(bins=4), Bleu(bins=3, scale="standard"), LengthDiff(scale="none", bins=0),
                    Overlap(scale="none", bins=5)):
        X = feature.fit_transform(pairs)
        values = feature.raw_values(pairs)
        scaled = sp.csr_matrix(((values - feature.center_) / feature.scale_).astype(np.float32))  # zeros left out
        binned = [j for j, edges in enumerate(feature.bin_edges_) if len(edges)]
        offsets = np.cumsum([0] + [len(feature.bin_edges_[j]) + 1 for j in binned])
        indicators = sp.csr_matrix((len(pairs), offsets[-1]), dtype=np.float32)
        if binned:
            cols = np.column_stack([offsets[i] + np.searchsorted(feature.bin_edges_[j], values[:, j], side="right")
                                    for i, j in enumerate(binned)])
            indicators = sp.csr_matrix((np.ones(cols.size, dtype=np.float32), cols.ravel(),
                                        np.arange(0, cols.size + 1, len(binned))), shape=(len(pairs), offsets[-1]))
        expected = sp.hstack([scaled, indicators], format="csr")
        zeros_left_out += values.size - scaled.nnz
        assert X.shape == expected.shape and X.indices.dtype == np.int32 and X.has_sorted_indices
        assert (X.indptr == expected.indptr).all() and (X.indices == expected.indices).all()
        assert (X.data == expected.data).all()
    assert zeros_left_out > 100


def test_bleu_and_overlap_count_rows_in_blocks_of_any_size(monkeypatch):
    from benchmarks.synthetic import generate_pairs
    from nli_baselines.features.columns import encoding
    pairs = TINY + generate_pairs(400, seed=8, vocab_size=30)
    whole = [Bleu().raw_values(pairs), Overlap().raw_values(pairs), Overlap(count="positions").raw_values(pairs)]
    for rows, tokens in ((1, 9), (7, 60), (64, 1000)):
        monkeypatch.setattr(encoding, "ROW_CHUNK", rows)
        monkeypatch.setattr(encoding, "CHUNK_TOKENS", tokens)
        blocks = [Bleu().raw_values(pairs), Overlap().raw_values(pairs), Overlap(count="positions").raw_values(pairs)]
        assert all((a == b).all() for a, b in zip(whole, blocks)), rows


def test_lowercase_parameter():
    pair = make_pair("The dog", "the dog")
    assert Overlap(lowercase=True).raw_values([pair])[0, 0] == 2
    assert Overlap(lowercase=False).raw_values([pair])[0, 0] == 1


def test_min_count_keeps_features_of_enough_pairs():
    pairs = [make_pair("a dog", "a cat", premise_tags="DT NN", hypothesis_tags="DT NN", id=str(i)) for i in range(3)]
    pairs.append(make_pair("the man", "a cat", premise_tags="DT NN", hypothesis_tags="DT NN", id="x"))
    feature = CrossUnigrams(tag_match="exact", min_count=3)
    X = feature.fit_transform(pairs)
    assert feature.get_feature_names_out().tolist() == ["cross_unigrams:a|a", "cross_unigrams:dog|cat"]
    assert X.toarray().tolist() == [[1, 1], [1, 1], [1, 1], [0, 0]]
    assert (feature.transform(pairs) != X).nnz == 0


def test_unseen_features_are_ignored():
    feature = CrossUnigrams(tag_match="exact").fit([make_pair("a man", "a person", premise_tags="DT NN",
                                                              hypothesis_tags="DT NN")])
    X = feature.transform([make_pair("a zebra", "a horse", premise_tags="DT NN", hypothesis_tags="DT NN")])
    assert X.shape == (1, 2)
    names = feature.get_feature_names_out()
    assert [names[c] for c in X.indices] == ["cross_unigrams:a|a"]


# ------------------------------------------------------------------ BLEU against sacrebleu


@pytest.mark.parametrize("smoothing", ["exp", "floor", "add-k", "none"])
def test_bleu_equals_sacrebleu(smoothing):
    rng = random.Random(7)
    vocab = "a b c the man dog . ,".split()
    pairs = [make_pair(" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 15))),
                       " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 10)))) for _ in range(400)]
    pairs.append(make_pair("A man sleeps .", "A man sleeps ."))
    ours = Bleu(smoothing=smoothing, lowercase=False).fit_transform(pairs).toarray().ravel()
    metric = sacrebleu.metrics.BLEU(tokenize="none", effective_order=True, smooth_method=smoothing)
    expected = [min(metric.sentence_score(p.hypothesis, [p.premise]).score / 100, 1.0) for p in pairs]
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-6)  # float32 output
    assert ours[-1] == 1.0


def test_bleu_lowercase_matches_sacrebleu_lowercase():
    pair = make_pair("The Man sleeps", "the man sleeps now")
    metric = sacrebleu.metrics.BLEU(tokenize="none", effective_order=True, lowercase=True)
    assert Bleu().raw_values([pair])[0, 0] == pytest.approx(metric.sentence_score(pair.hypothesis, [pair.premise]).score / 100)


# ------------------------------------------------------------------ properties

words = st.sampled_from(["a", "A", "man", "dog", "runs", ".", "the", "not"])
tags = st.sampled_from(["DT", "NN", "VBZ", ".", "RB", "JJ"])
sentence = st.lists(st.tuples(words, tags), max_size=9)


def pair_from(premise, hypothesis, i=0):
    return make_pair(" ".join(w for w, _ in premise), " ".join(w for w, _ in hypothesis), "neutral",
                     " ".join(t for _, t in premise) or None, " ".join(t for _, t in hypothesis) or None, f"h{i}")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(sentence, sentence), min_size=1, max_size=6))
def test_dense_values_stay_in_range(rows):
    pairs = [pair_from(p, h, i) for i, (p, h) in enumerate(rows)]
    overlap = Overlap().raw_values(pairs)
    h_len = np.array([len(h) for _, h in rows])
    assert (overlap[:, 0] <= h_len).all() and (overlap[:, 2] <= overlap[:, 0]).all()
    assert ((overlap[:, [1, 3]] >= 0) & (overlap[:, [1, 3]] <= 1)).all()
    bleu = Bleu().raw_values(pairs).ravel()
    assert ((bleu >= 0) & (bleu <= 1)).all()


@settings(max_examples=60, deadline=None)
@given(sentence.filter(bool))
def test_identical_sentences_overlap_fully(s):
    pair = pair_from(s, s)
    values = Overlap().raw_values([pair])[0]
    assert values[0] == len(s) and values[1] == 1.0 and values[3] == 1.0
    assert Bleu().raw_values([pair])[0, 0] == 1.0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(sentence, sentence), min_size=2, max_size=6))
def test_batch_equals_one_at_a_time_and_names_align(rows):
    pairs = [pair_from(p, h, i) for i, (p, h) in enumerate(rows)]
    featurizer = PairFeaturizer(n_jobs=1, min_count=1).fit(TINY + pairs)
    batch = featurizer.transform(pairs)
    alone = sp.vstack([featurizer.transform([p]) for p in pairs]).tocsr()
    assert batch.shape == alone.shape and (batch != alone).nnz == 0
    names = featurizer.get_feature_names_out()
    assert len(names) == batch.shape[1]
    for i, pair in enumerate(pairs):
        p_words = {w.lower() for w in pair.premise_tokens}
        h_words = {w.lower() for w in pair.hypothesis_tokens}
        for col in batch[i].indices:
            kind, _, value = names[col].partition(":")
            if kind == "cross_unigrams":
                left, right = value.split("|")
                assert left in p_words and right in h_words
            elif kind == "hyp_ngrams":
                assert set(value.split(" ")) <= h_words


# ------------------------------------------------------------------ contract, every registered type


# Lemmas by hand for the words of TINY and the contract's unseen pair; every other lemma is the
# lowercased word. Types that read lemmas (`needs_lemmas`) need them; the others ignore them.
_LEMMAS = {"is": "be", "are": "be", "sleeping": "sleep", "running": "run", "eating": "eat", "playing": "play",
           "dogs": "dog", "quokkas": "quokka", "wombats": "wombat"}


def lemmatized(pairs):
    def side(tokens, tags):
        return tokens, tags, tuple(_LEMMAS.get(t.lower(), t.lower()) for t in tokens)
    return [p.with_annotation(side(p.premise_tokens, p.premise_tags), side(p.hypothesis_tokens, p.hypothesis_tags))
            for p in pairs]


CONTRACT = lemmatized(TINY)


@pytest.fixture(params=sorted(FEATURE_TYPES))
def feature(request, tmp_path, monkeypatch):
    built = build(request.param, {"lowercase": True, "tag_match": "exact", "scale": "standard", "bleu_smoothing": "exp"})
    if "wordnet_dir" in built.get_params():
        # The tiny test WordNet, so the contract holds on machines without WordNet 3.0; loading
        # puts its directory on nltk.data.path, which must not outlive the test.
        import nltk.data
        monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
        built.set_params(wordnet_dir=write_tiny_wordnet(tmp_path / "nltk_data"))
    if getattr(built, "needs_parses", False):
        remember_tiny_parses()  # parses by hand: the contract must not depend on a parser
    return built


def test_contract(feature):
    with pytest.raises(NotFittedError):
        feature.transform(CONTRACT)
    X = feature.fit_transform(CONTRACT)
    assert sp.issparse(X) and X.format == "csr" and X.dtype == np.float32 and X.shape[0] == len(CONTRACT)
    names = feature.get_feature_names_out()
    assert len(names) == X.shape[1] and all(n.startswith(feature.name + ":") for n in names)
    assert X.nnz > 0 and (feature.transform(CONTRACT) != X).nnz == 0
    unseen = lemmatized([make_pair("Quokkas juggle .", "Wombats dance .", premise_tags="NNS VBP .",
                                   hypothesis_tags="NNS VBP .")])
    assert feature.transform(unseen).shape == (1, X.shape[1])
    restored = pickle.loads(pickle.dumps(feature))
    assert (restored.transform(CONTRACT) != X).nnz == 0
    fresh = clone(feature)
    assert fresh.get_params() == feature.get_params() and not hasattr(fresh, "encoder_")
    with pytest.raises(ValueError, match="sequence of pairs"):
        feature.transform("A man sleeps.")
    with pytest.raises(ValueError, match="sequence of pairs"):
        feature.transform(TINY[0])


def test_the_builtin_types_are_the_modules_of_features_types_one_each():
    """A built-in feature type is one module in features/types/, named as the type, defining
    that type and no other; every module there is registered."""
    from nli_baselines.features import types
    from nli_baselines.features.base import FeatureType
    folder = Path(types.__file__).parent
    assert sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__") == sorted(BUILTIN)
    assert not [p for p in folder.iterdir() if p.is_dir() and p.name != "__pycache__"]
    for name in BUILTIN:
        kind = FEATURE_TYPES[name]
        module = importlib.import_module(f"nli_baselines.features.types.{name}")
        assert kind.__module__ == module.__name__ and kind.name == name
        defined = [v for v in vars(module).values()
                   if isinstance(v, type) and issubclass(v, FeatureType) and v.__module__ == module.__name__]
        assert defined == [kind]


WORD_COUNT = """
import numpy as np

from nli_baselines.features.base import DenseFeature


class WordCount(DenseFeature):
    name = "word_count"
    columns = integer_columns = ("hypothesis_words",)

    def _values(self, batch):
        return batch.hypothesis.lengths.astype(np.float64)[:, None]
"""


def test_a_new_type_is_one_module_and_its_registration(tmp_path, monkeypatch):
    # What adding a built-in type takes: the module (here written to a temporary folder) and the
    # line `"word_count": WordCount` in FEATURE_TYPES; conftest restores the registry afterwards.
    (tmp_path / "word_count.py").write_text(WORD_COUNT)
    monkeypatch.syspath_prepend(str(tmp_path))
    FEATURE_TYPES["word_count"] = importlib.import_module("word_count").WordCount
    featurizer = PairFeaturizer(features="unlexicalized,word_count", bins=0)
    X = featurizer.fit_transform(TINY)
    names = list(featurizer.get_feature_names_out())
    assert X.shape == (len(TINY), len(names)) and "word_count:hypothesis_words" in names
    column = X[:, names.index("word_count:hypothesis_words")].toarray().ravel()
    lengths = np.array([len(p.hypothesis_tokens) for p in TINY], dtype=np.float64)
    assert np.allclose(column, (lengths - lengths.mean()) / lengths.std())
    assert resolve("lexicalized,word_count", ablate=["word_count"]) == list(GROUPS["lexicalized"])


def test_unannotated_pairs_are_refused():
    from nli_baselines.features.pair import Pair
    with pytest.raises(ValueError, match="annotate"):
        Overlap().fit([Pair("x", "a b", "c")])


# ------------------------------------------------------------------ registry, combiner, custom features


def test_groups_and_resolve():
    assert GROUPS["lexicalized"] == PAPER_TYPES == ("bleu", "length_diff", "overlap", "hyp_ngrams", "cross_unigrams",
                                                    "cross_bigrams")
    assert GROUPS["extended"] == PAPER_TYPES + ("wordnet", "negation")
    assert GROUPS["strongest"] == GROUPS["extended"] + ("alignment", "syntax", "quantifiers")
    # the premise-only baseline's type, in no model's group; then the similarity measures (issue 47)
    assert BUILTIN == GROUPS["strongest"] + ("prem_ngrams",) + GROUPS["similarity"]
    assert resolve("unigrams_only") == ["bleu", "length_diff", "overlap", "hyp_ngrams", "cross_unigrams"]
    assert resolve("lexicalized", ["cross_bigrams"]) == resolve("unigrams_only")
    assert resolve("unlexicalized") == ["bleu", "length_diff", "overlap"]
    assert resolve("hypothesis_only") == ["hyp_ngrams"]
    assert resolve("premise_only") == ["prem_ngrams"]
    assert resolve("bleu,cross_unigrams") == ["bleu", "cross_unigrams"]
    with pytest.raises(ValueError, match="unknown feature type or group 'cross_trigrams'.*valid names: .*cross_bigrams"):
        resolve("cross_trigrams")


def test_combiner_ablation_is_column_removal():
    full = PairFeaturizer(n_jobs=2, min_count=1).fit(TINY)
    ablated = PairFeaturizer(ablate=["cross_bigrams"], n_jobs=1, min_count=1).fit(TINY)
    full_names = full.get_feature_names_out()
    assert list(ablated.get_feature_names_out()) == [n for n in full_names if not n.startswith("cross_bigrams:")]
    X = full.transform(TINY)
    kept = [i for i, n in enumerate(full_names) if not n.startswith("cross_bigrams:")]
    assert abs(X[:, kept] - ablated.transform(TINY)).max() == 0
    assert full.feature_name(full.slices_["cross_unigrams"].start).startswith("cross_unigrams:")
    cols = full.columns_for(["bleu", "cross_unigrams"])
    n_bleu = full.slices_["bleu"].stop - full.slices_["bleu"].start
    assert [full_names[c].split(":")[0] for c in cols] == ["bleu"] * n_bleu + ["cross_unigrams"] * (len(cols) - n_bleu)
    assert (full.columns_for("unigrams_only") == np.array(kept)).all()
    with pytest.raises(ValueError, match="not in this featurizer"):
        ablated.columns_for(["cross_bigrams"])
    restored = pickle.loads(pickle.dumps(full))
    assert abs(restored.transform(TINY) - X).max() == 0


def test_custom_feature_by_name():
    @register_feature("hyp_not")
    def hyp_not(pair):
        return {"hyp_not": float("not" in pair.hypothesis_tokens), "n_words": len(pair.hypothesis_tokens)}
    try:
        pairs = TINY + [make_pair("A dog runs", "A dog is not running")]
        featurizer = PairFeaturizer(features="unlexicalized,hyp_not").fit(pairs)
        names = list(featurizer.get_feature_names_out())
        assert names[-2:] == ["hyp_not:hyp_not", "hyp_not:n_words"]
        X = featurizer.transform(pairs).toarray()
        assert X[-1, -2] == 1.0 and X[0, -2] == 0.0 and X[-1, -1] == 5.0
        assert "hyp_not" not in PairFeaturizer(features="unlexicalized,hyp_not", ablate=["hyp_not"]).feature_types
        # A registered type never changes what the paper's groups mean.
        assert resolve("lexicalized") == list(PAPER_TYPES) and "hyp_not" not in resolve("unigrams_only")
        with pytest.raises(ValueError, match="already taken"):
            register_feature("hyp_not", lambda pair: {})
    finally:
        unregister_feature("hyp_not")
    assert "hyp_not" not in FEATURE_TYPES


# ------------------------------------------------------------------ same features as the straightforward build


@pytest.mark.parametrize("tag_match", ["exact", "first_letter"])
def test_same_features_as_the_dict_build(tag_match):
    from benchmarks.synthetic import generate_pairs
    from benchmarks.measure.dict_reference import dict_featurize
    pairs = TINY + generate_pairs(300, seed=3, vocab_size=60)
    X_dict, vectorizer = dict_featurize(pairs, tag_match=tag_match)
    dict_names = vectorizer.get_feature_names_out()
    ours = PairFeaturizer(tag_match=tag_match, scale="none", bins=0, n_jobs=1, min_count=1)
    X = ours.fit_transform(pairs)
    names = ours.get_feature_names_out()
    for i in range(len(pairs)):
        expected = {dict_names[c]: v for c, v in zip(X_dict[i].indices, X_dict[i].data) if v != 0}
        got = {names[c]: v for c, v in zip(X[i].indices, X[i].data)}
        assert set(got) == set(expected), pairs[i]
        for name, value in expected.items():
            assert got[name] == pytest.approx(value, abs=1e-6), (pairs[i], name)
