"""Nothing lost: every output path of every command is checked before any work, against every input
(resolved paths and hard links) and every other output; an existing file is replaced only with
--overwrite, and an input never, even with it."""
from __future__ import annotations

import json
import os

import pytest

from tests.conftest import NEEDS_PLOTS

FAST = ["--features", "unlexicalized", "--C", "1", "--quiet"]


@pytest.fixture
def task(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = "".join(f"A man number {i} sleeps .\tA {'man' if i % 2 else 'dog'} sleeps .\t{'yes' if i % 2 else 'no'}\n"
                   for i in range(30))
    (tmp_path / "train.tsv").write_text("premise\thypothesis\tlabel\n" + rows)
    return tmp_path


def unchanged(path, before: bytes) -> bool:
    return path.read_bytes() == before


@pytest.mark.parametrize("flag", ["--save-model", "--glue-zip", "--out", "--errors"])
@pytest.mark.parametrize("overwrite", [False, True])
def test_an_output_never_replaces_an_input(cli, task, flag, overwrite):
    before = (task / "train.tsv").read_bytes()
    extra = ["--glue-out", "glue"] if flag == "--glue-zip" else []
    done = cli("run", "--train-file", "train.tsv", *FAST, flag, "train.tsv", *extra,
               *(["--overwrite"] if overwrite else []))
    assert done.returncode == 2 and unchanged(task / "train.tsv", before), done.stderr
    assert "is the input file" in done.stderr or "exists; pass --overwrite" in done.stderr
    if overwrite:
        assert "--overwrite never replaces an input" in done.stderr


def test_a_hard_link_to_an_input_is_the_input(cli, task):
    os.link(task / "train.tsv", task / "alias.json")
    before = (task / "train.tsv").read_bytes()
    done = cli("run", "--train-file", "train.tsv", *FAST, "--out", "alias.json", "--overwrite")
    assert done.returncode == 2 and "is the input file" in done.stderr and unchanged(task / "train.tsv", before)


@pytest.mark.parametrize("flag", ["--save-model", "--glue-zip"])
def test_existing_files_need_overwrite(cli, task, flag):
    (task / "old").write_text("keep me")
    extra = ["--glue-out", "glue"] if flag == "--glue-zip" else []
    done = cli("run", "--train-file", "train.tsv", *FAST, flag, "old", *extra)
    assert done.returncode == 2 and "old exists; pass --overwrite" in done.stderr
    assert (task / "old").read_text() == "keep me"


@pytest.mark.parametrize("first, second", [("--out", "--save-model"), ("--out", "--errors"),
                                           ("--errors", "--save-model")])
def test_two_outputs_on_one_path_are_refused(cli, task, first, second):
    name = "x.tsv" if "--errors" in (first, second) else "x.json"
    done = cli("run", "--train-file", "train.tsv", *FAST, first, name, second, name)
    assert done.returncode == 2 and "is also written by" in done.stderr and not (task / name).exists()


def test_plots_and_out_on_one_path(cli, task):
    done = cli("run", "--train-file", "train.tsv", *FAST, "--out", "p", "--plots", "p")
    assert done.returncode == 2 and "is also the directory of --plots" in done.stderr


def test_compare_never_writes_over_a_record(cli, task):
    assert cli("run", "--train-file", "train.tsv", *FAST, "--out", "a.json").returncode == 0
    assert cli("run", "--train-file", "train.tsv", *FAST, "--features", "bleu", "--out", "b.json").returncode == 0
    before = (task / "a.json").read_bytes()
    done = cli("compare", "a.json", "b.json", "--out", "a.json", "--overwrite")
    assert done.returncode == 2 and "is the input file" in done.stderr and unchanged(task / "a.json", before)
    (task / "dir").mkdir()
    done = cli("compare", "a.json", "b.json", "--out", "dir")
    assert done.returncode == 2 and "is a directory" in done.stderr


def test_compare_refuses_runs_scored_on_different_data(cli, task):
    assert cli("run", "--train-file", "train.tsv", *FAST, "--out", "a.json").returncode == 0
    text = (task / "train.tsv").read_text().replace("dog", "cat")  # same ids and gold labels, other sentences
    (task / "other.tsv").write_text(text)
    assert cli("run", "--train-file", "other.tsv", *FAST, "--out", "b.json").returncode == 0
    done = cli("compare", "a.json", "b.json")
    assert done.returncode == 2 and "scored on different data" in done.stderr


@pytest.mark.parametrize("record, message", [
    ({"rows": 5}, "no list of rows"), ({"rows": []}, "no list of rows"), ({"rows": [5], "data": {"dataset": "x"}},
                                                                          "row 0 is not a row"),
    ({"rows": [{"name": "r", "predictions": {"ids": [], "gold": [], "predicted": []}}], "data": {"dataset": "x"}},
     "predictions without their split"),
    ("[" * 5000 + "]" * 5000, "not a run record"),
])
def test_compare_on_records_of_the_wrong_shape(cli, task, record, message):
    (task / "bad.json").write_text(record if isinstance(record, str) else json.dumps(record))
    done = cli("compare", "bad.json", "bad.json")
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


@NEEDS_PLOTS
def test_a_full_disk_ends_in_one_line_and_keeps_the_record(cli, task, monkeypatch):
    import errno

    import matplotlib.figure
    real = matplotlib.figure.Figure.savefig
    calls = []

    def second_picture_fails(self, fname, *args, **kwargs):
        calls.append(fname)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device", str(fname))
        return real(self, fname, *args, **kwargs)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", second_picture_fails)
    done = cli("run", "--train-file", "train.tsv", *FAST, "--plots", "plots", "--out", "r.json")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "cannot write" in done.stderr and "No space left on device" in done.stderr
    assert not (task / "plots").exists()  # no half set of pictures, no temporaries, no empty directory
    assert json.loads((task / "r.json").read_text())["notes"][-1].startswith("an output failed: OSError")


def test_an_unwritable_errors_file_after_the_run_is_one_line(cli, task, monkeypatch):
    import errno

    from nli_baselines.experiments.commandline import run_outputs
    real = run_outputs.atomic_write

    def refused(path, data):
        if str(path).endswith("e.tsv"):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real(path, data)
    monkeypatch.setattr(run_outputs, "atomic_write", refused)  # where run.py's outputs look it up
    done = cli("run", "--train-file", "train.tsv", *FAST, "--errors", "e.tsv")
    assert done.returncode == 2 and "cannot write" in done.stderr and "Read-only file system" in done.stderr
    assert not (task / "e.tsv").exists()
