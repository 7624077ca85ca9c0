"""Dependency parses read off Stanford constituency trees, so that corpora which ship trees
(SNLI, MultiNLI: `sentence1_parse`) need no dependency parser.

Running spaCy's parser over every distinct SNLI sentence takes minutes, yet the trees are already
there, and a dependency parse is their head structure plus a label per arc. `dependencies_from_tree`
finds each constituent's head by head-percolation rules (Collins-style tables written for this
module) and labels each arc from the categories and words around it, following the conventions
of the parser it stands in for (`features.text.parsing`: en_core_web_sm, ClearNLP labels): auxiliaries
and passive "be" depend on the main verb, a copula without a verbal complement heads its clause
(attr, acomp), a preposition heads its object (prep, pobj), the first conjunct heads a
coordination and each later conjunct, "and" and commas attach to the conjunct before them.

It is one pass over the bracket string in plain Python (no regular expression, no tree objects):
each constituent is resolved when its closing bracket is read.
"""
from __future__ import annotations

import numpy as np

# What a resolved constituent tells the constituents above it (bits).
PASSIVE = 1  # a passive verb phrase or clause: its subject is nsubjpass
SUBJECT = 2  # a clause with its own subject: ccomp rather than xcomp
POSSESSIVE = 4  # a noun phrase ending in 's: poss rather than compound
WH_ADVERB = 8  # a subordinate clause opened by "where", "when": advcl beside a verb
ADVERBIAL = 16  # ... by a subordinating conjunction ("while", "because"): advcl
COMPLEMENT = 32  # ... by "that" or "whether": a complement (acl beside a noun), not a relative clause


def _words(text: str) -> frozenset:
    return frozenset(text.split())


_TAIL = ") \t\n\r\f\v"  # what may follow a leaf's word: closing brackets and white space
_PUNCT = _words(". , : `` '' -LRB- -RRB- HYPH NFP #")
_SEPARATORS = _words("CC CONJP , :")
_VERB_TAGS = _words("VB VBD VBG VBN VBP VBZ MD TO")
_CLAUSAL = _words("VP S SQ SINV")  # they pass the passive voice of their head up
_NOMINAL = _words("NP NX NML WHNP")
_BE = _words("be is are was were been being am 's 're 'm ’s ’re ’m")
_GET = _words("get gets got gotten getting")  # "got hurt": a passive auxiliary
_AUXILIARIES = _BE | _words("have has had having 've 'd do does did will wo would shall can ca could may might must "
                            "should to")
_COPULAS = _BE | _words("become becomes became becoming")
_NEGATIONS = _words("not n't n’t never")
_PREDETERMINERS = _words("all both half such")
_COMPLEMENTIZERS = _words("that whether")
# Verbs whose subjectless clause is their complement (xcomp: "tries to jump", "stops running");
# after other verbs spaCy reads such a clause as saying why or how (advcl: "jumps to catch").
_CONTROL_VERBS = frozenset(form for verb in _words(
    "attempt appear seem go stop refuse manage prepare wait want like love begin start need help look practice "
    "continue keep decide plan learn hope use fail finish hate enjoy happen pretend struggle waste pause quit avoid "
    "tend have try") for form in (verb, verb + "s", verb.removesuffix("e") + "ed", verb.removesuffix("e") + "ing")
) | _words("tries tried goes went gone stopped stopping began begun beginning kept planned planning quitting has had "
           "about ready")
# Adjectives (by their tag) that say where or how beside a verb: advmod ("they are outside").
_ADVERBIAL_ADJECTIVES = _words("outside inside outdoors indoors together alone out high low upstairs downstairs "
                               "nearby ahead home away")
