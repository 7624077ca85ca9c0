"""Results render where people read them: in a real notebook kernel, a run, a comparison, a HANS
breakdown and a learning curve show as HTML tables, and a run's progress reaches stderr once."""
from __future__ import annotations

import re

import pytest

nbclient = pytest.importorskip("nbclient", reason="the test extra (nbclient, ipykernel) is not installed")
nbformat = pytest.importorskip("nbformat")

CELLS = [
    """import nli_baselines as nb
full = nb.run(dataset="demo", train_size=300, features="unlexicalized", quiet=True)
full""",
    """base = nb.run(dataset="demo", train_size=300, features="bleu", quiet=True)
nb.compare(full, base)""",
    "nb.hans(full, 'hans-mini')",
    "nb.learning_curve(dataset='demo', sizes='50,100', seeds=1, configs='unlexicalized', quiet=True)",
    "full.to_frame()",
    # not quiet: the stage lines go to stderr, once
    "loud = nb.run(dataset='demo', train_size=300, features='bleu')",
]


def _html(output) -> str:
    return output.get("data", {}).get("text/html", "")


def test_results_show_as_html_tables_in_a_notebook(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS])
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [cell.outputs for cell in notebook.cells]
    assert all(o.output_type != "error" for cell in outputs for o in cell)
    run, comparison, hans, curve, frame, loud = ([o for o in cell if o.output_type == "execute_result"] for cell in outputs)
    # the run: an HTML table, headed as the text table is, a row per row of the run
    page = _html(run[0])
    assert page.count("<table") == 1 and "<th style=\"text-align: left\">row</th>" in page
    assert re.search(r"<td style=\"text-align: left\">unlexicalized</td><td style=\"text-align: right\">3</td>", page)
    assert re.search(r"majority \(\w+, reference\)", page) and "dev acc" in page
    assert run[0]["data"]["text/plain"].startswith("row ")  # the text table stays the plain view
    # a comparison: A, B and the difference, the tests under the table
    page = _html(comparison[0])
    assert "<td style=\"text-align: left\">A - B</td>" in page and "McNemar&#x27;s exact test" in page
    # HANS: per heuristic and per subcase
    page = _html(hans[0])
    assert page.count("<table") == 2 and "lexical_overlap" in page and "ln_subject/object_swap" in page
    # a learning curve: its table of means
    page = _html(curve[0])
    assert "<table" in page and "unlexicalized" in page and ">50<" in page and ">100<" in page
    # the DataFrame of the run's table: numbers where the table shows figures
    assert "dataframe" in _html(frame[0]) and "dev acc" in _html(frame[0])
    assert not loud  # an assignment shows nothing
    # Progress, not quiet: each stage line once, on stderr (a notebook draws bars there; no line twice)
    stderr = "".join(o.text for o in outputs[5] if o.output_type == "stream" and o.name == "stderr")
    stdout = "".join(o.text for o in outputs[5] if o.output_type == "stream" and o.name == "stdout")
    assert stderr.count("featurized 300 training pairs") == 1 and "featurized" not in stdout
