"""Fetch official corpus archives, verify them and extract them into the data directory.

Each source is one registry entry: URL, the folder of the data directory it owns, the archive folder
that becomes that folder, the files that must exist afterwards, a size cap, and a sha256 where the
archive is known byte for byte. A download is staged in a hidden `.download-*` folder of the data
directory and its files are moved into place only when it is complete, verified and extracted; on any
failure (an interrupt included) the staging folder is removed and the data directory is unchanged.
"""
from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import re
import shutil
import stat
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


from nli_baselines.features.runtime.progress import bar as progress_bar
from nli_baselines.features.storage.atomic import atomic_open

MiB = 1 << 20
# Well above every small corpus (the largest, SICK and the RTE sets, expand to a few MB), well below
# what a zip bomb would write; SNLI (~100 MB zip, ~0.5 GB expanded) and MultiNLI (~230 MB, ~1 GB) set more.
DEFAULT_MAX_SIZE = 256 * MiB
STAGING_PREFIX = ".download-"
# A staging folder nothing has written to for this long was left by a killed run; a live download
# writes to it continually, so one hour never catches a slow but running one.
STALE_AFTER_SECONDS = 3600
_CHUNK = MiB
_LOCAL_SCHEMES = ("http", "https", "ftp", "file")
# A download still running after this long is given up (a server trickling a byte at a time would
# otherwise hold the command for ever); MultiNLI's 230 MB need ~4 minutes at 1 MB/s.
DEFAULT_DEADLINE = 3600.0


class DownloadError(RuntimeError):
    """The archive could not be fetched, failed verification, or lacks expected files."""


@dataclass(frozen=True)
class Source:
    """One downloadable corpus.

    url: official address. folder: the corpus's own folder under the data dir; a download writes
    nowhere else. root: the archive folder whose contents become `folder` ("" for the archive's top
    level); members outside it are skipped and reported. expect: files (relative to the data dir)
    that must exist afterwards. filename: for a single-file (non-zip) source, its name in `folder`.
    max_size: the most bytes the download, and separately the files extracted from it, may take.

    sha256: the official archive's hash, checked whatever address the archive comes from (a mirror
    given with `--url` too), unless the caller passes another hash explicitly. None where we have
    never had the official archive in hand to hash it (this suite was built without internet access,
    and a hash we did not compute ourselves would be a guess); such a download reports the sha256 it
    received so that later downloads can be held to it with `--sha256`.
    Pinned: pascal-rte, mrpc.
    """

    name: str
    url: str | None
    folder: str
    expect: tuple[str, ...]
    root: str = ""
    sha256: str | None = None
    filename: str | None = None
    max_size: int = DEFAULT_MAX_SIZE
    # Expected file -> the start of its first line: what a download must hold to be this corpus (an
    # HTML error page saved as diagnostic.tsv is refused, not installed).
    headers: tuple[tuple[str, str], ...] = ()
    # A source without a public address (url None) says here where to get the file; `--url PATH` installs it.
    where: str = ""
    # Further files fetched into `folder` beside the first, each from an address of its own (MRPC:
    # Microsoft's test file and GLUE's dev ids): (url, file name, its sha256 or None).
    also: tuple[tuple[str, str, str | None], ...] = ()


@dataclass(frozen=True)
class Downloaded:
    """What `download` did: where from, the archive's sha256 and what it was checked against
    ("pinned", "given" or None), the expected files, skipped archive members, stale folders removed."""

    name: str
    url: str
    sha256: str
    checked: str | None
    files: list[Path]
    skipped: tuple[str, ...] = ()
    stale_removed: int = 0
    pinned: str | None = None
    also: tuple[tuple[str, str, str | None], ...] = ()  # the further files: (url, sha256, "pinned" or None)

    def notes(self) -> list[str]:
        """Lines a person should read: the hash and how far it was trusted, skipped members, cleanup."""
        if self.checked == "pinned":
            lines = [f"sha256 {self.sha256} of {self.url}: matches the pinned hash for {self.name}"]
        elif self.checked == "given":
            override = f" (instead of the pinned {self.pinned})" if self.pinned and self.pinned != self.sha256 else ""
            lines = [f"sha256 {self.sha256} of {self.url}: matches the sha256 given{override}"]
        else:
            lines = [(f"sha256 {self.sha256} of {self.url}: not verified (no pinned hash for {self.name}); "
                      f"to accept only this archive next time, pass --sha256 {self.sha256}")]
        for url, digest, checked in self.also:
            lines.append(f"sha256 {digest} of {url}: " + ("matches its pinned hash" if checked else "not verified "
                                                                                           "(no pinned hash)"))
        if self.skipped:
            root = SOURCES[self.name].root
            shown = ", ".join(self.skipped[:5]) + (", ..." if len(self.skipped) > 5 else "")
            where = f"outside {root}/" if root else "of macOS metadata"
            lines.append(f"skipped {len(self.skipped)} archive member(s) {where}: {shown}")
        if self.stale_removed:
            lines.append(f"removed {self.stale_removed} staging folder(s) left by an interrupted earlier download")
        return lines


