"""WordNet relations (`features.text.wordnet_relations`) and the `wordnet` feature type, on the tiny WordNet the
tests write (tests/wordnet_fixture.py), and on the real WordNet 3.0 when it is installed."""
from __future__ import annotations

import pickle
import random

import nltk.data
import numpy as np
import pytest
from sklearn.base import clone

from nli_baselines.features import GROUPS, PAPER_TYPES, PairFeaturizer, resolve
from nli_baselines.features.pair import Pair
from nli_baselines.features.registry import FEATURE_TYPES
from nli_baselines.features.text.wordnet_data import WordNetMissingError, load_wordnet
from nli_baselines.features.text.wordnet_relations import RELATIONS, WordNetRelations, coarse_pos, free_cells
from nli_baselines.features.types.wordnet import WordNet
from tests.conftest import make_pair
from tests.wordnet_fixture import write_tiny_wordnet


@pytest.fixture
def tiny(tmp_path):
    return write_tiny_wordnet(tmp_path / "nltk_data")


@pytest.fixture
def relations(tiny):
    return WordNetRelations(data_dir=tiny)


def lemma_pair(premise: str, hypothesis: str, premise_tags: str, hypothesis_tags: str, premise_lemmas: str,
               hypothesis_lemmas: str, id: str = "p") -> Pair:
    pair = make_pair(premise, hypothesis, "entailment", premise_tags, hypothesis_tags, id)
    return pair.with_annotation((pair.premise_tokens, pair.premise_tags, tuple(premise_lemmas.split())),
                                (pair.hypothesis_tokens, pair.hypothesis_tags, tuple(hypothesis_lemmas.split())))


SITTING = lemma_pair("A man is sitting", "A person is standing", "DT NN VBZ VBG", "DT NN VBZ VBG",
                     "a man be sit", "a person be stand", "sitting")


def counts(feature, pairs) -> list[dict]:
    values = feature.raw_values(pairs)
    return [{c[len("count_"):]: int(v) for c, v in zip(feature.columns, row) if c.startswith("count_") and v}
            for row in values]


# ------------------------------------------------------------------ relations between lemmas


@pytest.mark.parametrize("premise, hypothesis, pos, expected", [
    ("dog", "dog", "n", "same"),
    ("Dog", "DOG", "n", "same"),                      # lemmas are compared lowercased
    ("man", "adult_male", "n", "synonym"),
    ("man", "person", "n", "hypernym"),               # man -> adult -> person: 2 steps
    ("dog", "animal", "n", "hypernym"),
    ("dog", "organism", "n", "hypernym"),             # 3 steps: the default depth
    ("person", "man", "n", "hyponym"),
    ("tall", "short", "a", "antonym"),
    ("stand", "sit", "v", "antonym"),                 # either direction
    ("man", "woman", "n", "antonym"),                 # antonym is stronger than cohyponym (both under adult)
    ("dog", "cat", "n", "cohyponym"),                 # both directly under carnivore
    ("run", "walk", "v", "cohyponym"),
    ("dog", "man", "n", "unrelated"),                 # they meet only at organism, 3 steps up
    ("quokka", "dog", "n", "unrelated"),              # unknown to WordNet
    ("dog", "dog_food", "n", "unrelated"),
])
def test_relations_on_the_tiny_wordnet(relations, premise, hypothesis, pos, expected):
    assert relations.relation(premise, hypothesis, pos) == expected


def test_depth_limits(tiny):
    assert WordNetRelations(data_dir=tiny, max_depth=2).relation("dog", "organism", "n") == "unrelated"
    assert WordNetRelations(data_dir=tiny, max_depth=2).relation("organism", "dog", "n") == "unrelated"
    assert WordNetRelations(data_dir=tiny, max_depth=3).relation("dog", "entity", "n") == "unrelated"
    assert WordNetRelations(data_dir=tiny, max_depth=None).relation("dog", "entity", "n") == "hypernym"
    assert WordNetRelations(data_dir=tiny, max_depth=None).relation("entity", "dog", "n") == "hyponym"
    # Siblings further up: dog and man both reach organism in 3 steps.
    assert WordNetRelations(data_dir=tiny, cohyponym_depth=3).relation("dog", "man", "n") == "cohyponym"
    with pytest.raises(ValueError, match="max_depth must be a positive integer or None"):
        WordNetRelations(data_dir=tiny, max_depth=0)
    with pytest.raises(ValueError, match="cohyponym_depth must be a positive integer"):
        WordNetRelations(data_dir=tiny, cohyponym_depth=None)


