"""README's example outputs are what the code prints (tests/readme_examples.py writes them)."""
from __future__ import annotations

from tests import readme_examples


def test_examples_on_the_demo_corpus_are_current():
    examples = readme_examples.examples(readme_examples.README.read_text(encoding="utf-8"))
    assert any(not e.needs_corpora for e in examples)
    assert readme_examples.check(with_corpora=False) == []


def test_examples_on_the_corpora_are_current(data_dir, monkeypatch):
    monkeypatch.setenv("NLI_DATA_DIR", str(data_dir))
    assert readme_examples.check(with_corpora=True) == []


def test_a_stale_example_is_caught():
    text = readme_examples.README.read_text(encoding="utf-8")
    demo = next(e for e in readme_examples.examples(text) if not e.needs_corpora)
    stale = text[:demo.start] + demo.body.replace("95.8", "95.9", 1) + text[demo.end:]
    problems = readme_examples.check(stale, with_corpora=False)
    assert len(problems) == 1 and "is stale" in problems[0]
    # The seconds column varies from run to run and is not compared.
    rows = readme_examples.normalized(demo.body).splitlines()
    assert rows[1].startswith("row") and all("#######" in row for row in rows[3:-1] if "reference)" not in row)