_WEAR = _words("wear wears wearing wore worn")  # "wearing blue": the colour is what is worn
# Particles spaCy reads as prepositions when an object follows ("walks down the street").
_PREPOSITIONAL_PARTICLES = _words("down along across through past around over about")
# Prepositions the Stanford parser puts over a clause that spaCy reads as subordinate ("while
# holding a cup": mark and advcl, not prep and pcomp).
_SUBORDINATORS = _words("while whilst as because although though since until unless whereas if once")
# Coarse classes: "and" coordinates a constituent's own conjuncts when the one before it is of the
# constituent's class (nouns in an NP); "black and white dog" is no coordination of the NP.
_CLASS = {cat: cls for cls, cats in (
    ("N", "NP NX NML NN NNS NNP NNPS PRP CD QP WHNP"), ("V", "VP VB VBD VBG VBN VBP VBZ MD"),
    ("A", "ADJP JJ JJR JJS WHADJP"), ("R", "ADVP RB RBR RBS WHADVP"), ("P", "PP IN TO WHPP"),
    ("S", "S SINV SQ SBAR SBARQ"), ("*", "UCP FRAG")) for cat in cats.split()}


def _ranks(categories: str) -> dict:
    return {c: i for i, c in enumerate(categories.split())}


# Head rules: category, the side the search starts from, child categories (most wanted first). When
# no child is of a listed category, the first non-punctuation child from that side heads. Noun and
# verb phrases have rules of their own (`_head_child`).
_RULES = {cat: (side == "right", _ranks(cats)) for cat, side, cats in (line.split(None, 2) for line in """
ADJP left JJ JJR JJS VBN VBG ADJP NN NNS NNP QP CD RB RBR ADVP DT
ADVP right RB RBR RBS ADVP WRB JJ JJR JJS IN RP NN NNS CD DT
CONJP left CC RB IN
FRAG left VP S SQ SINV SBAR NP NN NNS ADJP PP ADVP
INTJ left UH
PP left IN TO VBG VBN RP JJ RB PP
PRN left S VP NP PP ADJP SBAR
PRT left RP
QP right CD QP NN NNS
ROOT left S SINV SQ SBARQ FRAG NP VP
RRC left VP ADJP PP NP ADVP
S left VP S SINV SQ SBAR FRAG ADJP UCP NP PP
SBAR left S SQ SINV SBAR FRAG VP NP
SBARQ left SQ S SINV SBARQ FRAG
SINV left VP VBZ VBD VBP VB MD S SINV ADJP NP
SQ left VP VBZ VBD VBP VB MD SQ
VP left VB VBD VBG VBN VBP VBZ MD TO VP ADJP JJ NN NNS NP S SBAR
WHADJP left WRB JJ ADJP
WHADVP right WRB RB
WHPP left IN TO
""".strip().splitlines())}
_NOUN_HEADS = _words("NN NNS NNP NNPS NX NML PRP FW WP EX")  # the rightmost heads a noun phrase
_NP_FALLBACK = _ranks("CD QP JJ JJS JJR ADJP VBG VBN DT PRP$ RB ADVP")  # from the right, without noun or NP