def test_substitutable_is_synonym_or_hypernym_within_three_steps(tiny):
    relations = WordNetRelations(data_dir=tiny, max_depth=None)
    assert relations.substitutable("man", "man", "n") and relations.substitutable("man", "adult_male", "n")
    assert relations.substitutable("man", "person", "n") and relations.substitutable("dog", "organism", "n")
    assert not relations.substitutable("dog", "entity", "n")  # 4 steps: a hypernym, but too far
    assert relations.relation("dog", "entity", "n") == "hypernym"
    assert not relations.substitutable("person", "man", "n")  # more specific: not entailed
    assert not relations.substitutable("tall", "short", "a") and not relations.substitutable("dog", "cat", "n")
    # Its depth does not follow the relation's: with max_depth 1, man -> person is no `hypernym`,
    # but still a free substitution.
    shallow = WordNetRelations(data_dir=tiny, max_depth=1)
    assert shallow.relation("man", "person", "n") == "unrelated" and shallow.substitutable("man", "person", "n")


def test_coarse_pos_and_pos_check(relations):
    assert [coarse_pos(t) for t in ("NN", "NNPS", "VBD", "JJR", "RBS", "DT", "IN", "PRP", ".")] == [
        "n", "n", "v", "a", "r", None, None, None, None]
    with pytest.raises(ValueError, match="pos must be one of n, v, a, r"):
        relations.relation("dog", "cat", "NN")


def test_each_distinct_pair_is_computed_once(relations, monkeypatch):
    reads = []
    original = type(relations.reader).synsets
    monkeypatch.setattr(type(relations.reader), "synsets",
                        lambda self, lemma, pos=None, *a, **k: reads.append((lemma, pos)) or original(self, lemma, pos))
    for _ in range(3):
        assert relations.relation("man", "person", "n") == "hypernym"
        assert relations.substitutable("man", "person", "n")
    assert relations.lookups == 1 and sorted(reads) == [("man", "n"), ("person", "n")]
    ids = relations.lemma_ids(["man", "person", "dog", "cat", "man"])
    codes = relations.codes(ids[[0, 2, 0, 2, 4]], ids[[1, 3, 1, 3, 1]], np.zeros(5, dtype=np.int64))
    assert [RELATIONS[c] for c in codes] == ["hypernym", "cohyponym", "hypernym", "cohyponym", "hypernym"]
    assert relations.lookups == 2  # man/person came from the cache, dog/cat once for both cells
    assert sorted(reads) == [("cat", "n"), ("dog", "n"), ("man", "n"), ("person", "n")]  # each lemma read once
    # The same pair under another part of speech is another pair.
    assert relations.relation("man", "person", "v") == "unrelated" and relations.lookups == 3


def test_relations_pickle_without_the_reader(relations):
    assert relations.relation("man", "person", "n") == "hypernym"
    blob = pickle.dumps(relations)
    assert b"WordNetCorpusReader" not in blob
    copy = pickle.loads(blob)
    assert copy._reader is None and len(copy) == 1
    assert copy.relation("man", "person", "n") == "hypernym" and copy.lookups == 1  # cached: no reader needed
    assert copy._reader is None
    assert copy.relation("dog", "cat", "n") == "cohyponym" and copy._reader is not None  # loaded again


def test_an_explicit_reader(tiny):
    relations = WordNetRelations(load_wordnet(tiny))
    assert relations.relation("dog", "animal", "n") == "hypernym"


