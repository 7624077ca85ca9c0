"""PASCAL RTE-1/2/3 XML: `<pair id entailment=YES|NO | value=TRUE|FALSE><t/><h/></pair>`."""
from __future__ import annotations

from pathlib import Path
from xml.parsers import expat

from nli_baselines.features.labels import ENTAILMENT, NOT_ENTAILMENT
from nli_baselines.features.pair import Pair

from .common import (LIMITS, BadRows, DataFormatError, SplitData, check_input, checked_blocks, open_input,
                     raise_too_many_rows, sentence_pair)

_LABELS = {"YES": ENTAILMENT, "TRUE": ENTAILMENT, "NO": NOT_ENTAILMENT, "FALSE": NOT_ENTAILMENT}


def read_pascal(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """Read an RTE challenge file; both label attributes (`entailment=`, RTE-2/3; `value=`, RTE-1) work.

    The file is decoded as its XML declaration says (UTF-8 without one). A test file without labels
    yields unlabeled pairs. Malformed XML is an error naming the line; a pair lacking `<t>` or `<h>`,
    holding two of either, nested in another pair or with an unknown label is a bad row.
    """
    bad = BadRows(path, on_bad_row)
    pairs: list[Pair] = []
    # The <pair> elements open at this point, outermost first: a pair inside a pair must not
    # silently replace the outer one.
    open_pairs: list[dict] = []
    parser = expat.ParserCreate()  # no encoding argument, so the declared encoding is used

    def start(name, attrs):
        if name == "pair":
            line = parser.CurrentLineNumber
            if open_pairs:
                open_pairs[-1].setdefault("holds", line)
            open_pairs.append(dict(line=line, attrs=attrs, t=None, h=None, field=None,
                                   inside=open_pairs[-1]["line"] if open_pairs else None))
        elif name in ("t", "h") and open_pairs:
            state = open_pairs[-1]
            if state["field"] is not None:
                state.setdefault("malformed", f"<{name}> inside <{state['field']}>")
            elif state[name] is not None:
                state.setdefault("malformed", f"more than one <{name}> element")
            state["field"], state[name] = name, state[name] or []

    def end(name):
        if name in ("t", "h") and open_pairs:
            open_pairs[-1]["field"] = None
        elif name == "pair":
            bad.rows += 1
            _finish_pair(open_pairs.pop(), bad, pairs)

    def text(data):
        if open_pairs and open_pairs[-1]["field"]:
            state = open_pairs[-1]
            state[state["field"]].append(data)

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    try:
        _check_pair_count(path)
        with open_input(path) as handle:
            for block in checked_blocks(path, handle):
                parser.Parse(block, False)
            parser.Parse(b"", True)
    except expat.ExpatError as exc:
        raise DataFormatError(path, exc.lineno, f"malformed XML: {expat.errors.messages[exc.code]}") from None
    except DataFormatError:
        raise
    except (LookupError, ValueError) as exc:  # from expat's handler for encodings it lacks
        raise DataFormatError(path, parser.CurrentLineNumber, f"unreadable XML encoding: {exc}") from None
    return bad.split(dataset, split, pairs)


def _check_pair_count(path: Path) -> None:
    """Refuse a file of more `<pair>` elements than `LIMITS.rows` before any pair is built: counted
    by a first reading that keeps nothing, where the file is large enough to hold that many (a pair
    takes at least the 7 bytes of `<pair/>`). Malformed XML stops the count; the reading proper
    reports it."""
    if check_input(path).st_size // len("<pair/>") <= LIMITS.rows:
        return
    parser = expat.ParserCreate()
    pairs = 0

    def end(name):
        nonlocal pairs
        if name == "pair":
            pairs += 1
            if pairs > LIMITS.rows:
                raise_too_many_rows(path, parser.CurrentLineNumber)

    parser.EndElementHandler = end
    try:
        with open_input(path) as handle:
            for block in checked_blocks(path, handle):
                parser.Parse(block, False)
            parser.Parse(b"", True)
    except DataFormatError:
        raise
    except (expat.ExpatError, LookupError, ValueError):
        return


def _finish_pair(state: dict, bad: BadRows, pairs: list[Pair]) -> None:
    attrs, line = state["attrs"], state["line"]
    if state["inside"] is not None:
        bad.bad(line, f"a <pair> inside the <pair> opened on line {state['inside']}", "nested pair")
        return
    if "holds" in state:
        bad.bad(line, f"pair holds another <pair> (line {state['holds']})", "nested pair")
        return
    if "malformed" in state:
        bad.bad(line, f"pair has {state['malformed']}", "malformed pair")
        return
    if state["t"] is None or state["h"] is None:
        bad.bad(line, "pair lacks a <t> or <h> element", "missing field")
        return
    raw = attrs.get("entailment", attrs.get("value"))
    label = None
    if raw is not None:
        label = _LABELS.get(raw.strip().upper())
        if label is None:
            bad.bad(line, f"unknown label {raw!r}; expected YES/NO or TRUE/FALSE", "unknown label")
            return
    sentences = sentence_pair(" ".join("".join(state["t"]).split()), " ".join("".join(state["h"]).split()),
                              ("t", "h"), line, bad)
    if sentences is None:
        return
    meta = {k: attrs[k] for k in ("task", "length") if k in attrs}
    pairs.append(Pair(attrs.get("id", str(line)), *sentences, label, meta=meta))
