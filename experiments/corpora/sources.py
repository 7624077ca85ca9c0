"""Fetch official corpus archives, verify them and extract them into the data directory.

Each source is one registry entry: URL, where its members go, the files that
must exist afterwards, and a sha256 where the archive is known byte for byte.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


class DownloadError(RuntimeError):
    """The archive could not be fetched, failed verification, or lacks expected files."""


@dataclass(frozen=True)
class Source:
    """url: official address; target: folder (under the data dir) the archive extracts into;
    expect: files (relative to the data dir) that must exist afterwards; filename: for a
    single-file (non-zip) source, its path relative to the data dir."""

    name: str
    url: str
    target: str
    expect: tuple[str, ...]
    sha256: str | None = None
    filename: str | None = None


SOURCES: dict[str, Source] = {}


def register(source: Source) -> Source:
    SOURCES[source.name] = source
    return source


_SUPERGLUE = "https://dl.fbaipublicfiles.com/glue/superglue/data/v2"
register(Source("snli", "https://nlp.stanford.edu/projects/snli/snli_1.0.zip", ".",
                ("snli_1.0/snli_1.0_train.jsonl", "snli_1.0/snli_1.0_dev.jsonl", "snli_1.0/snli_1.0_test.jsonl")))
register(Source("mnli", "https://cims.nyu.edu/~sbowman/multinli/multinli_1.0.zip", ".",
                ("multinli_1.0/multinli_1.0_train.jsonl", "multinli_1.0/multinli_1.0_dev_matched.jsonl")))
register(Source("sick", "https://zenodo.org/record/2787612/files/SICK.zip", "sick", ("sick/SICK.txt",)))
register(Source("rte", "https://dl.fbaipublicfiles.com/glue/data/RTE.zip", "glue",
                ("glue/RTE/train.tsv", "glue/RTE/dev.tsv", "glue/RTE/test.tsv")))
register(Source("ax", "https://dl.fbaipublicfiles.com/glue/data/AX.tsv", "glue/AX",
                ("glue/AX/diagnostic.tsv",), filename="glue/AX/diagnostic.tsv"))
register(Source("superglue-cb", f"{_SUPERGLUE}/CB.zip", "superglue", ("superglue/CB/train.jsonl",)))
register(Source("superglue-rte", f"{_SUPERGLUE}/RTE.zip", "superglue", ("superglue/RTE/train.jsonl",)))
register(Source("superglue-ax-b", f"{_SUPERGLUE}/AX-b.zip", "superglue", ("superglue/AX-b/AX-b.jsonl",)))
register(Source("pascal-rte", "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/packages/corpora/rte.zip",
                ".", ("rte/rte3_dev.xml",),
                sha256="2f806ead4d53171601254747c3b7c97d758e63a6ef54e3c010a6d62885ab214a"))


def fetch(url: str, dest: Path, progress: bool = True) -> str:
    """Download `url` to `dest` (via a `.part` file, renamed when complete); returns its sha256."""
    from tqdm.auto import tqdm
    digest = hashlib.sha256()
    part = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=60) as response, open(part, "wb") as out:
            total = int(response.headers.get("Content-Length") or 0) or None
            with tqdm(total=total, unit="B", unit_scale=True, desc=dest.name, disable=not progress) as bar:
                while chunk := response.read(1 << 20):
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
    except OSError as exc:  # URLError and HTTPError are OSErrors
        part.unlink(missing_ok=True)
        raise DownloadError(f"could not download {url}: {exc}") from None
    os.replace(part, dest)
    return digest.hexdigest()


def _safe_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    members = []
    for info in archive.infolist():
        path = PurePosixPath(info.filename)
        if path.is_absolute() or ".." in path.parts:
            raise DownloadError(f"archive member {info.filename!r} would escape the data directory")
        if path.parts and path.parts[0] == "__MACOSX" or info.is_dir():
            continue
        members.append(info)
    return members


def download(name: str, data_dir: Path | str, url: str | None = None, sha256: str | None = None,
             progress: bool = True) -> list[Path]:
    """Fetch corpus `name` into `data_dir` and return the expected files, all verified to exist.

    url: a mirror (or a test server) instead of the official address; the pinned
    sha256 then applies only if passed again as `sha256`.
    """
    try:
        source = SOURCES[name]
    except KeyError:
        raise DownloadError(f"unknown corpus {name!r}; choose from {', '.join(sorted(SOURCES))}") from None
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    expected_hash = sha256 if url else (sha256 or source.sha256)
    url = url or source.url
    with tempfile.TemporaryDirectory(dir=data_dir, prefix=".download-") as tmp:
        tmp = Path(tmp)
        fetched = tmp / (PurePosixPath(url.split("?")[0]).name or f"{name}.download")
        actual = fetch(url, fetched, progress)
        if expected_hash and actual != expected_hash:
            raise DownloadError(f"{url}: sha256 {actual} does not match the expected {expected_hash}")
        staging = tmp / "extracted"
        if source.filename:
            (staging / source.filename).parent.mkdir(parents=True)
            shutil.move(fetched, staging / source.filename)
        else:
            _extract(fetched, staging / source.target, url)
        missing = [rel for rel in source.expect if not (staging / rel).is_file()]
        if missing:
            raise DownloadError(f"{url}: archive lacks expected file(s) {', '.join(missing)}")
        for path in sorted(p for p in staging.rglob("*") if p.is_file()):
            final = data_dir / path.relative_to(staging)
            final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, final)
    return [data_dir / rel for rel in source.expect]


def _extract(archive_path: Path, into: Path, url: str) -> None:
    try:
        with zipfile.ZipFile(archive_path) as archive:
            broken = archive.testzip()
            if broken is not None:
                raise DownloadError(f"{url}: member {broken!r} fails its CRC check (corrupt download?)")
            into.mkdir(parents=True, exist_ok=True)
            for info in _safe_members(archive):
                archive.extract(info, into)
    except zipfile.BadZipFile as exc:
        raise DownloadError(f"{url}: not a valid zip archive ({exc})") from None
