"""Output locations are checked before any work starts: a run that can only fail at the end should
fail at the start, in one line. An output never replaces an input (even with --overwrite), two
outputs never share a path, and an existing file is replaced only with --overwrite."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from nli_baselines.experiments.configuration.errors import UsageError

# Kernel file systems: a directory there may look writable (root), but no file can be created.
VIRTUAL = (Path("/proc"), Path("/sys"), Path("/dev"))


def _resolved(path: Path) -> Path:
    """`path` with its links followed; a loop of links is a UsageError, not a RuntimeError."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        raise UsageError(f"{path}: a loop of symbolic links") from None


def _writable_parent(path: Path, flag: str) -> None:
    """The nearest existing ancestor of `path` must be a writable directory (the rest is created),
    and not on a kernel file system."""
    resolved = _resolved(path)
    for root in VIRTUAL:
        if resolved == root or root in resolved.parents:
            raise UsageError(f"{flag} {path}: {root} is a kernel file system, where no file can be written")
    parent = path.parent
    while not parent.exists():
        if parent.parent == parent:
            break
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: cannot write in {parent} (permission denied)")


def _same_file(a: Path, b: Path) -> bool:
    """The same file: by resolved path, or by device and inode (hard links, other spellings)."""
    if _resolved(a) == _resolved(b):
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


@dataclass
class OutputPlan:
    """Every file and directory a command will write, checked together before any work.

    files: (path, flag) of each output file; a directory's output entries list the files the
    command will write inside it.
    """

    overwrite: bool = False
    files: list[tuple[Path, str]] = field(default_factory=list)
    dirs: list[tuple[Path, str]] = field(default_factory=list)

    def file(self, path, flag: str) -> None:
        if path:
            self.files.append((Path(path), flag))

    def directory(self, path, flag: str, names=()) -> None:
        """A directory the command writes into, and the names of the files it writes there."""
        if path:
            self.dirs.append((Path(path), flag))
            self.files += [(Path(path) / name, flag) for name in names]

    def check(self, inputs=()) -> None:
        """Raise UsageError for an output that is a directory or under a file, unwritable, an input
        of the command, shared with another output, or an existing file without --overwrite."""
        inputs = [Path(p) for p in inputs if p]
        for path, flag in self.dirs:
            if path.exists() and not path.is_dir():
                raise UsageError(f"{flag} {path} is a file; give a directory")
            if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):
                raise UsageError(f"{flag} {path}: cannot write in it (permission denied)")
            if not path.exists():
                _writable_parent(path, flag)
            for given in inputs:
                if given.exists() and _same_file(path, given):
                    raise UsageError(f"{flag} {path} is the input file {given}: write elsewhere")
        seen: dict[Path, str] = {}
        dir_paths = {_resolved(p): f for p, f in self.dirs}
        for path, flag in self.files:
            if path.is_dir():
                raise UsageError(f"{flag} {path} is a directory; give a file name")
            if _resolved(path) in dir_paths:
                raise UsageError(f"{flag} {path} is also the directory of {dir_paths[_resolved(path)]}")
            for given in inputs:
                if _same_file(path, given):
                    raise UsageError(f"{flag} {path} is the input file {given}: it would be overwritten; write "
                                     "elsewhere (--overwrite never replaces an input)")
            key = _resolved(path)
            if key in seen:
                other = seen[key]
                raise UsageError(f"{flag} {path} is also written by {other}: give the outputs different paths")
            seen[key] = flag
            for other_path, other_flag in self.files:
                if other_path is not path and other_path.exists() and path.exists() and \
                        _same_file(path, other_path) and other_flag != flag:
                    raise UsageError(f"{flag} {path} and {other_flag} {other_path} are the same file")
            if path.exists() and not self.overwrite:
                raise UsageError(f"{path} exists; pass --overwrite to replace it")
            if path.exists() and not os.access(path, os.W_OK):
                raise UsageError(f"{flag} {path}: the file is not writable")
            if not path.exists():
                _writable_parent(path, flag)


def check_output_file(path: str | Path | None, flag: str, overwrite: bool | None = None) -> None:
    """A file a command will write: not a directory, in a writable place; an existing one needs
    `--overwrite` when `overwrite` is not None."""
    if not path:
        return
    plan = OutputPlan(overwrite=True if overwrite is None else overwrite)
    plan.file(path, flag)
    plan.check()


def check_output_dir(path: str | Path | None, flag: str) -> None:
    """A directory a command will write into: not a file, in a writable place."""
    plan = OutputPlan()
    plan.directory(path, flag)
    plan.check()


def check_not_input(out: str | Path, inputs: list[str | Path], flag: str = "--out") -> None:
    """Refuse to write over a file the command reads."""
    plan = OutputPlan(overwrite=True)
    plan.file(out, flag)
    plan.check(inputs)