SOURCES: dict[str, Source] = {}


def register(source: Source) -> Source:
    """Add `source` to SOURCES; its expected files must lie in its own folder."""
    folder = PurePosixPath(source.folder)
    if not all(PurePosixPath(rel).is_relative_to(folder) for rel in source.expect):
        raise ValueError(f"source {source.name!r}: expected files must lie under its folder {source.folder!r}")
    SOURCES[source.name] = source
    return source


_SUPERGLUE = "https://dl.fbaipublicfiles.com/glue/superglue/data/v2"
_SNLI_FILES = tuple(f"snli_1.0/snli_1.0_{split}.jsonl" for split in ("train", "dev", "test"))
register(Source("snli", "https://nlp.stanford.edu/projects/snli/snli_1.0.zip", "snli_1.0", _SNLI_FILES,
                root="snli_1.0", max_size=4096 * MiB, headers=tuple((f, "{") for f in _SNLI_FILES)))
register(Source("mnli", "https://cims.nyu.edu/~sbowman/multinli/multinli_1.0.zip", "multinli_1.0",
                ("multinli_1.0/multinli_1.0_train.jsonl", "multinli_1.0/multinli_1.0_dev_matched.jsonl"),
                root="multinli_1.0", max_size=4096 * MiB))
register(Source("sick", "https://zenodo.org/record/2787612/files/SICK.zip", "sick", ("sick/SICK.txt",),
                headers=(("sick/SICK.txt", "pair_ID\tsentence_A\tsentence_B"),)))
register(Source("rte", "https://dl.fbaipublicfiles.com/glue/data/RTE.zip", "glue/RTE",
                ("glue/RTE/train.tsv", "glue/RTE/dev.tsv", "glue/RTE/test.tsv"), root="RTE",
                headers=(("glue/RTE/train.tsv", "index\tsentence1\tsentence2\tlabel"),
                         ("glue/RTE/test.tsv", "index\tsentence1\tsentence2"))))
# The rest of GLUE (issue 40), as GLUE's download script fetches it: a zip per task, MRPC from
# Microsoft's files (SentEval's copies) and GLUE's dev ids, which our MRPC reader splits as GLUE does.
_GLUE = "https://dl.fbaipublicfiles.com/glue/data"
register(Source("stsb", f"{_GLUE}/STS-B.zip", "glue/STS-B",
                ("glue/STS-B/train.tsv", "glue/STS-B/dev.tsv", "glue/STS-B/test.tsv"), root="STS-B",
                headers=(("glue/STS-B/train.tsv", "index\tgenre\tfilename"),)))
register(Source("cola", f"{_GLUE}/CoLA.zip", "glue/CoLA",
                ("glue/CoLA/train.tsv", "glue/CoLA/dev.tsv", "glue/CoLA/test.tsv"), root="CoLA",
                headers=(("glue/CoLA/test.tsv", "index\tsentence"),)))
register(Source("sst2", f"{_GLUE}/SST-2.zip", "glue/SST-2",
                ("glue/SST-2/train.tsv", "glue/SST-2/dev.tsv", "glue/SST-2/test.tsv"), root="SST-2",
                headers=(("glue/SST-2/train.tsv", "sentence\tlabel"),)))
register(Source("qnli", f"{_GLUE}/QNLIv2.zip", "glue/QNLI",
                ("glue/QNLI/train.tsv", "glue/QNLI/dev.tsv", "glue/QNLI/test.tsv"), root="QNLI",
                headers=(("glue/QNLI/train.tsv", "index\tquestion\tsentence\tlabel"),
                         ("glue/QNLI/test.tsv", "index\tquestion\tsentence"))))
register(Source("wnli", f"{_GLUE}/WNLI.zip", "glue/WNLI",
                ("glue/WNLI/train.tsv", "glue/WNLI/dev.tsv", "glue/WNLI/test.tsv"), root="WNLI",
                headers=(("glue/WNLI/train.tsv", "index\tsentence1\tsentence2\tlabel"),
                         ("glue/WNLI/test.tsv", "index\tsentence1\tsentence2"))))
