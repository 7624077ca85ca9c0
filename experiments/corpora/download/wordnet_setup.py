"""Put WordNet 3.0 where NLTK finds it, from NLTK's own downloader or from a system copy, and prove it
loads: NLTK must read every synset, and WordNet 3.0 has 117,659.

The system copy is the WordNet database as Debian's `wordnet-base` and `wordnet-sense-index` install it
in /usr/share/wordnet (or the `dict` folder of Princeton's WordNet-3.0 release). NLTK does not read it
there (its readers only open files under NLTK's data path) and needs `lexnames`, which Debian does not
ship, so the files are copied into `<NLTK data dir>/corpora/wordnet/` and `lexnames` is written.

Everything is assembled and verified in a staging folder inside the NLTK data directory and renamed
into place only then; on any failure, an interrupt included, the staging folder is removed.
"""
from __future__ import annotations

import contextlib
import inspect
import io
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from nli_baselines.features.text.wordnet_data import (RESOURCE, WORDNET_30_SYNSETS, WordNetMissingError, load_wordnet,
                                                      locate_wordnet, search_path, setup_command)

from .sources import STAGING_PREFIX, remove_stale_staging

SYSTEM_WORDNET = Path("/usr/share/wordnet")
SETUP_SOURCES = ("auto", "nltk", "system")

# WordNet 3.0's lexicographer files, numbered by position (00..44), as its lexnames(5WN) manual page
# lists them; data files name a synset's file by this number.
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
    "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling",
    "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
    "noun.phenomenon", "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation",
    "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition",
    "verb.communication", "verb.competition", "verb.consumption", "verb.contact", "verb.creation",
    "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social", "verb.stative",
    "verb.weather", "adj.ppl",
)
# lexnames' third column: the syntactic category of the file's synsets.
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
# A synset's part of speech and the category its lexicographer file must have.
_POS_CATEGORY = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}


class WordNetSetupError(RuntimeError):
    """WordNet could not be installed or did not verify; says what was tried and why it failed."""


@dataclass(frozen=True)
class WordNetInstall:
    """Where WordNet now is, where it came from (source "nltk", "system" or "existing"), its synset
    count as NLTK loads it, and what happened on the way (sources that failed, files written)."""

    data_dir: Path
    source: str
    origin: str
    synsets: int
    notes: tuple[str, ...] = field(default=())

    @property
    def path(self) -> Path:
        return self.data_dir / RESOURCE

    def lines(self) -> list[str]:
        """The report a person reads: source used, location, verified count, how NLTK finds it."""
        if self.source == "existing":
            head = f"wordnet: already installed at {self.path} (--force reinstalls it)"
        else:
            head = f"wordnet: installed at {self.path} from {self.origin}"
        lines = [head, *(f"wordnet: {note}" for note in self.notes),
                 f"wordnet: NLTK loads {self.synsets:,} synsets (WordNet 3.0 has {WORDNET_30_SYNSETS:,})"]
        if str(self.data_dir) not in search_path():
            lines.append(f"wordnet: NLTK does not search {self.data_dir} by default: export NLTK_DATA={self.data_dir}")
        return lines


