"""The download path, exercised against a local HTTP server on 127.0.0.1 serving archives the test builds."""
from __future__ import annotations

import functools
import http.server
import io
import threading
import zipfile

import pytest

from experiments.corpora.sources import DownloadError, download
from experiments.download import main as download_main


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def zip_bytes(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


SICK = "pair_ID\tsentence_A\tsentence_B\tentailment_label\tSemEval_set\r\n1\ta\tb\tNEUTRAL\tTRAIN"


def test_download_extracts_into_official_layout(server, tmp_path):
    root, base = server
    (root / "SICK.zip").write_bytes(zip_bytes({"SICK.txt": SICK, "__MACOSX/._SICK.txt": "junk"}))
    data = tmp_path / "data"
    assert download_main(["sick", "--data-dir", str(data), "--url", f"{base}/SICK.zip", "--quiet"]) == 0
    assert (data / "sick" / "SICK.txt").read_bytes() == SICK.encode()
    assert not (data / "sick" / "__MACOSX").exists()
    assert not any(p.name.startswith(".download-") for p in data.iterdir())  # staging removed
    from experiments.corpora import get_corpus
    assert len(get_corpus("sick").load("train", data).pairs) == 1


def test_single_file_source(server, tmp_path):
    root, base = server
    (root / "AX.tsv").write_text("index\tsentence1\tsentence2\n0\ta\tb\n")
    files = download("ax", tmp_path, url=f"{base}/AX.tsv", progress=False)
    assert files == [tmp_path / "glue" / "AX" / "diagnostic.tsv"] and files[0].is_file()


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
    with pytest.raises(DownloadError, match="could not download"):
        download("rte", tmp_path, url=f"{base}/missing.zip", progress=False)
    assert not (tmp_path / "glue").exists()  # nothing half-extracted
