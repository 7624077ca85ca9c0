"""docs/lab.ipynb runs end to end, so the tutorial cannot rot (on SICK with NLI_DATA_DIR, else demo)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.conftest import NEEDS_PLOTS, REPO

nbclient = pytest.importorskip("nbclient", reason="the test extra (nbclient, ipykernel) is not installed")
nbformat = pytest.importorskip("nbformat")


@pytest.mark.slow  # a kernel, seven experiments and two HANS breakdowns (~3 min on SICK with WordNet)
@NEEDS_PLOTS  # the lab draws its plots and a curve
def test_the_lab_notebook_runs(tmp_path, monkeypatch):
    # The kernel starts in tmp_path: a relative NLI_DATA_DIR (CI's ../shared/data) must not
    # silently turn the SICK run into a demo run.
    data_dir = os.environ.get("NLI_DATA_DIR")
    if data_dir:
        monkeypatch.setenv("NLI_DATA_DIR", str(Path(data_dir).resolve()))
    on_sick = bool(data_dir) and (Path(data_dir) / "sick" / "SICK.txt").exists()
    temporary = tmp_path / "tmp"  # the kernel's temporary folder: what the lab leaves there is seen
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    notebook = nbformat.read(REPO / "docs" / "lab.ipynb", as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # a cell that raises fails the test with the cell's traceback
    assert not list(temporary.glob("nli-lab-*"))  # the lab removes the folder it wrote to
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    # what a reader sees: printed lines, and results shown (as text here; as HTML tables in the notebook)
    text = "".join(o.get("text", "") if o.get("output_type") == "stream" else o.get("data", {}).get("text/plain", "")
                   for o in outputs)
    tables = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any("<table" in page and ">lexicalized</td>" in page and "published (test)" in page for page in tables) \
        == on_sick  # the paper's table, as an HTML table (its published column: SICK has published figures)
    assert any("<table" in page and ">lexicalized</td>" in page for page in tables)
    assert any("lexical_overlap" in page for page in tables)  # HANS's breakdown
    assert "lexicalized" in text and "McNemar's exact test" in text and "pairs wrong" in text
    assert "top features for higher scores:" in text and "top features for lower scores:" in text
    assert f"dataset: {'sick' if on_sick else 'demo'};" in text
    # Long cells say what runs and roughly for how long, before they run, once.
    assert re.search(r"\] the paper's table: 7 models, C chosen by 5-fold CV: about 2-3 min", text)
    assert text.count(" on 2 cores ...") == 6 and "removed " in text
    # The own-feature cell shows a real effect on either corpus (SICK +6.9 points, p < 0.001;
    # demo +3.2, p = 0.031), with C chosen as run.py chooses it (5-fold CV on both).
    assert re.search(r"difference A - B \+[1-9]", text)
    assert "(significant at the 5% level)" in text
    # The notebook says what the command line says: here, which rows need WordNet.
    from nli_baselines.features.text.wordnet_data import wordnet_available
    assert ("left out: it needs WordNet" in text) != wordnet_available()
    # The lab uses the public API only: no engine internals, no private keys.
    source = "".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert "nli_baselines.experiments.engine" not in source and "nli_baselines.experiments.outputs" not in source and '["_' not in source
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 3  # plots, weights, curve
    assert all(o.get("output_type") != "error" for o in outputs)
    # The HANS section: the breakdown, and the features that push the swapped pair toward entailment.
    assert "non-entailed" in text and "ln_subject/object_swap" in text
    assert "The doctor saw the lawyer . -> The lawyer saw the doctor .: the model says" in text
    assert "pushing toward entailment: " in text and "overlap:pct_all" in text