def test_free_cells_mark_wordnet_substitutions(relations):
    pair = lemma_pair("The men sat", "A person sat", "DT NNS VBD", "DT NN VBD", "the man sit", "a person sit")
    stop = {"DT"}
    # Kept tokens: men, sat / person, sat. men -> person is free (hypernym); sat = sat is a plain match.
    assert free_cells([pair], stop, relations) == [[(0, 0)]]
    reverse = lemma_pair("A person sat", "The men sat", "DT NN VBD", "DT NNS VBD", "a person sit", "the man sit")
    assert free_cells([reverse], stop, relations) == [[]]  # person -> man is more specific: not free
    with pytest.raises(ValueError, match="no lemmas"):
        free_cells([pair.with_annotation((pair.premise_tokens, pair.premise_tags),
                                         (pair.hypothesis_tokens, pair.hypothesis_tags))], stop, relations)


# ------------------------------------------------------------------ the feature type


def test_hand_computed_counts_and_shares(tiny):
    feature = WordNet(wordnet_dir=tiny, scale="none")
    # Hypothesis content words: person (NN), be (VBZ), stand (VBG). person is a hypernym of man;
    # be is the premise's be; stand is sit's antonym (and unrelated to be).
    assert counts(feature, [SITTING]) == [{"same": 1, "hypernym": 1, "antonym": 1}]
    values = feature.raw_values([SITTING])[0]
    shares = dict(zip(feature.columns[len(RELATIONS):], values[len(RELATIONS):]))
    assert shares == pytest.approx({"share_same": 1 / 3, "share_synonym": 0, "share_hypernym": 1 / 3,
                                    "share_hyponym": 0, "share_antonym": 1 / 3, "share_cohyponym": 0,
                                    "share_unrelated": 0})


def test_only_content_words_of_the_same_part_of_speech_meet(tiny):
    feature = WordNet(wordnet_dir=tiny, scale="none")
    pairs = [
        # "walk" is a verb in the hypothesis but a noun in the premise: not related; the dog is
        # more specific than the animal; "quickly" has no adverb to meet in the premise.
        lemma_pair("An animal takes a walk", "A dog walks quickly", "DT NN VBZ DT NN", "DT NN VBZ RB",
                   "an animal take a walk", "a dog walk quickly", "a"),
        # No content words in the hypothesis: every count and share is 0.
        lemma_pair("The tall man", "For it !", "DT JJ NN", "IN PRP .", "the tall man", "for it !", "b"),
        lemma_pair("The tall man", "", "DT JJ NN", "", "the tall man", "", "c"),
        # short / tall and woman / man are antonyms, man is the premise's man, cat and dog are cohyponyms.
        lemma_pair("A tall man and a dog", "A short woman and a man and a cat", "DT JJ NN CC DT NN",
                   "DT JJ NN CC DT NN CC DT NN", "a tall man and a dog", "a short woman and a man and a cat", "d"),
    ]
    assert counts(feature, pairs) == [
        {"hyponym": 1, "unrelated": 2},  # dog; walk (a verb here: vs take), quickly
        {},
        {},
        {"antonym": 2, "same": 1, "cohyponym": 1},
    ]
    values = feature.raw_values(pairs)
    assert values[1].tolist() == [0.0] * len(feature.columns) == values[2].tolist()
    assert values[0, len(RELATIONS) + RELATIONS.index("unrelated")] == pytest.approx(2 / 3)


def test_names_align_with_columns(tiny):
    pairs = [SITTING] + [lemma_pair("a man is sitting", h, "DT NN VBZ VBG", t, "a man be sit", lemmas, str(i))
                         for i, (h, t, lemmas) in enumerate([("a woman runs", "DT NN VBZ", "a woman run"),
                                                             ("a dog", "DT NN", "a dog"),
                                                             ("the person sits", "DT NN VBZ", "the person sit")])]
    plain = WordNet(wordnet_dir=tiny).fit(pairs)
    assert plain.get_feature_names_out().tolist() == [f"wordnet:count_{r}" for r in RELATIONS] + [
        f"wordnet:share_{r}" for r in RELATIONS]
    binned = WordNet(wordnet_dir=tiny, bins=3)
    X = binned.fit_transform(pairs)
    names = binned.get_feature_names_out()
    assert len(names) == X.shape[1] > 2 * len(RELATIONS)
    assert "wordnet:count_same:bin=1.." in names and "wordnet:share_hypernym:bin=0.333.." in names
    assert [binned.feature_name(i) for i in range(X.shape[1])] == names.tolist()


