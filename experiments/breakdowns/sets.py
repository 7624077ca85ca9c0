"""The diagnostic sets `diagnose.py` scores, one registry entry each: how its labeled file is told
apart and read, how a predictions file of it is read, how it is scored and printed.

GLUE's AX (R3 per category and phenomenon), SuperGLUE's AX-g (accuracy and gender parity) and
HANS (accuracy per heuristic on entailed and non-entailed pairs, per subcase). Adding a diagnostic
is one `register(Diagnostic(...))`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

from ..corpora.readers.glue import read_ax
from ..corpora.readers.hans import looks_like_hans, read_hans
from ..corpora.readers.superglue import read_superglue
from .ax import breakdown, format_breakdown, format_parity, gender_parity
from .hans import check_model_labels, format_hans, hans_breakdown, read_hans_predictions


@dataclass(frozen=True)
class Diagnostic:
    """recognizes: path -> whether it is this set's labeled file. read: path -> SplitData of labeled
    pairs. predictions: a predictions file -> {id: label}. score: (pairs, {id: label}) -> result,
    ValueError when they do not fit. format: result -> text. file: the labeled file, in words.
    check_labels: a model's labels -> None, or ValueError when the set cannot score that model."""

    name: str
    file: str
    recognizes: Callable[[Path], bool]
    read: Callable[[Path], object]
    predictions: Callable[[Path], dict]
    score: Callable[[list, dict], dict]
    format: Callable[[dict], str]
    check_labels: Callable[[list], None] | None = None


DIAGNOSTICS: dict[str, Diagnostic] = {}


def register(diagnostic: Diagnostic) -> Diagnostic:
    DIAGNOSTICS[diagnostic.name] = diagnostic
    return diagnostic


def diagnostic_for(path: Path) -> Diagnostic:
    """The diagnostic whose labeled file `path` is; ValueError saying which files are taken."""
    found = next((d for d in DIAGNOSTICS.values() if d.recognizes(path)), None)
    if found is None:
        files = [d.file for d in DIAGNOSTICS.values()]
        raise ValueError(f"{path}: expected {', '.join(files[:-1])}, or {files[-1]}")
    return found


def read_diagnostic_predictions(path: Path) -> dict[str, str]:
    """id -> label of a GLUE/SuperGLUE diagnostic's prediction file, in the format its suffix names."""
    from ..outputs.formats import PredictionFileError, format_for
    from ..outputs.submissions import TASKS, SubmissionError, read_predictions
    try:
        fmt = format_for(path)
        task = TASKS.get((fmt.name, path.stem)) or next(t for t in TASKS.values() if t.diagnostic and
                                                        t.benchmark == fmt.name)
        return dict(read_predictions(task, path))
    except (OSError, SubmissionError, PredictionFileError, StopIteration) as exc:
        raise ValueError(str(exc) or f"{path}: not a diagnostic's prediction file") from None


def _is_hans(path: Path) -> bool:
    return path.suffix.lower() in (".txt", ".tsv") and looks_like_hans(path)


register(Diagnostic("AX", "the labeled diagnostic-full.tsv (the unlabeled diagnostic.tsv has no gold labels to "
                    "score against)", lambda path: path.name == "diagnostic-full.tsv",
                    partial(read_ax, dataset="ax", split="test_labeled"), read_diagnostic_predictions, breakdown,
                    format_breakdown))
register(Diagnostic("AX-g", "SuperGLUE's AX-g.jsonl", lambda path: path.suffix == ".jsonl",
                    partial(read_superglue, dataset="ax-g", split="test"), read_diagnostic_predictions, gender_parity,
                    format_parity))
register(Diagnostic("HANS", "HANS's heuristics_evaluation_set.txt", _is_hans,
                    partial(read_hans, dataset="hans", split="test"), read_hans_predictions, hans_breakdown,
                    format_hans, check_labels=check_model_labels))
