"""`quantifiers`: quantifiers and numbers, and whether they agree across the pair."""
from __future__ import annotations

import re

import numpy as np

from ..base import AlignedFeature
from ..text.parsing import LABEL_ID
from ..text.word_alignment import STRENGTH, count_by_row

# Quantifier classes of determiners and quantifying words (lowercased forms). "a"/"the" are the
# plain existential: SICK and SNLI use them interchangeably for the same individual.
CLASSES = {
    "universal": ("all", "every", "each", "both", "everyone", "everybody", "everything"),
    "negative": ("no", "none", "nobody", "nothing", "neither", "noone"),
    "existential": ("some", "someone", "somebody", "something", "several", "many", "few", "any", "a", "an",
                    "the", "this", "that", "these", "those"),
}
# Upward monotone in the noun (a dog runs => an animal runs) or downward (every animal runs =>
# every dog runs; no animal runs => no dog runs).
DOWNWARD = ("universal", "negative")
NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "thousand": 1000, "dozen": 12,
                     "a": 1, "an": 1, "single": 1})
_DIGITS = re.compile(r"^\d+(\.\d+)?$")
_MODIFIERS = [LABEL_ID[x] for x in ("det", "nummod", "predet", "quantmod", "amod")]
_CLASS_NAMES = tuple(CLASSES)