register(Source("qqp", f"{_GLUE}/QQP-clean.zip", "glue/QQP",
                ("glue/QQP/train.tsv", "glue/QQP/dev.tsv", "glue/QQP/test.tsv"), root="QQP",
                headers=(("glue/QQP/train.tsv", "id\tqid1\tqid2"),)))
# Pinned: the training file and the dev ids (the copies under ../shared/data) have the sha256 that
# Hugging Face's GLUE builder records for them (1,047,044 and 6,222 bytes); the test file, which we
# have not had in hand, is not pinned.
_SENTEVAL = "https://dl.fbaipublicfiles.com/senteval/senteval_data"
register(Source("mrpc", f"{_SENTEVAL}/msr_paraphrase_train.txt", "glue/MRPC",
                ("glue/MRPC/msr_paraphrase_train.txt", "glue/MRPC/msr_paraphrase_test.txt", "glue/MRPC/dev_ids.tsv"),
                filename="msr_paraphrase_train.txt",
                sha256="60a9b09084528f0673eedee2b69cb941920f0b8cd0eeccefc464a98768457f89",
                headers=(("glue/MRPC/msr_paraphrase_train.txt", "Quality\t#1 ID"),
                         ("glue/MRPC/msr_paraphrase_test.txt", "Quality\t#1 ID")),
                also=((f"{_SENTEVAL}/msr_paraphrase_test.txt", "msr_paraphrase_test.txt", None),
                      (f"{_GLUE}/mrpc_dev_ids.tsv", "dev_ids.tsv",
                       "971d7767d81b997fd9060ade0ec23c4fc31cbb226a55d1bd4a1bac474eb81dc7"))))
register(Source("ax", "https://dl.fbaipublicfiles.com/glue/data/AX.tsv", "glue/AX",
                ("glue/AX/diagnostic.tsv",), filename="diagnostic.tsv",
                headers=(("glue/AX/diagnostic.tsv", "index\tsentence1\tsentence2"),)))
register(Source("superglue-cb", f"{_SUPERGLUE}/CB.zip", "superglue/CB", ("superglue/CB/train.jsonl",), root="CB",
                headers=(("superglue/CB/train.jsonl", "{"),)))
register(Source("superglue-rte", f"{_SUPERGLUE}/RTE.zip", "superglue/RTE", ("superglue/RTE/train.jsonl",),
                root="RTE", headers=(("superglue/RTE/train.jsonl", "{"),)))
register(Source("superglue-ax-b", f"{_SUPERGLUE}/AX-b.zip", "superglue/AX-b", ("superglue/AX-b/AX-b.jsonl",),
                root="AX-b", headers=(("superglue/AX-b/AX-b.jsonl", "{"),)))
register(Source("superglue-ax-g", f"{_SUPERGLUE}/AX-g.zip", "superglue/AX-g", ("superglue/AX-g/AX-g.jsonl",),
                root="AX-g", headers=(("superglue/AX-g/AX-g.jsonl", "{"),)))
register(Source("pascal-rte", "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/rte.zip",
                "rte", ("rte/rte3_dev.xml",), root="rte",
                sha256="2f806ead4d53171601254747c3b7c97d758e63a6ef54e3c010a6d62885ab214a"))
# HANS (McCoy et al. 2019, MIT licence): the 30,000-pair evaluation set.
register(Source("hans", "https://raw.githubusercontent.com/tommccoy1/hans/master/heuristics_evaluation_set.txt",
                "hans", ("hans/heuristics_evaluation_set.txt",), filename="heuristics_evaluation_set.txt",
                headers=(("hans/heuristics_evaluation_set.txt", "gold_label\tsentence1_binary_parse"),)))
# The hard subsets (Gururangan et al. 2018): SNLI's test pairs a hypothesis-only classifier got wrong,
# and MultiNLI's, which came with its hidden-label test sets and have no public address.
register(Source("snli-hard", "https://nlp.stanford.edu/projects/snli/snli_1.0_test_hard.jsonl", "snli_hard",
                ("snli_hard/snli_1.0_test_hard.jsonl",), filename="snli_1.0_test_hard.jsonl",
                headers=(("snli_hard/snli_1.0_test_hard.jsonl", "{"),)))
