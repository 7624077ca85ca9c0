"""Command-line arguments and outputs: bounded workers, outputs checked before any work, numbers that
must be numbers, skipped rows reported, and `| head` ending quietly with the record intact."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.configuration.options import resolve_jobs
from tests.conftest import NEEDS_DASK, NEEDS_PLOTS, REPO, run_python, run_script, run_shell

FAST = ["--dataset", "demo", "--features", "unlexicalized", "--C", "1"]


# ------------------------------------------------------------------ --jobs


def test_jobs_are_bounded():
    cores = os.cpu_count()
    notes = []
    assert resolve_jobs(-1) == cores and resolve_jobs(1) == 1
    assert resolve_jobs(cores + 198, note=notes.append) == cores and f"--jobs {cores + 198}" in notes[0]
    for bad in (0, -2, 1.5, True):
        with pytest.raises(UsageError, match="positive number of workers"):
            resolve_jobs(bad)


@pytest.mark.parametrize("jobs, ok, message", [("0", False, "positive number of workers"),
                                               ("-3", False, "positive number of workers"),
                                               ("many", False, "expected a whole number"),
                                               ("200", True, "more than the"), ("-1", True, "")])
def test_jobs_on_the_command_line(cli, jobs, ok, message):
    done = cli("run", *FAST, "--quiet", "--jobs", jobs)
    assert (done.returncode == 0) == ok, done.stderr
    assert message in done.stderr


# ------------------------------------------------------------------ outputs checked before any work


@pytest.mark.parametrize("flag, make, message", [
    ("--out", "dir", "is a directory"),
    ("--out", "under_file", "is not a directory"),
    ("--save-model", "dir", "is a directory"),
    ("--glue-out", "file", "is a file; give a directory"),
    ("--glue-zip", "dir", "is a directory"),
])
def test_bad_output_paths_fail_before_any_work(cli, tmp_path, flag, make, message):
    target = {"dir": tmp_path, "file": tmp_path / "a_file", "under_file": tmp_path / "a_file" / "r.json"}[make]
    (tmp_path / "a_file").write_text("x")
    extra = {"--glue-out": ["--predict", "test"], "--glue-zip": ["--glue-out", str(tmp_path / "g")]}.get(flag, [])
    done = cli("run", *FAST, flag, target, *extra)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "featurized" not in done.stderr and "annotated" not in done.stderr  # nothing was done first


def test_learning_curve_out_that_is_a_file(cli, tmp_path):
    out = tmp_path / "curve"
    out.write_text("not a directory")
    done = cli("curve", "--dataset", "demo", "--out", out)
    assert done.returncode == 2 and "is a file; give a directory" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--seeds", "0"], "at least 1"), (["--sizes", ""], "no sizes given"), (["--sizes", "10,lots"], "not a size"),
    (["--configs", " , "], "no curve given"), (["--C", "nan"], "positive, finite"),
])
def test_learning_curve_arguments(cli, tmp_path, args, message):
    done = cli("curve", "--dataset", "demo", "--out", tmp_path / "c", *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_predict_refuses_to_overwrite_its_input(cli, tmp_path):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("premise\thypothesis\nA man sleeps .\tA person sleeps .\n")
    before = pairs.read_bytes()
    done = cli("predict", "--model", tmp_path / "no.model", "--input", pairs, "--out", pairs, "--overwrite")
    assert done.returncode == 2 and "is the input file" in done.stderr and pairs.read_bytes() == before
    done = cli("predict", "--model", "m", "--input", pairs, "--out", tmp_path / "p.txt")
    assert done.returncode == 2 and "must end in .tsv, .csv or .jsonl" in done.stderr


def test_failed_writes_leave_no_temporaries(tmp_path, monkeypatch):
    import safetensors.numpy

    import nli_baselines as nb
    from nli_baselines.experiments.submissions.files import bundle
    result = nb.run(dataset="demo", features="unlexicalized", C=1.0, quiet=True)
    predictor = next(iter(result.models.values()))

    def broken_save(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(safetensors.numpy, "save", broken_save)
    with pytest.raises(OSError):
        predictor.save(tmp_path / "m.model")
    with pytest.raises(FileNotFoundError):
        bundle([tmp_path / "missing.tsv"], tmp_path / "out.zip")
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------ numbers that must be numbers


@pytest.mark.parametrize("args, message", [
    (["--C", "nan"], "positive, finite"), (["--C", "inf"], "positive, finite"), (["--C", "0.1,-1"], "positive"),
    (["--top-features", "-3"], "at least 0"), (["--cv-folds", "0"], "at least 2"), (["--cv-folds", "1"], "at least 2"),
    (["--train-size", "0"], "at least 1"), (["--min-count", "0"], "at least 1"),
])
def test_bad_numbers_exit_2(cli, args, message):
    done = cli("run", *FAST, "--quiet", *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_records_never_hold_invalid_json(tmp_path):
    from nli_baselines.experiments.outputs.records import write_json_atomic
    with pytest.raises(ValueError):
        write_json_atomic(tmp_path / "r.json", {"C": float("inf")})
    assert not (tmp_path / "r.json").exists()


# ------------------------------------------------------------------ what is printed


def test_skipped_rows_are_printed(cli, tmp_path):
    train = tmp_path / "train.tsv"
    rows = "".join(f"A man number {i} sleeps .\tA person sleeps .\t{'yes' if i % 2 else 'no'}\n" for i in range(12))
    train.write_text("premise\thypothesis\tlabel\n" + rows + "only one column\n")
    args = ["--dataset", "custom", "--train-file", train, "--dev-file", train, "--features", "unlexicalized",
            "--on-bad-row", "skip", "--C", "1"]
    done = cli("run", *args)
    assert done.returncode == 0, done.stderr
    assert "skipped rows: train 1 (wrong column count 1); dev 1 (wrong column count 1)" in done.stdout
    quiet = cli("run", *args, "--quiet")
    assert "skipped rows: train 1" in quiet.stderr and "skipped rows" not in quiet.stdout


def test_a_closed_pipe_ends_quietly_with_the_record_written(tmp_path):
    # A process, because the point is the process: its stdout closed by the reader, its exit status.
    out = tmp_path / "r.json"
    # `true` exits without reading: the run's first print meets a closed pipe.
    done = run_shell(f"{sys.executable} experiments/run.py {' '.join(FAST)} --out {out} | true; "
                     "exit ${PIPESTATUS[0]}")
    assert done.returncode == 0, done.stderr
    assert "BrokenPipe" not in done.stderr and "Traceback" not in done.stderr
    assert json.loads(out.read_text())["metrics"]["dev"]["accuracy"] > 0.5


HELP_IMPORTS = """
import contextlib, io, sys
from {module} import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        main(["--help"])
    except SystemExit:
        pass
