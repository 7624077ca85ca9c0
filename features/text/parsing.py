"""Dependency parses of tokenized sentences, cached on disk by content, for the `syntax` and
`alignment` feature types.

A parse is computed from a sentence's own tokens (whatever tokenized it: spaCy for tagged
corpora, SNLI's parse leaves), by spaCy's tok2vec + parser (the parser of the tagging model,
`en_core_web_sm`), so that heads always index the tokens the features see. Per sentence, a parse
is two equal-length tuples: each token's head (its position in the sentence; the root points at
itself) and its dependency label (ClearNLP labels, spaCy's English scheme).

Parses are cached like tags (`features.text.annotation.AnnotationCache`), keyed by the sentence's
tokens and the parser's name and version, so a second run does no parsing at all; within a
process, every distinct token tuple is parsed (or read) once (`parse_sentences`).
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from ..runtime.progress import ProgressSwitch
from .annotation import (CHUNK_SENTENCES, PARALLEL_MIN_SENTENCES, TAGGER_STARTUP, AnnotationCache, default_cache_dir,
                         installed_model, model_id, progress_bar)
from .tree_dependencies import dependencies_from_tree

Tokens = tuple[str, ...]
Parse = tuple[np.ndarray, np.ndarray]  # (head position per token int32, label id per token uint8)
# spaCy's English dependency labels (en_core_web_sm 3.8's parser); anything else maps to "dep".
LABELS = ("ROOT", "acl", "acomp", "advcl", "advmod", "agent", "amod", "appos", "attr", "aux", "auxpass", "case",
          "cc", "ccomp", "compound", "conj", "csubj", "csubjpass", "dative", "dep", "det", "dobj", "expl", "intj",
          "mark", "meta", "neg", "nmod", "npadvmod", "nsubj", "nsubjpass", "nummod", "oprd", "parataxis", "pcomp",
          "pobj", "poss", "preconj", "predet", "prep", "prt", "punct", "quantmod", "relcl", "xcomp")
LABEL_ID = {label: i for i, label in enumerate(LABELS)}
PARSER_PIPES = ("tok2vec", "parser")
PARSE_SECONDS = 1 / 1400  # spaCy's parser on given tokens, one core (Z5: 708,130 sentences in ~500 s)


class SpacyParser:
    """spaCy's tok2vec + parser run on given tokens (no tokenizer, no tagger).

    model: a spaCy package name; default as for `features.text.annotation.SpacyTagger`.
    """

    def __init__(self, model: str | None = None):
        self.model = model

    @property
    def name(self) -> str:
        return f"{model_id(self.model or installed_model())}+parser-from-tokens"

    def parse(self, sentences: Sequence[Tokens], progress: bool = False) -> list[tuple[Tokens, Tokens]]:
        """(heads as decimal strings, labels) per sentence: the cache's format."""
        # lazy: spaCy takes seconds to import; only parsing needs it
        import spacy
        from spacy.tokens import Doc
        if getattr(self, "nlp_", None) is None:
            model = self.model or installed_model()
            self.nlp_ = spacy.load(model, exclude=["tagger", "attribute_ruler", "lemmatizer", "ner", "senter"])
            lacking = [p for p in PARSER_PIPES if p not in self.nlp_.pipe_names]
            if lacking:
                raise RuntimeError(f"spaCy model {model} has no {', '.join(lacking)} component: it cannot parse")
        vocab = self.nlp_.vocab
        docs = (Doc(vocab, words=[w or " " for w in tokens]) for tokens in sentences)
        out = []
        for doc in self.nlp_.pipe(docs, batch_size=256):
            out.append((tuple(str(t.head.i) for t in doc), tuple(t.dep_ for t in doc)))
        return out

    def parse_chunks(self, sentences: Sequence[Tokens], jobs: int = 1) -> Iterator[list[tuple[Tokens, Tokens]]]:
        """`parse` of consecutive chunks of CHUNK_SENTENCES, each delivered when done; with jobs > 1
        and PARALLEL_MIN_SENTENCES or more sentences, on that many worker processes (the parse of
        an SNLI-sized corpus is minutes of one core's work)."""
        chunks = [sentences[i:i + CHUNK_SENTENCES] for i in range(0, len(sentences), CHUNK_SENTENCES)]
        if jobs > 1 and len(sentences) >= PARALLEL_MIN_SENTENCES:
            # spawn: the caller may hold threads (the featurizer's lanes), which fork would copy mid-step.
            with multiprocessing.get_context("spawn").Pool(jobs, _worker_init, (self.model,)) as pool:
                yield from pool.imap(_worker_parse, chunks)
        else:
            for part in chunks:
                yield self.parse(part)


_WORKER_PARSER: SpacyParser | None = None


