"""The user guide builds with no warnings: a broken reference (to a page, a heading or an API
name) or a docstring Sphinx cannot read fails it, as README's Development command does."""
from __future__ import annotations

import contextlib
import io

import pytest

from tests.conftest import REPO

sphinx_cmd = pytest.importorskip("sphinx.cmd.build", reason="the docs extra (sphinx, myst-parser) is not installed")
pytest.importorskip("myst_parser", reason="the docs extra (sphinx, myst-parser) is not installed")
# myst-parser's own use of Sphinx APIs that Sphinx 11 removes: not a warning of the guide's build.
pytestmark = pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications")


def build(source, out, doctrees) -> tuple[int, str]:
    warnings = io.StringIO()
    with contextlib.redirect_stderr(warnings):
        code = sphinx_cmd.build_main(["-W", "--keep-going", "-n", "-q", "-b", "html", "-d", str(doctrees),
                                      str(source), str(out)])
    return code, warnings.getvalue()


def test_the_guide_builds_without_warnings(tmp_path):
    code, warnings = build(REPO / "docs", tmp_path / "html", tmp_path / "doctrees")
    assert code == 0, warnings
    assert warnings == ""
    for page in ("data", "features", "models-and-runs", "significance-and-errors", "curves", "submissions",
                 "diagnostics", "saved-models", "api", "performance", "development"):
        assert (tmp_path / "html" / f"{page}.html").is_file()
    api = (tmp_path / "html" / "api.html").read_text(encoding="utf-8")
    assert "PairFeaturizer" in api and "register_model" in api and "load_model" in api


def test_a_broken_reference_fails_the_build(tmp_path):
    source = tmp_path / "docs"
    source.mkdir()
    for path in (REPO / "docs").iterdir():
        if path.suffix in (".py", ".md", ".png"):
            (source / path.name).write_bytes(path.read_bytes())
    page = source / "curves.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [the data page](no-such-page.md).\n", encoding="utf-8")
    code, warnings = build(source, tmp_path / "html", tmp_path / "doctrees")
    assert code != 0 and "no-such-page" in warnings
