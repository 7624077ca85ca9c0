"""`syntax`: who does what to whom in each sentence, from the dependency parse, compared across the pair."""
from __future__ import annotations

import numpy as np

from ..base import AlignedFeature
from ..text.parsing import LABEL_ID
from ..text.word_alignment import ALIGNED, CONFLICT, FROM_RELATION, RELATED, STRENGTH, Flat, count_by_row, share, take

ROLES = ("subject", "verb", "object")
_KINDS = ("match", "specific", "conflict", "differs", "missing_premise", "missing_hypothesis")
_L = LABEL_ID
_SUBJECT = [_L["nsubj"], _L["csubj"]]
_PASSIVE_SUBJECT = [_L["nsubjpass"], _L["csubjpass"]]
_OBJECT = [_L["dobj"]]
_NEGATIVE_WORDS = {"no", "nobody", "nothing", "none", "noone", "neither", "never", "not", "n't", "n’t"}
_NEGATIVE_NOMINALS = {"nobody", "nothing", "none", "noone"}


class Syntax(AlignedFeature):
    """The main predicate of each sentence (the parse's root, or for "there is a man cutting
    ...", the verb the existential introduces) with its logical subject (nsubj, or the agent
    of a passive) and logical object (dobj, or the subject of a passive), compared across the
    pair through the relation of their lemmas (`features.text.word_alignment` levels: form, lemma, WordNet).

    Columns, per role (subject, verb, object):
      `<role>_match`     the two sentences' role words are aligned (form, lemma, synonym, or the
                         hypothesis word is a hypernym);
      `<role>_specific`  the hypothesis word is more specific (hyponym);
      `<role>_conflict`  antonyms or co-hyponyms (man / woman, dog / cat);
      `<role>_differs`   unrelated words;
      `<role>_missing_premise`, `<role>_missing_hypothesis`: only one sentence has the role;
    and
      `roles_swapped`    the hypothesis' subject matches the premise's object and its object the
                         premise's subject (the dog bites the man / the man bites the dog);
      `passive_premise`, `passive_hypothesis`, `voice_differs`: passive voice (nsubjpass, auxpass);
      negation scope, per side: `negated_verb_<side>` (the predicate has a `neg` dependent, or the
      subject is "nobody"/"nothing"/"no X"), `negated_object_<side>` ("no X" as object);
      `negation_scope_differs` (the two sides negate different things, or one nothing);
      `triples_matched`, `share_triples_matched`: hypothesis dependency triples (head, label,
      dependent) between content words whose head and dependent align (hyponym or better) to a
      premise head and its own dependent; `triples_unmatched`.
    """

    name = "syntax"
    columns = tuple(f"{role}_{kind}" for role in ROLES for kind in _KINDS) + (
        "roles_swapped", "passive_premise", "passive_hypothesis", "voice_differs",
        "negated_verb_premise", "negated_verb_hypothesis", "negated_object_premise", "negated_object_hypothesis",
        "negation_scope_differs", "triples_matched", "share_triples_matched", "triples_unmatched")
    integer_columns = tuple(c for c in columns if not c.startswith("share"))

    def _values(self, batch) -> np.ndarray:
        a = self._aligned(batch)
        p, h = a.premise, a.hypothesis
        n = len(a)
        negative = a.vocabulary.form_ids(_NEGATIVE_WORDS)
        nominal = a.vocabulary.form_ids(_NEGATIVE_NOMINALS)
        p_roles, h_roles = _roles(p, n, negative, nominal), _roles(h, n, negative, nominal)
        out = {}
        for role in ROLES:
            pr, hr = p_roles[role], h_roles[role]
            both = (pr >= 0) & (hr >= 0)
            level = np.full(n, -1, dtype=np.int8)
            level[both] = _levels(a, pr[both], hr[both])
            out[f"{role}_match"] = level >= ALIGNED
            out[f"{role}_specific"] = level == STRENGTH["hyponym"]
            out[f"{role}_conflict"] = np.isin(level, CONFLICT)
            out[f"{role}_differs"] = level == 0
            out[f"{role}_missing_premise"] = (pr < 0) & (hr >= 0)
            out[f"{role}_missing_hypothesis"] = (pr >= 0) & (hr < 0)
        crossed = np.ones(n, dtype=bool)
        for mine, theirs in (("subject", "object"), ("object", "subject")):
            pr, hr = p_roles[theirs], h_roles[mine]
            both = (pr >= 0) & (hr >= 0)
            level = np.full(n, -1, dtype=np.int8)
            level[both] = _levels(a, pr[both], hr[both])
            crossed &= level >= RELATED
        out["roles_swapped"] = crossed & ~(out["subject_match"] & out["object_match"])
        out["passive_premise"], out["passive_hypothesis"] = p_roles["passive"], h_roles["passive"]
        out["voice_differs"] = p_roles["passive"] != h_roles["passive"]
        for side, roles in (("premise", p_roles), ("hypothesis", h_roles)):
            out[f"negated_verb_{side}"] = roles["negated_verb"]
            out[f"negated_object_{side}"] = roles["negated_object"]
        p_scope = p_roles["negated_verb"] * 1 + p_roles["negated_object"] * 2
        h_scope = h_roles["negated_verb"] * 1 + h_roles["negated_object"] * 2
        out["negation_scope_differs"] = p_scope != h_scope
        matched, total = _triples(a, n)
        out["triples_matched"] = matched
        out["share_triples_matched"] = share(matched, total)
        out["triples_unmatched"] = total - matched
        if not n:
            return np.zeros((0, len(self.columns)))
        return np.column_stack([np.asarray(out[c], dtype=np.float64) for c in self.columns])


