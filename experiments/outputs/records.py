"""Run records: checksums, versions, peak memory, and atomic JSON output."""
from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import sys
from pathlib import Path

from features.atomic import atomic_open

PACKAGES = ("nli-baselines", "numpy", "scipy", "scikit-learn", "pandas", "sacrebleu", "spacy", "nltk", "joblib",
            "rapidfuzz")


def sha256_file(path: Path | str, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
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
    import resource
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB on Linux
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return int(max(own, children) * scale)


def write_json_atomic(path: Path | str, record: dict) -> None:
    """Write `record` as indented JSON, atomically (`features.atomic`)."""
    with atomic_open(path) as handle:
        json.dump(record, handle, indent=2, sort_keys=False, allow_nan=False)  # NaN/Infinity are not JSON
        handle.write("\n")