for _match in ("matched", "mismatched"):
    _file = f"multinli_0.9_test_{_match}_unlabeled_hard.jsonl"
    register(Source(f"mnli-hard-{_match}", None, f"mnli_hard/{_match}", (f"mnli_hard/{_match}/{_file}",),
                    filename=_file, headers=((f"mnli_hard/{_match}/{_file}", "{"),),
                    where=f"{_file} was released with MultiNLI's test sets, whose gold labels are hidden "
                          "(Kaggle, sign-in needed); fetch it there and install it with --url PATH"))


def as_url(location: str) -> str:
    """`location` as a URL: URLs pass through, a local path becomes a file:// URL. A local file must
    be a regular file: opening a FIFO would wait for a writer, past any deadline."""
    parts = urllib.parse.urlsplit(location)
    if parts.scheme.lower() == "file":
        _regular_file(Path(urllib.request.url2pathname(parts.path)), location)
        return location
    if parts.scheme.lower() in _LOCAL_SCHEMES:
        return location
    path = Path(location).expanduser()
    _regular_file(path, location)
    return path.resolve().as_uri()


def _regular_file(path: Path, location: str) -> None:
    if not path.exists():
        raise DownloadError(f"{location}: no such file")
    if not path.is_file():
        raise DownloadError(f"{location}: not a regular file (a directory, a FIFO or a device), so nothing to copy")


def fetch(url: str, dest: Path, progress: bool = True, max_size: int | None = None,
          deadline: float = DEFAULT_DEADLINE) -> str:
    """Download `url` (or a local path) to `dest`, complete or not at all; returns its sha256.

    Refuses a body shorter than its Content-Length (a dropped connection) or longer than `max_size`,
    and gives up after `deadline` seconds in all.
    """
    digest = hashlib.sha256()
    received = 0
    give_up = time.monotonic() + deadline
    try:
        with urllib.request.urlopen(as_url(url), timeout=min(60.0, deadline)) as response:
            length = response.headers.get("Content-Length")
            expected = int(length) if length and length.isdigit() else None
            if expected is not None and max_size is not None and expected > max_size:
                raise DownloadError(f"{url}: the server announces {expected:,} bytes, more than the "
                                    f"{max_size:,}-byte cap")
            with atomic_open(dest, "wb") as out, progress_bar(total=expected, unit="B", unit_scale=True, desc=dest.name,
                                                       enabled=progress, leave=True) as bar:
                while chunk := response.read1(_CHUNK) if hasattr(response, "read1") else response.read(_CHUNK):
                    if time.monotonic() > give_up:
                        raise DownloadError(f"{url}: still downloading after {deadline:,.0f} s ({received:,} bytes "
                                            "so far); gave up, nothing was changed (--deadline SECONDS allows more)")
                    received += len(chunk)
                    if max_size is not None and received > max_size:
                        raise DownloadError(f"{url}: more than the {max_size:,}-byte cap")
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
            # urllib treats a connection closed early as the end of the body: only the count tells.
            if expected is not None and received != expected:
                raise DownloadError(f"{url}: received {received:,} of {expected:,} bytes (the connection "
                                    "ended early); nothing was changed")
    except (OSError, http.client.HTTPException, ValueError) as exc:  # URLError and HTTPError are OSErrors
        raise DownloadError(f"could not download {url}: {exc}") from None
    return digest.hexdigest()


def _expected_hash(source: Source, sha256: str | None) -> tuple[str | None, str | None]:
    if sha256 is None:
        return source.sha256, "pinned" if source.sha256 else None
    given = sha256.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", given):
        raise DownloadError(f"expected sha256 {sha256!r} is not 64 hexadecimal digits")
    return given, "given"


