"""The GLUE diagnostic breakdown: R3 (Matthews correlation) overall, per category and phenomenon."""
from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.metrics import matthews_corrcoef

from nli_baselines.features.labels import NLI2, NOT_ENTAILMENT, two_class

from ..corpora.readers.glue import AX_CATEGORIES


def mcc(gold, predicted) -> float | None:
    """Matthews correlation (R3 for three classes, Gorodkin 2004); None when undefined (one class)."""
    if len(gold) == 0:
        return None
    with warnings.catch_warnings():  # one label in a small phenomenon is expected, not a problem
        warnings.simplefilter("ignore", UserWarning)
        value = matthews_corrcoef(list(gold), list(predicted))
    return None if math.isnan(value) else float(value)


def breakdown(pairs, predictions: dict[str, str]) -> dict:
    """pairs: labeled diagnostic pairs (meta['categories']); predictions: id -> label.

    Two-class predictions (entailment / not_entailment, as for AX-b) are scored against the gold
    labels mapped to two classes.
    """
    missing = [p.id for p in pairs if p.id not in predictions]
    if missing:
        raise ValueError(f"no prediction for {len(missing)} diagnostic example(s), e.g. index {missing[0]}")
    labels = set(predictions.values())
    binary = labels <= set(NLI2) and NOT_ENTAILMENT in labels
    gold = np.array([two_class(p.label) if binary else p.label for p in pairs], dtype=object)
    pred = np.array([predictions[p.id] for p in pairs], dtype=object)
    out = {"metric": "two-class MCC" if binary else "R3 (three-class MCC)", "examples": len(pairs),
           "overall": mcc(gold, pred), "accuracy": float(np.mean(gold == pred)), "categories": {}}
    for category in AX_CATEGORIES:
        members = [i for i, p in enumerate(pairs) if category in p.meta.get("categories", {})]
        phenomena: dict[str, list[int]] = {}
        for i in members:
            for name in pairs[i].meta["categories"][category]:
                phenomena.setdefault(name, []).append(i)
        out["categories"][category] = {
            "count": len(members), "score": mcc(gold[members], pred[members]),
            "phenomena": {name: {"count": len(idx), "score": mcc(gold[idx], pred[idx])}
                          for name, idx in sorted(phenomena.items())}}
    return out


def format_breakdown(result: dict) -> str:
    def fmt(x):
        return "   n/a" if x is None else f"{x:+.3f}"
    lines = [f"{result['metric']} on {result['examples']} diagnostic examples: {fmt(result['overall'])} "
             f"(accuracy {100 * result['accuracy']:.1f}%)", ""]
    for category, info in result["categories"].items():
        lines.append(f"{category:<40} {fmt(info['score'])}  ({info['count']} examples)")
        for name, ph in info["phenomena"].items():
            lines.append(f"    {name:<36} {fmt(ph['score'])}  ({ph['count']})")
    return "\n".join(lines)


def gender_parity(pairs, predictions: dict[str, str]) -> dict:
    """SuperGLUE's AX-g scores: accuracy, and gender parity, the share of sentence pairs (the same
    sentence with a male and a female pronoun, joined by `pair_id`) whose two predictions agree."""
    missing = [p.id for p in pairs if p.id not in predictions]
    if missing:
        raise ValueError(f"no prediction for {len(missing)} diagnostic example(s), e.g. idx {missing[0]}")
    groups: dict = {}
    for pair in pairs:
        groups.setdefault(pair.meta.get("pair_id"), []).append(predictions[pair.id])
    if None in groups or any(len(g) != 2 for g in groups.values()):
        raise ValueError("AX-g examples come in pairs joined by pair_id; these do not")
    labeled = [p for p in pairs if p.label is not None]
    accuracy = float(np.mean([predictions[p.id] == p.label for p in labeled])) if labeled else None
    return {"metric": "accuracy and gender parity", "examples": len(pairs), "accuracy": accuracy,
            "gender_parity": float(np.mean([a == b for a, b in groups.values()])), "pairs": len(groups)}


def format_parity(result: dict) -> str:
    accuracy = "n/a" if result["accuracy"] is None else f"{100 * result['accuracy']:.1f}%"
    return (f"AX-g on {result['examples']} examples: accuracy {accuracy}, gender parity "
            f"{100 * result['gender_parity']:.1f}% of {result['pairs']} sentence pairs predicted alike")
