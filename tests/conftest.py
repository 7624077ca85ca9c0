"""Shared fixtures: the real-corpus directory (skips without it) and a tiny hand-written corpus."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from features.pair import Pair

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared corpora; tests that need them skip when NLI_DATA_DIR is unset."""
    value = os.environ.get("NLI_DATA_DIR")
    if not value:
        pytest.skip("NLI_DATA_DIR is not set: real-corpus tests need the shared data directory")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"NLI_DATA_DIR={value} is not a directory")
    return path


def make_pair(premise: str, hypothesis: str, label: str | None = "entailment",
              premise_tags: str | None = None, hypothesis_tags: str | None = None, id: str = "p") -> Pair:
    """A pair from space-separated tokens and tags (tags default to NN for every token)."""
    pt, ht = tuple(premise.split()), tuple(hypothesis.split())
    ptags = tuple(premise_tags.split()) if premise_tags else ("NN",) * len(pt)
    htags = tuple(hypothesis_tags.split()) if hypothesis_tags else ("NN",) * len(ht)
    assert len(ptags) == len(pt) and len(htags) == len(ht)
    return Pair(id, premise, hypothesis, label, pt, ptags, ht, htags)


# A tiny annotated corpus: tokens and tags written by hand.
TINY = [
    make_pair("A man is sleeping .", "A person is sleeping .", "entailment",
              "DT NN VBZ VBG .", "DT NN VBZ VBG .", "t0"),
    make_pair("A man is sleeping .", "A man is running .", "contradiction",
              "DT NN VBZ VBG .", "DT NN VBZ VBG .", "t1"),
    make_pair("A tall woman is eating an apple .", "A woman is eating .", "entailment",
              "DT JJ NN VBZ VBG DT NN .", "DT NN VBZ VBG .", "t2"),
    make_pair("A tall woman is eating an apple .", "A woman is eating lunch at home .", "neutral",
              "DT JJ NN VBZ VBG DT NN .", "DT NN VBZ VBG NN IN NN .", "t3"),
    make_pair("Two dogs run in the park .", "No dogs are running .", "contradiction",
              "CD NNS VBP IN DT NN .", "DT NNS VBP VBG .", "t4"),
    make_pair("Two dogs run in the park .", "Two dogs are playing fetch .", "neutral",
              "CD NNS VBP IN DT NN .", "CD NNS VBP VBG NN .", "t5"),
]


@pytest.fixture
def tiny() -> list[Pair]:
    return list(TINY)


def parsed_pair(premise: str, hypothesis: str, premise_tags: str, hypothesis_tags: str, premise_lemmas: str,
                hypothesis_lemmas: str, premise_parse: str, hypothesis_parse: str, label: str = "entailment",
                id: str = "p") -> Pair:
    """A pair with tokens, tags and lemmas by hand, and dependency parses by hand that the parse
    memo (`features.parsing.remember_parses`) will return for its sentences. A parse is written
    `HEAD:LABEL` per token, HEAD the head's position (the root's own position)."""
    from features.parsing import remember_parses
    pair = make_pair(premise, hypothesis, label, premise_tags, hypothesis_tags, id)
    pair = pair.with_annotation((pair.premise_tokens, pair.premise_tags, tuple(premise_lemmas.split())),
                                (pair.hypothesis_tokens, pair.hypothesis_tags, tuple(hypothesis_lemmas.split())))
    for tokens, parse in ((pair.premise_tokens, premise_parse), (pair.hypothesis_tokens, hypothesis_parse)):
        arcs = [arc.split(":") for arc in parse.split()]
        assert len(arcs) == len(tokens), (tokens, parse)
        remember_parses({tokens: ([int(h) for h, _ in arcs], [label for _, label in arcs])})
    return pair


# Dependency parses by hand (HEAD:LABEL per token) of TINY's sentences and the contract's unseen
# pair, for the types that read parses (`needs_parses`), so no test depends on a parser's output.
TINY_PARSES = {
    "A man is sleeping .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "A person is sleeping .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "A man is running .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "A tall woman is eating an apple .": "2:det 2:amod 4:nsubj 4:aux 4:ROOT 6:det 4:dobj 4:punct",
    "A woman is eating .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "A woman is eating lunch at home .": "1:det 3:nsubj 3:aux 3:ROOT 3:dobj 3:prep 5:pobj 3:punct",
    "Two dogs run in the park .": "1:nummod 2:nsubj 2:ROOT 2:prep 5:det 3:pobj 2:punct",
    "No dogs are running .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "Two dogs are playing fetch .": "1:nummod 3:nsubj 3:aux 3:ROOT 3:dobj 3:punct",
    "Quokkas juggle .": "1:nsubj 1:ROOT 1:punct",
    "Wombats dance .": "1:nsubj 1:ROOT 1:punct",
}


def remember_tiny_parses() -> None:
    from features.parsing import remember_parses
    parses = {}
    for sentence, parse in TINY_PARSES.items():
        arcs = [arc.split(":") for arc in parse.split()]
        parses[tuple(sentence.split())] = ([int(h) for h, _ in arcs], [label for _, label in arcs])
    remember_parses(parses)
