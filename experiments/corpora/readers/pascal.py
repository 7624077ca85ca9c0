"""PASCAL RTE-1/2/3 XML: `<pair id entailment=YES|NO | value=TRUE|FALSE><t/><h/></pair>`."""
from __future__ import annotations

from pathlib import Path
from xml.parsers import expat

from features.labels import ENTAILMENT, NOT_ENTAILMENT
from features.pair import Pair

from .common import BadRows, DataFormatError, SplitData

_LABELS = {"YES": ENTAILMENT, "TRUE": ENTAILMENT, "NO": NOT_ENTAILMENT, "FALSE": NOT_ENTAILMENT}


def read_pascal(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """Read an RTE challenge file; both label attributes (`entailment=`, RTE-2/3; `value=`, RTE-1) work.

    A test file without labels yields unlabeled pairs. Malformed XML is an error
    naming the line; a pair lacking `<t>`, `<h>` or with an unknown label is a bad row.
    """
    bad = BadRows(path, on_bad_row)
    pairs: list[Pair] = []
    state: dict = {}
    parser = expat.ParserCreate("utf-8")

    def start(name, attrs):
        if name == "pair":
            state.clear()
            state.update(line=parser.CurrentLineNumber, attrs=attrs, t=None, h=None)
        elif name in ("t", "h") and state:
            state["field"], state[name] = name, []

    def end(name):
        if name in ("t", "h"):
            state.pop("field", None)
        elif name == "pair" and state:
            bad.rows += 1
            _finish_pair(state, bad, pairs)
            state.clear()

    def text(data):
        field = state.get("field")
        if field:
            state[field].append(data)

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    try:
        with open(path, "rb") as handle:
            parser.ParseFile(handle)
    except expat.ExpatError as exc:
        raise DataFormatError(path, exc.lineno, f"malformed XML: {expat.errors.messages[exc.code]}") from None
    return bad.split(dataset, split, pairs)


def _finish_pair(state: dict, bad: BadRows, pairs: list[Pair]) -> None:
    attrs, line = state["attrs"], state["line"]
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
    meta = {k: attrs[k] for k in ("task", "length") if k in attrs}
    premise = " ".join("".join(state["t"]).split())
    hypothesis = " ".join("".join(state["h"]).split())
    pairs.append(Pair(attrs.get("id", str(line)), premise, hypothesis, label, meta=meta))