def lexnames_text() -> str:
    """The `lexnames` file of WordNet 3.0: number, name and syntactic category, tab-separated."""
    return "".join(f"{number:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for number, name in enumerate(LEXNAMES))


def default_nltk_data_dir() -> Path:
    """The first directory of $NLTK_DATA if set, else where NLTK's downloader installs by default."""
    first = next((entry for entry in os.environ.get("NLTK_DATA", "").split(os.pathsep) if entry), None)
    if first:
        return Path(first)
    # lazy: NLTK takes seconds to import; only setting up WordNet needs it
    from nltk.downloader import Downloader
    return Path(Downloader().default_download_dir())


def install_wordnet(nltk_data: Path | str | None = None, *, source: str = "auto",
                    system_dir: Path | str = SYSTEM_WORDNET, index_url: str | None = None, force: bool = False,
                    expect_synsets: int = WORDNET_30_SYNSETS,
                    log: Callable[[str], None] = lambda line: None) -> WordNetInstall:
    """Install WordNet into the NLTK data directory `nltk_data` (default: `default_nltk_data_dir()`).

    source: "nltk" (NLTK's downloader, from `index_url` or NLTK's default index), "system" (copy
    `system_dir`), or "auto" (the downloader, then the system copy). A copy that NLTK cannot load,
    or that has another number of synsets than `expect_synsets`, is an error and is not installed:
    another count means another WordNet version or a damaged copy, and every WordNet feature would
    silently change with it. An existing installation is verified and kept unless `force`.
    """
    if source not in SETUP_SOURCES:
        raise WordNetSetupError(f"unknown WordNet source {source!r}; choose from {', '.join(SETUP_SOURCES)}")
    target = Path(nltk_data) if nltk_data is not None else default_nltk_data_dir()
    target = target.expanduser().absolute()
    if not force and locate_wordnet(target):
        log(f"wordnet: found an installation in {target}; verifying it")
        try:
            synsets = _verify(target, expect_synsets)
        except WordNetSetupError as exc:
            raise WordNetSetupError(f"{exc}\nthe existing copy fails verification: --force replaces it") from None
        return WordNetInstall(target, "existing", str(target / RESOURCE), synsets)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WordNetSetupError(f"cannot create the NLTK data directory {target}: {exc}") from None
    notes: list[str] = []
    stale = remove_stale_staging(target)
    if stale:
        notes.append(f"removed {stale} staging folder(s) left by an interrupted earlier setup")
    attempts = {"nltk": lambda staging: _from_nltk(staging, index_url, log),
                "system": lambda staging: _from_system(staging, Path(system_dir), notes, log)}
    order = ["nltk", "system"] if source == "auto" else [source]
    with tempfile.TemporaryDirectory(dir=target, prefix=f"{STAGING_PREFIX}wordnet-") as tmp:
        staging = Path(tmp)
        failures = []
        for name in order:
            try:
                origin = attempts[name](staging)
                break
            except WordNetSetupError as exc:
                failures.append(f"{_LABELS[name]}: {exc}")
                shutil.rmtree(staging / "corpora", ignore_errors=True)
        else:
            raise WordNetSetupError("could not install WordNet 3.0:\n" + "\n".join(f"  {f}" for f in failures)
                                    + _WAYS_OUT)
        notes[:0] = [f"{failure} (fell back)" for failure in failures]
        log("wordnet: verifying: NLTK reads every synset of the new copy")
        try:
            synsets = _verify(staging, expect_synsets)
        except WordNetSetupError as exc:
            raise WordNetSetupError(f"{exc}; nothing was installed (copied from {origin})") from None
        _move_into_place(staging, target)
    return WordNetInstall(target, name, origin, synsets, tuple(notes))


_LABELS = {"nltk": "NLTK's downloader", "system": "the system copy"}
_WAYS_OUT = ("\nWays out:\n"
             f"  1. with internet access, run `{setup_command()}` again (NLTK's downloader), or point NLTK's "
             "downloader at a reachable index with --index-url URL\n"
             "  2. Debian/Ubuntu (needs only the package mirror): apt-get install wordnet-base "
             f"wordnet-sense-index, then `{setup_command()}`\n"
             f"  3. a WordNet 3.0 database folder elsewhere: `{setup_command()} --source system --system-dir DIR`")


def _from_nltk(staging: Path, index_url: str | None, log: Callable[[str], None]) -> str:
    # lazy: NLTK takes seconds to import; only setting up WordNet needs it
    from nltk.downloader import Downloader
    index = index_url or Downloader.DEFAULT_URL
    log(f"wordnet: trying NLTK's downloader (index {index})")
    downloader = Downloader(server_index_url=index, download_dir=str(staging))
    errors = io.StringIO()
    options = {"quiet": True, "raise_on_error": True, "print_error_to": errors, "extract": True}
    accepted = inspect.signature(downloader.download).parameters
    options = {key: value for key, value in options.items() if key in accepted}  # older NLTKs lack some
    try:
        done = downloader.download("wordnet", download_dir=str(staging), **options)
    except Exception as exc:  # NLTK reports its own failures as ValueError, the network's as whatever urllib raises
        raise WordNetSetupError(f"{index}: {exc}") from None
    if not done or not locate_wordnet(staging):
        reason = errors.getvalue().strip() or "no reason given"
        raise WordNetSetupError(f"{index}: no wordnet package installed ({reason})")
    try:
        package = downloader.info("wordnet").url
    except Exception:
        package = "its package"
    return f"NLTK's downloader: {package} (index {index})"


def _from_system(staging: Path, system_dir: Path, notes: list[str], log: Callable[[str], None]) -> str:
    # lazy: NLTK takes seconds to import; only setting up WordNet needs it
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    log(f"wordnet: trying the system copy at {system_dir}")
    if not system_dir.is_dir():
        raise WordNetSetupError(f"no WordNet database at {system_dir} (Debian/Ubuntu: apt-get install "
                                "wordnet-base wordnet-sense-index)")
    wanted = [name for name in WordNetCorpusReader._FILES if name != "lexnames"]
    missing = [name for name in wanted if not (system_dir / name).is_file()]
    if missing:
        hint = " (index.sense comes with Debian's wordnet-sense-index)" if "index.sense" in missing else ""
        raise WordNetSetupError(f"{system_dir} lacks {', '.join(missing)}{hint}")
    dest = staging / RESOURCE
    dest.mkdir(parents=True)
    for name in wanted:
        shutil.copyfile(system_dir / name, dest / name)
    if (system_dir / "lexnames").is_file():
        shutil.copyfile(system_dir / "lexnames", dest / "lexnames")
        written = "lexnames: copied from there too."
    else:
        (dest / "lexnames").write_text(lexnames_text(), encoding="ascii")
        written = ("lexnames: written by that command (WordNet 3.0's 45 lexicographer files, as lexnames(5WN) "
                   "lists them); the copy had none.")
        notes.append(f"{system_dir} has no lexnames: wrote WordNet 3.0's list")
    (dest / "README").write_text(
        f"WordNet 3.0 database files copied from {system_dir} by `{setup_command()}`.\n{written}\n"
        "The WordNet 3.0 license is in the header of the data and index files.\n", encoding="ascii")
    return f"the system copy at {system_dir}"


def _verify(data_dir: Path, expect: int) -> int:
    where = data_dir / RESOURCE
    with _on_nltk_path(data_dir):
        try:
            reader = load_wordnet(data_dir, cache=False)
            count = 0
            synsets = []
            for synset in reader.all_synsets():
                count += 1
                category = synset.lexname().split(".")[0]
                if category != _POS_CATEGORY[synset.pos()]:
                    raise WordNetSetupError(f"{where}: synset {synset.name()} is filed under {synset.lexname()}, "
                                            "not a file of its part of speech: its lexnames does not match its "
                                            "data files")
                synsets.append(synset)
            _check_pointers(synsets, where)
            if count == expect == WORDNET_30_SYNSETS:  # another count is reported below, as such
                _check_known_answers(reader, where)
        except WordNetMissingError as exc:
            raise WordNetSetupError(str(exc.problem or exc)) from None
        except WordNetSetupError:
            raise
        except Exception as exc:  # NLTK's parse errors on damaged data files
            raise WordNetSetupError(f"{where}: NLTK fails reading its synsets ({type(exc).__name__}: {exc})") from None
    if count != expect:
        raise WordNetSetupError(f"{where}: NLTK loads {count:,} synsets, but WordNet 3.0 has {expect:,}: another "
                                "version or a damaged copy")
    return count


# Lookups whose answers WordNet 3.0 fixes, one per file the features read beyond the data files:
# an emptied or truncated file loads, then changes relations silently ("geese" -> "bird" from
# hypernym to unrelated with an empty noun.exc).
KNOWN_ANSWERS = (
    ("noun.exc", lambda wn: wn.morphy("geese", "n"), "goose"),
    ("verb.exc", lambda wn: wn.morphy("went", "v"), "go"),
    ("index.sense", lambda wn: wn.lemma_from_key("dog%1:05:00::").synset().name(), "dog.n.01"),
    ("lexnames", lambda wn: wn.synset("dog.n.01").lexname(), "noun.animal"),
    ("the relations the features read", lambda wn: _relation(wn, "geese", "bird"), "hypernym"),
)


def _relation(reader, premise: str, hypothesis: str) -> str:
    # lazy: the relations import numpy's and pandas' column code, which download.py --help does without
    from nli_baselines.features.text.wordnet_relations import WordNetRelations
    return WordNetRelations(reader).relation(premise, hypothesis, "n")


def _check_known_answers(reader, where: Path) -> None:
    for part, lookup, answer in KNOWN_ANSWERS:
        try:
            found = lookup(reader)
        except Exception as exc:  # NLTK's errors on a damaged file
            found = f"{type(exc).__name__}: {exc}"
        if found != answer:
            raise WordNetSetupError(f"{where}: {part} gives {found!r} where WordNet 3.0 gives {answer!r}: a damaged "
                                    "or other copy")


def _check_pointers(synsets: list, where: Path) -> None:
    """Every pointer of every synset and lemma (hypernym, antonym, ...) leads to a synset of the
    copy: a damaged offset would load, then fail inside NLTK when a feature follows it."""
    def key(pos: str, offset: int) -> tuple[str, int]:
        return ("a" if pos == "s" else pos, offset)  # satellites live in the adjective file

    known = {key(s.pos(), s.offset()) for s in synsets}
    for synset in synsets:
        targets = [t for group in getattr(synset, "_pointers", {}).values() for t in group]
        targets += [t[:2] for group in getattr(synset, "_lemma_pointers", {}).values() for t in group]
        for pos, offset, *_ in targets:
            if key(pos, offset) not in known:
                raise WordNetSetupError(f"{where}: synset {synset.name()} points to {pos} {offset:08d}, which is "
                                        "not a synset of this copy: a damaged data file")


def _move_into_place(staging: Path, target: Path) -> None:
    built = staging / RESOURCE
    final = target / RESOURCE
    final.parent.mkdir(parents=True, exist_ok=True)
    if not built.exists():  # an NLTK that leaves the package zipped
        built, final = staging / f"{RESOURCE}.zip", target / f"{RESOURCE}.zip"
    # Both forms go: NLTK prefers a folder to a zip, so a stale one of either kind would shadow the new copy.
    for old in (target / RESOURCE, target / f"{RESOURCE}.zip"):
        if old.is_symlink() or old.exists():
            os.replace(old, staging / f"replaced-{old.name}")
    os.replace(built, final)


@contextlib.contextmanager
def _on_nltk_path(directory: Path) -> Iterator[None]:
    """`directory` first on NLTK's data path inside the block (NLTK reads files only under its data
    path), and the path as it was afterwards (a staging folder must not stay on it)."""
    # lazy: NLTK takes seconds to import; only setting up WordNet needs it
    import nltk.data
    saved = list(nltk.data.path)
    nltk.data.path.insert(0, str(directory))
    try:
        yield
    finally:
        nltk.data.path[:] = saved