def _first_child(side: Flat, parents: np.ndarray, labels, n: int) -> np.ndarray:
    """Per pair, the first token with one of `labels` whose head is that pair's `parents` token (-1: none)."""
    wanted = np.zeros(len(LABEL_ID), dtype=bool)
    wanted[labels] = True
    candidates = np.flatnonzero(wanted[side.label])  # few tokens carry a given label: test only those
    rows = side.rows[candidates]
    parent = parents[rows]
    head = side.head[candidates]
    hits = candidates[(parent >= 0) & (head == parent) & (head != candidates)]
    found = np.full(n, -1, dtype=np.int64)
    found[side.rows[hits[::-1]]] = hits[::-1]  # reversed, so the earliest token is written last
    return found


def _roles(side: Flat, n: int, negative_forms: np.ndarray, nominal_forms: np.ndarray) -> dict:
    """Per pair: the flat index of its predicate, logical subject and object (-1: none), whether it
    is passive, and what a negation governs."""
    tokens = np.arange(len(side.head))
    rows = side.rows
    root = np.full(n, -1, dtype=np.int64)
    is_root = side.head == tokens
    hits = np.flatnonzero(is_root)[::-1]
    root[rows[hits]] = hits
    # "There is a man cutting bread": the predicate is the verb attached to the existential's noun.
    expl = _first_child(side, root, [_L["expl"]], n)
    attr = _first_child(side, root, [_L["attr"]], n)
    existential = (expl >= 0) & (attr >= 0)
    verb_of_attr = _first_child(side, np.where(existential, attr, -1), [_L["acl"], _L["relcl"]], n)
    predicate = np.where(existential & (verb_of_attr >= 0), verb_of_attr, root)
    subject = _first_child(side, predicate, _SUBJECT, n)
    passive_subject = _first_child(side, predicate, _PASSIVE_SUBJECT, n)
    agent = _first_child(side, predicate, [_L["agent"]], n)
    agent_noun = _first_child(side, agent, [_L["pobj"]], n)
    obj = _first_child(side, predicate, _OBJECT, n)
    subject = np.where(subject >= 0, subject, np.where(existential, attr, -1))
    passive = passive_subject >= 0
    logical_subject = np.where(passive, agent_noun, subject)
    logical_object = np.where(passive, passive_subject, obj)
    # Negation: a `neg` dependent of the predicate, a negative subject ("nobody", "no man").
    neg_child = _first_child(side, predicate, [_L["neg"]], n) >= 0
    # One slot more than there are tokens, False: where index is -1 (no such token) it reads that
    # slot, which exists even when every sentence of the batch is empty.
    negative_det = np.zeros(len(tokens) + 1, dtype=bool)
    hit = np.isin(side.form, negative_forms) & (side.head != tokens)
    negative_det[side.head[hit]] = True
    negative_det[:-1] |= np.isin(side.form, nominal_forms)

    def negated(index):
        return negative_det[index]

    surface_subject = np.where(passive, passive_subject, subject)
    return {"subject": logical_subject, "verb": predicate, "object": logical_object, "passive": passive,
            "negated_verb": neg_child | negated(surface_subject), "negated_object": negated(obj)}


def _levels(a, p_index: np.ndarray, h_index: np.ndarray) -> np.ndarray:
    """Alignment level (`features.text.word_alignment.STRENGTH`) between given premise and hypothesis tokens:
    WordNet's relation where both have the same coarse POS, else form or lemma equality."""
    p, h = a.premise, a.hypothesis
    level = np.zeros(len(p_index), dtype=np.int8)
    level[p.lemma[p_index] == h.lemma[h_index]] = STRENGTH["same"]
    level[p.form[p_index] == h.form[h_index]] = STRENGTH["exact"]
    wordnet = (level == 0) & (p.pos[p_index] >= 0) & (p.pos[p_index] == h.pos[h_index])
    if wordnet.any():
        codes = a.relations.codes(p.lemma[p_index[wordnet]], h.lemma[h_index[wordnet]], p.pos[p_index[wordnet]])
        level[wordnet] = FROM_RELATION[codes]
    return level


def _triples(a, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: hypothesis (head, dependent) arcs between content words whose both ends align
    (hyponym or better) to a premise arc, and all such hypothesis arcs."""
    p, h, al = a.premise, a.hypothesis, a.alignment
    tokens = np.arange(len(h.head))
    arc = np.flatnonzero(h.content & (h.head != tokens) & h.content[h.head])
    rows = h.rows[arc]
    dep_partner, head_partner = al.partner[arc], al.partner[h.head[arc]]
    ok = (al.strength[arc] >= RELATED) & (al.strength[h.head[arc]] >= RELATED) & (dep_partner >= 0)
    ok &= take(p.head, dep_partner, -2) == head_partner
    return count_by_row(rows[ok], n), count_by_row(rows, n)