def test_missing_lemmas_are_a_clear_error(tiny):
    unlemmatized = make_pair("A man sleeps", "A person sleeps", premise_tags="DT NN VBZ", hypothesis_tags="DT NN VBZ",
                             id="no-lemmas")
    with pytest.raises(ValueError, match=r"wordnet: pair 'no-lemmas' has no lemmas; .*annotate\(pairs, lemmas=True\)"):
        WordNet(wordnet_dir=tiny).fit([SITTING, unlemmatized])
    feature = WordNet(wordnet_dir=tiny).fit([SITTING])
    with pytest.raises(ValueError, match="has no lemmas"):
        feature.transform([unlemmatized])
    assert WordNet.needs_lemmas and FEATURE_TYPES["wordnet"].needs_lemmas  # the engine annotates with lemmas


def test_missing_wordnet_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "empty"))
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "other")])
    with pytest.raises(WordNetMissingError, match="python experiments/download.py wordnet"):
        WordNet().fit([SITTING])
    with pytest.raises(WordNetMissingError, match="python experiments/download.py wordnet"):
        WordNet(wordnet_dir=tmp_path / "nowhere").fit([SITTING])


def test_the_feature_looks_up_each_distinct_lemma_pair_once(tiny):
    pairs = [SITTING] * 5 + [lemma_pair("A man is sitting", "A man is standing", "DT NN VBZ VBG", "DT NN VBZ VBG",
                                        "a man be sit", "a man be stand", "x")]
    feature = WordNet(wordnet_dir=tiny).fit(pairs)
    # Same-POS lemma pairs: man/person, man/man (nouns); be, sit x be, stand (verbs).
    assert feature.relations_.lookups == 2 + 4
    feature.transform(pairs)
    assert feature.relations_.lookups == 6


def test_batch_equals_pair_by_pair_reference(tiny):
    """The vectorized build against the definition, written out per pair, on random sentences."""
    rng = random.Random(11)
    vocabulary = [("man", "NN"), ("men", "NNS"), ("person", "NN"), ("woman", "NN"), ("dog", "NN"), ("cat", "NNS"),
                  ("animal", "NN"), ("sit", "VB"), ("stand", "VBG"), ("run", "VBZ"), ("walk", "VBD"), ("walk", "NN"),
                  ("tall", "JJ"), ("short", "JJR"), ("quickly", "RB"), ("the", "DT"), ("on", "IN"), ("be", "VBZ")]

    def sentence():
        words = [rng.choice(vocabulary) for _ in range(rng.randint(0, 7))]
        return " ".join(w for w, _ in words), " ".join(t for _, t in words)

    shared = [sentence() for _ in range(8)]  # premises shared among hypotheses, as in SNLI
    pairs = []
    for i in range(120):
        (p, pt), (h, ht) = rng.choice(shared), sentence()
        lemmas = {"men": "man"}
        pairs.append(lemma_pair(p, h, pt, ht, " ".join(lemmas.get(w, w) for w in p.split()),
                                " ".join(lemmas.get(w, w) for w in h.split()), str(i)))
    feature = WordNet(wordnet_dir=tiny, scale="none").fit(pairs)
    relations = WordNetRelations(data_dir=tiny)
    strength = {r: len(RELATIONS) - i for i, r in enumerate(RELATIONS)}
    for pair, row in zip(pairs, feature.raw_values(pairs)):
        expected = dict.fromkeys(RELATIONS, 0)
        premise = [(lemma, coarse_pos(tag)) for lemma, tag in zip(pair.premise_lemmas, pair.premise_tags)]
        for lemma, tag in zip(pair.hypothesis_lemmas, pair.hypothesis_tags):
            pos = coarse_pos(tag)
            if pos is None:
                continue
            found = [relations.relation(p, lemma, pos) for p, p_pos in premise if p_pos == pos]
            expected[max(found, key=strength.get, default="unrelated")] += 1
        assert dict(zip(RELATIONS, row[:len(RELATIONS)].astype(int).tolist())) == expected, pair