# Arc labels by parent category, child category ("|": any of these) and side of the head (<: before,
# >: after, *: either); parent * is any parent without an entry of its own. A label "@rule" is
# decided by `_special` from the words and the other children.
_LABEL_SPEC = """
* PP * prep                     * ADVP|RB * @adv                * RBR|RBS|WRB|WHADVP * advmod
* DT|WDT * det                  * PDT * predet                  * PRP$|WP$ * poss              * POS * case
* MD|TO * aux                   * RP|PRT * @prt                 * CD|QP * nummod               * EX * expl
* JJ|JJR|JJS|ADJP * amod        * VB|VBD|VBP|VBZ|VBN|VBG * @verb                               * FW * compound
* NN|NNS|NNP|NNPS|NX|NML < compound                             * NN|NNS|NNP|NP > appos        * NP < @np
* PRP * @np                     * SBAR * @sbar                  * S * @clause                  * VP|RRC * acl
* CC|CONJP * cc                 * UH|INTJ * intj                * IN * mark                    * SQ|SINV|SBARQ * ccomp
NP VBG|VBN < amod               NP VBG|VBN > acl                NP S * acl                     NP ADVP * advmod
NP PRP > appos                  ADJP VBN < amod
PP NP|NN|NNS|NNP|PRP|CD|QP|WHNP * pobj                          PP S|SBAR|VP * pcomp           PP IN * prep
PP PP|ADJP|ADVP|JJ > pcomp      VP PP * @prep                   VP NP|NN|NNS|NNP|PRP|CD > @obj
VP NP < npadvmod                VP ADJP|JJ|JJR > @acomp         VP VP > xcomp                  VP UCP|DT > dobj
VP IN * prep                    S NP|PRP|NN|NNS < @subj         S NP > npadvmod                S S|ADJP < advcl
S S > ccomp                     S VP > dep                      S EX < expl                    SQ|SINV NP * @subj
SQ PRP * @subj                  SQ|SINV ADJP > @acomp           SQ NP > @obj                   SQ VP > xcomp
SBAR WHNP|WDT|WP < @wh          SBAR WHPP < prep                SBAR DT|NN < mark              SBAR RB < advmod
SBAR SBAR > conj                ADJP NP|NN * npadvmod           ADJP S > xcomp                 ADJP JJ < amod
ADJP SBAR > ccomp               ADVP NP|NN|NNS < npadvmod       ADVP IN > prep                 QP RB|IN|JJR|JJ < advmod
QP CD < compound                QP DT < quantmod                QP CD > conj
"""
_LABEL_BITS = {"nsubj": SUBJECT, "nsubjpass": SUBJECT, "expl": SUBJECT, "csubj": SUBJECT, "auxpass": PASSIVE}


def _label_table() -> dict:
    cells = _LABEL_SPEC.split()
    table = {}
    for i in range(0, len(cells), 4):
        parents, children, side, label = cells[i:i + 4]
        for parent in parents.split("|"):
            for child in children.split("|"):
                for before in ((True, False) if side == "*" else (side == "<",)):
                    table[("" if parent == "*" else parent, child, before)] = label
    return table


_TABLE = _label_table()
_LABELS: dict = {}  # (parent, child, before) -> label, memo of `_label`
_BASE: dict = {}  # category -> category without function tags, memo of `_base`
_MEMO_LIMIT = 100_000  # the input decides the keys: keep the memos bounded


def _label(key: tuple) -> str:
    """The parent's own entry, else any parent's, else "dep"."""
    label = _TABLE.get(key) or _TABLE.get(("", key[1], key[2]), "dep")
    if len(_LABELS) < _MEMO_LIMIT:
        _LABELS[key] = label
    return label


def _base(cat: str) -> str:
    """The category without function tags or indices ("NP-SBJ-1": "NP"); "-LRB-", "-NONE-" stay whole."""
    base = cat if cat.startswith("-") else cat.split("-")[0].split("=")[0]
    if len(_BASE) < _MEMO_LIMIT:
        _BASE[cat] = base
    return base


