"""`agreement`: whether the two sentences agree on their numbers, their negation and the names they
mention (TakeLab's number features, SemEval-2012; the named-entity and negation checks of the STS
systems after it).

Names are proper nouns by their tag (PTB NNP, NNPS): the suite's tagger runs without spaCy's
named-entity recognizer (docs/features.md, "Similarity": what a recognizer would cost and give).
"""
from __future__ import annotations

import re

import numpy as np

from ..base import DenseFeature
from .negation import NEGATION_WORDS
from .quantifiers import NUMBER_WORDS

_NUMBER = re.compile(r"^[+-]?(\d+(,\d{3})*|\d*)(\.\d+)?$")
PROPER_NOUN_TAGS = ("NNP", "NNPS")


def number_value(form: str, tag: str) -> float:
    """The value a token states: a numeral in digits (1,000 and 2.5 included), or a number word
    tagged CD (cardinal number); NaN otherwise."""
    text = form.lower()
    if any(c.isdigit() for c in text) and _NUMBER.match(text):
        return float(text.replace(",", ""))
    if tag == "CD" and text in NUMBER_WORDS:
        return float(NUMBER_WORDS[text])
    return float("nan")


def _distinct(rows: np.ndarray, values: np.ndarray, n_values: int) -> np.ndarray:
    """The distinct (row, value) keys, sorted."""
    return np.unique(rows.astype(np.int64) * n_values + values)


class Agreement(DenseFeature):
    """Agreement of numbers, negation and names across the pair.

    Numbers are the values the tokens state (`number_value`), names the lowercased forms of
    proper nouns (NNP, NNPS), each counted once per sentence. Columns, for numbers and names:
      `<kind>_log_count`: log(1 + the premise's + the hypothesis' distinct ones);
      `<kind>_dice`: 2 x shared / (the premise's + the hypothesis'), 1 when neither has any;
      `<kind>_subset`: 1 when one sentence's are all among the other's (also when one has none);
      `<kind>_hyp_only`, `<kind>_premise_only`: how many only that sentence states;
    and `negation_differs` (one sentence holds a negation word, the other none: `negation`'s
    NEGATION_WORDS), `negation_both`.
    lowercase: the shared encoder's setting; numbers, names and negation words are read lowercased.
    scale, bins, bin_integers: as for every real-valued type (`features.base.DenseFeature`).
    """

    name = "agreement"
    columns = tuple(f"{kind}_{c}" for kind in ("numbers", "names")
                    for c in ("log_count", "dice", "subset", "hyp_only", "premise_only")) + (
        "negation_differs", "negation_both")

    def _values(self, batch) -> np.ndarray:
        n = len(batch)
        if not n:
            return np.zeros((0, len(self.columns)))
        # Per form and per tag, once: the numbers, names and negation words are read off these tables.
        forms = list(batch.forms)
        lowered = [form.lower() for form in forms]
        numeral = np.array([number_value(form, "") for form in lowered], dtype=float).reshape(-1)
        spelled = np.array([NUMBER_WORDS.get(form, np.nan) for form in lowered], dtype=float).reshape(-1)
        negates = np.array([form in NEGATION_WORDS for form in lowered] or [False], dtype=bool)
        name_id, _ = factorize_any(np.array(lowered, dtype=object))
        tags = list(batch.tag_names)
        cardinal = np.array([t == "CD" for t in tags] or [False], dtype=bool)
        proper = np.array([t in PROPER_NOUN_TAGS for t in tags] or [False], dtype=bool)
        out = {}
        sides = {}
        for name, side in (("premise", batch.premise), ("hypothesis", batch.hypothesis)):
            rows = side.token_rows()
            value = np.where(np.isnan(numeral[side.ids]) & cardinal[side.tags], spelled[side.ids], numeral[side.ids])
            number = ~np.isnan(value)
            is_name = proper[side.tags]
            sides[name] = {"numbers": (rows[number], value[number]),
                           "names": (rows[is_name], name_id[side.ids[is_name]]),
                           "negated": np.bincount(rows[negates[side.ids]], minlength=n) > 0}
        for kind in ("numbers", "names"):
            (p_rows, p_values), (h_rows, h_values) = sides["premise"][kind], sides["hypothesis"][kind]
            codes, _ = factorize_any(np.concatenate([p_values, h_values]))
            n_values = max(int(codes.max(initial=-1)) + 1, 1)
            p_keys = _distinct(p_rows, codes[:len(p_values)], n_values)
            h_keys = _distinct(h_rows, codes[len(p_values):], n_values)
            in_p = np.bincount(p_keys // n_values, minlength=n).astype(np.float64)
            in_h = np.bincount(h_keys // n_values, minlength=n).astype(np.float64)
            shared = np.bincount(np.intersect1d(p_keys, h_keys, assume_unique=True) // n_values,
                                 minlength=n).astype(np.float64)
            total = in_p + in_h
            out[f"{kind}_log_count"] = np.log1p(total)
            out[f"{kind}_dice"] = np.divide(2 * shared, total, out=np.ones(n), where=total > 0)
            out[f"{kind}_subset"] = ((shared == in_p) | (shared == in_h)).astype(np.float64)
            out[f"{kind}_hyp_only"] = in_h - shared
            out[f"{kind}_premise_only"] = in_p - shared
        p_neg, h_neg = sides["premise"]["negated"], sides["hypothesis"]["negated"]
        out["negation_differs"] = (p_neg != h_neg).astype(np.float64)
        out["negation_both"] = (p_neg & h_neg).astype(np.float64)
        return np.column_stack([out[c] for c in self.columns])


def factorize_any(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) of numbers or texts (`np.unique`'s inverse)."""
    if not len(values):
        return np.zeros(0, dtype=np.int64), values
    uniques, codes = np.unique(values, return_inverse=True)
    return codes.astype(np.int64).ravel(), uniques