heavy = sorted(m for m in ("sklearn", "scipy", "spacy", "pandas", "nltk", "joblib") if m in sys.modules)
print(heavy, len(out.getvalue()) > 500)
"""


@pytest.mark.parametrize("module", ["nli_baselines.experiments.run", "nli_baselines.learning_curves.run", "nli_baselines.experiments.predict",
                                    "nli_baselines.experiments.compare", "nli_baselines.experiments.diagnose", "nli_baselines.experiments.datasets"])
def test_help_imports_nothing_heavy(module):
    # A fresh interpreter is the point: what --help pulls in (the numeric libraries only when a command runs).
    done = run_python("-c", HELP_IMPORTS.format(module=module))
    assert done.returncode == 0 and done.stdout.strip() == "[] True", done.stdout + done.stderr


def test_a_missing_tagger_is_one_line_with_advice_for_how_the_suite_was_installed(cli, tmp_path, monkeypatch):
    import importlib.util

    import nli_baselines.features.text.annotation as annotation
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in annotation.MODEL_PACKAGES else real(name, *a))
    monkeypatch.setenv("NLI_CACHE_DIR", str(tmp_path / "cache"))  # nothing cached: the tagger is needed
    train = tmp_path / "train.tsv"
    train.write_text("premise\thypothesis\tlabel\nA b .\tA .\tyes\nC d .\tC .\tno\n")
    monkeypatch.chdir(tmp_path)  # not a checkout: the package index's name
    done = cli("run", "--train-file", train)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "python -m pip install 'nli-baselines[tagger]'" in done.stderr
    from nli_baselines.features.runtime.commands import install_command
    monkeypatch.chdir(REPO)  # in the checkout: the editable install of README's quick start
    assert install_command("tagger") == "python -m pip install -e '.[tagger]'"


# ------------------------------------------------------------------ flags that would do nothing, said


@pytest.mark.parametrize("args, message", [
    (["--label-map", "entailmnet=x"], "--label-map: 'entailmnet' is not a label of the data .*did you mean entailment"),
    (["--label-map", ""], "--label-map: no OLD=NEW pairs given"),
    (["--features", ""], "--features: no feature types given"),
    (["--paper-table", "--ablation-table"], "two kinds of table: give one"),
    pytest.param(["--backend", "dask", "--scheduler", "not a url"],
                 "cannot reach the Dask scheduler at not a url: missing port", marks=NEEDS_DASK),
])
def test_flags_that_would_mean_nothing_are_refused(cli, args, message):
    done = cli("run", *FAST, *args)
    assert done.returncode == 2 and re.search(message, done.stderr), done.stderr


@pytest.mark.parametrize("args, note", [
    (["--wordnet"], "--wordnet sets candidates of wordnet, which the lr model does not have: ignored"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler is for --backend dask"),
    # Options a model does not read, as its spec declares what it reads.
    (["--model", "majority"], "--C sets candidates of C, which the majority model does not have: ignored"),
    (["--model", "majority", "--top-features", "3"], "--top-features lists the weights of a model that explains "
                                                     "itself by its features; the majority model has none: ignored"),
])
def test_harmless_ignored_flags_are_noted(cli, tmp_path, args, note):
    done = cli("run", *FAST, *args, "--out", tmp_path / "r.json")
    assert done.returncode == 0 and note in done.stdout  # once, with the results (not also among the progress)
    assert (done.stdout + done.stderr).count(note) == 1
    assert any(note in n for n in json.loads((tmp_path / "r.json").read_text())["notes"])


def test_cross_validation_names_the_folds_it_runs(cli, tmp_path):
    train = tmp_path / "train.tsv"
    train.write_text("premise\thypothesis\tlabel\n" + "".join(
        f"A man number {i} sleeps .\tA person sleeps .\t{'yes' if i % 3 else 'no'}\n" for i in range(30)))
    done = cli("run", "--train-file", train, "--features", "unlexicalized", "--C", "1", "--cv-folds", "50",
               "--out", tmp_path / "r.json", "--quiet")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["data"]["eval_split"] == "cv10(train)"  # the smaller class has 10 pairs: 10 folds, not 50


def test_a_utf16_file_is_named_as_such_at_its_first_line(cli, tmp_path):
    train = tmp_path / "train.tsv"
    train.write_bytes("premise\thypothesis\tlabel\na b .\ta .\tyes\n".encode("utf-16"))
    done = cli("run", "--train-file", train, "--quiet")
    assert done.returncode == 2 and "train.tsv:1: undecodable bytes" in done.stderr
    assert "the file is UTF-16" in done.stderr


def test_datasets_needs_a_data_directory(cli, tmp_path):
    (tmp_path / "f").write_text("x")
    done = cli("datasets", "--stats", "--data-dir", tmp_path / "f")
    assert done.returncode == 2 and "is not a directory" in done.stderr


def test_a_file_size_limit_met_while_writing_is_one_line(tmp_path):
    # `ulimit -f 40`: the record is larger than 40 KB, so its write fails after the work is done.
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (40 * 1024, 40 * 1024))
    done = run_script("run", "--dataset", "demo", "--features", "unlexicalized", "--C", "1", "--quiet", "--out",
                      tmp_path / "r.json", preexec_fn=limit)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"error: cannot write {tmp_path / 'r.json'}: File too large"]
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("out", ["/proc/x.json", "/sys/x.json"])
def test_outputs_on_kernel_file_systems_are_refused_before_the_work(cli, out):
    done = cli("run", *FAST, "--out", out)
    assert done.returncode == 2 and "is a kernel file system, where no file can be written" in done.stderr


@pytest.mark.parametrize("body, code", [("import sys\nsys.exit(0)\n", "0"), ("raise SystemExit('bye')\n", "'bye'")])
def test_an_imported_module_that_exits_is_an_error_not_a_silent_success(cli, tmp_path, monkeypatch, body, code):
    (tmp_path / "quits.py").write_text(body)
    monkeypatch.chdir(tmp_path)
    done = cli("run", "--import", "quits", *FAST, "--out", "r.json")
    assert done.returncode == 2
    assert done.stderr.strip() == (f"error: --import quits: the module called sys.exit({code}) while being imported; "
                                   "a module to --import should only define and register things")
    assert not (tmp_path / "r.json").exists()


KILLS_ITSELF_WHILE_PLOTTING = '''
import os
import signal

from matplotlib.figure import Figure

_savefig = Figure.savefig


def savefig(self, fname, *args, **kwargs):
    # Half a picture is on disk when the signal comes, as when a user stops a run mid-write.
    with open(fname, "wb") as handle:
        handle.write(b"half a png")
    os.kill(os.getpid(), signal.SIGTERM)
    return _savefig(self, fname, *args, **kwargs)


Figure.savefig = savefig
'''


@NEEDS_PLOTS
def test_sigterm_while_writing_plots_leaves_no_temporaries(tmp_path):
    (tmp_path / "kills.py").write_text(KILLS_ITSELF_WHILE_PLOTTING)
    done = run_script("run", "--import", tmp_path / "kills.py", "--dataset", "demo", "--features", "unlexicalized",
                      "--C", "1", "--quiet", "--plots", tmp_path / "plots", "--out", tmp_path / "r.json")
    assert done.returncode == 143
    assert done.stderr.strip().splitlines()[-1] == "error: terminated; unfinished outputs removed"
    assert not (tmp_path / "plots").exists() and not (tmp_path / "r.json").exists()  # not even an empty plots/
    assert not list(tmp_path.rglob("*.tmp"))


def test_a_missing_file_of_your_own_is_named_as_such(cli, tmp_path):
    done = cli("run", "--train-file", tmp_path / "nope.csv", "--quiet")
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: --train-file {tmp_path / 'nope.csv'}: no such file"  # not "download it"


def test_help_says_each_default_once(cli):
    done = cli("run", "--help")
    assert done.returncode == 0 and "(default: lr)" in done.stdout and "(default: lr) (default: lr)" not in done.stdout


def test_a_table_on_a_yes_no_task_runs_the_rows_that_can_run(cli, tmp_path):
    from nli_baselines.experiments.corpora.generated.demo import generate_demo
    train = tmp_path / "yn.tsv"
    train.write_text("premise\thypothesis\tlabel\n" + "".join(
        f"{p.premise}\t{p.hypothesis}\t{'yes' if p.label == 'entailment' else 'no'}\n"
        for p in generate_demo("train")[:150]))
    done = cli("run", "--train-file", train, "--paper-table", "--quiet", "--C", "1", "--out", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    rows = [row["name"] for row in json.loads((tmp_path / "r.json").read_text())["rows"]]
    assert rows[:3] == ["lexicalized", "unigrams_only", "unlexicalized"] and "edit_distance" not in rows
    assert ("note: row edit_distance left out: edit distance (2-class) is scored as entailment vs not_entailment, "
            "but the labels are 'no', 'yes': map them, e.g. --label-map yes=entailment,no=not_entailment"
            in done.stderr)


def test_python_m_nli_baselines_runs_every_console_script(capsys):
    import tomllib

    from nli_baselines.__main__ import COMMANDS, main
    scripts = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {f"nli-{command}": f"nli_baselines.{module}:main" for command, module in COMMANDS.items()}
    assert main(["run", "--dataset", "demo", "--train-size", "300", "--features", "unlexicalized", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("row")
    assert main(["ran"]) == 2 and "unknown command 'ran'; choose from run, predict" in capsys.readouterr().err


SIGNALLED_AT_EXIT = '''
import atexit
import os
import signal
import time


def _late():  # a slow teardown (worker pools, a library's exit handler) that a signal reaches
    os.kill(os.getpid(), signal.{signal})
    time.sleep(5)


atexit.register(_late)
'''


@pytest.mark.parametrize("signal_name, code, says", [("SIGTERM", 143, "error: terminated after its outputs were written"),
                                                     ("SIGINT", 130, "error: interrupted after its outputs were written")])
def test_a_signal_after_the_work_ends_in_one_line_not_by_the_raw_signal(tmp_path, signal_name, code, says):
    module = tmp_path / "signalled_at_exit.py"
    module.write_text(SIGNALLED_AT_EXIT.replace("{signal}", signal_name))
    done = run_script("run", "--import", module, "--dataset", "demo", "--features", "unlexicalized", "--C", "1",
                      "--quiet", "--out", tmp_path / "out.json", timeout=300)
    assert done.returncode == code, (done.returncode, done.stderr)  # was -15: killed by the signal itself
    assert done.stderr.strip().splitlines()[-1] == says and "Traceback" not in done.stderr
    assert json.loads((tmp_path / "out.json").read_text())["rows"] and done.stdout.startswith("row ")


CONVERGING_BADLY = '''
from sklearn.svm import LinearSVC

from nli_baselines.models import ModelSpec, register_model

register_model(ModelSpec(name="svc_short", factory=lambda: LinearSVC(max_iter=2), title="svc"))
'''


def test_a_librarys_warning_is_one_line_without_its_source(cli, tmp_path):
    # scikit-learn's warnings reached users as Python prints them: the library's file path and
    # line, then a line of its code ("  warnings.warn(").
    (tmp_path / "converging_badly.py").write_text(CONVERGING_BADLY)
    done = cli("run", "--import", tmp_path / "converging_badly.py", "--dataset", "demo", "--model", "svc_short",
               "--features", "unlexicalized", "--quiet")
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if "ConvergenceWarning" in line]
    assert warned and set(warned) == {"warning: ConvergenceWarning: Liblinear failed to converge, increase the number "
                                      "of iterations."}
    assert "site-packages" not in done.stderr and "warnings.warn(" not in done.stderr