def dependencies_from_tree(parse: str) -> tuple[tuple[str, ...], np.ndarray, tuple[str, ...]]:
    """(tokens, heads, labels) of a bracketed constituency parse such as "(ROOT (S (NP (DT A) (NN
    man)) (VP (VBZ sleeps)) (. .)))": the preterminal leaves' words in order (as
    `experiments.corpora.readers.snli.tokens_and_tags` reads them), each token's head position
    (int32; the root points at itself, and there is one root) and its label (`features.text.parsing.LABELS`).

    Raises ValueError when the brackets do not balance, a word stands outside a `(TAG word)` leaf,
    or the tree has no leaves.
    """
    chunks = parse.split("(")  # each: a label, maybe a word, maybe closing brackets
    if chunks[0].strip():
        raise ValueError("malformed tree: text before the first bracket")
    words = []
    heads, labels = [-1] * len(chunks), ["dep"] * len(chunks)  # at most one leaf per chunk
    # A resolved constituent (a leaf too): (category, head token, bits, head word lowercased, head tag).
    stack = []  # open constituents: [label, children, holds a conjunction]
    top = None
    for chunk in chunks[1:]:
        body = chunk.rstrip(_TAIL)
        if ")" in body:
            raise ValueError(f"malformed tree: a word stands outside a (TAG word) leaf in {chunk!r}")
        parts = body.split()
        closes = chunk.count(")")
        if len(parts) == 2:
            # Exactly "(TAG word)", as the corpus readers' pattern reads a leaf: any other spacing
            # would give tokens other than theirs.
            if not closes or parts[0] + " " + parts[1] != body:
                raise ValueError(f"malformed tree: {chunk!r} is no (TAG word) leaf")
            tag = _BASE.get(parts[0]) or _base(parts[0])
            node = (tag, len(words), 0, parts[1].lower(), tag)
            words.append(parts[1])
            top = _attach(node, stack, top, tag == "CC")
            closes -= 1
        elif len(parts) > 2:
            raise ValueError(f"malformed tree: {chunk!r} holds more than a tag and a word")
        elif closes:
            closes -= 1  # an empty constituent "(X)": no leaf, nothing to attach
        else:
            stack.append([parts[0] if parts else "", [], False])
        while closes:
            if not stack:
                raise ValueError("malformed tree: a closing bracket without its opening one")
            label, children, coordinated = stack.pop()
            cat = _BASE.get(label) or _base(label)
            if len(children) == 1:
                node = (cat,) + children[0][1:]
            else:
                node = _resolve(cat, children, coordinated, heads, labels) if children else None
            closes -= 1
            if node is None:  # no leaf below
                continue
            top = _attach(node, stack, top, cat == "CONJP")
    if stack:
        raise ValueError("malformed tree: unbalanced brackets (a constituent is never closed)")
    if top is None:
        raise ValueError("malformed tree: no leaves")
    root = top[1]
    heads[root], labels[root] = root, "ROOT"
    count = len(words)
    return tuple(words), np.array(heads[:count], dtype=np.int32), tuple(labels[:count])


def _attach(node: tuple, stack: list, top, coordinates: bool):
    """Give `node` to the open constituent (marking it coordinated when `coordinates`), or make it
    the tree's top; returns the top."""
    if stack:
        stack[-1][1].append(node)
        if coordinates:
            stack[-1][2] = True
        return top
    if top is None:
        return node
    raise ValueError("malformed tree: text after the end of the tree")


def _resolve(cat: str, children: list, coordinated: bool, heads: list, labels: list) -> tuple:
    """Attach each child but the head to the head; return the constituent."""
    n = len(children)
    spans = _conjuncts(cat, children) if coordinated else None
    if spans is None:
        spans = ((0, n, _head_child(cat, children, 0, n)),)
    head_child = children[spans[0][2]]
    bits = head_child[2] & PASSIVE if cat in _CLAUSAL else 0
    if cat == "PP" and head_child[3] in _SUBORDINATORS:
        clause = next((j for j in range(spans[0][2] + 1, n) if children[j][0] == "S"), -1)
        if clause >= 0:  # "while holding a cup": the clause heads, the preposition marks it
            cat, bits, spans = "SBAR", ADVERBIAL, ((0, n, clause),)
            head_child = children[clause]
    head = head_child[1]
    previous = -1
    for lo, hi, h in spans:
        governor = children[h][1]
        if previous >= 0:  # a later conjunct; its separators closed the span before
            heads[governor], labels[governor] = previous, "conj"
        previous = governor
        objects, adopted = 0, -1
        for j in range(lo, hi):
            if j == h:
                continue
            child_cat, child = children[j][0], children[j][1]
            if child_cat in _PUNCT:
                label = "punct"
            elif j == adopted:  # the object of a particle read as a preposition
                heads[child], labels[child] = children[j - 1][1], "pobj" if child_cat == "NP" else "prep"
                continue
            else:
                key = (cat, child_cat, j < h)
                label = _LABELS.get(key) or _label(key)
                if label[0] == "@":
                    label = _special(label, cat, children, j, h)
                    objects += label == "dobj"
                    if label == "prep" and (child_cat == "PRT" or child_cat == "RP"):
                        adopted = j + 1
                bits |= _LABEL_BITS.get(label, 0)
            heads[child], labels[child] = governor, label
        if objects == 2:  # "gives the boy a ball": the first object is the dative
            labels[next(c[1] for c in children[h + 1:hi] if labels[c[1]] == "dobj")] = "dative"
    for j in range(spans[-1][1], n):  # punctuation after the last conjunct closes the whole
        heads[children[j][1]], labels[children[j][1]] = head, "punct"
    if coordinated and len(spans) == 1:
        _coordinate_modifiers(children, spans[0][2], heads, labels)
    if cat == "SBAR":
        bits |= _marker_bits(children, spans[0][2])
    elif cat == "NP":
        if children[-1][0] == "POS":
            bits |= POSSESSIVE
        first = children[0]
        if first[0] == "DT" and first[3] in _PREDETERMINERS and children[1][0] in ("DT", "PRP$"):
            labels[first[1]] = "predet"  # "all the dogs"
    return (cat, head, bits, head_child[3], head_child[4])


