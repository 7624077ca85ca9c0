"""The user guide builds with no warnings: a broken reference (to a page, a heading or an API
name), a docstring Sphinx cannot read, or a figure reference that no record resolves fails it, as
README's Development command does. The default run builds the pages without running the examples
and the lab (`-D plot_gallery=0 -D nb_execution_mode=off`); the slow tests build the guide as its
command does, with both run, and render its pages in a real browser at 1280 px."""
from __future__ import annotations

import contextlib
import html
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

sphinx_cmd = pytest.importorskip("sphinx.cmd.build", reason="the docs extra (sphinx, myst-nb, sphinx-gallery) is not installed")
pytest.importorskip("myst_nb", reason="the docs extra (sphinx, myst-nb, sphinx-gallery) is not installed")
pytest.importorskip("sphinx_gallery", reason="the docs extra (sphinx, myst-nb, sphinx-gallery) is not installed")
# myst-parser's own use of Sphinx APIs that Sphinx 11 removes: not a warning of the guide's build.
pytestmark = pytest.mark.filterwarnings("ignore:.*Check CHANGES for Sphinx API modifications")

QUICK = ["-D", "plot_gallery=0", "-D", "nb_execution_mode=off"]
PAGES = ("install", "getting-started", "data", "features", "models-and-runs", "significance-and-errors", "curves",
         "submissions", "diagnostics", "saved-models", "performance", "api", "whats-new", "citing", "development",
         "lab", "auto_examples/index")
EXAMPLES = ("plot_ablation_table", "plot_learning_curve", "plot_confusion_matrix", "plot_hans", "plot_sts_scatter",
            "plot_glue_demo")


def build(source, out, doctrees, *extra: str) -> tuple[int, str]:
    warnings = io.StringIO()
    with contextlib.redirect_stderr(warnings), contextlib.redirect_stdout(io.StringIO()):
        code = sphinx_cmd.build_main(["-W", "--keep-going", "-n", "-q", "-b", "html", "-d", str(doctrees), *extra,
                                      str(source), str(out)])
    return code, warnings.getvalue()


def copy_of_docs(tmp_path: Path) -> Path:
    """The guide's sources in a folder of their own (a build writes auto_examples/ and _generated/ there)."""
    source = tmp_path / "docs"
    shutil.copytree(REPO / "docs", source, ignore=shutil.ignore_patterns("_build", "auto_examples", "_generated",
                                                                          "jupyter_execute", "sg_execution_times.rst"))
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    for name in ("CHANGELOG.md", "CITATION.cff"):
        shutil.copy(REPO / name, tmp_path / name)
    return source


@pytest.fixture(scope="module")
def quick_build(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("guide")
    code, warnings = build(copy_of_docs(tmp), tmp / "html", tmp / "doctrees", *QUICK)
    assert code == 0, warnings
    assert warnings == ""
    return tmp / "html"


def test_the_guide_builds_without_warnings(quick_build):
    for page in PAGES:
        assert (quick_build / f"{page}.html").is_file(), page
    api = (quick_build / "api.html").read_text(encoding="utf-8")
    assert "PairFeaturizer" in api and "register_model" in api and "load_model" in api


def test_the_way_in_comes_first(quick_build):
    """Install, Getting started, the user guide, the API, the examples and the lab, What's new and
    Citing, in that order in the guide's table of contents."""
    index = (quick_build / "index.html").read_text(encoding="utf-8")
    order = [index.index(f'href="{page}.html"') for page in ("install", "getting-started", "data", "api",
                                                              "auto_examples/index", "lab", "whats-new", "citing")]
    assert order == sorted(order)
    gallery = (quick_build / "auto_examples" / "index.html").read_text(encoding="utf-8")
    assert all(f"{name}.html" in gallery for name in EXAMPLES)


def test_whats_new_and_citing_are_read_from_their_files(quick_build):
    whats_new = (quick_build / "whats-new.html").read_text(encoding="utf-8")
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert len(versions) >= 3 and all(version in whats_new for version in versions)
    # The page's text, without the spans a highlighter puts into its BibTeX blocks.
    citing = html.unescape(re.sub(r"<[^>]+>", "", (quick_build / "citing.html").read_text(encoding="utf-8")))
    assert "@software{" in citing and "version = {" in citing
    assert citing.count("@inproceedings{") + citing.count("@article{") == 5
    assert "10.18653/v1/D15-1075" in citing  # the SNLI paper's DOI, from CITATION.cff


def test_a_figure_on_a_page_is_its_records(quick_build):
    import json
    record = json.loads((REPO / "docs" / "learning-curve-sick.json").read_text(encoding="utf-8"))
    point = next(p for p in record["curve"]["lexicalized"] if p["size"] == 10)
    curves = (quick_build / "curves.html").read_text(encoding="utf-8")
    assert f'<span class="record-figure">{100 * point["eval_mean"]:.1f}</span>% at 10 pairs' in curves


def test_no_footer_without_an_owner(quick_build):
    for page in ("index", "install"):
        html = (quick_build / f"{page}.html").read_text(encoding="utf-8")
        assert "&#169;." not in html and "©." not in html


def test_wide_tables_scroll_inside_the_page(quick_build):
    """The rule that keeps a wide table (Data's corpora, Performance's figures) on a 1280 px page:
    the table scrolls sideways inside the text column. The slow test below checks it in a browser."""
    css = (quick_build / "_static" / "guide.css").read_text(encoding="utf-8")
    rule = re.search(r"div\.body table\.docutils \{([^}]*)\}", css)
    assert rule and "overflow-x: auto" in rule[1] and "display: block" in rule[1] and "max-width: 100%" in rule[1]
    assert 'href="_static/guide.css' in (quick_build / "data.html").read_text(encoding="utf-8")


def test_a_broken_reference_or_a_figure_no_record_holds_fails_the_build(tmp_path):
    source = copy_of_docs(tmp_path)
    page = source / "curves.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [the data page](no-such-page.md).\n"
                    "It took {rec}`curve-snli curve/no_such_figure .1f` s.\n", encoding="utf-8")
    code, warnings = build(source, tmp_path / "html", tmp_path / "doctrees", *QUICK)
    assert code != 0 and "no-such-page" in warnings and "no 'no_such_figure'" in warnings