def download(name: str, data_dir: Path | str, url: str | None = None, sha256: str | None = None,
             progress: bool = True, deadline: float = DEFAULT_DEADLINE) -> Downloaded:
    """Fetch corpus `name` into `data_dir`; returns what was done, the expected files verified to exist.

    url: a mirror, a local path or a file:// URL instead of the official address; the pinned sha256
    still applies. sha256: the hash to require instead of the pinned one (or where none is pinned).
    deadline: seconds the download may take in all.
    The data directory is changed all or nothing: the new files replace the old ones together, and
    a failure part way puts back every file it had replaced.
    """
    try:
        source = SOURCES[name]
    except KeyError:
        raise DownloadError(f"unknown corpus {name!r}; choose from {', '.join(sorted(SOURCES))}") from None
    location = url or source.url
    if not location:
        raise DownloadError(f"{name} has no public download address: {source.where}")
    if url and source.also:
        files = ", ".join([source.filename or PurePosixPath(source.url).name, *(f for _, f, _ in source.also)])
        raise DownloadError(f"{name} is {len(source.also) + 1} files from as many addresses ({files}): --url replaces "
                            f"one address; put copies of them in {source.folder}/ under the data directory yourself")
    started = time.monotonic()
    expected_hash, checked = _expected_hash(source, sha256)
    data_dir = _writable_data_dir(Path(data_dir))
    stale = remove_stale_staging(data_dir)
    with tempfile.TemporaryDirectory(dir=data_dir, prefix=f"{STAGING_PREFIX}{name}-") as tmp:
        tmp = Path(tmp)
        fetched = tmp / (PurePosixPath(urllib.parse.urlsplit(location).path).name or f"{name}.download")
        actual = fetch(location, fetched, progress, source.max_size, deadline)
        if expected_hash and actual != expected_hash:
            which = "pinned" if checked == "pinned" else "expected"
            raise DownloadError(f"{location}: sha256 {actual} does not match the {which} sha256 {expected_hash}; "
                                f"nothing was changed (to accept this archive anyway: --sha256 {actual})")
        staging = tmp / "extracted"
        folder = staging / source.folder
        skipped: list[str] = []
        if source.filename:
            folder.mkdir(parents=True)
            os.replace(fetched, folder / source.filename)
        else:
            skipped = _extract(fetched, source, folder, location)
        also = []
        for extra, filename, pinned in source.also:
            digest = fetch(extra, folder / filename, progress, source.max_size,
                           max(1.0, deadline - (time.monotonic() - started)))
            if pinned and digest != pinned:
                raise DownloadError(f"{extra}: sha256 {digest} does not match the pinned sha256 {pinned}; nothing was "
                                    "changed")
            also.append((extra, digest, "pinned" if pinned else None))
        missing = [rel for rel in source.expect if not (staging / rel).is_file()]
        if missing:
            raise DownloadError(f"{location}: archive lacks expected file(s) {', '.join(missing)}")
        _check_headers(source, staging, location)
        _swap_in(sorted(p for p in staging.rglob("*") if p.is_file()), staging, data_dir, tmp / "replaced")
    return Downloaded(name, location, actual, checked, [data_dir / rel for rel in source.expect], tuple(skipped),
                      stale, source.sha256, tuple(also))


def _writable_data_dir(data_dir: Path) -> Path:
    """The data directory, made if need be; a file in its place or a directory we cannot write in is
    a DownloadError before anything is fetched."""
    if data_dir.exists() and not data_dir.is_dir():
        raise DownloadError(f"--data-dir {data_dir} is a file; give a directory")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(f"cannot make the data directory {data_dir}: {exc.strerror}") from None
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise DownloadError(f"cannot write in the data directory {data_dir} (permission denied)")
    return data_dir


def _check_headers(source: Source, staging: Path, location: str) -> None:
    """The expected files are text of this corpus' format, not an HTML page or another corpus."""
    for rel, start in source.headers:
        path = staging / rel
        with open(path, "rb") as handle:
            head = handle.read(4096)
        text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
        first = text.splitlines()[0] if text else ""
        if not first.startswith(start):
            looks = ("an HTML page (an error or login page?)" if text.lstrip()[:1] == "<" else
                     f"a file starting {first[:60]!r}")
            raise DownloadError(f"{location}: {rel} is {looks}, not the {source.name} file (it starts "
                                f"{start!r}); nothing was changed")


def _swap_in(files: list[Path], staging: Path, data_dir: Path, backup: Path) -> None:
    """Move the staged files into the data directory together: each file it replaces goes to
    `backup` first, and a failure part way moves every replaced file back (and removes the new ones),
    so the data directory is as it was."""
    done: list[tuple[Path, Path | None]] = []
    made: list[Path] = []
    try:
        for path in files:
            final = data_dir / path.relative_to(staging)
            for parent in reversed(final.relative_to(data_dir).parents[:-1]):
                folder = data_dir / parent
                if not folder.exists():
                    folder.mkdir()
                    made.append(folder)
            kept = None
            if final.exists() or final.is_symlink():
                kept = backup / path.relative_to(staging)
                kept.parent.mkdir(parents=True, exist_ok=True)
                os.replace(final, kept)
            done.append((final, kept))
            os.replace(path, final)
    except OSError as exc:
        for final, kept in reversed(done):
            with contextlib.suppress(OSError):
                if kept is not None:
                    os.replace(kept, final)
                else:
                    final.unlink(missing_ok=True)
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise DownloadError(f"cannot put {exc.filename or 'the files'} in place ({exc.strerror or exc}); the data "
                            "directory is as it was") from None