def _coordinate_modifiers(children: list, h: int, heads: list, labels: list) -> None:
    """In "black and white dog", "and" and "white" attach to "black", the first coordinated modifier."""
    for j in range(1, len(children) - 1):
        if (children[j][0] == "CC" and h != j - 1 and h != j + 1
                and children[j - 1][0] not in _PUNCT and children[j + 1][0] not in _PUNCT):
            first = children[j - 1][1]
            heads[children[j][1]], labels[children[j][1]] = first, "cc"
            heads[children[j + 1][1]], labels[children[j + 1][1]] = first, "conj"


def _marker_bits(children: list, h: int) -> int:
    """What opens a subordinate clause: a wh-adverb or a subordinating conjunction (a relative
    pronoun, or nothing, makes a relative clause beside a noun and a complement beside a verb)."""
    bits = 0
    for cat, _, _, word, _ in children[:h]:
        if cat in ("WHADVP", "WRB"):
            bits |= WH_ADVERB
        elif cat == "IN" or cat == "DT" or cat == "NN":  # the Stanford parser tags "while" NN at times
            bits |= COMPLEMENT if word in _COMPLEMENTIZERS else ADVERBIAL
    return bits


def _conjuncts(cat: str, children: list) -> list | None:
    """(start, end, head) of each conjunct when the constituent coordinates conjuncts of its own
    class, else None. A span runs to the next conjunct, its separators included; a span with
    nothing of the class (an adverb between commas) joins the one before."""
    own, n = _CLASS.get(cat), len(children)
    first = next((j for j in range(1, n - 1) if children[j][0] in ("CC", "CONJP")), -1)
    if own is None or first < 0:
        return None
    left = first - 1
    while left > 0 and children[left][0] in _PUNCT:
        left -= 1
    if own != "*" and _CLASS.get(children[left][0]) != own and not (own == "S" and children[left][0] == "VP"):
        return None
    end = n  # punctuation after the last conjunct belongs to none of them
    while end > 0 and children[end - 1][0] in _PUNCT:
        end -= 1
    spans, start, j = [], 0, 0
    while j < end:
        if children[j][0] in _SEPARATORS and j > start:
            k = j
            while k < end and children[k][0] in _SEPARATORS:
                k += 1
            if k == end:
                break
            if own == "*" or any(_CLASS.get(children[m][0]) == own for m in range(start, j)):
                spans.append((start, k, _head_child(cat, children, start, j)))
                start = k
            j = k
        else:
            j += 1
    spans.append((start, end, _head_child(cat, children, start, end)))
    return spans if len(spans) > 1 else None