class Quantifiers(AlignedFeature):
    """Quantifiers (`CLASSES`: universal, negative, existential) and cardinal numbers, per side
    and at aligned nouns (`features.text.word_alignment`), with their monotonicity where it is cheap to decide.

    A noun's quantifier is its determiner (or predeterminer) in the parse; its number is a
    cardinal (digits or a number word, tagged CD) attached to it; "a"/"an" count as one where
    the other side's noun has an explicit number (two dogs / a dog).
    Columns:
      `universal_premise`, `universal_hypothesis`, `negative_premise`, `negative_hypothesis`:
        the side has a quantifier of that class anywhere (1/0);
      `numbers_premise`, `numbers_hypothesis`: cardinal numbers (CD tokens with a value);
      `numbers_unmatched`: hypothesis numbers whose value the premise never states;
      at aligned nouns (hypothesis noun and its premise partner, hyponym or better, or in conflict):
      `quantifier_match`, `quantifier_differs` (both quantified, classes equal or not),
      `negative_flip` (one is negative, the other not), `universal_flip` (one universal, the
      other existential), `number_match`, `number_mismatch` (both counted, values equal or not),
      `number_hypothesis_only` (the hypothesis counts a noun the premise does not count),
      `monotone_entailing` (same class, and the hypothesis noun is more general under an upward
      quantifier or more specific under a downward one), `monotone_violating` (the reverse).
    """

    name = "quantifiers"
    columns = ("universal_premise", "universal_hypothesis", "negative_premise", "negative_hypothesis",
               "numbers_premise", "numbers_hypothesis", "numbers_unmatched",
               "quantifier_match", "quantifier_differs", "negative_flip", "universal_flip",
               "number_match", "number_mismatch", "number_hypothesis_only",
               "monotone_entailing", "monotone_violating")
    integer_columns = columns

    def _values(self, batch) -> np.ndarray:
        a = self._aligned(batch)
        p, h, al = a.premise, a.hypothesis, a.alignment
        n = len(a)
        forms = list(a.vocabulary.forms)
        # Per form id: its quantifier class (index in _CLASS_NAMES, -1 none) and numeric value (nan none).
        klass = np.full(len(forms) + 1, -1, dtype=np.int8)
        value = np.full(len(forms) + 1, np.nan)
        for i, form in enumerate(forms):
            for k, name in enumerate(_CLASS_NAMES):
                if form in CLASSES[name]:
                    klass[i] = k
            if form in NUMBER_WORDS:
                value[i] = NUMBER_WORDS[form]
            elif _DIGITS.match(form.replace(",", "")):
                value[i] = float(form.replace(",", ""))
        cd = a.vocabulary.tag_mask(lambda t: t == "CD")
        out = {}
        sides = {}
        for side_name, side in (("premise", p), ("hypothesis", h)):
            k = klass[side.form]
            v = np.where(cd[side.tag], value[side.form], np.nan)  # explicit numbers
            one = np.isin(side.form, a.vocabulary.form_ids({"a", "an"}))
            rows = side.rows
            for name in ("universal", "negative"):
                out[f"{name}_{side_name}"] = count_by_row(rows[k == _CLASS_NAMES.index(name)], n) > 0
            is_number = cd[side.tag] & ~np.isnan(v)
            out[f"numbers_{side_name}"] = count_by_row(rows[is_number], n)
            # What quantifies each token: the class and number of its modifiers.
            token_class = np.full(len(side.form), -1, dtype=np.int8)
            token_value = np.full(len(side.form), np.nan)
            token_one = np.zeros(len(side.form), dtype=bool)
            if side.head is not None:
                attached = np.isin(side.label, _MODIFIERS) & (side.head != np.arange(len(side.head)))
                q = np.flatnonzero(attached & (k >= 0))[::-1]
                token_class[side.head[q]] = k[q]
                c = np.flatnonzero(attached & ~np.isnan(v))[::-1]
                token_value[side.head[c]] = v[c]
                token_one[side.head[attached & one]] = True
            nominal = np.isin(side.form, a.vocabulary.form_ids(set(CLASSES["universal"] + CLASSES["negative"])
                                                               - set(CLASSES["existential"])))
            token_class[nominal & (side.pos < 0)] = k[nominal & (side.pos < 0)]
            sides[side_name] = (token_class, token_value, is_number, v, token_one)
        # Hypothesis numbers whose value the premise never states.
        p_num, h_num = sides["premise"][2], sides["hypothesis"][2]
        p_vals = np.unique(np.stack([p.rows[p_num], sides["premise"][3][p_num]]), axis=1) if p_num.any() \
            else np.zeros((2, 0))
        h_keys = np.stack([h.rows[h_num], sides["hypothesis"][3][h_num]])
        stated = _member(h_keys, p_vals)
        out["numbers_unmatched"] = count_by_row(h.rows[h_num][~stated], n)
        # At aligned nouns.
        nouns = np.flatnonzero((h.pos == 0) & (al.partner >= 0) & (al.strength >= STRENGTH["cohyponym"]))
        partner = al.partner[nouns]
        hc, hv = sides["hypothesis"][0][nouns], sides["hypothesis"][1][nouns]
        pc, pv = sides["premise"][0][partner], sides["premise"][1][partner]
        rows = h.rows[nouns]
        both = (hc >= 0) & (pc >= 0)
        neg, uni, ex = (_CLASS_NAMES.index(x) for x in ("negative", "universal", "existential"))
        out["quantifier_match"] = count_by_row(rows[both & (hc == pc)], n)
        out["quantifier_differs"] = count_by_row(rows[both & (hc != pc)], n)
        out["negative_flip"] = count_by_row(rows[both & ((hc == neg) != (pc == neg))], n)
        out["universal_flip"] = count_by_row(rows[both & (((hc == uni) & (pc == ex)) | ((hc == ex) & (pc == uni)))], n)
        # "a"/"an" count as one only against an explicit number on the other side.
        explicit = ~np.isnan(hv) | ~np.isnan(pv)
        hv = np.where(np.isnan(hv) & sides["hypothesis"][4][nouns], 1.0, hv)
        pv = np.where(np.isnan(pv) & sides["premise"][4][partner], 1.0, pv)
        counted = explicit & ~np.isnan(hv) & ~np.isnan(pv)
        out["number_match"] = count_by_row(rows[counted & (hv == pv)], n)
        out["number_mismatch"] = count_by_row(rows[counted & (hv != pv)], n)
        out["number_hypothesis_only"] = count_by_row(rows[~np.isnan(sides["hypothesis"][1][nouns]) & np.isnan(pv)], n)
        same = both & (hc == pc)
        down = np.isin(pc, [_CLASS_NAMES.index(x) for x in DOWNWARD])
        general = al.strength[nouns] == STRENGTH["hypernym"]
        specific = al.strength[nouns] == STRENGTH["hyponym"]
        out["monotone_entailing"] = count_by_row(rows[same & ((general & ~down) | (specific & down))], n)
        out["monotone_violating"] = count_by_row(rows[same & ((specific & ~down) | (general & down))], n)
        if not n:
            return np.zeros((0, len(self.columns)))
        return np.column_stack([np.asarray(out[c], dtype=np.float64) for c in self.columns])


def _member(keys: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each column (row, value) of `keys` is a column of `table`."""
    if not keys.shape[1] or not table.shape[1]:
        return np.zeros(keys.shape[1], dtype=bool)
    a = keys[0] * 1e6 + keys[1]
    b = np.sort(table[0] * 1e6 + table[1])
    at = np.clip(np.searchsorted(b, a), 0, len(b) - 1)
    return b[at] == a
