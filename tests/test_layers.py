"""The package's layers, held by a check: rooms import only their own and lower rooms, no loops,
no private names across modules, and imports inside functions only for lazy loads that say why."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.import_contract import check, modules

REPO = Path(__file__).resolve().parents[1]
PACKAGE = {"nli_baselines": REPO / "nli_baselines", **{f"nli_baselines.{folder}": REPO / folder
                                                      for folder in ("features", "models", "experiments",
                                                                     "learning_curves")}}

# Lowest first. A module may import its own room and the rooms of lower layers; rooms of one layer
# (`a | b`) may not import each other. docs/development.md draws the same picture.
LAYERS = [
    "nli_baselines._version",
    # features: process plumbing and files, then words, then feature types, then the featurizer
    "nli_baselines.features.runtime",
    "nli_baselines.features.storage",
    "nli_baselines.features.labels | nli_baselines.features.options | nli_baselines.features.pair",
    "nli_baselines.features.columns",
    "nli_baselines.features.text",
    "nli_baselines.features.base",
    "nli_baselines.features.custom",
    "nli_baselines.features.types",
    "nli_baselines.features.registry",
    "nli_baselines.features.featurizer",
    "nli_baselines.features.featurizer_state",
    "nli_baselines.features",
    # the estimators
    "nli_baselines.models",
    # experiments: data, then figures, then what is written, then the run, then its products
    "nli_baselines.experiments.corpora.readers",
    "nli_baselines.experiments.corpora.generated | nli_baselines.experiments.corpora.download",
    "nli_baselines.experiments.corpora",
    "nli_baselines.experiments.stats",
    "nli_baselines.experiments.outputs",
    "nli_baselines.experiments.breakdowns",
    "nli_baselines.experiments.reports",
    "nli_baselines.experiments.configuration",
    "nli_baselines.experiments.engine",
    "nli_baselines.experiments.submissions",
    "nli_baselines.experiments.api",
    "nli_baselines.experiments.commandline",
    # the scripts (experiments/*.py, learning_curves/run.py) and the package's own front
    "nli_baselines.experiments | nli_baselines.learning_curves",
    "nli_baselines",
]


def test_the_package_keeps_its_layers():
    violations = check(modules(PACKAGE), LAYERS, "nli_baselines")
    assert not violations, "\n".join(map(str, violations))


def test_every_room_of_the_contract_exists():
    found = modules(PACKAGE)
    rooms = [room.strip() for layer in LAYERS for room in layer.split("|")]
    assert [room for room in rooms if not any(m == room or m.startswith(room + ".") for m in found)] == []


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return modules({"pkg": tmp_path / "pkg"})


CLEAN = {
    "__init__.py": "",
    "low/__init__.py": "",
    "low/base.py": "VALUE = 1\n",
    "high/__init__.py": "",
    "high/use.py": "from pkg.low.base import VALUE\n\n\ndef later():\n    # lazy: a heavy load\n    import json\n",
}
TOY_LAYERS = ["pkg.low", "pkg.high", "pkg"]


def test_a_clean_toy_package_passes(tmp_path):
    assert check(_package(tmp_path, CLEAN), TOY_LAYERS, "pkg") == []


@pytest.mark.parametrize("change, rule, where", [
    ({"low/base.py": "from pkg.high.other import X\nVALUE = 1\n", "high/other.py": "X = 1\n"}, "climb",
     "pkg.low.base:1"),
    ({"low/base.py": "VALUE = 1\n\n\ndef f():\n    # lazy: a heavy load\n    from ..high import use\n"}, "climb",
     "pkg.low.base:6"),
    ({"high/use.py": "from pkg.low.base import _secret\n", "low/base.py": "_secret = 1\n"}, "private", "pkg.high.use:1"),
    ({"high/use.py": "def f():\n    import json\n"}, "eager-lazy", "pkg.high.use:2"),
    ({"low/other.py": "from .base import VALUE\n", "low/base.py": "from .other import VALUE\n"}, "cycle",
     "pkg.low.base"),
])
def test_the_check_catches_each_breach(tmp_path, change, rule, where):
    found = _package(tmp_path, {**CLEAN, **change})
    violations = check(found, TOY_LAYERS, "pkg")
    assert [(v.rule, v.where) for v in violations] == [(rule, where)], violations


def test_a_module_in_no_room_is_named(tmp_path):
    found = _package(tmp_path, {**CLEAN, "stray.py": "X = 1\n"})
    violations = check(found, ["pkg.low", "pkg.high"], "pkg")
    assert [(v.rule, v.where) for v in violations] == [("unplaced", "pkg"), ("unplaced", "pkg.stray")]


def test_independent_rooms_may_not_import_each_other(tmp_path):
    found = _package(tmp_path, {**CLEAN, "side/__init__.py": "", "side/x.py": "from pkg.high.use import later\n"})
    violations = check(found, ["pkg.low", "pkg.high | pkg.side", "pkg"], "pkg")
    assert [(v.rule, v.where) for v in violations] == [("sibling", "pkg.side.x:1")]


def test_no_scripts_folder_name_stands_for_a_standard_module():
    # `python experiments/run.py` puts experiments/ (and learning_curves/) first on sys.path: a
    # module or folder there named like a standard-library module would be imported in its place.
    import sys
    for folder in (REPO / "experiments", REPO / "learning_curves"):
        names = {p.stem for p in folder.glob("*.py")} | {p.name for p in folder.iterdir() if p.is_dir()}
        assert not names & set(sys.stdlib_module_names), folder
