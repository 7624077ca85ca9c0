"""Dependencies read off constituency trees (`features.text.tree_dependencies`): hand-checked heads and
labels in spaCy's conventions, the readers' tokens, refusals of malformed trees, and for random
bracketings a well-formed tree (heads in range, one root, no cycle)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nli_baselines.experiments.corpora.readers.snli import tokens_and_tags
from nli_baselines.features.text.parsing import LABELS as PARSER_LABELS
from nli_baselines.features.text.tree_dependencies import _TABLE, dependencies_from_tree

LABELS = frozenset(PARSER_LABELS)


# name: (tree, each token's "head:label"; heads are token positions, the root points at itself)
CASES = {
    "transitive": (
        "(ROOT (S (NP (DT A) (NN man)) (VP (VBZ is) (VP (VBG playing) (NP (DT a) (NN guitar)))) (. .)))",
        "1:det 3:nsubj 3:aux 3:ROOT 5:det 3:dobj 3:punct"),
    "copula_adjective": (
        "(ROOT (S (NP (DT The) (NN man)) (VP (VBZ is) (ADJP (JJ tall))) (. .)))",
        "1:det 2:nsubj 2:ROOT 2:acomp 2:punct"),
    "copula_noun": (
        "(ROOT (S (NP (DT A) (NN man)) (VP (VBZ is) (NP (DT a) (NN doctor))) (. .)))",
        "1:det 2:nsubj 2:ROOT 4:det 2:attr 2:punct"),
    "existential": (
        "(ROOT (S (NP (EX There)) (VP (VBZ is) (NP (NP (DT a) (NN man)) (VP (VBG cutting) (NP (NN bread))))) (. .)))",
        "1:expl 1:ROOT 3:det 1:attr 3:acl 4:dobj 1:punct"),
    "passive_agent": (
        "(ROOT (S (NP (DT The) (NN ball)) (VP (VBZ is) (VP (VBN kicked) (PP (IN by) (NP (DT a) (NN boy))))) (. .)))",
        "1:det 3:nsubjpass 3:auxpass 3:ROOT 3:agent 6:det 4:pobj 3:punct"),
    "passive_progressive": (
        "(ROOT (S (NP (DT The) (NN dog)) (VP (VBZ is) (VP (VBG being) (VP (VBN walked)))) (. .)))",
        "1:det 4:nsubjpass 4:aux 4:auxpass 4:ROOT 4:punct"),
    "negation": (
        "(ROOT (S (NP (DT A) (NN man)) (VP (VBZ does) (RB n't) (VP (VB play) (NP (DT the) (NN guitar)))) (. .)))",
        "1:det 4:nsubj 4:aux 4:neg 4:ROOT 6:det 4:dobj 4:punct"),
    "never": (
        "(ROOT (S (NP (DT A) (NN man)) (ADVP (RB never)) (VP (VBZ sleeps)) (. .)))",
        "1:det 3:nsubj 3:neg 3:ROOT 3:punct"),
    "prepositional_phrase": (
        "(ROOT (S (NP (DT A) (NN man)) (VP (VBZ sits) (PP (IN in) (NP (DT the) (NN park)))) (. .)))",
        "1:det 2:nsubj 2:ROOT 2:prep 5:det 3:pobj 2:punct"),
    "noun_phrase_only": (
        "(ROOT (NP (NP (DT A) (NN man)) (PP (IN in) (NP (DT a) (JJ blue) (NN shirt))) (. .)))",
        "1:det 1:ROOT 1:prep 5:det 5:amod 2:pobj 1:punct"),
    "coordinated_nouns": (
        "(ROOT (S (NP (NP (DT A) (NN man)) (CC and) (NP (DT a) (NN woman))) (VP (VBP sit)) (. .)))",
        "1:det 5:nsubj 1:cc 4:det 1:conj 5:ROOT 5:punct"),
    "coordinated_verbs": (
        "(ROOT (S (NP (DT A) (NN man)) (VP (VP (VBZ sings)) (CC and) (VP (VBZ dances))) (. .)))",
        "1:det 2:nsubj 2:ROOT 2:cc 2:conj 2:punct"),
    # spaCy chains conjuncts: each attaches to the one before, with the comma or "and" before it.
    "three_conjuncts": (
        "(ROOT (NP (NP (NNS apples)) (, ,) (NP (NNS pears)) (CC and) (NP (NNS plums)) (. .)))",
        "0:ROOT 0:punct 0:conj 2:cc 2:conj 0:punct"),
    "coordinated_modifiers": (
        "(ROOT (NP (DT the) (JJ black) (CC and) (JJ white) (NN dog)))",
        "4:det 4:amod 1:cc 1:conj 4:ROOT"),
    "relative_clause": (
        ("(ROOT (S (NP (NP (DT The) (NN man)) (SBAR (WHNP (WP who)) (S (VP (VBZ is) (VP (VBG wearing) (NP "
         "(DT a) (NN hat))))))) (VP (VBZ eats)) (. .)))"),
        "1:det 7:nsubj 4:nsubj 4:aux 1:relcl 6:det 4:dobj 7:ROOT 7:punct"),
    "relative_clause_passive": (
        ("(ROOT (NP (NP (DT A) (NN ball)) (SBAR (WHNP (WDT that)) (S (VP (VBD was) (VP (VBN kicked) (PP (IN by) "
         "(NP (DT a) (NN boy))))))) (. .)))"),
        "1:det 1:ROOT 4:nsubjpass 4:auxpass 1:relcl 4:agent 7:det 5:pobj 1:punct"),
    "possessive": (
        "(ROOT (S (NP (NP (DT The) (NN man) (POS 's)) (NN dog)) (VP (VBZ barks)) (. .)))",
        "1:det 3:poss 1:case 4:nsubj 4:ROOT 4:punct"),
    "numbers": (
        "(ROOT (S (NP (QP (RB About) (CD 5)) (NNS men)) (VP (VBP carry) (NP (CD two) (NNS boxes))) (. .)))",
        "1:advmod 2:nummod 3:nsubj 3:ROOT 5:nummod 3:dobj 3:punct"),
    "predeterminer": (
        "(ROOT (S (NP (DT All) (DT the) (NNS dogs)) (VP (VBP run)) (. .)))",
        "2:predet 2:det 3:nsubj 3:ROOT 3:punct"),
    "infinitive_complement": (
        "(ROOT (S (NP (DT The) (NN boy)) (VP (VBZ wants) (S (VP (TO to) (VP (VB play))))) (. .)))",
        "1:det 2:nsubj 2:ROOT 4:aux 2:xcomp 2:punct"),
    "clause_complement": (
        ("(ROOT (S (NP (PRP He)) (VP (VBZ says) (SBAR (IN that) (S (NP (DT the) (NN dog)) (VP (VBZ is) (ADJP "
         "(JJ happy)))))) (. .)))"),
        "1:nsubj 1:ROOT 5:mark 4:det 5:nsubj 1:ccomp 5:acomp 1:punct"),
    "while_clause": (
        "(ROOT (S (NP (NNS Women)) (VP (VBP talk) (PP (IN while) (S (VP (VBG holding) (NP (NNS cups)))))) (. .)))",
        "1:nsubj 1:ROOT 3:mark 1:advcl 3:dobj 1:punct"),
    "dative": (
        "(ROOT (S (NP (PRP He)) (VP (VBZ gives) (NP (DT the) (NN boy)) (NP (DT a) (NN ball))) (. .)))",
        "1:nsubj 1:ROOT 3:det 1:dative 5:det 1:dobj 1:punct"),
    "particle": (
        "(ROOT (S (NP (DT A) (NN man)) (VP (VBZ picks) (PRT (RP up)) (NP (DT a) (NN ball))) (. .)))",
        "1:det 2:nsubj 2:ROOT 2:prt 5:det 2:dobj 2:punct"),
}


def expected(spec: str) -> tuple[list[int], list[str]]:
    pairs = [cell.split(":") for cell in spec.split()]
    return [int(head) for head, _ in pairs], [label for _, label in pairs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_checked_heads_and_labels(name):
    tree, spec = CASES[name]
    tokens, heads, labels = dependencies_from_tree(tree)
    want_heads, want_labels = expected(spec)
    assert tokens == tokens_and_tags(tree)[0]
    assert heads.dtype == np.int32
    assert list(zip(tokens, heads.tolist(), labels)) == list(zip(tokens, want_heads, want_labels))


def test_every_label_in_the_table_is_one_the_feature_types_know():
    assert {label for label in _TABLE.values() if not label.startswith("@")} <= LABELS


def test_function_tags_and_unlabeled_outer_bracket():
    tokens, heads, labels = dependencies_from_tree("( (S (NP-SBJ-1 (NNS Dogs)) (VP (VBP bark)) (. .)) )")
    assert tokens == ("Dogs", "bark", ".")
    assert heads.tolist() == [1, 1, 1] and labels == ("nsubj", "ROOT", "punct")


def test_a_single_leaf_is_its_own_root():
    tokens, heads, labels = dependencies_from_tree("(NN dog)")
    assert tokens == ("dog",) and heads.tolist() == [0] and labels == ("ROOT",)


@pytest.mark.parametrize("tree, reason", [
    ("", "no leaves"),
    ("(ROOT (NP))", "no leaves"),
    ("(ROOT (S (NP (DT A) (NN man))", "unbalanced"),
    ("(ROOT (NP (NN man))))", "without its opening"),
    ("man (NN dog)", "before the first bracket"),
    ("(NP (DT a) man)", "outside"),
    ("(NP (DT a b c))", "more than a tag and a word"),
    ("(NP (DT  a))", "no \\(TAG word\\) leaf"),
    ("(NP (DT a)) (NP (NN b))", "after the end"),
    ("(NP (NN a)) (NN b)", "after the end"),
])
def test_malformed_trees_raise(tree, reason):
    with pytest.raises(ValueError, match=reason):
        dependencies_from_tree(tree)


TAGS = ["DT", "NN", "NNS", "NNP", "PRP", "PRP$", "POS", "CD", "EX", "JJ", "RB", "IN", "TO", "CC", "MD", "VB", "VBZ",
        "VBD", "VBG", "VBN", "VBP", "RP", "WP", "WDT", "WRB", "PDT", ",", ".", ":", "-LRB-", "UH", "FW"]
WORDS = ["a", "the", "man", "is", "be", "got", "has", "to", "not", "n't", "by", "while", "that", "who", "and", ",",
         "'s", "two", "all", "there", "up", "down", "of", "wearing", "tries", "outside", "-LRB-", "Ü"]
PHRASES = ["ROOT", "S", "NP", "VP", "PP", "SBAR", "ADJP", "ADVP", "QP", "PRT", "WHNP", "WHADVP", "WHPP", "UCP",
           "FRAG", "CONJP", "SQ", "SINV", "SBARQ", "NX", "PRN", "RRC", "INTJ", "X", "NP-SBJ", "PP-LOC=2", "-NONE-", ""]
leaves = st.builds(lambda tag, word: f"({tag} {word})", st.sampled_from(TAGS), st.sampled_from(WORDS))
trees = st.recursive(leaves, lambda inner: st.builds(lambda label, kids: f"({label} {' '.join(kids)})",
                                                     st.sampled_from(PHRASES), st.lists(inner, min_size=1, max_size=5)),
                     max_leaves=20)


@settings(max_examples=100, deadline=None)
@given(trees)
def test_any_bracketing_gives_one_tree(tree):
    tokens, heads, labels = dependencies_from_tree(tree)
    n = len(tokens)
    assert tokens == tokens_and_tags(tree)[0]
    assert len(heads) == len(labels) == n and heads.dtype == np.int32
    assert all(0 <= h < n for h in heads.tolist())
    roots = [i for i in range(n) if heads[i] == i]
    assert len(roots) == 1 and labels[roots[0]] == "ROOT"
    assert set(labels) <= LABELS
    for start in range(n):  # every token reaches the root within n steps: no cycle
        at, steps = start, 0
        while heads[at] != at:
            at, steps = int(heads[at]), steps + 1
            assert steps <= n
