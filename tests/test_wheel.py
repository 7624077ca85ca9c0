"""The suite as a user installs it: a wheel (not an editable install) in a fresh virtual environment,
used from a project folder that has its own `models.py`, `features/` package and `experiments.py`.
Both the user's modules and the suite's must import, and the suite's command and API must run."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow  # builds a wheel and installs it with its dependencies: minutes

USER_FILES = {
    "models.py": "def majority():\n    return 'the user majority'\n",
    "features/__init__.py": "NAME = 'the user features'\n",
    "experiments.py": "def run():\n    return 'the user run'\n",
    "check.py": textwrap.dedent("""\
        import models, features, experiments
        import nli_baselines as nb
        from nli_baselines.models import MajorityClassifier
        assert models.majority() == "the user majority" and features.NAME == "the user features"
        assert experiments.run() == "the user run"
        result = nb.run(dataset="demo", quiet=True, train_size=600)
        assert 0.5 < result.row()["metrics"]["dev"]["accuracy"] <= 1.0, result.table()
        assert nb.__file__.startswith(%r), nb.__file__
        print(result.table())
        """),
}


def _run(*command, cwd, env=None, timeout=900) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, command))}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", out, REPO, cwd=out)
    (built,) = out.glob("nli_baselines-*.whl")
    return built


def test_the_wheel_holds_one_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"nli_baselines"}
    assert not any(name.startswith(("nli_baselines/benchmarks", "benchmarks/", "tests/")) for name in names)
    for module in ("features/types/bleu.py", "models/logistic.py", "experiments/run.py", "learning_curves/run.py"):
        assert f"nli_baselines/{module}" in names


def test_a_users_own_models_features_and_experiments_live_beside_the_suite(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    _run(python, "-m", "pip", "install", "--quiet", wheel, cwd=tmp_path, timeout=1800)
    project = tmp_path / "project"
    for name, text in USER_FILES.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text % str(env_dir) if name == "check.py" else text)
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NLI_DATA_DIR")}
    checked = _run(python, "check.py", cwd=project, env=clean)
    assert "majority" in checked.stdout
    nli_run = env_dir / ("Scripts/nli-run.exe" if os.name == "nt" else "bin/nli-run")
    ran = _run(nli_run, "--dataset", "demo", "--train-size", "600", "--quiet", cwd=project, env=clean)
    assert ran.stdout.splitlines()[0].startswith("row")
    as_module = _run(python, "-m", "nli_baselines", "run", "--dataset", "demo", "--train-size", "600", "--quiet",
                     cwd=project, env=clean)
    assert as_module.stdout.splitlines()[0] == ran.stdout.splitlines()[0] and "majority" in as_module.stdout
