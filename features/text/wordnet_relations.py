"""WordNet relations between a premise lemma and a hypothesis lemma of the same coarse part of speech.

    relations = WordNetRelations()                   # WordNet 3.0 wherever NLTK finds it
    relations.relation("man", "person", "n")         # 'hypernym': the hypothesis word is more general
    relations.substitutable("man", "person", "n")    # True: EOP's free substitution

RELATIONS, strongest first (the first that holds is the relation):
  same       the two lemmas are equal (lowercased), whether or not WordNet knows them;
  synonym    they share a synset;
  hypernym   the hypothesis lemma is more general: one of its synsets is reached from one of the
             premise lemma's synsets in at most `max_depth` steps up hypernym or instance-hypernym
             pointers (man -> person, dog -> animal): the premise entails the hypothesis word;
  hyponym    the reverse: the hypothesis lemma is more specific (person -> man);
  antonym    WordNet's lexical antonym pointers, between the lemmas themselves (tall / short,
             open / close, man / woman), in either direction;
  cohyponym  siblings: both reach a common hypersynset in at most `cohyponym_depth` steps each;
             with the default of 1, a shared direct hypernym (man / woman via adult, guitar /
             piano via stringed instrument; WordNet 3.0 puts dog under canine and cat under
             feline, so dog / cat are siblings only from depth 2, via carnivore);
  unrelated  none of these, also when WordNet does not know a lemma.
Every sense of both lemmas counts (a lemma's synsets are all of its synsets of that part of speech),
unless `senses="first"` keeps only its most frequent sense.
Coarse parts of speech come from PTB tags: NN* noun, VB* verb, JJ* adjective, RB* adverb; other
tags have none and are never looked up.

Each distinct (premise lemma, hypothesis lemma, part of speech) is computed through WordNet once
per `WordNetRelations` object and cached in int64-keyed numpy arrays (millions of pairs at SNLI
scale would take hundreds of MB as a dict of string tuples). Copies pickle with that cache but
without NLTK's reader, which a copy loads again on first use (worker processes).
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

import numpy as np

from ..columns.keymap import factorize
from .wordnet_data import WordNetMissingError, load_wordnet, search_path

RELATIONS = ("same", "synonym", "hypernym", "hyponym", "antonym", "cohyponym", "unrelated")
STRENGTH = {relation: len(RELATIONS) - 1 - i for i, relation in enumerate(RELATIONS)}  # unrelated 0 .. same 6
COARSE_POS = {"NN": "n", "VB": "v", "JJ": "a", "RB": "r"}
POS_CODES = ("n", "v", "a", "r")  # a coarse POS's number in packed keys
POS_NUMBER = {prefix: POS_CODES.index(pos) for prefix, pos in COARSE_POS.items()}
# The hypernym depth of `substitutable`: EOP's WordnetLexicalResource chains SYNONYM and HYPERNYM
# up to length 3 for its lemma + WordNet edit distance.
SUBSTITUTION_DEPTH = 3
# Default depth of the `hypernym` relation, chosen on dev data (docs/features.md, "Choosing the defaults").
HYPERNYM_DEPTH = 3
SENSES = ("all", "first")
COHYPONYM_DEPTH = 1
_LEMMA_BITS = 30  # a key packs (premise lemma id, hypothesis lemma id, POS code) into 62 bits
_SUBSTITUTABLE = 8  # cache values: the relation's index in RELATIONS, plus this bit
_FOLD_AT = 1 << 16  # fresh entries gathered in a dict before they are merged into the arrays
_NEVER = 1 << 30  # the steps to a synset that is not reached (an int: inf <= inf would match)
_ROOT = "*ROOT*"  # NLTK's fake root above the verb, adjective and adverb hierarchies (path similarity)
# NLTK's WordNet reader loads synsets lazily and is not safe across threads: feature types that
# run on threads of one featurizer (`wordnet`, `alignment`) read it one at a time.
_READER_LOCK = threading.Lock()


def coarse_pos(tag: str) -> str | None:
    """WordNet's part of speech (n, v, a, r) for a PTB tag, or None for tags outside NN*, VB*, JJ*, RB*."""
    return COARSE_POS.get(tag[:2])