def _worker_init(model: str | None) -> None:
    global _WORKER_PARSER
    _WORKER_PARSER = SpacyParser(model)


def _worker_parse(sentences: list[Tokens]) -> list[tuple[Tokens, Tokens]]:
    return _WORKER_PARSER.parse(sentences)


def parse_workers() -> int:
    """Worker processes for a large parse: every core, or as many as OMP_NUM_THREADS allows where
    a parent set it (a grid's worker process gets its share of the cores)."""
    limit = os.environ.get("OMP_NUM_THREADS", "")
    cores = os.cpu_count() or 1
    return min(cores, int(limit)) if limit.isdigit() and int(limit) > 0 else cores


def _key(tokens: Tokens) -> str:
    return hashlib.blake2b(json.dumps(tokens, ensure_ascii=False).encode(), digest_size=16).hexdigest()


_MEMO: dict[Tokens, Parse] = {}
_DERIVED: dict[Tokens, Parse] = {}  # read off trees: never mixed with the parser's parses
_MEMO_LOCK = threading.Lock()
_MEMO_LIMIT = 2_000_000  # distinct sentences kept in memory per process (SNLI train has ~700k)


def _as_parse(entry, n: int) -> Parse | None:
    if len(entry) != 2 or len(entry[0]) != n:
        return None
    try:
        heads = np.array([int(h) for h in entry[0]], dtype=np.int32)
    except ValueError:
        return None
    if n and (heads.min() < 0 or heads.max() >= n):
        return None
    return heads, np.array([LABEL_ID.get(label, LABEL_ID["dep"]) for label in entry[1]], dtype=np.uint8)


parse_progress = ProgressSwitch("Within the block, parses of sentences not yet parsed show a progress bar on stderr.")


def _from_tree(tree: str, tokens: Tokens) -> Parse | None:
    """The parse read off a constituency tree whose leaves are `tokens`; None for a tree that is
    malformed or whose leaves are other tokens (the parser then parses the sentence)."""
    try:
        words, heads, labels = dependencies_from_tree(tree)
    except ValueError:
        return None
    if words != tuple(tokens):
        return None
    return heads.astype(np.int32), np.array([LABEL_ID.get(label, LABEL_ID["dep"]) for label in labels], dtype=np.uint8)


def _derived(sentences: Sequence[Tokens], trees: Sequence[str | None]) -> dict[Tokens, Parse]:
    """Parses read off the trees given with the sentences, remembered apart from the parser's."""
    out: dict[Tokens, Parse] = {}
    for tokens, tree in zip(sentences, trees):
        if tree is None or tokens in out:
            continue
        parse = _DERIVED.get(tokens)
        if parse is None:
            parse = _from_tree(tree, tokens)
            if parse is None:
                continue
            with _MEMO_LOCK:
                if len(_DERIVED) >= _MEMO_LIMIT:
                    _DERIVED.clear()
                _DERIVED[tokens] = parse
        out[tokens] = parse
    return out


