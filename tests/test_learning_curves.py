"""Learning curves on the demo corpus: points, resume, plot, single-class samples, one engine with run.py."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import nli_baselines as nb
from nli_baselines.experiments.corpora.generated.demo import generate_demo
from nli_baselines.experiments.engine.curve import parse_sizes, sample
from tests.conftest import NEEDS_PLOTS


def run_curve(cli, out, *extra):
    return cli("curve", "--dataset", "demo", "--sizes", "10,200,all", "--seeds", "2", "--configs",
               "lexicalized,unlexicalized", "--out", out, "--quiet", "--tune-on", "dev", *extra)


@pytest.fixture(scope="module")
def curve_dir(tmp_path_factory):
    from nli_baselines.learning_curves.run import main
    out = tmp_path_factory.mktemp("curve")
    assert main(["--dataset", "demo", "--sizes", "10,200,all", "--seeds", "2", "--configs", "lexicalized,unlexicalized",
                 "--out", str(out), "--quiet", "--jobs", "2", "--tune-on", "dev"]) == 0
    return out


def rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@NEEDS_PLOTS
def test_csv_has_every_point(curve_dir):
    points = rows(curve_dir / "curve.csv")
    assert len(points) == 12  # 3 sizes x 2 seeds x 2 configs
    assert {(r["config"], r["size"], r["seed"]) for r in points} == {
        (c, s, seed) for c in ("lexicalized", "unlexicalized") for s in ("10", "200", "4000") for seed in ("0", "1")}
    assert {r["requested_size"] for r in points} == {"10", "200", "all"}


@NEEDS_PLOTS
def test_more_data_helps_and_json_summarizes(curve_dir):
    record = json.loads((curve_dir / "curve.json").read_text())
    lex = {p["size"]: p for p in record["curve"]["lexicalized"]}
    assert lex[4000]["eval_mean"] > lex[10]["eval_mean"]
    # The whole split: every seed has the same sample, fitted once, so it counts once.
    assert lex[4000]["eval_std"] == 0.0 and lex[4000]["seeds"] == 1 and lex[10]["seeds"] == 2
    assert record["train_pairs"] == 4000 and record["eval_pairs"] == 1000 and record["seeds"] == 2
    assert record["versions"]["numpy"] and record["reference"]["majority"]["3-class"]["accuracy"] > 0.3


@NEEDS_PLOTS
def test_plot_is_a_valid_image(curve_dir):
    png = (curve_dir / "curve.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    from matplotlib.image import imread
    image = imread(curve_dir / "curve.png")
    assert image.shape[0] > 300 and image.shape[1] > 500 and image.std() > 0.05  # not blank
    assert (curve_dir / "curve.svg").read_text().lstrip().startswith("<?xml")


@NEEDS_PLOTS
def test_resume_recomputes_only_missing_points(cli, curve_dir, tmp_path):
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
    done = run_curve(cli, out)
    assert done.returncode == 0, done.stderr
    record = json.loads((out / "curve.json").read_text())
    assert record["points_computed"] == 2 and record["points_reused"] == 10
    again = {(r["config"], r["size"], r["seed"]): r["eval_accuracy"] for r in rows(out / "curve.csv")}
    before = {(r["config"], r["size"], r["seed"]): r["eval_accuracy"] for r in points}
    assert again == before  # same seeds, same numbers


@NEEDS_PLOTS
def test_refuses_points_of_another_run(cli, curve_dir, tmp_path):
    out = tmp_path / "other"
    out.mkdir()
    (out / "run.json").write_text(json.dumps({"dataset": "something else"}))
    done = run_curve(cli, out)
    assert done.returncode == 2 and "--overwrite" in done.stderr


def test_sizes_are_clipped_and_samples_seeded():
    sizes, notes = parse_sizes(("1", "10", "50", "all"), 20)
    assert sizes == [("1", 1), ("10", 10), ("all", 20)] and "clipped to 20" in notes[0]
    assert parse_sizes(("50", "5"), 20)[0] == [("5", 5), ("50", 20)]
    assert (sample(100, 10, 3) == sample(100, 10, 3)).all() and not (sample(100, 10, 3) == sample(100, 10, 4)).all()
    assert (sample(5, 9, 0) == np.arange(5)).all()


def test_single_class_sample_predicts_that_class():
    curve = nb.learning_curve(dataset="demo", sizes="1", seeds=2, configs="unlexicalized", quiet=True)
    seen = curve.points
    assert len(seen) == 2 and (seen.train_accuracy == 1.0).all()
    dev, train = [p.label for p in generate_demo("dev")], generate_demo("train")
    for seed, accuracy in zip(seen.seed, seen.eval_accuracy):
        only = train[int(sample(len(train), 1, int(seed))[0])].label
        assert accuracy == pytest.approx(np.mean(np.array(dev) == only))  # predicts that label everywhere


def test_a_point_is_a_run_row_on_a_sample():
    # One engine: the curve's point at the whole split is run.py's row, number for number.
    curve = nb.learning_curve(dataset="demo", sizes="all", seeds=1, configs="unlexicalized", quiet=True,
                              C="0.3,1", tune_on="dev")
    run = nb.run(dataset="demo", features="unlexicalized", quiet=True, C="0.3,1", tune_on="dev")
    point = curve.points.iloc[0]
    row = run.row()
    assert point.eval_accuracy == row["metrics"]["dev"]["accuracy"]
    assert point.train_accuracy == row["metrics"]["train"]["accuracy"]
    assert point.chosen == f"C={row['selection']['chosen']['C']}"


@NEEDS_PLOTS
def test_every_run_option_reaches_the_curve(cli, tmp_path):
    # --two-class, --seed, --train-size and --label-map, which the curves once ignored.
    done = cli("curve", "--dataset", "demo", "--sizes", "50,all", "--seeds", "1", "--features", "unlexicalized",
               "--two-class", "--seed", "3", "--train-size", "300", "--C", "1", "--out", tmp_path / "c", "--quiet")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "c" / "curve.json").read_text())
    assert record["train_pairs"] == 300 and record["configs"] == ["unlexicalized"] and record["classes"] == 2
    assert record["config"]["seed"] == 3 and record["config"]["two_class"] is True
    resumed = cli("curve", "--dataset", "demo", "--sizes", "50,all", "--seeds", "1", "--features", "unlexicalized",
                  "--seed", "3", "--train-size", "300", "--C", "1", "--out", tmp_path / "c", "--quiet")
    assert resumed.returncode == 2 and "--two-class" in resumed.stderr  # other settings: refused, and said which


@pytest.mark.parametrize("first, second, named", [
    (["--label-map", "neutral=contradiction"], [], "--label-map"),
    (["--bins", "3"], ["--bins", "5"], "--bins"),
    (["--seed", "1"], [], "--seed"),
])
@NEEDS_PLOTS
def test_a_resumed_curve_with_other_settings_stops_and_says_which(cli, tmp_path, first, second, named):
    base = ["--dataset", "demo", "--sizes", "20", "--seeds", "1", "--features", "unlexicalized", "--C", "1",
            "--out", tmp_path / "c", "--quiet"]
    assert cli("curve", *base, *first).returncode == 0
    done = cli("curve", *base, *second)
    assert done.returncode == 2 and named in done.stderr and "other settings or data" in done.stderr


@NEEDS_PLOTS
def test_swapped_columns_are_other_settings(cli, tmp_path):
    rows = "".join(f"A man number {i} sleeps .\tA {'man' if i % 3 else 'dog'} sleeps .\t"
                   f"{'yes' if i % 3 else 'no'}\n" for i in range(60))
    (tmp_path / "t.tsv").write_text("first\tsecond\tlabel\n" + rows)
    base = ["--train-file", tmp_path / "t.tsv", "--dev-file", tmp_path / "t.tsv", "--sizes", "20", "--seeds", "1",
            "--features", "unlexicalized", "--C", "1", "--out", tmp_path / "c", "--quiet"]
    assert cli("curve", *base, "--premise-column", "first", "--hypothesis-column", "second").returncode == 0
    done = cli("curve", *base, "--premise-column", "second", "--hypothesis-column", "first")
    assert done.returncode == 2 and "--premise-column" in done.stderr and "--hypothesis-column" in done.stderr


@pytest.mark.parametrize("name, content, message", [
    ("run.json", b'{"suite_version": "0.3', "run.json: unreadable"),
    ("curve.csv", b"config,size\n\xff\xfe broken\n", "curve.csv: not a curve file"),
])
@NEEDS_PLOTS
def test_damaged_files_in_the_output_directory_end_in_one_line(cli, curve_dir, tmp_path, name, content, message):
    out = tmp_path / "damaged"
    out.mkdir()
    for copied in ("curve.csv", "run.json"):
        (out / copied).write_bytes((curve_dir / copied).read_bytes())
    (out / name).write_bytes(content)
    done = run_curve(cli, out)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


@NEEDS_PLOTS
def test_the_record_and_plot_say_how_settings_were_chosen(curve_dir):
    from nli_baselines.experiments.reports.plots import how_chosen
    record = json.loads((curve_dir / "curve.json").read_text())
    # --tune-on dev: every point chose C on dev.
    assert record["chosen_by"] == {c: {"10": "dev", "200": "dev", "4000": "dev"} for c in ("lexicalized",
                                                                                            "unlexicalized")}
    assert how_chosen(record) == "settings chosen on dev"
    # --tune-on auto (the default) on demo: CV on the sample where it is larger than dev's 1,000 pairs.
    from nli_baselines.experiments.configuration.config import RunConfig
    from nli_baselines.experiments.engine.curve import tuning_judges
    from nli_baselines.experiments.engine.rows import plan_rows
    config = RunConfig("curve", dataset="demo", configs="lexicalized")
    auto = {**record, "chosen_by": tuning_judges(plan_rows(config, config.corpus()), [10, 200, 4000], "auto", 1000)}
    assert auto["chosen_by"] == {"lexicalized": {"10": "dev", "200": "dev", "4000": "cv"}}
    assert how_chosen(auto) == "settings by 5-fold CV on the sample at 4,000 pairs, else on dev"
