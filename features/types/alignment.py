"""`alignment`: what of the hypothesis aligns to the premise, and what does not, by part of speech."""
from __future__ import annotations

import numpy as np

from ..base import AlignedFeature
from ..text.parsing import LABEL_ID
from ..text.word_alignment import (ALIGNED, CONFLICT, POS_NAMES, RELATED, STRENGTH, children_of, count_by_row, share,
                                   take)

_PER_POS = ("share_aligned", "unaligned", "specific", "conflict", "premise_unaligned")
_NEG_LABELS = [LABEL_ID["neg"]]


class Alignment(AlignedFeature):
    """Features over the monolingual alignment of the hypothesis to the premise (`features.text.word_alignment`:
    each hypothesis content word to its strongest premise content word of the same coarse POS,
    by exact form, lemma, WordNet synonym, hypernym, hyponym, antonym or co-hyponym).

    Columns, per part of speech (noun, verb, adj, adv):
      `share_aligned_<pos>`      hypothesis words aligned by form, lemma, synonym or hypernym (their
                                 meaning is entailed) / hypothesis words of that POS (1 when none);
      `unaligned_<pos>`          hypothesis words related to no premise word (count);
      `specific_<pos>`           hypothesis words only more specific than a premise word (hyponym);
      `conflict_<pos>`           hypothesis words whose best partner is an antonym or co-hyponym;
      `premise_unaligned_<pos>`  premise words no hypothesis word relates to (count);
    and over all content words:
      `share_aligned`, `share_exact` (aligned by the very form), `share_premise_covered`
      (premise words some hypothesis word relates to, by hyponym or better), `unaligned`,
      `premise_unaligned`, `jaccard` (of the two sets of content lemmas);
      `negation_mismatch`: aligned words (hyponym or better, or in conflict) of which exactly one
      is negated (has a `neg` dependent or the determiner "no"); `negation_both`: both are;
      over the dependents of aligned heads: `dependents_kept` (the dependent aligns to a
      dependent of the head's partner), `dependents_moved` (aligns elsewhere in the premise),
      `dependents_new` (aligns nowhere), `dependents_conflict` (antonym / co-hyponym), and
      `share_dependents_kept` (kept / all such dependents; 1 when none).
    """

    name = "alignment"
    columns = tuple(f"{kind}_{pos}" for kind in _PER_POS for pos in POS_NAMES) + (
        "share_aligned", "share_exact", "share_premise_covered", "unaligned", "premise_unaligned", "jaccard",
        "negation_mismatch", "negation_both",
        "dependents_kept", "dependents_moved", "dependents_new", "dependents_conflict", "share_dependents_kept")
    integer_columns = tuple(c for c in columns if not c.startswith(("share", "jaccard")))

    def _values(self, batch) -> np.ndarray:
        a = self._aligned(batch)
        p, h, al = a.premise, a.hypothesis, a.alignment
        n = len(a)
        out = {}
        h_rows, p_rows = h.rows, p.rows
        s = al.strength
        for number, pos in enumerate(POS_NAMES):
            mine = h.content & (h.pos == number)
            total = count_by_row(h_rows[mine], n)
            out[f"share_aligned_{pos}"] = share(count_by_row(h_rows[mine & (s >= ALIGNED)], n), total)
            out[f"unaligned_{pos}"] = count_by_row(h_rows[mine & (s == 0)], n)
            out[f"specific_{pos}"] = count_by_row(h_rows[mine & (s == STRENGTH["hyponym"])], n)
            out[f"conflict_{pos}"] = count_by_row(h_rows[mine & np.isin(s, CONFLICT)], n)
            theirs = p.content & (p.pos == number)
            out[f"premise_unaligned_{pos}"] = count_by_row(p_rows[theirs & (al.premise_strength < RELATED)], n)
        total = count_by_row(h_rows[h.content], n)
        out["share_aligned"] = share(count_by_row(h_rows[s >= ALIGNED], n), total)
        out["share_exact"] = share(count_by_row(h_rows[s == STRENGTH["exact"]], n), total)
        p_total = count_by_row(p_rows[p.content], n)
        out["share_premise_covered"] = share(count_by_row(p_rows[al.premise_strength >= RELATED], n), p_total)
        out["unaligned"] = count_by_row(h_rows[s == 0], n)
        out["premise_unaligned"] = count_by_row(p_rows[p.content & (al.premise_strength < RELATED)], n)
        out["jaccard"] = _jaccard(p, h, n)
        # Negation at aligned positions.
        no_forms = a.vocabulary.form_ids({"no"})
        p_neg = children_of(p, _NEG_LABELS) | _has_no_determiner(p, no_forms)
        h_neg = children_of(h, _NEG_LABELS) | _has_no_determiner(h, no_forms)
        linked = np.flatnonzero(al.partner >= 0)
        differs = h_neg[linked] != p_neg[al.partner[linked]]
        out["negation_mismatch"] = count_by_row(h_rows[linked[differs]], n)
        out["negation_both"] = count_by_row(h_rows[linked[h_neg[linked] & p_neg[al.partner[linked]]]], n)
        # Dependents of aligned heads.
        tokens = np.arange(len(h.lemma))
        head = h.head
        dep = np.flatnonzero(h.content & (head != tokens) & (al.partner[head] >= 0) & (s[head] >= RELATED))
        p_head_of_partner = take(p.head, al.partner[dep], -2)
        kept = (s[dep] >= RELATED) & (p_head_of_partner == al.partner[head[dep]])
        moved = (s[dep] >= RELATED) & ~kept
        new = s[dep] == 0
        conflict = np.isin(s[dep], CONFLICT)
        rows = h_rows[dep]
        out["dependents_kept"] = count_by_row(rows[kept], n)
        out["dependents_moved"] = count_by_row(rows[moved], n)
        out["dependents_new"] = count_by_row(rows[new], n)
        out["dependents_conflict"] = count_by_row(rows[conflict], n)
        out["share_dependents_kept"] = share(out["dependents_kept"], count_by_row(rows, n))
        return np.column_stack([out[c] for c in self.columns]) if n else np.zeros((0, len(self.columns)))


def _has_no_determiner(side, no_forms: np.ndarray) -> np.ndarray:
    """bool per token: a dependent of it is the word "no" ("no man", "no hat")."""
    out = np.zeros(len(side.lemma), dtype=bool)
    hit = np.isin(side.form, no_forms) & (side.head != np.arange(len(side.head)))
    out[side.head[hit]] = True
    return out


def _sorted_distinct(keys: np.ndarray) -> np.ndarray:
    """np.unique by one sort (numpy's hashing unique is several times slower on millions of keys)."""
    keys = np.sort(keys)
    keep = np.ones(len(keys), dtype=bool)
    keep[1:] = keys[1:] != keys[:-1]
    return keys[keep]


def _jaccard(p, h, n: int) -> np.ndarray:
    """|P & H| / |P | H| over the sets of content lemmas of each pair (1 when both are empty)."""
    vocab = int(max(p.lemma.max(initial=0), h.lemma.max(initial=0))) + 1
    p_keys = _sorted_distinct(p.rows[p.content] * vocab + p.lemma[p.content])
    h_keys = _sorted_distinct(h.rows[h.content] * vocab + h.lemma[h.content])
    at = np.minimum(np.searchsorted(p_keys, h_keys), max(len(p_keys) - 1, 0))
    both = h_keys[p_keys[at] == h_keys] if len(p_keys) else h_keys[:0]
    inter = count_by_row(both // vocab, n)
    union = count_by_row(p_keys // vocab, n) + count_by_row(h_keys // vocab, n) - inter
    return share(inter, union)
