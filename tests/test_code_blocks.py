"""Every code block of README and of the guide runs as the page says (tests/code_blocks.py), or
says why not: the default run checks that each is accounted for and well formed; the slow run
(and the corpus run, for the blocks that read the shared corpora) runs them, page by page."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests import code_blocks
from tests.conftest import REPO

PAGES = code_blocks.documents()
ALL = [block for page in PAGES for block in code_blocks.blocks(page)]


def test_every_block_is_run_or_says_why_not():
    assert len(ALL) >= 25
    for block in ALL:
        assert block.lang in code_blocks.RUNNABLE
        if block.not_run is not None:
            assert len(block.not_run) >= 12, f"{block.name}: a reason a reader can follow"
        assert block.needs <= {"corpora", "wordnet"}, block.name
        lines = len(block.code.splitlines())
        assert all(1 <= n <= lines for n in block.lines_not_run), block.name
    run = [b for b in ALL if b.not_run is None]
    assert len(run) >= 14  # 7 everywhere, 5 with the shared corpora, 2 files a later block imports


def test_every_block_is_well_formed():
    """Python compiles, shell parses: a block that cannot even be read would never run."""
    for block in ALL:
        if block.lang == "python":
            compile(block.code, block.name, "exec")
        else:
            done = subprocess.run(["bash", "-n", "-c", block.code], capture_output=True, text=True)
            assert done.returncode == 0, f"{block.name}: {done.stderr}"


def test_markers_and_outputs_are_read(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n<!-- not run, line 1: it installs packages -->\n<!-- needs: corpora -->\n```bash\n"
                    "pip install x\necho hi\n```\n\n<!-- not run: it opens a window for you -->\n```bash\nxdg-open .\n```\n"
                    "\n```python\nprint(1 + 1)\n```\n<!-- output -->\n```text\n2\n```\n\n```text\nnot code\n```\n",
                    encoding="utf-8")
    first, second, third = code_blocks.blocks(page)
    assert first.lines_not_run == {1: "it installs packages"} and first.needs == {"corpora"} and first.not_run is None
    assert second.not_run == "it opens a window for you"
    assert third.lang == "python" and page.read_text()[third.output[0]:third.output[1]] == "2\n"


def test_an_output_is_matched_with_its_ellipses():
    assert code_blocks.matches("a\n...\nd\n", "a\nb\nc\nd\n")
    assert code_blocks.matches("a\n...\n", "a\n")
    assert not code_blocks.matches("a\nd\n", "a\nb\nd\n")
    assert not code_blocks.matches("a\n...\nd\n", "a\nb\n")


def test_a_failing_block_or_a_wrong_output_is_caught(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\nprint('two')\n```\n<!-- output -->\n```text\n2\n```\n\n```bash\nfalse\n```\n\n"
                    "<!-- not run: it would fail on purpose -->\n```bash\nexit 3\n```\n", encoding="utf-8")
    results = code_blocks.run_page(page, set())
    assert [r.split(":")[0] for r in results.values()] == ["failed", "failed", "skipped"]
    assert "is not what the page shows" in list(results.values())[0]


def _run(page, with_corpora: bool) -> dict:
    env = {**os.environ}
    done = subprocess.run([sys.executable, "-m", "tests.code_blocks", "--run", str(page),
                           *(["--with-corpora"] if with_corpora else [])], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def _failures(results: dict) -> dict:
    return {name: result for name, result in results.items() if result.startswith("failed")}


RUN_PAGES = [page for page in PAGES if any(b.not_run is None for b in code_blocks.blocks(page))]


@pytest.mark.slow
@pytest.mark.parametrize("page", RUN_PAGES, ids=lambda p: p.name)
def test_the_blocks_of_a_page_run(page, monkeypatch):
    monkeypatch.delenv("NLI_DATA_DIR", raising=False)
    assert _failures(_run(page, with_corpora=False)) == {}


@pytest.mark.corpus
@pytest.mark.parametrize("page", [p for p in RUN_PAGES if any(b.needs for b in code_blocks.blocks(p))],
                         ids=lambda p: p.name)
def test_the_blocks_that_read_the_corpora_run(page, data_dir, monkeypatch):
    monkeypatch.setenv("NLI_DATA_DIR", str(data_dir))
    results = _run(page, with_corpora=True)
    assert _failures(results) == {}
    assert not any(r == "skipped: needs corpora" for r in results.values())
