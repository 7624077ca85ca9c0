"""Run records: checksums, versions, peak memory, and atomic JSON output."""
from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import sys
from pathlib import Path

from nli_baselines.features.storage.atomic import atomic_open

PACKAGES = ("nli-baselines", "numpy", "scipy", "scikit-learn", "pandas", "sacrebleu", "spacy", "nltk", "joblib",
            "rapidfuzz")


def sha256_file(path: Path | str, chunk: int = 1 << 20, stop=None) -> str | None:
    """The SHA-256 of the file at `path`, in hex. stop: an event (threading.Event) that, once set,
    ends the hashing between two chunks: None (a file the reader refused need not be hashed whole)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            if stop is not None and stop.is_set():
                return None
            digest.update(block)
    return digest.hexdigest()


def versions() -> dict:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def peak_rss_bytes() -> int:
    """Peak resident set size of this process (and of finished children it waited for)."""
    # lazy: POSIX only: where it is used, so that the module loads on every platform
    import resource
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB on Linux
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return int(max(own, children) * scale)


def write_json_atomic(path: Path | str, record: dict) -> None:
    """Write `record` as indented JSON, atomically (`features.storage.atomic`)."""
    with atomic_open(path) as handle:
        json.dump(record, handle, indent=2, sort_keys=False, allow_nan=False)  # NaN/Infinity are not JSON
        handle.write("\n")


class RecordError(ValueError):
    """A file that is not a run record of run.py --out, or not the row asked for."""


def load_run_record(path: Path | str) -> dict:
    """A run record written by `run.py --out`, its shape checked: a clear RecordError otherwise."""
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RecordError(f"{path} is a directory, not a run record") from None
    except (OSError, ValueError, RecursionError) as exc:
        raise RecordError(f"{path}: not a run record of run.py --out ({type(exc).__name__}: {exc})") from None
    problem = record_problem(record)
    if problem:
        raise RecordError(f"{path}: not a run record of run.py --out ({problem})")
    return record


def record_problem(record) -> str | None:
    """What keeps `record` from being a run record (None: nothing)."""
    if not isinstance(record, dict):
        return "not a JSON object"
    rows = record.get("rows")
    if not isinstance(rows, list) or not rows:
        return "no list of rows"
    if not isinstance(record.get("data"), dict) or not isinstance(record["data"].get("dataset"), str):
        return "no data section"
    for n, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            return f"row {n} is not a row"
        predictions = row.get("predictions")
        if predictions is None:
            continue
        if not isinstance(predictions, dict) or not isinstance(predictions.get("split"), str):
            return f"row {row['name']!r}: predictions without their split"
        lists = [predictions.get(k) for k in ("ids", "gold", "predicted")]
        scores = (record.get("task") or {}).get("target") == "scores"
        value = _is_number if scores else (lambda v: isinstance(v, str))
        if not (isinstance(lists[0], list) and all(isinstance(v, str) for v in lists[0])
                and all(isinstance(x, list) and all(value(v) for v in x) for x in lists[1:])):
            return (f"row {row['name']!r}: predictions need a list of ids, and gold and predicted lists of "
                    + ("numbers" if scores else "text"))
        if len({len(x) for x in lists}) != 1:
            return f"row {row['name']!r}: ids, gold and predicted differ in length"
    return None


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) != float("inf")


def pick_row(record: dict, row_name: str | None, source: str) -> dict:
    """The only row of a record, or the one named; a RecordError says which rows there are."""
    rows = record["rows"]
    names = [row["name"] for row in rows]
    if row_name is None and len(rows) > 1:
        raise RecordError(f"{source} holds a table of {len(rows)} rows ({', '.join(names)}); pick one with "
                         "--row-a/--row-b")
    row = rows[0] if row_name is None else next((r for r in rows if r["name"] == row_name), None)
    if row is None:
        raise RecordError(f"{source} has no row {row_name!r}; its rows: {', '.join(names)}")
    if "predictions" not in row:
        raise RecordError(f"{source} holds no per-example predictions (written by an older version): run it again")
    return row