def remove_stale_staging(data_dir: Path, max_age: float = STALE_AFTER_SECONDS) -> int:
    """Remove `.download-*` folders in `data_dir` not written to for `max_age` seconds; returns how many."""
    removed = 0
    cutoff = time.time() - max_age
    for entry in data_dir.glob(f"{STAGING_PREFIX}*"):
        if entry.is_symlink() or not entry.is_dir():
            continue
        try:
            if _newest_mtime(entry) < cutoff:
                shutil.rmtree(entry)
                removed += 1
        except OSError:
            continue  # vanished meanwhile (its download finished) or not ours to remove
    return removed


def _newest_mtime(folder: Path) -> float:
    newest = folder.lstat().st_mtime
    for parent, dirs, files in os.walk(folder):
        for name in dirs + files:
            newest = max(newest, os.lstat(os.path.join(parent, name)).st_mtime)
    return newest


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    # Unix zip tools keep the file mode in the high 16 bits of external_attr.
    return stat.S_ISLNK(info.external_attr >> 16)


def _select_members(archive: zipfile.ZipFile, source: Source,
                    location: str) -> tuple[list[tuple[zipfile.ZipInfo, PurePosixPath]], list[str]]:
    root = PurePosixPath(source.root).parts
    chosen, skipped, seen = [], [], set()
    for info in archive.infolist():
        path = PurePosixPath(info.filename)
        if path.is_absolute() or ".." in path.parts:
            raise DownloadError(f"{location}: archive member {info.filename!r} would escape the data directory")
        if _is_symlink(info):
            raise DownloadError(f"{location}: archive member {info.filename!r} is a symbolic link; "
                                "archives with links are refused")
        if info.is_dir():
            continue
        if path.parts[:len(root)] != root or len(path.parts) == len(root) or path.parts[0] == "__MACOSX":
            skipped.append(info.filename)
            continue
        relative = PurePosixPath(*path.parts[len(root):])
        if relative in seen:
            raise DownloadError(f"{location}: archive member {info.filename!r} appears twice")
        seen.add(relative)
        chosen.append((info, relative))
    return chosen, skipped


def _extract(archive_path: Path, source: Source, folder: Path, location: str) -> list[str]:
    """Extract `source`'s members into `folder`; returns the members skipped as not belonging to it."""
    cap = source.max_size
    try:
        archive = zipfile.ZipFile(archive_path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DownloadError(f"{location}: not a valid zip archive ({exc})") from None
    with archive:
        chosen, skipped = _select_members(archive, source, location)
        declared = sum(info.file_size for info, _ in chosen)
        if declared > cap:
            raise DownloadError(f"{location}: the archive would expand to {declared:,} bytes, more than the "
                                f"{cap:,}-byte cap for {source.name}")
        folder.mkdir(parents=True, exist_ok=True)
        top = os.path.realpath(folder)
        for info, relative in chosen:
            dest = folder.joinpath(*relative.parts)
            try:
                dest.parent.mkdir(parents=True, exist_ok=True)
                # Only folders this loop made lie between `folder` and `dest`, so this holds; kept as
                # the last line of defence should that ever change.
                if os.path.commonpath([top, os.path.realpath(dest.parent)]) != top:
                    raise DownloadError(f"{location}: archive member {info.filename!r} would escape its folder")
                with archive.open(info) as member, open(dest, "xb") as out:
                    own = 0
                    while chunk := member.read(_CHUNK):
                        own += len(chunk)
                        # Counted here, not trusted from the header: a lying size must not get past the cap.
                        if own > info.file_size:
                            raise DownloadError(f"{location}: member {info.filename!r} holds more than its "
                                                f"header declares ({info.file_size:,} bytes)")
                        out.write(chunk)
            except DownloadError:
                raise
            except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
                raise DownloadError(f"{location}: member {info.filename!r} fails its CRC check or is corrupt "
                                    f"({exc}; a damaged download?)") from None
            except (NotImplementedError, RuntimeError) as exc:  # encrypted, or a compression zipfile lacks
                raise DownloadError(f"{location}: cannot read member {info.filename!r}: {exc}") from None
            except OSError as exc:
                raise DownloadError(f"{location}: cannot extract member {info.filename!r}: {exc}") from None
    return skipped
