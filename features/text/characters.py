"""The spelling of a batch's pairs: each sentence as a sequence of characters, or of chrF++'s word
pieces, in the flat `Side` layout of `features.columns.encoding`, so that the n-gram machinery of
the word-level types (`features.types.bleu.clipped_matches`) counts character n-grams too.

A sentence's characters are those of its tokens, joined without spaces (sacrebleu's chrF removes
all whitespace before it takes character n-grams); its word pieces are its tokens with a
punctuation mark at either end split off, as sacrebleu's chrF++ splits words
(`CHRF._remove_punctuation`). Both are built from the batch's word forms (lowercased when the
encoder lowercases), once per form, and gathered per token with numpy.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from ..columns.encoding import EncodedPairs, Side, row_ranges

# sacrebleu's CHRF._PUNCTS: string.punctuation
PUNCTUATION = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
# Characters (both sides) per row range spelled at once: bounds the memory of the matches.
CHUNK_CHARACTERS = 1 << 16


def word_pieces(form: str) -> list[str]:
    """chrF++'s words of one token: split on whitespace, then a word of two or more characters
    loses a punctuation mark at its end (else at its start) into a piece of its own."""
    pieces = []
    for word in form.split():
        if len(word) > 1 and word[-1] in PUNCTUATION:
            pieces += [word[:-1], word[-1]]
        elif len(word) > 1 and word[0] in PUNCTUATION:
            pieces += [word[0], word[1:]]
        else:
            pieces.append(word)
    return pieces


@dataclass
class _Table:
    """Per form id: where its units (characters or pieces, as ids) start in `units`, and how many."""

    units: np.ndarray   # int32 unit ids, every form's after the other
    starts: np.ndarray  # int64 per form
    lengths: np.ndarray  # int64 per form
    points: np.ndarray | None = None  # characters: the code point of each unit of `units`


def _forms(batch: EncodedPairs) -> list[str]:
    if batch.forms is None:
        raise ValueError("the batch does not carry its word forms; encode the pairs with an Encoder")
    return list(batch.forms)


def _character_table(forms: list[str]) -> _Table:
    clean = ["".join(form.split()) for form in forms]  # whitespace inside a token is no character of chrF's
    lengths = np.fromiter(map(len, clean), dtype=np.int64, count=len(clean))
    points = np.frombuffer("".join(clean).encode("utf-32-le"), dtype=np.uint32)
    _, units = np.unique(points, return_inverse=True)
    return _Table(units.astype(np.int32).ravel(), np.cumsum(lengths) - lengths, lengths, points)


def _piece_table(forms: list[str], split=word_pieces) -> _Table:
    ids: dict[str, int] = {}
    per_form = [[ids.setdefault(piece, len(ids)) for piece in split(form)] for form in forms]
    lengths = np.fromiter(map(len, per_form), dtype=np.int64, count=len(per_form))
    units = np.fromiter((i for pieces in per_form for i in pieces), dtype=np.int32, count=int(lengths.sum()))
    return _Table(units, np.cumsum(lengths) - lengths, lengths)


def _gather(side: Side, table: _Table, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """(positions in the table's units of rows [start, stop) of `side`, each token replaced by its
    form's units; the rows' offsets among them)."""
    ids = side.ids[side.offsets[start]:side.offsets[stop]]
    counts = table.lengths[ids]
    ends = np.cumsum(counts)
    gather = np.repeat(table.starts[ids] - (ends - counts), counts)
    gather += np.arange(len(gather), dtype=np.int64)
    token_ends = np.zeros(len(ids) + 1, dtype=np.int64)
    token_ends[1:] = ends
    return gather, token_ends[side.offsets[start:stop + 1] - side.offsets[start]]


def _spelled_side(side: Side, table: _Table, start: int, stop: int) -> Side:
    """Rows [start, stop) of `side` as units: each token replaced by its form's units."""
    gather, offsets = _gather(side, table, start, stop)
    # No tags: a side of characters or pieces is only ever matched by identity.
    return Side(table.units[gather], None, None, None, offsets)


def spelled_side(batch: EncodedPairs, side_name: str, unit: str) -> Side:
    """One side of the whole batch in `unit`s ("characters", "pieces" or "words")."""
    side = getattr(batch, side_name)
    return _spelled_side(side, getattr(spelling(batch), unit), 0, len(side.offsets) - 1)


def sentence_texts(batch: EncodedPairs, side_name: str) -> list[str]:
    """Each row's sentence on one side as the text chrF reads: its (lowercased) forms joined
    without whitespace."""
    table = spelling(batch).characters
    side = getattr(batch, side_name)
    gather, offsets = _gather(side, table, 0, len(side.offsets) - 1)
    text = table.points[gather].astype("<u4").tobytes().decode("utf-32-le")
    bounds = offsets.tolist()
    return [text[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


@dataclass
class Spelling:
    """The character and word-piece tables of a batch's forms (built once per batch)."""

    characters: _Table
    pieces: _Table
    words: _Table  # a form's words: the form split on whitespace (TER's words; almost always the form itself)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


def spelling(batch: EncodedPairs) -> Spelling:
    """The batch's spelling tables, made on first use and shared by the types that read them."""
    with batch._lock:
        found = batch.premise._cache.get("spelling")
        if found is None:
            forms = _forms(batch)
            found = batch.premise._cache["spelling"] = Spelling(_character_table(forms), _piece_table(forms),
                                                                _piece_table(forms, str.split))
    return found


def spelled_chunks(batch: EncodedPairs, unit: str) -> Iterator[tuple[int, int, EncodedPairs]]:
    """(start, stop, the rows [start, stop) as a batch of `unit`s: "characters", "pieces" or "words") for
    consecutive row ranges of about CHUNK_CHARACTERS units; each chunk's batch finds its own
    matches (`EncodedPairs.word_matches`), so memory stays bounded whatever the batch's size."""
    table = getattr(spelling(batch), unit)
    p, h = batch.premise, batch.hypothesis
    weights = _row_units(p, table) + _row_units(h, table)
    for start, stop in row_ranges(weights, CHUNK_CHARACTERS):
        yield start, stop, EncodedPairs(batch.encoder, _spelled_side(p, table, start, stop),
                                        _spelled_side(h, table, start, stop))


def _row_units(side: Side, table: _Table) -> np.ndarray:
    per_token = np.zeros(len(side.ids) + 1, dtype=np.int64)
    np.cumsum(table.lengths[side.ids], out=per_token[1:])
    return np.diff(per_token[side.offsets])
