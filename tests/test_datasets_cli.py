"""`experiments/datasets.py --stats` and the exit status for a missing corpus."""
from __future__ import annotations

import json

import pytest


def test_stats_on_shared_data(cli, data_dir):
    result = cli("datasets", "--data-dir", data_dir, "--stats")
    assert result.returncode == 0, result.stderr
    corpora = json.loads(result.stdout)["corpora"]
    pairs = {name: {s: v["pairs"] for s, v in c["splits"].items()} for name, c in corpora.items()}
    assert pairs["sick"] == {"train": 4439, "dev": 495}
    assert pairs["rte"] == {"train": 2490, "dev": 277, "test": 3000}
    assert pairs["rte3"] == {"train": 800}
    assert pairs["cb"] == {"train": 250, "dev": 56, "test": 250}
    assert pairs["ax"] == {"test": 1104}
    assert corpora["rte"]["splits"]["test"]["labeled"] is False
    assert pairs["mrpc"] == {"train": 3668, "dev": 408, "test": 1725}
    assert pairs["sick-relatedness"] == {"train": 4439, "dev": 495}
    # A score task's split is summed up, not counted label by label.
    assert corpora["stsb"]["splits"]["train"]["scores"] == {"count": 5749, "min": 0.0, "max": 5.0, "mean": 2.701}
    assert "labels" not in corpora["stsb"]["splits"]["train"]
    snli = cli("datasets", "--data-dir", data_dir / "snli_1.0_sample", "--stats",
                      "--dataset", "snli")
    dev = json.loads(snli.stdout)["corpora"]["snli"]["splits"]["dev"]
    assert (dev["rows"], dev["pairs"], dev["skipped"]) == (1289, 1273, {"no gold label": 16})


def test_stats_demo_and_missing_corpus(cli, tmp_path):
    demo = json.loads(cli("datasets", "--stats", "--dataset", "demo").stdout)
    assert demo["corpora"]["demo"]["splits"]["train"]["pairs"] == 4000
    missing = cli("datasets", "--stats", "--dataset", "sick", "--data-dir", tmp_path)
    assert missing.returncode == 2
    assert "not found" in missing.stderr and "--dataset demo" in missing.stderr


def test_bad_row_exit_and_skip(cli, tmp_path):
    bad = tmp_path / "train.tsv"
    bad.write_text("premise\thypothesis\tlabel\na\tb\tyes\nonly-one-column\n")
    args = ["--stats", "--dataset", "custom", "--train-file", bad]
    failed = cli("datasets", *args)
    assert failed.returncode == 2 and f"{bad}:3: expected 3 tab-separated columns" in failed.stderr
    skipped = json.loads(cli("datasets", *args, "--on-bad-row", "skip").stdout)
    split = skipped["corpora"]["custom"]["splits"]["train"]
    assert (split["rows"], split["pairs"], split["skipped"]) == (2, 1, {"wrong column count": 1})


@pytest.mark.parametrize("name, text, message, category", [
    ("train.csv", "premise,hypothesis\na,b\n" + "x" * 140_000 + ",b\n",
     ":3: field 'premise' is 140,000 characters long", "sentence too long"),
    ("train.jsonl", '{"premise": "a", "hypothesis": "b"}\n' + "[" * 100_000 + "]" * 100_000 + "\n",
     ":2: invalid JSON (nested too deeply)", "invalid JSON"),
    ("train.jsonl", '{"premise": "a", "hypothesis": "b"}\n{"premise": "\\ud800", "hypothesis": "b"}\n',
     ":2: field 'premise' holds a lone surrogate", "lone surrogate"),
    ("train.csv", 'premise,hypothesis\na,b\n"c,d\n' + "e,f\n" * 34, ":3: unterminated quote", "unterminated quote"),
])
def test_bad_rows_exit_cleanly_or_are_counted(cli, tmp_path, name, text, message, category):
    bad = tmp_path / name
    bad.write_text(text)
    args = ["--stats", "--dataset", "custom", "--test-file", bad]
    failed = cli("datasets", *args)
    assert failed.returncode == 2 and f"{bad}{message}" in failed.stderr and "Traceback" not in failed.stderr
    skipped = cli("datasets", *args, "--on-bad-row", "skip")
    assert skipped.returncode == 0, skipped.stderr
    split = json.loads(skipped.stdout)["corpora"]["custom"]["splits"]["test"]
    assert split["skipped"] == {category: 1} and split["rows"] == split["pairs"] + 1