def test_equal_sentences_in_distinct_objects_give_equal_rows(tiny):
    copy = lemma_pair("A man is sitting", "A person is standing", "DT NN VBZ VBG", "DT NN VBZ VBG",
                      "a man be sit", "a person be stand", "copy")
    assert copy.premise_lemmas == SITTING.premise_lemmas and copy.premise_lemmas is not SITTING.premise_lemmas
    values = WordNet(wordnet_dir=tiny).raw_values([SITTING, copy, SITTING])
    assert (values[0] == values[1]).all() and (values[0] == values[2]).all()


def test_clone_pickle_and_featurizer(tiny, monkeypatch):
    feature = WordNet(wordnet_dir=tiny, hypernym_depth=2)
    assert clone(feature).get_params() == feature.get_params()
    X = feature.fit_transform([SITTING])
    restored = pickle.loads(pickle.dumps(feature))
    assert restored.relations_._reader is None and (restored.transform([SITTING]) != X).nnz == 0
    # The featurizer builds types from its options only: WordNet is found where NLTK looks.
    monkeypatch.setenv("NLTK_DATA", str(tiny))
    featurizer = PairFeaturizer(features="wordnet,negation", scale="none", bins=0, n_jobs=1).fit([SITTING])
    row = dict(zip(featurizer.get_feature_names_out(), featurizer.transform([SITTING]).toarray()[0]))
    assert row["wordnet:count_hypernym"] == 1 and row["wordnet:count_antonym"] == 1
    assert row["negation:premise_only"] == 0


def test_registry_groups():
    assert GROUPS["lexicalized"] == PAPER_TYPES  # the paper's six, frozen
    assert resolve("extended") == [*PAPER_TYPES, "wordnet", "negation"]
    assert resolve("extended", ["wordnet"]) == [*PAPER_TYPES, "negation"]
    assert resolve("lexicalized,wordnet") == [*PAPER_TYPES, "wordnet"]


# ------------------------------------------------------------------ the real WordNet 3.0


@pytest.fixture(scope="module")
def real(real_wordnet):
    return WordNetRelations()


@pytest.mark.parametrize("premise, hypothesis, pos, expected", [
    ("man", "person", "n", "hypernym"),     # man.n.01 -> adult -> person; also man -> male -> person
    ("person", "man", "n", "hyponym"),
    ("dog", "animal", "n", "hypernym"),     # dog -> domestic_animal -> animal
    ("car", "automobile", "n", "synonym"),
    ("tall", "short", "a", "antonym"),
    ("open", "close", "v", "antonym"),
    ("man", "woman", "n", "antonym"),
    ("guitar", "piano", "n", "cohyponym"),  # both directly under stringed_instrument
    ("dog", "cat", "n", "unrelated"),       # canine vs feline: siblings only two steps up
    ("big", "small", "a", "unrelated"),     # WordNet's antonym of "big" is "little", of "large" "small"
])
def test_real_wordnet_relations(real, premise, hypothesis, pos, expected):
    assert real.relation(premise, hypothesis, pos) == expected


def test_real_wordnet_depths(real):
    assert WordNetRelations(cohyponym_depth=2).relation("dog", "cat", "n") == "cohyponym"  # via carnivore
    assert real.substitutable("man", "person", "n") and not real.substitutable("person", "man", "n")
    assert real.substitutable("car", "automobile", "n") and not real.substitutable("tall", "short", "a")


def test_real_wordnet_first_sense_only(real):
    # "dog" is also a frump (dog.n.02), but not in its most frequent sense.
    assert real.relation("dog", "frump", "n") == "synonym"
    first = WordNetRelations(senses="first")
    assert first.relation("dog", "frump", "n") == "unrelated" and first.relation("man", "person", "n") == "hypernym"
    with pytest.raises(ValueError, match="senses must be one of 'all', 'first'"):
        WordNetRelations(senses="most")