def _head_child(cat: str, children: list, lo: int, hi: int) -> int:
    """Index of the head among children[lo:hi]."""
    if cat in _NOMINAL:
        for j in range(hi - 1, lo - 1, -1):  # the last noun; else the first NP ("NP PP", "NP SBAR")
            if children[j][0] in _NOUN_HEADS:
                return j
        for j in range(lo, hi):
            if children[j][0] == "NP":
                return j
        return _by_rank(children, lo, hi, _NP_FALLBACK, True)
    if cat == "VP" or cat == "SQ" or cat == "SINV":
        # The first verb heads, unless it is an auxiliary (be, have, do, a modal, "to"; "get"
        # before a participle) with a verb phrase after it: then that verb phrase heads.
        for j in range(lo, hi):
            if children[j][0] in _VERB_TAGS:
                word = children[j][3]
                if children[j][0] in ("MD", "TO") or word in _AUXILIARIES or word in _GET:
                    for k in range(j + 1, hi):
                        if children[k][0] == "VP" and (word not in _GET or children[k][4] == "VBN"):
                            return k
                if cat == "VP":
                    return j
                break
    right, ranks = _RULES.get(cat, (False, {}))
    return _by_rank(children, lo, hi, ranks, right)


def _by_rank(children: list, lo: int, hi: int, ranks: dict, right: bool) -> int:
    best, best_rank = -1, len(ranks)
    order = range(hi - 1, lo - 1, -1) if right else range(lo, hi)
    for j in order:
        rank = ranks.get(children[j][0], best_rank)
        if rank < best_rank:
            best, best_rank = j, rank
    if best >= 0:
        return best
    return next((j for j in order if children[j][0] not in _PUNCT), lo)


def _special(rule: str, cat: str, children: list, j: int, h: int) -> str:
    """The labels that depend on the words or on the constituent's other children."""
    _, _, child_bits, word, tag = children[j]
    head_cat, _, head_bits, head_word, head_tag = children[h]
    if rule == "@subj":
        return "expl" if tag == "EX" else "nsubjpass" if head_bits & PASSIVE else "nsubj"
    if rule == "@obj":
        return "attr" if head_word in _COPULAS and head_cat != "VP" else "dobj"
    if rule == "@prep":
        return "agent" if word == "by" and head_tag == "VBN" else "prep"
    if rule == "@adv":
        return "neg" if word in _NEGATIONS else "advmod"
    if rule == "@verb":
        if j > h:
            return "dep"
        if head_cat == "VP" and (word in _BE or word in _GET) and head_tag == "VBN" and not head_bits & PASSIVE:
            return "auxpass"  # the "be" right above the participle; "is being kicked": "is" is aux
        return "aux" if head_cat == "VP" or word in _AUXILIARIES else "dep"
    if rule == "@np":
        return "poss" if child_bits & POSSESSIVE else "compound" if cat in _NOMINAL else "npadvmod"
    if rule == "@prt":
        after = children[j + 1] if j + 1 < len(children) else ("", 0, 0, "", "")
        if (after[0] == "NP" and word in _PREPOSITIONAL_PARTICLES) or (after[0] == "PP" and after[3] == "of"):
            return "prep"
        return "advmod" if word == "away" else "prt"
    if rule == "@acomp":
        if word in _ADVERBIAL_ADJECTIVES and head_word not in _COPULAS:
            return "advmod"
        return "dobj" if head_word in _WEAR else "acomp"
    if rule == "@wh":
        return "dobj" if head_bits & SUBJECT else "nsubjpass" if head_bits & PASSIVE else "nsubj"
    if rule == "@sbar":
        if cat in _NOMINAL:
            return "advcl" if child_bits & ADVERBIAL else "acl" if child_bits & COMPLEMENT else "relcl"
        return "advcl" if child_bits & (ADVERBIAL | WH_ADVERB) else "ccomp"
    if rule == "@clause":
        if cat == "VP" or cat == "SQ":
            return "ccomp" if child_bits & SUBJECT else "xcomp" if head_word in _CONTROL_VERBS else "advcl"
        return "advcl" if j < h else "ccomp"  # "Smiling, a man waves"
    raise AssertionError(f"no rule {rule} for the label table")