class _LemmaSenses:
    """What the relations need to know about one (lemma, part of speech), read from WordNet once."""

    __slots__ = ("antonyms", "synsets", "up")

    def __init__(self, synsets: frozenset, up: dict, antonyms: frozenset):
        self.synsets = synsets    # every synset of the lemma
        self.up = up              # hypersynset -> fewest steps up from any of `synsets`
        self.antonyms = antonyms  # lowercased names of the antonym lemmas of the lemma's own senses


class WordNetRelations:
    """The strongest WordNet relation from a premise lemma to a hypothesis lemma, cached per pair.

    reader: an NLTK WordNetCorpusReader; None (the default) loads one with
        `features.text.wordnet_data.load_wordnet(data_dir)` on first use. A given reader is used as it
        is but not pickled: a copy loads from `data_dir` (or NLTK's path) instead.
    data_dir: an NLTK data directory holding corpora/wordnet; None: wherever NLTK finds it.
    max_depth: most steps up the hypernym hierarchy for `hypernym`/`hyponym` (None: no limit).
    cohyponym_depth: most steps up from each lemma to the shared hypersynset of `cohyponym`.
    substitution_depth: most steps for the hypernyms of `substitutable` (EOP: 3).
    senses: "all" (every synset of a lemma) or "first" (its most frequent sense only, WordNet's
        first synset: no word-sense disambiguation, but no rare senses either).
    Missing WordNet raises features.text.wordnet_data.WordNetMissingError on first lookup.
    """

    def __init__(self, reader=None, *, data_dir=None, max_depth: int | None = HYPERNYM_DEPTH,
                 cohyponym_depth: int = COHYPONYM_DEPTH, substitution_depth: int = SUBSTITUTION_DEPTH,
                 senses: str = "all"):
        if senses not in SENSES:
            raise ValueError(f"senses must be one of {', '.join(map(repr, SENSES))}, got {senses!r}")
        for name, value in (("max_depth", max_depth), ("cohyponym_depth", cohyponym_depth),
                            ("substitution_depth", substitution_depth)):
            if value is None and name == "max_depth":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer{' or None' if name == 'max_depth' else ''}, "
                                 f"got {value!r}")
        self._reader = reader
        self.data_dir = data_dir
        self.max_depth = max_depth
        self.cohyponym_depth = cohyponym_depth
        self.substitution_depth = substitution_depth
        self.senses = senses
        self._reset()

    def _reset(self) -> None:
        self._lemma_ids: dict[str, int] = {}
        self._keys = np.zeros(0, dtype=np.int64)  # sorted
        self._values = np.zeros(0, dtype=np.int8)
        self._fresh: dict[int, int] = {}
        self._senses: dict[tuple[str, str], _LemmaSenses] = {}
        self._paths: dict[tuple[str, str], dict] = {}  # (lemma, pos) -> ancestor -> fewest steps (`path_similarity`)
        self._similarity_keys = np.zeros(0, dtype=np.int64)  # sorted
        self._similarity_values = np.zeros(0, dtype=np.float64)
        self._lock = threading.Lock()
        self.lookups = 0  # pairs computed through WordNet (the rest came from the cache)

    @property
    def reader(self):
        if self._reader is None:
            self._reader = load_wordnet(self.data_dir)
        return self._reader

    def __getstate__(self):
        self._fold()
        state = dict(self.__dict__)
        state["_reader"] = None
        state["_senses"] = {}  # holds the reader's synsets; cheap to read again
        state["_paths"] = {}
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (f"WordNetRelations(max_depth={self.max_depth}, cohyponym_depth={self.cohyponym_depth}, "
                f"substitution_depth={self.substitution_depth}, senses={self.senses!r}, cached={len(self)})")

    def __len__(self) -> int:
        return len(self._keys) + len(self._fresh)

    # ------------------------------------------------------------------ one pair at a time

    def relation(self, premise_lemma: str, hypothesis_lemma: str, pos: str) -> str:
        """The strongest relation in RELATIONS; pos is n, v, a or r."""
        return RELATIONS[self._value(premise_lemma, hypothesis_lemma, pos) & (_SUBSTITUTABLE - 1)]

    def substitutable(self, premise_lemma: str, hypothesis_lemma: str, pos: str) -> bool:
        """Whether the hypothesis lemma may replace the premise lemma for free in EOP's edit
        distance: the same lemma, a synonym, or a hypernym within `substitution_depth` steps."""
        return bool(self._value(premise_lemma, hypothesis_lemma, pos) & _SUBSTITUTABLE)

    def _value(self, premise_lemma: str, hypothesis_lemma: str, pos: str) -> int:
        if pos not in POS_CODES:
            raise ValueError(f"pos must be one of {', '.join(POS_CODES)} (WordNet's), got {pos!r}")
        with self._lock:
            key = (((self._lemma_id(premise_lemma) << _LEMMA_BITS) | self._lemma_id(hypothesis_lemma)) << 2
                   | POS_CODES.index(pos))
            found = self._fresh.get(key)
            if found is None:
                at = int(np.searchsorted(self._keys, key))
                if at < len(self._keys) and self._keys[at] == key:
                    return int(self._values[at])
                found = self._fresh[key] = self._compute(premise_lemma.lower(), hypothesis_lemma.lower(), pos)
                if len(self._fresh) >= _FOLD_AT:
                    self._fold()
            return found

    # ------------------------------------------------------------------ a whole batch

    def lemma_ids(self, lemmas: Iterable[str]) -> np.ndarray:
        """Ids of lowercased lemmas in this object's vocabulary (new lemmas get new ids)."""
        with self._lock:
            return np.fromiter(map(self._lemma_id, lemmas), dtype=np.int64)

    def codes(self, premise_ids: np.ndarray, hypothesis_ids: np.ndarray, pos_codes: np.ndarray,
              substitutable: bool = False) -> np.ndarray:
        """Per cell, the relation's index in RELATIONS (or, with substitutable=True, whether the
        substitution is free), for lemma ids from `lemma_ids` and POS numbers (POS_CODES order).
        WordNet is asked only about distinct pairs never seen before."""
        keys = self._pack(np.asarray(premise_ids, dtype=np.int64), np.asarray(hypothesis_ids, dtype=np.int64),
                          np.asarray(pos_codes, dtype=np.int64))
        inverse, distinct = factorize(keys)
        with self._lock:
            self._fold()
            at = np.searchsorted(self._keys, distinct)
            at[at == len(self._keys)] = 0
            known = self._keys[at] == distinct if len(self._keys) else np.zeros(len(distinct), dtype=bool)
            values = np.where(known, self._values[at] if len(self._keys) else 0, 0).astype(np.int8)
            missing = np.flatnonzero(~known)
            if len(missing):
                words = list(self._lemma_ids)
                new = distinct[missing]
                p, h, pos = self._unpack(new)
                values[missing] = [self._compute(words[a], words[b], POS_CODES[c])
                                   for a, b, c in zip(p.tolist(), h.tolist(), pos.tolist())]
                self._merge(new, values[missing])
        values = values[inverse]
        if substitutable:
            return (values & _SUBSTITUTABLE).astype(bool)
        return values & (_SUBSTITUTABLE - 1)

    def similarities(self, premise_ids: np.ndarray, hypothesis_ids: np.ndarray, pos_codes: np.ndarray) -> np.ndarray:
        """Per cell, the path similarity of the two lemmas (`path_similarity`), for lemma ids from
        `lemma_ids` and POS numbers (POS_CODES order); each distinct pair is computed once."""
        keys = self._pack(np.asarray(premise_ids, dtype=np.int64), np.asarray(hypothesis_ids, dtype=np.int64),
                          np.asarray(pos_codes, dtype=np.int64))
        inverse, distinct = factorize(keys)
        with self._lock:
            cached = self._similarity_keys
            at = np.minimum(np.searchsorted(cached, distinct), max(len(cached) - 1, 0))
            known = cached[at] == distinct if len(cached) else np.zeros(len(distinct), dtype=bool)
            values = np.where(known, self._similarity_values[at] if len(cached) else 0.0, 0.0)
            missing = np.flatnonzero(~known)
            if len(missing):
                words = list(self._lemma_ids)
                p, h, pos = self._unpack(distinct[missing])
                values[missing] = [self._path_similarity(words[a], words[b], POS_CODES[c])
                                   for a, b, c in zip(p.tolist(), h.tolist(), pos.tolist())]
                keys = np.concatenate([cached, distinct[missing]])
                order = np.argsort(keys, kind="stable")
                self._similarity_keys = keys[order]
                self._similarity_values = np.concatenate([self._similarity_values, values[missing]])[order]
        return values[inverse]

    def path_similarity(self, premise_lemma: str, hypothesis_lemma: str, pos: str) -> float:
        """The best path similarity between a sense of one lemma and a sense of the other, as
        NLTK's `Synset.path_similarity` defines it (1 / (1 + the fewest hypernym steps that join
        them), with its fake root above every verb, adjective and adverb sense); 1 for equal
        lemmas, 0 when WordNet knows either lemma not at all (in that part of speech)."""
        if pos not in POS_CODES:
            raise ValueError(f"pos must be one of {', '.join(POS_CODES)} (WordNet's), got {pos!r}")
        return float(self.similarities(self.lemma_ids([premise_lemma]), self.lemma_ids([hypothesis_lemma]),
                                       [POS_CODES.index(pos)])[0])

    def _path_similarity(self, p: str, h: str, pos: str) -> float:
        if p == h:
            return 1.0
        a, b = self._ancestors(p, pos), self._ancestors(h, pos)
        small, large = (a, b) if len(a) <= len(b) else (b, a)
        steps = min((d + large[s] for s, d in small.items() if s in large), default=None)
        return 0.0 if steps is None else 1.0 / (steps + 1)

    def _ancestors(self, lemma: str, pos: str) -> dict:
        """Every synset reached from a sense of the lemma by hypernym or instance-hypernym pointers
        (the senses themselves at 0), with the fewest steps from any sense; and, except for nouns
        (whose hierarchy has one root), NLTK's fake root, one step above each sense's farthest
        ancestor. Empty when WordNet does not know the lemma."""
        found = self._paths.get((lemma, pos))
        if found is not None:
            return found
        with _READER_LOCK:
            synsets = self.reader.synsets(lemma, pos) if lemma.strip() else []
            if self.senses == "first":
                synsets = synsets[:1]
            union: dict = {}
            for synset in synsets:
                steps = {}
                level, depth = [synset], 0
                while level:
                    fresh = [s for s in level if s not in steps]
                    for s in fresh:
                        steps[s] = depth
                    level = [parent for s in fresh for parent in s.hypernyms() + s.instance_hypernyms()]
                    depth += 1
                if pos != "n":
                    steps[_ROOT] = max(steps.values()) + 1
                for s, d in steps.items():
                    if d < union.get(s, _NEVER):
                        union[s] = d
        self._paths[(lemma, pos)] = union
        return union

    # ------------------------------------------------------------------ the cache

    def _lemma_id(self, lemma: str) -> int:
        lemma = lemma.lower()
        ident = self._lemma_ids.get(lemma)
        if ident is None:
            ident = self._lemma_ids[lemma] = len(self._lemma_ids)
            if ident >= 1 << _LEMMA_BITS:
                raise ValueError(f"more than 2**{_LEMMA_BITS} distinct lemmas")
        return ident

    @staticmethod
    def _pack(p: np.ndarray, h: np.ndarray, pos: np.ndarray) -> np.ndarray:
        return (((p << _LEMMA_BITS) | h) << 2) | pos

    @staticmethod
    def _unpack(keys: np.ndarray):
        mask = (1 << _LEMMA_BITS) - 1
        return keys >> (_LEMMA_BITS + 2), (keys >> 2) & mask, keys & 3

    def _fold(self) -> None:
        if self._fresh:
            keys = np.fromiter(self._fresh.keys(), dtype=np.int64, count=len(self._fresh))
            values = np.fromiter(self._fresh.values(), dtype=np.int8, count=len(self._fresh))
            self._fresh = {}
            self._merge(keys, values)

    def _merge(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Add keys not yet cached (each at most once)."""
        keys = np.concatenate([self._keys, keys])
        order = np.argsort(keys, kind="stable")
        self._keys, self._values = keys[order], np.concatenate([self._values, values])[order]

    # ------------------------------------------------------------------ WordNet

    def _compute(self, p: str, h: str, pos: str) -> int:
        self.lookups += 1
        if p == h:
            return RELATIONS.index("same") | _SUBSTITUTABLE
        a, b = self._lemma_senses(p, pos), self._lemma_senses(h, pos)
        if a.synsets & b.synsets:
            return RELATIONS.index("synonym") | _SUBSTITUTABLE
        limit = self.max_depth if self.max_depth is not None else _NEVER - 1
        up = _steps_to(a.up, b.synsets)  # steps from a premise sense up to a hypothesis sense
        free = _SUBSTITUTABLE if up <= self.substitution_depth else 0
        if up <= limit:
            return RELATIONS.index("hypernym") | free
        if _steps_to(b.up, a.synsets) <= limit:
            return RELATIONS.index("hyponym") | free
        if h in a.antonyms or p in b.antonyms:
            return RELATIONS.index("antonym") | free
        k = self.cohyponym_depth
        small, large = (a.up, b.up) if len(a.up) <= len(b.up) else (b.up, a.up)
        if any(steps <= k and large.get(s, k + 1) <= k for s, steps in small.items()):
            return RELATIONS.index("cohyponym") | free
        return RELATIONS.index("unrelated") | free

    def _lemma_senses(self, lemma: str, pos: str) -> _LemmaSenses:
        found = self._senses.get((lemma, pos))
        if found is None:
            with _READER_LOCK:
                return self._read_senses(lemma, pos)
        return found

    def _read_senses(self, lemma: str, pos: str) -> _LemmaSenses:
        found = self._senses.get((lemma, pos))
        if found is None:
            wn = self.reader
            try:
                found = self._senses[(lemma, pos)] = self._senses_from(wn, lemma, pos)
            except WordNetMissingError:
                raise
            except Exception as exc:  # a damaged copy loads, then fails inside NLTK where a lookup meets the damage
                raise WordNetMissingError(search_path(self.data_dir), f"looking up {lemma!r} ({pos}) fails inside "
                                          f"NLTK ({type(exc).__name__}: {exc}): the copy is damaged") from None
        return found

    def _senses_from(self, wn, lemma: str, pos: str) -> _LemmaSenses:
        """A lemma's senses, the synsets above them (by steps) and its antonyms."""
        synsets = wn.synsets(lemma, pos) if lemma.strip() else []
        if self.senses == "first":
            synsets = synsets[:1]
        depth = max(self.max_depth or 1_000, self.cohyponym_depth, self.substitution_depth)
        up: dict = {}
        level = set(synsets)
        for steps in range(1, depth + 1):
            level = {parent for s in level for parent in s.hypernyms() + s.instance_hypernyms()} - up.keys()
            if not level:
                break
            up.update(dict.fromkeys(level, steps))
        # The lemma's own senses: its name, or the base form NLTK's morphy finds for it.
        forms = {lemma, wn.morphy(lemma, pos) if synsets else None}
        antonyms = frozenset(a.name().lower() for s in synsets for own in s.lemmas()
                             if own.name().lower() in forms for a in own.antonyms())
        return _LemmaSenses(frozenset(synsets), up, antonyms)


def _steps_to(up: dict, targets: frozenset) -> float:
    """Fewest steps up to any of `targets`; a number larger than any depth limit when none is reached."""
    return min((up[t] for t in targets if t in up), default=_NEVER)


_SHARED: list[WordNetRelations] = []


def _shared_relations() -> WordNetRelations:
    """One default WordNetRelations per process, so repeated calls (fit, then predict) share its cache."""
    if not _SHARED:
        _SHARED.append(WordNetRelations())
    return _SHARED[0]


def free_cells(pairs: Sequence, stop_tags, relations: WordNetRelations | None = None) -> list[list[tuple[int, int]]]:
    """EOP's lemma + WordNet edit distance: per pair, the (premise position, hypothesis position)
    cells, counted among the tokens kept after removing words tagged `stop_tags`, where the
    premise lemma may be replaced by the hypothesis lemma for free (`substitutable`: same coarse
    POS, synonym or hypernym within 3 steps). The edit distance treats them as matches, so an
    alignment may use any of them (`models.edit_distance`).

    relations: default, one WordNetRelations (WordNet where NLTK finds it) shared by every call.
    """
    if relations is None:  # not `or`: relations that have looked nothing up yet have len() 0
        relations = _shared_relations()
    sides = {"p": ([], [], []), "h": ([], [], [])}  # lemmas, POS numbers, lengths
    for pair in pairs:
        if pair.premise_lemmas is None or pair.hypothesis_lemmas is None:
            raise ValueError(f"pair {pair.id!r} has no lemmas; annotate it with features.annotate(pairs, lemmas=True)")
        for key, lemmas, tags in (("p", pair.premise_lemmas, pair.premise_tags),
                                  ("h", pair.hypothesis_lemmas, pair.hypothesis_tags)):
            kept = [(lemma, POS_NUMBER.get(tag[:2], -1)) for lemma, tag in zip(lemmas, tags) if tag not in stop_tags]
            sides[key][0].extend(lemma for lemma, _ in kept)
            sides[key][1].extend(pos for _, pos in kept)
            sides[key][2].append(len(kept))
    (p_lemmas, p_pos, p_len), (h_lemmas, h_pos, h_len) = sides["p"], sides["h"]
    p_ids, h_ids = relations.lemma_ids(p_lemmas), relations.lemma_ids(h_lemmas)
    p_pos, h_pos = np.array(p_pos, dtype=np.int64), np.array(h_pos, dtype=np.int64)
    p_len, h_len = np.array(p_len, dtype=np.int64), np.array(h_len, dtype=np.int64)
    # Every (kept premise token, kept hypothesis token) cell of every pair, premise-major.
    p_off, h_off = np.cumsum(p_len) - p_len, np.cumsum(h_len) - h_len
    owner = np.repeat(np.arange(len(p_len)), p_len)
    reps = h_len[owner]
    pi = np.repeat(np.arange(len(owner)), reps)
    pair = owner[pi]
    j = np.arange(len(pi)) - np.repeat(np.cumsum(reps) - reps, reps)
    hj = h_off[pair] + j
    candidate = (p_pos[pi] >= 0) & (p_pos[pi] == h_pos[hj]) & (p_ids[pi] != h_ids[hj])
    free = np.flatnonzero(candidate)[relations.codes(p_ids[pi][candidate], h_ids[hj][candidate],
                                                     p_pos[pi][candidate], substitutable=True)]
    out: list[list[tuple[int, int]]] = [[] for _ in range(len(p_len))]
    for k, i, jj in zip(pair[free].tolist(), (pi[free] - p_off[pair[free]]).tolist(), j[free].tolist()):
        out[k].append((i, jj))
    return out