def parse_sentences(sentences: Sequence[Tokens], *, trees: Sequence[str | None] | None = None, parser=None,
                    cache_dir: Path | str | None = None, progress: bool | None = None,
                    stats: dict | None = None) -> list[Parse]:
    """The parse of every token tuple: read off its constituency tree where one is given, else
    from this process's memo, the disk cache or the parser.

    trees: per sentence, the corpus' bracketed constituency tree or None (SNLI and MultiNLI ship
      them: `Pair.premise_tree`); a tree whose leaves are not the sentence's tokens is ignored.
      Parses read off trees agree with the parser's on ~90% of heads (docs/performance.md).
    parser: anything with `name` and `parse(token tuples)` like SpacyParser (default one).
    progress: a progress bar for the sentences the parser parses; None: as `parse_progress` says.
    stats: receives `sentences` (distinct), `from_trees`, `memo`, `cached` and `parsed` counts.
    """
    progress = parse_progress.shown if progress is None else progress
    derived = _derived(sentences, trees) if trees is not None else {}
    distinct = list(dict.fromkeys(sentences))
    with _MEMO_LOCK:
        found = {s: _MEMO[s] for s in distinct if s in _MEMO and s not in derived}
    missing = [s for s in distinct if s not in found and s not in derived]
    counts = {"sentences": len(distinct), "from_trees": len(derived), "memo": len(found), "cached": 0, "parsed": 0}
    if missing:
        parser = parser or SpacyParser()
        cache = AnnotationCache(Path(cache_dir) if cache_dir else default_cache_dir(), parser.name)
        keys = [_key(s) for s in missing]
        known = cache.load(worth=(len(missing), PARSE_SECONDS, TAGGER_STARTUP))
        todo = []
        for key, sentence in zip(keys, missing):
            entry = known.get(key)
            parse = _as_parse(entry, len(sentence)) if entry is not None else None
            if parse is None:
                todo.append((key, sentence))
            else:
                found[sentence] = parse
        counts["cached"] = len(missing) - len(todo)
        del known
        bar = progress_bar(len(todo), "parsing", progress)
        sentences_todo = [sentence for _, sentence in todo]
        chunked = getattr(parser, "parse_chunks", None)
        stream = (chunked(sentences_todo, jobs=parse_workers()) if chunked is not None else
                  (parser.parse(sentences_todo[i:i + CHUNK_SENTENCES]) for i in range(0, len(todo), CHUNK_SENTENCES)))
        done = 0
        try:
            for results in stream:
                part = todo[done:done + CHUNK_SENTENCES]
                done += len(part)
                if len(results) != len(part):
                    raise RuntimeError(f"parser {parser.name} returned {len(results)} parses for {len(part)}")
                fresh = {}
                for (key, sentence), result in zip(part, results):
                    entry = (tuple(result[0]), tuple(result[1]))
                    parse = _as_parse(entry, len(sentence))
                    if parse is None:
                        raise ValueError(f"parser {parser.name} gave a malformed parse for {sentence!r}")
                    fresh[key] = entry
                    found[sentence] = parse
                cache.add(fresh)
                bar.update(len(part))
        finally:
            bar.close()
            if hasattr(stream, "close"):
                stream.close()  # a worker pool ends with its generator
        if done != len(todo):
            raise RuntimeError(f"parser {parser.name} returned parses for {done} of {len(todo)} sentences")
        cache.compact()
        counts["parsed"] = len(todo)
        with _MEMO_LOCK:
            if len(_MEMO) + len(missing) > _MEMO_LIMIT:
                _MEMO.clear()
            _MEMO.update((s, found[s]) for s in missing)
    if stats is not None:
        stats.update(counts)
    found.update(derived)
    return [found[s] for s in sentences]


def flat_parses(token_tuples: Sequence[Tokens], trees: Sequence[str | None] | None = None,
                **kwargs) -> tuple[np.ndarray, np.ndarray]:
    """Heads (as flat indices into the concatenated tokens) and label ids of many sentences,
    each distinct tuple (by identity, then content) parsed or looked up once; `trees` as for
    `parse_sentences`."""
    ids = np.fromiter(map(id, token_tuples), dtype=np.int64, count=len(token_tuples))
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    distinct = [token_tuples[i] for i in first.tolist()]
    if trees is not None:
        kwargs["trees"] = [trees[i] for i in first.tolist()]
    parses = parse_sentences(distinct, **kwargs)
    lengths = np.fromiter(map(len, token_tuples), dtype=np.int64, count=len(token_tuples))
    offsets = np.zeros(len(token_tuples) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if not len(token_tuples) or not offsets[-1]:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    d_heads = [p[0] for p in parses]
    d_labels = [p[1] for p in parses]
    d_len = np.fromiter(map(len, d_heads), dtype=np.int64, count=len(d_heads))
    d_off = np.zeros(len(d_heads) + 1, dtype=np.int64)
    np.cumsum(d_len, out=d_off[1:])
    all_heads = np.concatenate(d_heads).astype(np.int64) if d_heads else np.zeros(0, dtype=np.int64)
    all_labels = np.concatenate(d_labels) if d_labels else np.zeros(0, dtype=np.uint8)
    gather = np.repeat(d_off[inverse] - offsets[:-1], lengths) + np.arange(offsets[-1])
    rows = np.repeat(np.arange(len(token_tuples)), lengths)
    heads = all_heads[gather] + offsets[rows]
    return heads, all_labels[gather]


def remember_parses(parses: dict) -> None:
    """Use these parses for these sentences in this process: {token tuple: (heads, labels)},
    heads as positions in the sentence (a root points at itself), labels from `LABELS`. For
    parses from elsewhere (another parser, gold trees) and for tests with parses written by hand.
    """
    checked = {}
    for tokens, (heads, labels) in parses.items():
        parse = _as_parse((tuple(str(h) for h in heads), tuple(labels)), len(tokens))
        if parse is None or any(label not in LABEL_ID for label in labels):
            raise ValueError(f"malformed parse for {tokens!r}: heads {heads!r}, labels {labels!r}")
        checked[tuple(tokens)] = parse
    with _MEMO_LOCK:
        _MEMO.update(checked)


def forget_derived_parses() -> None:
    """Empty the memo of parses read off trees: reading them again is cheap, and at SNLI scale
    they hold a few hundred MB that a run's fits can use."""
    with _MEMO_LOCK:
        _DERIVED.clear()


def forget_parses() -> None:
    """Empty this process's memos of parses (the disk cache stays)."""
    with _MEMO_LOCK:
        _MEMO.clear()
        _DERIVED.clear()
