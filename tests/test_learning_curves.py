"""learning_curves/run.py on the demo corpus: points, resume, plot, single-class samples."""
from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

from learning_curves.curve import Point, fit_point, parse_config, parse_sizes, sample
from tests.conftest import REPO


def run_curve(out, *extra):
    return subprocess.run([sys.executable, "learning_curves/run.py", "--dataset", "demo", "--sizes", "10,200,all",
                           "--seeds", "2", "--configs", "lexicalized,unlexicalized", "--out", str(out), "--quiet",
                           *extra], cwd=REPO, capture_output=True, text=True)


@pytest.fixture(scope="module")
def curve_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("curve")
    done = run_curve(out, "--jobs", "2")
    assert done.returncode == 0, done.stderr
    return out


def rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_csv_has_every_point(curve_dir):
    points = rows(curve_dir / "curve.csv")
    assert len(points) == 12  # 3 sizes x 2 seeds x 2 configs
    assert {(r["config"], r["size"], r["seed"]) for r in points} == {
        (c, s, seed) for c in ("lexicalized", "unlexicalized") for s in ("10", "200", "4000") for seed in ("0", "1")}
    assert {r["requested_size"] for r in points} == {"10", "200", "all"}


def test_more_data_helps_and_json_summarizes(curve_dir):
    record = json.loads((curve_dir / "curve.json").read_text())
    lex = {p["size"]: p for p in record["curve"]["lexicalized"]}
    assert lex[4000]["eval_mean"] > lex[10]["eval_mean"]
    assert lex[4000]["eval_std"] == 0.0  # the whole split: every seed has the same sample
    assert record["train_pairs"] == 4000 and record["eval_pairs"] == 1000 and record["seeds"] == 2
    assert record["versions"]["numpy"]


def test_plot_is_a_valid_image(curve_dir):
    png = (curve_dir / "curve.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    from matplotlib.image import imread
    image = imread(curve_dir / "curve.png")
    assert image.shape[0] > 300 and image.shape[1] > 500 and image.std() > 0.05  # not blank
    assert (curve_dir / "curve.svg").read_text().lstrip().startswith("<?xml")


def test_resume_recomputes_only_missing_points(curve_dir, tmp_path):
    out = tmp_path / "resume"
    out.mkdir()
    for name in ("curve.csv", "run.json"):
        (out / name).write_bytes((curve_dir / name).read_bytes())
    points = rows(out / "curve.csv")
    kept = [r for r in points if not (r["config"] == "unlexicalized" and r["size"] == "200")]
    with open(out / "curve.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(points[0]))
        writer.writeheader()
        writer.writerows(kept)
        handle.write("lexicalized,10,10,0,0.5")  # a line cut short by an interruption
    done = run_curve(out)
    assert done.returncode == 0, done.stderr
    record = json.loads((out / "curve.json").read_text())
    assert record["points_computed"] == 2 and record["points_reused"] == 10
    again = {(r["config"], r["size"], r["seed"]): r["eval_accuracy"] for r in rows(out / "curve.csv")}
    before = {(r["config"], r["size"], r["seed"]): r["eval_accuracy"] for r in points}
    assert again == before  # same seeds, same numbers


def test_refuses_points_of_another_run(curve_dir, tmp_path):
    out = tmp_path / "other"
    out.mkdir()
    (out / "run.json").write_text(json.dumps({"dataset": "something else"}))
    done = run_curve(out)
    assert done.returncode == 2 and "--overwrite" in done.stderr


def test_sizes_are_clipped_and_samples_seeded():
    sizes, notes = parse_sizes("1,10,50,all", 20)
    assert sizes == [("1", 1), ("10", 10), ("all", 20)] and "clipped to 20" in notes[0]
    assert parse_sizes("50,5", 20)[0] == [("5", 5), ("50", 20)]
    assert (sample(100, 10, 3) == sample(100, 10, 3)).all() and not (sample(100, 10, 3) == sample(100, 10, 4)).all()
    assert (sample(5, 9, 0) == np.arange(5)).all()


def test_single_class_sample_predicts_that_class():
    X = np.eye(4)
    y = np.array(["entailment", "entailment", "neutral", "contradiction"], dtype=object)
    inputs = {"X": (X, X, X), "y": (y, y, y)}
    from experiments.engine.config import RunConfig
    row = fit_point(Point("lexicalized", 1, "1", 0), parse_config("lexicalized"), inputs, RunConfig(progress=False))
    seen = y[sample(4, 1, 0)][0]
    assert row["train_accuracy"] == 1.0 and row["eval_accuracy"] == np.mean(y == seen)  # predicts `seen` everywhere
