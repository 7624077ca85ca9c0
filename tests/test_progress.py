"""Progress goes to stderr once: a bar where stderr redraws lines (a terminal, a notebook), plain stage
lines where it does not (a log file, a pipe, CI), nothing with --quiet."""
from __future__ import annotations

import fcntl
import io
import os
import re
import struct
import subprocess
import sys
import termios
import threading

from nli_baselines.features.runtime import progress
from nli_baselines.features.runtime.progress import bar, redraws
from tests.conftest import REPO


class _KernelStream(io.StringIO):
    """Stands for ipykernel's OutStream, which a notebook front end redraws on a carriage return."""


_KernelStream.__module__ = "ipykernel.iostream"


def test_what_redraws_a_line(tmp_path):
    with open(tmp_path / "log.txt", "w") as handle:
        assert not redraws(handle)
    assert not redraws(io.StringIO()) and redraws(_KernelStream())
    closed = open(tmp_path / "closed.txt", "w")
    closed.close()
    assert not redraws(closed)  # isatty on a closed file raises: no bar
    leader, follower = os.openpty()
    try:
        with os.fdopen(follower, "w", closefd=False) as handle:
            assert redraws(handle)
    finally:
        os.close(leader)
        os.close(follower)


def test_a_bar_writes_nothing_where_stderr_keeps_every_frame(monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    assert list(bar(range(5), desc="fitting")) == [0, 1, 2, 3, 4]
    with bar(total=3, desc="tagging", unit="sent") as shown:
        shown.update(3)
    assert log.getvalue() == ""
    kernel = _KernelStream()
    monkeypatch.setattr(sys, "stderr", kernel)
    list(bar(range(5), desc="fitting"))
    assert "\r" in kernel.getvalue() and "fitting" in kernel.getvalue()  # a notebook redraws it in place
    kernel.truncate(0)
    list(bar(range(5), desc="fitting", enabled=False))  # --quiet
    assert kernel.getvalue() == ""
    assert progress.bar is bar


# C chosen on dev: candidates fitted as a path, with a bar
RUN = [sys.executable, str(REPO / "experiments" / "run.py"), "--dataset", "demo", "--train-size", "300",
       "--features", "unlexicalized", "--C", "0.1,1", "--tune-on", "dev"]


def test_a_run_whose_stderr_is_a_file_writes_plain_lines_and_no_carriage_return(tmp_path):
    with open(tmp_path / "stderr.txt", "wb") as log:
        done = subprocess.run(RUN, stdout=subprocess.PIPE, stderr=log, cwd=tmp_path, timeout=600)
    assert done.returncode == 0
    text = (tmp_path / "stderr.txt").read_bytes()
    assert b"\r" not in text and b"\x1b" not in text
    lines = text.decode().splitlines()
    assert sum(line.startswith("featurized 300 training pairs") for line in lines) == 1
    assert 1 <= len(lines) <= 5, lines  # a few stage lines
    with open(tmp_path / "quiet.txt", "wb") as log:
        subprocess.run([*RUN, "--quiet"], stdout=subprocess.PIPE, stderr=log, cwd=tmp_path, timeout=600, check=True)
    assert (tmp_path / "quiet.txt").read_bytes() == b""


def test_a_run_on_a_terminal_draws_its_bars(tmp_path):
    leader, follower = os.openpty()
    # a terminal has a size (a new pseudo-terminal's is 0 x 0, where a bar is cut to nothing)
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    received = bytearray()

    def read():
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end closed
                return
            if not chunk:
                return
            received.extend(chunk)
    reader = threading.Thread(target=read)
    reader.start()
    try:
        done = subprocess.run(RUN, stdout=subprocess.PIPE, stderr=follower, cwd=tmp_path, timeout=600)
    finally:
        os.close(follower)
        reader.join(timeout=30)
        os.close(leader)
    assert done.returncode == 0
    text = received.decode(errors="replace")
    assert "choosing C on dev" in text and re.search("\r(?!\n)", text)  # a bar, redrawn in place
    assert text.count("featurized 300 training pairs") == 1
