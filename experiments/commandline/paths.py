"""Output locations are checked before any work starts: a run that can only fail at the end should
fail at the start, in one line."""
from __future__ import annotations

import os
from pathlib import Path

from ..engine.errors import UsageError


def _writable_parent(path: Path, flag: str) -> None:
    """The nearest existing ancestor of `path` must be a writable directory (the rest is created)."""
    parent = path.parent
    while not parent.exists():
        if parent.parent == parent:
            break
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: cannot write in {parent} (permission denied)")


def check_output_file(path: str | Path | None, flag: str, overwrite: bool | None = None) -> None:
    """A file the run will write: not a directory, in a writable place; an existing one needs
    `--overwrite` when `overwrite` is not None."""
    if not path:
        return
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{flag} {path} is a directory; give a file name")
    if path.exists() and overwrite is False:
        raise UsageError(f"{path} exists; pass --overwrite to replace it")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{flag} {path}: the file is not writable")
    _writable_parent(path, flag)


def check_output_dir(path: str | Path | None, flag: str) -> None:
    """A directory the run will write into: not a file, in a writable place."""
    if not path:
        return
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{flag} {path} is a file; give a directory")
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"{flag} {path}: cannot write in it (permission denied)")
        return
    _writable_parent(path, flag)


def check_not_input(out: str | Path, inputs: list[str | Path], flag: str = "--out") -> None:
    """Refuse to write over a file the run reads."""
    out = Path(out)
    for given in inputs:
        given = Path(given)
        if out.exists() and given.exists() and os.path.samefile(out, given) or out.resolve() == given.resolve():
            raise UsageError(f"{flag} {out} is the input file {given}: it would be overwritten; write elsewhere")
