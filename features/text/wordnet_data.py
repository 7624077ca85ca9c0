"""WordNet 3.0 through NLTK's reader, found where NLTK looks for data ($NLTK_DATA, `nltk.data.path`).

Importing this module reads nothing and does not import NLTK; `load_wordnet()` opens WordNet on first
use and keeps the reader for the rest of the process. Only English WordNet is wired up (no Open
Multilingual Wordnet). Set WordNet up with `python experiments/download.py wordnet`.
"""
from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path

from ..runtime.commands import command

WORDNET_30_SYNSETS = 117_659


def setup_command() -> str:
    return f"{command('download')} wordnet"

RESOURCE = "corpora/wordnet"

_readers: dict[str, object] = {}
_lock = threading.Lock()


class WordNetMissingError(LookupError):
    """WordNet 3.0 is not where NLTK looks, or NLTK cannot read what is there; says where it looked and
    how to get it."""

    def __init__(self, searched: list[str], problem: str | None = None, why: str = ""):
        """why: what needed WordNet, said first (`--features strongest reads WordNet: `)."""
        self.searched, self.problem = searched, problem
        looked = [f"  {path}" for path in searched] or ["  (no directories: NLTK_DATA and nltk.data.path are empty)"]
        if problem:
            head = [f"{why}WordNet 3.0 could not be loaded: {problem}", "NLTK's data directories, in search order:"]
            fix = f"Reinstall it:  {setup_command()} --force"
        else:
            head = [f"{why}WordNet 3.0 is missing: NLTK looked for {RESOURCE} in:"]
            fix = f"Get it:  {setup_command()}"
        # The message's own lines, which a command prints as lines (`commandline.exits`); a line
        # quoting outside text (a path, NLTK's error) stays one line, its breaks shown escaped.
        self.lines = (*head, *looked, fix, "  (it installs into the first directory of $NLTK_DATA if set, else NLTK's "
                      "default, usually ~/nltk_data; `--nltk-data DIR` picks another, then export NLTK_DATA=DIR)")
        super().__init__("\n".join(self.lines))


def search_path(data_dir: Path | str | None = None) -> list[str]:
    """The NLTK data directories searched, in order: `data_dir` alone if given, else the entries of
    $NLTK_DATA (read now, so a change after NLTK was imported counts) followed by `nltk.data.path`."""
    if data_dir is not None:
        return [os.path.abspath(data_dir)]
    # lazy: NLTK takes seconds to import; only the WordNet feature types need it
    import nltk.data
    found: list[str] = []
    for entry in [*os.environ.get("NLTK_DATA", "").split(os.pathsep), *nltk.data.path]:
        entry = getattr(entry, "path", entry)  # nltk.data.path may hold PathPointers
        if entry and os.path.abspath(entry) not in found:
            found.append(os.path.abspath(entry))
    return found


def locate_wordnet(data_dir: Path | str | None = None) -> Path | None:
    """The NLTK data directory holding WordNet (unpacked, else zipped, as NLTK prefers), or None."""
    paths = search_path(data_dir)
    for candidate in (RESOURCE, f"{RESOURCE}.zip"):
        for path in paths:
            if os.path.exists(os.path.join(path, candidate)):
                return Path(path)
    return None


def load_wordnet(data_dir: Path | str | None = None, *, cache: bool = True):
    """NLTK's WordNetCorpusReader for WordNet under `data_dir` (an NLTK data directory holding
    corpora/wordnet), else wherever NLTK finds it; one reader per location per process.

    Raises WordNetMissingError. The directory is put on `nltk.data.path` (first when given): NLTK only
    opens files under its data path, and its WordNet reader opens files as they are needed.
    """
    searched = search_path(data_dir)
    found = locate_wordnet(data_dir)
    if found is None:
        raise WordNetMissingError(searched)
    key = str(found)
    with _lock:
        _put_on_nltk_path(key, first=data_dir is not None)
        if cache and key in _readers:
            return _readers[key]
        try:
            reader = _open(key)
        except Exception as exc:  # a damaged copy fails in many ways inside NLTK; all mean "not usable"
            raise WordNetMissingError(searched, f"{found / RESOURCE} is there but NLTK cannot read it "
                                                f"({type(exc).__name__}: {exc})") from exc
        if cache:
            _readers[key] = reader
        return reader


def wordnet_available(data_dir: Path | str | None = None) -> bool:
    """Whether `load_wordnet(data_dir)` succeeds (it loads WordNet, so a later load is free)."""
    try:
        load_wordnet(data_dir)
    except WordNetMissingError:
        return False
    return True


def _put_on_nltk_path(directory: str, first: bool) -> None:
    # lazy: NLTK takes seconds to import; only the WordNet feature types need it
    import nltk.data
    entries = [os.path.abspath(getattr(entry, "path", entry)) for entry in nltk.data.path]
    if directory in entries:
        if not first or entries[0] == directory:
            return
        del nltk.data.path[entries.index(directory)]
    # In front, so that the reader's own lookup of "wordnet" while it is built finds this same copy.
    nltk.data.path.insert(0, directory)


def _open(directory: str):
    # lazy: NLTK takes seconds to import; only the WordNet feature types need it
    import nltk.data
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    try:
        root = nltk.data.find(RESOURCE, paths=[directory])
    except LookupError:  # NLTK's own order: a folder anywhere on the path, then a zip
        root = nltk.data.find(f"{RESOURCE}.zip/wordnet/", paths=[directory])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The multilingual functions are not available")
        return WordNetCorpusReader(root, None)


def wordnet_identity(data_dir) -> list | None:
    """Where WordNet is and the size and time of its files: a new copy is a new key."""
    root = locate_wordnet(data_dir)
    if root is None:
        return None
    found = []
    for candidate in ("corpora/wordnet", "corpora/wordnet.zip"):
        path = root / candidate
        files = sorted(path.iterdir()) if path.is_dir() else [path] if path.exists() else []
        for file in files:
            stat = file.stat()
            found.append([str(file), stat.st_size, stat.st_mtime_ns])
    return found
