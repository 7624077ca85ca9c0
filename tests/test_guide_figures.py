"""Every figure the guide states about the suite's own speed or accuracy is read from a record the
suite wrote (docs/records.py): each reference resolves, no page states such a figure otherwise,
and README's results table is what the records say."""
from __future__ import annotations

import re
import sys

import pytest

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "docs"))
import records  # noqa: E402  (docs/records.py)

PAGES = sorted((REPO / "docs").glob("*.md"))
ROLE = re.compile(r"\{(?P<role>rec|acc|vs)\}`(?P<text>[^`]+)`")
# What a figure about speed or accuracy looks like in prose or in a table cell.
FIGURE = re.compile(
    r"\d+(?:\.\d+)?\s?(?:%|s\b|ms\b|seconds?\b|min\b|minutes?\b|hours?\b|GiB\b|MiB\b|GB\b|MB\b|KB\b|x\b"
    r"|points?\b|pairs/s\b|sentences/s\b|MB/s\b)"
    r"|\bp [=<] 0?\.\d+"
    r"|^\d+\.\d+(?: / \d+\.\d+)?$")
# Figures that are no measurement of the suite: limits it sets, levels of a statistical test, what a
# corpus or a generator is.
LEVELS = re.compile(r"95%\s+(?:confidence\s+)?interval|p < 0\.05\b|p < 0\.0\d+ \(0\.05 / \d+")
NOT_MEASURED = {
    "data.md": ["8 GiB", "8 MiB", "16 MiB", "256 MiB", "~100 KB", "37% duplicates"],
    "significance-and-errors.md": ["3% of pairs"],
    "diagnostics.md": ["near 100%", "near 0%", "at least 50 points", "at least 5 points"],
    "saved-models.md": ["4 GiB", "64 MiB"],
}


def _prose(text: str) -> str:
    """A page without what holds no stated figure: code blocks, HTML comments, code spans, and the
    figure references themselves."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = ROLE.sub("", text)
    return re.sub(r"``?[^`]+``?", "", text)


def stated_figures(name: str, text: str) -> list[str]:
    """Figures of speed or accuracy a page states itself, in prose or in table cells."""
    prose = LEVELS.sub("", _prose(text))
    for allowed in NOT_MEASURED.get(name, ()):
        prose = prose.replace(allowed, "")
    found = []
    for line in prose.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else [line]
        found += [m.group(0) for cell in cells for m in FIGURE.finditer(cell)]
    return found


def test_every_figure_reference_resolves():
    references = [(page.name, m["role"], m["text"]) for page in PAGES
                  for m in ROLE.finditer(page.read_text(encoding="utf-8"))]
    assert len(references) >= 30
    for page, role, text in references:
        if role == "rec":
            records.figure(text)
        else:
            record, row = text.split()
            (records.accuracy if role == "acc" else records.versus)(f"paper-table-{record}", row)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_page_states_a_figure_of_its_own(page):
    assert stated_figures(page.name, page.read_text(encoding="utf-8")) == []


def test_a_typed_figure_is_caught():
    assert stated_figures("curves.md", "The curve ran in 55.8 s, peak RSS 1.97 GiB.") == ["55.8 s", "1.97 GiB"]
    assert stated_figures("x.md", "| lexicalized | 77.4 | 56.7 |\n| a | 82.2 / 85.7 |") == ["77.4", "56.7", "82.2 / 85.7"]
    assert stated_figures("x.md", "a gain of +4.8 points (p = 0.007), 92k pairs/s") == ["4.8 points", "p = 0.007"]
    # a figure read from a record, or in code, is not typed
    assert stated_figures("x.md", "in {rec}`main-job main_job/wall_seconds_median .1f` s; `--bins 5`") == []


def test_a_figure_is_the_records_value(monkeypatch):
    record = {"runs": [{"wall": 21.94}, {"wall": 23.1}], "share": 0.7737, "rows": [
        {"name": "lexicalized", "metrics": {"train": {"accuracy": 0.9}, "dev": {"accuracy": 0.7737}}, "delta": 0.048,
         "mcnemar_p": 0.0071}], "data": {"eval_split": "dev"}}
    monkeypatch.setitem(records._loaded, "main-job", record)
    assert records.figure("main-job runs/0/wall .1f") == "21.9"
    assert records.figure("main-job share pct") == "77.4"
    assert records.figure("main-job rows/[name=lexicalized]/delta points") == "+4.8"
    assert records.versus("main-job", "lexicalized") == "+4.8, p = 0.007"
    for bad, why in (("main-job runs/2/wall", "no item 2"), ("main-job share/x", "no 'x'"),
                     ("no-such share", "no record named"), ("main-job runs", "not a number"),
                     ("main-job rows/[name=unlexicalized]", "0 items")):
        with pytest.raises(records.FigureError, match=why):
            records.figure(bad)


def test_every_record_is_one_the_suite_wrote():
    for name, (path, command, _) in records.RECORDS.items():
        record = records.load(name)
        assert "versions" in record, name  # runs, curves and benchmarks all record their versions
        assert command[0] in ("experiments/run.py", "benchmarks/benchmark.py", "learning_curves/run.py")
        assert (REPO / command[0]).is_file()


def test_the_readme_results_table_is_the_records():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert records.readme_table(text) == records.results_markdown(), \
        "README's results table differs from the records: python docs/records.py --readme rewrites it"
