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