@pytest.fixture(scope="module")
def full_build(tmp_path_factory) -> Path:
    """The guide as its command builds it: every example and the lab run (on the demo corpus: the
    lab reads SICK only when NLI_DATA_DIR is set, and tests/test_lab_notebook.py runs it there)."""
    tmp = tmp_path_factory.mktemp("guide-full")
    source = copy_of_docs(tmp)
    saved = os.environ.pop("NLI_DATA_DIR", None)
    try:
        code, warnings = build(source, tmp / "html", tmp / "doctrees")
    finally:
        if saved is not None:
            os.environ["NLI_DATA_DIR"] = saved
    assert code == 0, warnings
    assert warnings == ""
    return tmp / "html"


@pytest.mark.slow
def test_the_examples_run_with_their_output_and_plots(full_build):
    for name in EXAMPLES:
        page = (full_build / "auto_examples" / f"{name}.html").read_text(encoding="utf-8")
        assert "sphx-glr-script-out" in page, name  # what it printed
        images = re.findall(r'src="(\.\./_images/sphx_glr_[^"]+\.png)"', page)
        assert images, name
        assert all((full_build / "auto_examples" / image).is_file() for image in images)
    ablation = (full_build / "auto_examples" / "plot_ablation_table.html").read_text(encoding="utf-8")
    assert "-cross_bigrams" in ablation and "majority (entailment, reference)" in ablation
    glue = (full_build / "auto_examples" / "plot_glue_demo.html").read_text(encoding="utf-8")
    assert "GLUE average (partial)" in glue


@pytest.mark.slow
def test_the_lab_is_shown_with_its_outputs(full_build):
    lab = (full_build / "lab.html").read_text(encoding="utf-8")
    assert lab.count('class="cell_output') >= 10
    assert "majority (entailment, reference)" in lab  # the paper's table, as it printed
    assert re.search(r'<img[^>]+src="[^"]*_images/[^"]+\.png"', lab)  # its plots


def _chromium() -> str | None:
    return next((path for path in (shutil.which("chromium"), shutil.which("chromium-browser"),
                                   shutil.which("google-chrome")) if path), None)


# What the browser measures in a page: its widest element beyond the window, and each table whose
# right edge lies beyond the window, written into the page for --dump-dom to return.
MEASURE = """<script>window.addEventListener('load', () => {
  const width = document.documentElement.clientWidth;
  const tables = [...document.querySelectorAll('div.body table')].filter(t => t.getBoundingClientRect().right > width + 1);
  document.body.setAttribute('data-overflow', JSON.stringify({width: width,
    scroll: document.documentElement.scrollWidth, tables: tables.map(t => t.innerText.slice(0, 60))}));
});</script>"""


@pytest.mark.slow
def test_no_table_runs_off_a_1280_px_page(quick_build, tmp_path):
    """Headless Chromium renders the pages with the widest tables in a 1280 px window and measures
    every table's right edge, and the page's own width; without the guide's rule Data's table
    does run off, so the probe can fail."""
    import json
    chromium = _chromium()
    if chromium is None:
        pytest.skip("no Chromium (Debian: apt-get install chromium)")

    def measure(page: str, html: str) -> dict:
        probe = quick_build / f"{page}-probe.html"
        probe.write_text(html.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
        done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync", "--no-first-run",
                               f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900",
                               "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                              capture_output=True, text=True, timeout=120)
        found = re.search(r'data-overflow="([^"]*)"', done.stdout)
        assert found, f"{page}: the browser measured nothing\n{done.stderr[-2000:]}"
        return json.loads(found[1].replace("&quot;", '"').replace("&amp;", "&"))

    data = (quick_build / "data.html").read_text(encoding="utf-8")
    unstyled = measure("data-unstyled", data.replace('href="_static/guide.css', 'href="_static/none.css'))
    assert unstyled["tables"], "without the guide's rule Data's corpus table runs off the page: the probe must see it"
    for page in ("data", "performance", "models-and-runs", "features", "submissions", "development", "install"):
        measured = measure(page, (quick_build / f"{page}.html").read_text(encoding="utf-8"))
        assert measured["width"] >= 1200, measured
        assert measured["tables"] == [], f"{page}: tables run off a 1280 px page: {measured}"
        assert measured["scroll"] <= measured["width"], f"{page}: the page scrolls sideways: {measured}"
