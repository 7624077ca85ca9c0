"""The download path, exercised against a local HTTP server on 127.0.0.1 serving archives the test builds."""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import http.server
import io
import os
import re
import signal
import stat
import struct
import threading
import time
import zipfile
from pathlib import Path, PurePath

import pytest

from nli_baselines.experiments.corpora.download.sources import SOURCES, DownloadError, Source, download, fetch
from nli_baselines.experiments.download import main as download_main
from tests.conftest import start_script


class Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the test's folder; `/truncate/NAME` promises all of NAME but sends half and hangs up;
    `/stall/NAME` sends half, then waits until the test ends (an interrupted download)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        kind, _, name = self.path.lstrip("/").partition("/")
        if kind not in ("truncate", "stall"):
            return super().do_GET()
        body = (Path(self.directory) / name).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        if kind == "stall":
            self.server.release.wait(60)
        self.close_connection = True


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    httpd.release = threading.Event()
    # serve_forever polls for shutdown every poll_interval: the default 0.5 s cost each of ~25 tests
    # half a second in teardown.
    thread = threading.Thread(target=functools.partial(httpd.serve_forever, poll_interval=0.01), daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.release.set()
    httpd.shutdown()
    httpd.server_close()


def zip_bytes(members: dict[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def leftovers(data: Path) -> list[str]:
    """Staging folders and partial files a download left behind."""
    return sorted(str(p.relative_to(data)) for p in data.rglob("*")
                  if p.name.startswith(".download-") or p.name.endswith((".part", ".tmp")))


SICK = "pair_ID\tsentence_A\tsentence_B\tentailment_label\tSemEval_set\r\n1\ta\tb\tNEUTRAL\tTRAIN"
SNLI = {f"snli_1.0/snli_1.0_{split}.jsonl": "{}\n" for split in ("train", "dev", "test")}


def test_download_extracts_into_official_layout(server, tmp_path):
    root, base = server
    (root / "SICK.zip").write_bytes(zip_bytes({"SICK.txt": SICK, "__MACOSX/._SICK.txt": "junk"}))
    data = tmp_path / "data"
    assert download_main(["sick", "--data-dir", str(data), "--url", f"{base}/SICK.zip", "--quiet"]) == 0
    assert (data / "sick" / "SICK.txt").read_bytes() == SICK.encode()
    assert not (data / "sick" / "__MACOSX").exists()
    assert not any(p.name.startswith(".download-") for p in data.iterdir())  # staging removed
    from nli_baselines.experiments.corpora import get_corpus
    assert len(get_corpus("sick").load("train", data).pairs) == 1


def test_single_file_source(server, tmp_path):
    root, base = server
    (root / "AX.tsv").write_text("index\tsentence1\tsentence2\n0\ta\tb\n")
    result = download("ax", tmp_path, url=f"{base}/AX.tsv", progress=False)
    assert result.files == [tmp_path / "glue" / "AX" / "diagnostic.tsv"] and result.files[0].is_file()


def test_checksum_mismatch_and_bad_archives(server, tmp_path):
    root, base = server
    (root / "RTE.zip").write_bytes(zip_bytes({"RTE/train.tsv": "x"}))
    with pytest.raises(DownloadError, match="sha256"):
        download("rte", tmp_path, url=f"{base}/RTE.zip", sha256="0" * 64, progress=False)
    with pytest.raises(DownloadError, match="lacks expected file.*glue/RTE/dev.tsv"):
        download("rte", tmp_path, url=f"{base}/RTE.zip", progress=False)
    (root / "broken.zip").write_bytes(b"PK not really")
    with pytest.raises(DownloadError, match="not a valid zip"):
        download("rte", tmp_path, url=f"{base}/broken.zip", progress=False)
    (root / "evil.zip").write_bytes(zip_bytes({"../escape.txt": "x"}))
    with pytest.raises(DownloadError, match="escape"):
        download("rte", tmp_path, url=f"{base}/evil.zip", progress=False)
    (root / "absolute.zip").write_bytes(zip_bytes({"/RTE/train.tsv": "x"}))
    with pytest.raises(DownloadError, match="escape"):
        download("rte", tmp_path, url=f"{base}/absolute.zip", progress=False)
    with pytest.raises(DownloadError, match="could not download.*missing.zip"):
        download("rte", tmp_path, url=f"{base}/missing.zip", progress=False)
    assert not (tmp_path / "glue").exists()  # nothing half-extracted
    assert leftovers(tmp_path) == []


def test_corrupt_member_fails_its_crc_check(server, tmp_path):
    root, base = server
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name in ("train", "dev", "test"):
            archive.writestr(f"RTE/{name}.tsv", name * 100)
    corrupt = buffer.getvalue().replace(b"dev" * 100, b"deV" + b"dev" * 99)  # stored bytes: only the CRC notices
    (root / "RTE.zip").write_bytes(corrupt)
    with pytest.raises(DownloadError, match="'RTE/dev.tsv' fails its CRC check"):
        download("rte", tmp_path, url=f"{base}/RTE.zip", progress=False)
    assert not (tmp_path / "glue").exists() and leftovers(tmp_path) == []


# ------------------------------------------------------------------ 1. truncated downloads


def test_truncated_download_is_refused_and_the_good_file_kept(server, tmp_path, capsys):
    root, base = server
    (root / "AX.tsv").write_text("index\tsentence1\tsentence2\n" + "".join(f"{i}\ta\tb\n" for i in range(1000)))
    good = tmp_path / "glue" / "AX" / "diagnostic.tsv"
    good.parent.mkdir(parents=True)
    good.write_text("the good copy\n")
    size = (root / "AX.tsv").stat().st_size
    url = f"{base}/truncate/AX.tsv"
    assert download_main(["ax", "--data-dir", str(tmp_path), "--url", url, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and url in err
    assert f"{size // 2:,}" in err and f"{size:,}" in err  # bytes received and expected
    assert good.read_text() == "the good copy\n"
    assert leftovers(tmp_path) == []


def test_truncated_archive_is_refused_before_it_is_opened(server, tmp_path):
    root, base = server
    (root / "SICK.zip").write_bytes(zip_bytes({"SICK.txt": SICK * 50}))
    with pytest.raises(DownloadError, match=r"received \d[\d,]* of \d[\d,]* bytes"):
        download("sick", tmp_path, url=f"{base}/truncate/SICK.zip", progress=False)
    assert not (tmp_path / "sick").exists() and leftovers(tmp_path) == []


# ------------------------------------------------------------------ 2. every download verifiable


RTE3 = "<entailment-corpus></entailment-corpus>\n"


def test_a_mirror_keeps_the_pinned_sha256(server, tmp_path):
    root, base = server
    assert SOURCES["pascal-rte"].sha256  # the test needs a pinned source
    (root / "rte.zip").write_bytes(zip_bytes({"rte/rte3_dev.xml": RTE3}))  # not the pinned archive
    assert download_main(["pascal-rte", "--data-dir", str(tmp_path), "--url", f"{base}/rte.zip", "--quiet"]) == 2
    assert not (tmp_path / "rte").exists()
    with pytest.raises(DownloadError, match="does not match the pinned sha256"):
        download("pascal-rte", tmp_path, url=f"{base}/rte.zip", progress=False)


def test_sha256_option_overrides_the_pinned_hash(server, tmp_path, capsys):
    root, base = server
    archive = zip_bytes({"rte/rte3_dev.xml": RTE3})
    (root / "rte.zip").write_bytes(archive)
    assert download_main(["pascal-rte", "--data-dir", str(tmp_path), "--url", f"{base}/rte.zip",
                          "--sha256", sha256(archive).upper(), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [str(tmp_path / "rte" / "rte3_dev.xml")]
    assert sha256(archive) in err and "instead of the pinned" in err
    result = download("pascal-rte", tmp_path, url=f"{base}/rte.zip", sha256=sha256(archive), progress=False)
    assert result.sha256 == sha256(archive) and result.checked == "given"


def test_an_unpinned_download_reports_the_sha256_it_saw(server, tmp_path, capsys):
    root, base = server
    archive = zip_bytes({"SICK.txt": SICK})
    (root / "SICK.zip").write_bytes(archive)
    assert download_main(["sick", "--data-dir", str(tmp_path), "--url", f"{base}/SICK.zip", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"sha256 {sha256(archive)}" in err and "not verified" in err and f"--sha256 {sha256(archive)}" in err
    result = download("sick", tmp_path, url=f"{base}/SICK.zip", progress=False)
    assert result.sha256 == sha256(archive) and result.checked is None


def test_bad_sha256_option_is_a_clear_error(server, tmp_path):
    with pytest.raises(DownloadError, match="64 hexadecimal digits"):
        download("sick", tmp_path, url="http://127.0.0.1:9/SICK.zip", sha256="abc", progress=False)


def test_pinned_hashes_are_well_formed_and_documented():
    pinned = sorted(name for name, source in SOURCES.items() if source.sha256)
    assert pinned  # pascal-rte at least
    for name in pinned:
        assert re.fullmatch(r"[0-9a-f]{64}", SOURCES[name].sha256), name
    documented = re.search(r"Pinned: (.*?)\.", " ".join(Source.__doc__.split())).group(1)
    assert sorted(documented.replace(",", " ").split()) == pinned


# ------------------------------------------------------------------ 3. each corpus in its own folder, size capped


def test_an_archive_cannot_replace_another_corpus(server, tmp_path, capsys):
    root, base = server
    data = tmp_path / "data"
    rte = data / "glue" / "RTE" / "train.tsv"
    rte.parent.mkdir(parents=True)
    rte.write_text("the real RTE\n")
    (root / "snli.zip").write_bytes(zip_bytes({**SNLI, "glue/RTE/train.tsv": "replaced!", "README.txt": "x"}))
    assert download_main(["snli", "--data-dir", str(data), "--url", f"{base}/snli.zip", "--quiet"]) == 0
    assert rte.read_text() == "the real RTE\n"
    assert sorted(p.name for p in data.iterdir()) == ["glue", "snli_1.0"]
    assert "skipped 2 archive member(s) outside snli_1.0/: glue/RTE/train.tsv, README.txt" in capsys.readouterr().err
    result = download("snli", data, url=f"{base}/snli.zip", progress=False)
    assert result.skipped == ("glue/RTE/train.tsv", "README.txt")


def test_every_source_writes_only_into_its_own_folder():
    folders = {name: PurePath(source.folder) for name, source in SOURCES.items()}
    for name, source in SOURCES.items():
        assert all(PurePath(rel).is_relative_to(folders[name]) for rel in source.expect), name
        others = [f for n, f in folders.items() if n != name]
        assert not any(folders[name].is_relative_to(f) or f.is_relative_to(folders[name]) for f in others), name


def test_a_zip_bomb_is_refused_by_its_declared_size(server, tmp_path):
    root, base = server
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive, archive.open("SICK.txt", "w") as out:
        for _ in range(300):
            out.write(bytes(1 << 20))  # 300 MB of zeros: a 0.3 MB zip
    (root / "SICK.zip").write_bytes(buffer.getvalue())
    with pytest.raises(DownloadError, match=r"expand to 314,572,800 bytes.*cap"):
        download("sick", tmp_path, url=f"{base}/SICK.zip", progress=False)
    assert not (tmp_path / "sick").exists() and leftovers(tmp_path) == []


def lie_about_size(archive: bytes, name: str, size: int) -> bytes:
    """The archive with `name`'s uncompressed size in the central directory replaced by `size`."""
    data = bytearray(archive)
    start = 0
    while (start := data.find(b"PK\x01\x02", start)) >= 0:
        name_length = struct.unpack_from("<H", data, start + 28)[0]
        if data[start + 46:start + 46 + name_length] == name.encode():
            struct.pack_into("<I", data, start + 24, size)
        start += 4
    return bytes(data)


def test_a_lying_size_header_does_not_get_past_the_cap(server, tmp_path, monkeypatch):
    root, base = server
    honest = zip_bytes({"SICK.txt": "x" * 100_000})
    (root / "SICK.zip").write_bytes(lie_about_size(honest, "SICK.txt", 10))
    monkeypatch.setitem(SOURCES, "sick", dataclasses.replace(SOURCES["sick"], max_size=1000))
    with pytest.raises(DownloadError, match="SICK.txt"):
        download("sick", tmp_path, url=f"{base}/SICK.zip", progress=False)
    assert not (tmp_path / "sick").exists() and leftovers(tmp_path) == []


def test_extraction_counts_bytes_whatever_the_zip_reader_returns(server, tmp_path, monkeypatch):
    # zipfile itself stops at the declared size; the count must not depend on that.
    root, base = server
    honest = zip_bytes({"SICK.txt": "x" * 100})
    (root / "SICK.zip").write_bytes(honest)
    monkeypatch.setattr(zipfile.ZipFile, "open", lambda self, info, *args, **kwargs: io.BytesIO(b"y" * 5000))
    with pytest.raises(DownloadError, match="'SICK.txt' holds more than its header declares"):
        download("sick", tmp_path, url=f"{base}/SICK.zip", progress=False)
    monkeypatch.setitem(SOURCES, "sick", dataclasses.replace(SOURCES["sick"], max_size=1000))
    (root / "SICK.zip").write_bytes(lie_about_size(honest, "SICK.txt", 6000))
    with pytest.raises(DownloadError, match="would expand to 6,000 bytes, more than the 1,000-byte cap"):
        download("sick", tmp_path, url=f"{base}/SICK.zip", progress=False)
    assert not (tmp_path / "sick").exists() and leftovers(tmp_path) == []


# ------------------------------------------------------------------ 4. local paths as mirrors


def test_a_local_path_or_file_url_is_a_mirror(tmp_path, capsys):
    mirror = tmp_path / "mirror dir" / "SICK.zip"
    mirror.parent.mkdir()
    mirror.write_bytes(zip_bytes({"SICK.txt": SICK}))
    data = tmp_path / "data"
    assert download_main(["sick", "--data-dir", str(data), "--url", str(mirror), "--quiet"]) == 0
    assert (data / "sick" / "SICK.txt").read_bytes() == SICK.encode()
    (data / "sick" / "SICK.txt").unlink()
    assert download_main(["sick", "--data-dir", str(data), "--url", mirror.as_uri(), "--quiet"]) == 0
    assert (data / "sick" / "SICK.txt").read_bytes() == SICK.encode()
    capsys.readouterr()
    missing = tmp_path / "nowhere" / "SICK.zip"
    assert download_main(["sick", "--data-dir", str(data), "--url", str(missing), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and str(missing) in err and "no such file" in err
    assert leftovers(data) == []


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path, capsys):
    # Opening a FIFO waits for a writer: the deadline never gets a chance to act.
    fifo = tmp_path / "SICK.zip"
    os.mkfifo(fifo)
    data = tmp_path / "data"
    for given in (str(fifo), fifo.as_uri()):
        started = time.monotonic()
        assert download_main(["sick", "--data-dir", str(data), "--url", given, "--deadline", "5", "--quiet"]) == 2
        assert time.monotonic() - started < 5
        assert "not a regular file (a directory, a FIFO or a device)" in capsys.readouterr().err
    assert leftovers(data) == []


# ------------------------------------------------------------------ 5. links and escapes


def zip_with_symlink(link: str, target: str, members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo(link)
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, target)
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.parametrize("link", ["RTE", "RTE/train.tsv", "elsewhere"])
def test_symlink_members_are_refused(server, tmp_path, link):
    root, base = server
    members = {"RTE/train.tsv": "t", "RTE/dev.tsv": "d", "RTE/test.tsv": "x"}
    members.pop(link, None)
    (root / "RTE.zip").write_bytes(zip_with_symlink(link, "/etc", members))
    with pytest.raises(DownloadError, match=f"member '{link}' is a symbolic link"):
        download("rte", tmp_path, url=f"{base}/RTE.zip", progress=False)
    assert not (tmp_path / "glue").exists() and leftovers(tmp_path) == []


def test_a_file_where_a_folder_belongs_is_a_clear_error(server, tmp_path):
    root, base = server
    (root / "RTE.zip").write_bytes(zip_bytes({"RTE/train.tsv": "t", "RTE/train.tsv/x": "y"}))
    with pytest.raises(DownloadError, match="cannot extract member 'RTE/train.tsv/x'"):
        download("rte", tmp_path, url=f"{base}/RTE.zip", progress=False)
    assert not (tmp_path / "glue").exists() and leftovers(tmp_path) == []


# ------------------------------------------------------------------ 6. nothing left behind


def test_fetch_leaves_no_partial_file_when_interrupted(server, tmp_path, monkeypatch):
    root, base = server
    (root / "AX.tsv").write_bytes(b"x" * 3_000_000)
    import tqdm

    class Interrupting(tqdm.tqdm):
        def update(self, n=1):
            raise KeyboardInterrupt

    from nli_baselines.features.runtime import progress
    monkeypatch.setattr(progress, "tqdm", Interrupting)  # the bar of sources.progress_bar, drawn or not
    (tmp_path / "fetched").mkdir()
    with pytest.raises(KeyboardInterrupt):
        fetch(f"{base}/AX.tsv", tmp_path / "fetched" / "AX.tsv")
    assert list((tmp_path / "fetched").iterdir()) == []
    with pytest.raises(KeyboardInterrupt):
        download("ax", tmp_path / "data", url=f"{base}/AX.tsv")
    assert leftovers(tmp_path / "data") == [] and not (tmp_path / "data" / "glue").exists()


def test_sigterm_leaves_nothing_behind(server, tmp_path):
    root, base = server
    (root / "AX.tsv").write_bytes(b"x" * 200_000)
    data = tmp_path / "data"
    # A process, because a signal is the point.
    process = start_script("download", "ax", "--data-dir", data, "--url", f"{base}/stall/AX.tsv", "--quiet")
    deadline = time.monotonic() + 30
    while not any(p.is_file() for p in data.rglob("*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    assert leftovers(data), "the download never started"
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM
    assert err.startswith("error: interrupted") and "Traceback" not in err
    assert leftovers(data) == [] and not (data / "glue").exists()


def test_stale_staging_folders_of_killed_runs_are_removed(server, tmp_path):
    root, base = server
    (root / "AX.tsv").write_text("index\tsentence1\tsentence2\n0\ta\tb\n")
    stale = tmp_path / ".download-ax-killed"
    (stale / "extracted").mkdir(parents=True)
    (stale / "AX.tsv.part").write_bytes(b"half")
    two_hours_ago = time.time() - 7200
    for path in (stale / "AX.tsv.part", stale / "extracted", stale):
        os.utime(path, (two_hours_ago, two_hours_ago))
    busy = tmp_path / ".download-snli-running"  # another download, still writing
    busy.mkdir()
    (busy / "snli_1.0.zip.part").write_bytes(b"fresh")
    os.utime(busy, (two_hours_ago, two_hours_ago))
    result = download("ax", tmp_path, url=f"{base}/AX.tsv", progress=False)
    assert not stale.exists() and busy.exists()
    assert result.stale_removed == 1


# ---------------------------------------------------------------- nothing lost, nothing wrong installed


def test_an_html_page_is_not_installed_as_the_diagnostic(server, tmp_path):
    root, base = server
    (root / "AX.tsv").write_text("<!DOCTYPE html><html><body>Please log in</body></html>\n")
    with pytest.raises(DownloadError, match="diagnostic.tsv is an HTML page .*nothing was changed"):
        download("ax", tmp_path, url=f"{base}/AX.tsv", progress=False)
    assert not (tmp_path / "glue").exists() and leftovers(tmp_path) == []


def test_a_failure_part_way_puts_every_file_back(server, tmp_path, monkeypatch):
    root, base = server
    members = {"RTE/train.tsv": "index\tsentence1\tsentence2\tlabel\nnew\n", "RTE/dev.tsv": "new dev\n",
               "RTE/test.tsv": "index\tsentence1\tsentence2\nnew\n"}
    (root / "RTE.zip").write_bytes(zip_bytes(members))
    old = tmp_path / "glue" / "RTE"
    old.mkdir(parents=True)
    for name in ("train.tsv", "dev.tsv", "test.tsv", "mine.txt"):
        (old / name).write_text(f"old {name}\n")
    import nli_baselines.experiments.corpora.download.sources as sources
    real, moved = os.replace, []

    def fails_on_the_third_file(src, dst):
        if str(dst).startswith(str(old)) and Path(dst).name.endswith(".tsv"):
            moved.append(dst)
            if len(moved) == 3:
                raise OSError(28, "No space left on device", str(dst))
        return real(src, dst)
    monkeypatch.setattr(sources.os, "replace", fails_on_the_third_file)
    with pytest.raises(DownloadError, match="the data directory is as it was"):
        download("rte", tmp_path, url=f"{base}/RTE.zip", progress=False)
    monkeypatch.setattr(sources.os, "replace", real)
    assert {p.name: p.read_text() for p in old.iterdir()} == {n: f"old {n}\n" for n in
                                                             ("train.tsv", "dev.tsv", "test.tsv", "mine.txt")}
    assert leftovers(tmp_path) == []


def test_a_trickling_server_meets_the_deadline(server, tmp_path):
    root, base = server
    (root / "AX.tsv").write_bytes(b"x" * 200_000)  # the stall route sends half, then nothing
    started = time.monotonic()
    assert download_main(["ax", "--data-dir", str(tmp_path), "--url", f"{base}/stall/AX.tsv", "--quiet",
                          "--deadline", "2"]) == 2
    assert time.monotonic() - started < 30 and leftovers(tmp_path) == []


@pytest.mark.parametrize("make, message", [("file", "is a file; give a directory"),
                                           ("read-only", "cannot write in the data directory")])
def test_a_data_dir_that_cannot_take_the_corpus(server, tmp_path, monkeypatch, capsys, make, message):
    root, base = server
    (root / "AX.tsv").write_text("index\tsentence1\tsentence2\n0\ta\tb\n")
    target = tmp_path / "data"
    if make == "file":
        target.write_text("not a directory")
    else:
        target.mkdir()
        monkeypatch.setattr(os, "access", lambda path, mode: Path(path) != target)  # root ignores file modes
    assert download_main(["ax", "--data-dir", str(target), "--url", f"{base}/AX.tsv", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_wordnet_into_a_read_only_place_is_one_line(tmp_path, monkeypatch, capsys):
    import nli_baselines.experiments.corpora.download.wordnet_setup as setup

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / "ro"))
    monkeypatch.setattr(setup, "install_wordnet", refused)
    assert download_main(["wordnet", "--nltk-data", str(tmp_path / "ro"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "cannot install WordNet into" in err and "Permission denied" in err and "Traceback" not in err


def test_every_corpus_download_advice_names_a_download_that_exists(tmp_path):
    """The 'download it' line printed for a missing corpus (QNLI and WNLI named download.py, which
    knew neither) names a registered download, for every corpus and split that has one."""
    from nli_baselines.experiments.corpora import CORPORA, CorpusNotFoundError
    advised = {}
    for name, corpus in CORPORA.items():
        for split in corpus.splits:
            if corpus.generate is not None or not corpus.candidates(split, tmp_path):
                continue
            try:
                corpus.load(split, tmp_path)
            except CorpusNotFoundError as exc:
                found = re.search(r"download it:  \S+(?: experiments/download\.py)? (\S+) --data-dir", str(exc))
                if found:
                    advised[f"{name}/{split}"] = found.group(1)
    assert all(download in SOURCES for download in advised.values()), advised
    assert advised["qnli/train"] == "qnli" and advised["wnli/test"] == "wnli"
    assert len(advised) >= 40


@pytest.mark.parametrize("name, folder, header", [
    ("qnli", "QNLI", "index\tquestion\tsentence"),
    ("wnli", "WNLI", "index\tsentence1\tsentence2"),
])
def test_glue_qnli_and_wnli_downloads_extract_where_their_readers_read(server, tmp_path, name, folder, header):
    from nli_baselines.experiments.corpora import get_corpus
    root, base = server
    label = "entailment" if name == "qnli" else "1"
    rows = {"train": f"{header}\tlabel\n0\tWho ran ?\tAnn ran .\t{label}\n1\tWho sat ?\tBo ran .\t{label}\n",
            "dev": f"{header}\tlabel\n0\tWho ran ?\tAnn ran .\t{label}\n",
            "test": f"{header}\n0\tWho ran ?\tAnn ran .\n1\tWho sat ?\tBo sat .\n2\tWho ?\tCy .\n"}
    archive = f"{folder}v2.zip" if name == "qnli" else f"{folder}.zip"
    assert SOURCES[name].url == f"https://dl.fbaipublicfiles.com/glue/data/{archive}"
    (root / archive).write_bytes(zip_bytes({f"{folder}/{split}.tsv": text for split, text in rows.items()}))
    data = tmp_path / "data"
    result = download(name, data, url=f"{base}/{archive}", progress=False)
    assert sorted(result.files) == sorted(data / "glue" / folder / f"{s}.tsv" for s in ("train", "dev", "test"))
    corpus = get_corpus(name)
    assert [len(corpus.load(s, data).pairs) for s in ("train", "dev", "test")] == [2, 1, 3]
    assert corpus.load("train", data).pairs[1].hypothesis == "Bo ran ."
