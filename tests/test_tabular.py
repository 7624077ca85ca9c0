"""Tables the suite writes read back exactly: any Unicode sentence, through the suite's own reader
and through pandas, in TSV, CSV and JSON lines."""
from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nli_baselines.experiments.corpora.readers.custom import read_custom
from nli_baselines.experiments.outputs.tabular import format_table

# Any text but lone surrogates (not UTF-8) and NUL (not text to the csv module); at least one
# character that is not white space (a sentence of blanks is a blank line to every reader).
SENTENCES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40).filter(
    lambda s: s.strip() != "")
TRICKY = ["a\rb", "a\r\nb", "line\n", "\ttab", 'say "hi"', '"quoted"', "\r", "end\r", "x\u2028y", "é, ß; 中文",
          "\ufeffbom", " lead and trail ", 'a "b" \t c \n d \r e']


def write_and_read(tmp_path, suffix, premises, hypotheses):
    """(path, rows as they read back): in TSV and CSV a cell that begins like a formula and is not
    a number has an apostrophe before it, so that spreadsheets do not evaluate it."""
    path = tmp_path / f"t{suffix}"
    rows = [[f"p{i}", p, h, "yes"] for i, (p, h) in enumerate(zip(premises, hypotheses))]
    path.write_text(format_table(path, ["id", "premise", "hypothesis", "label"], rows), encoding="utf-8")
    return path, rows if suffix == ".jsonl" else [[_inert(cell) for cell in row] for row in rows]


def _inert(text):
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".jsonl"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(premises=st.lists(SENTENCES, min_size=1, max_size=5), hypotheses=st.lists(SENTENCES, min_size=5, max_size=5))
def test_any_sentence_reads_back_exactly(tmp_path, suffix, premises, hypotheses):
    path, rows = write_and_read(tmp_path, suffix, premises, hypotheses)
    pairs = read_custom(path, "custom", "test").pairs
    assert [(p.id, p.premise, p.hypothesis, p.label) for p in pairs] == [tuple(r) for r in rows]
    if suffix == ".jsonl":
        frame = pd.read_json(path, lines=True, dtype=False)
    else:
        frame = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str, keep_default_na=False)
    assert frame.values.tolist() == rows


@pytest.mark.parametrize("suffix", [".tsv", ".csv"])
def test_tricky_sentences_by_hand(tmp_path, suffix):
    path, rows = write_and_read(tmp_path, suffix, TRICKY, TRICKY[::-1])
    assert [(p.premise, p.hypothesis) for p in read_custom(path, "custom", "test").pairs] == [
        (_inert(a), _inert(b)) for a, b in zip(TRICKY, TRICKY[::-1])]
    text = path.read_bytes().decode("utf-8")  # as written: no newline translation
    if suffix == ".tsv":  # a plain cell stays plain; one with a tab, a line break or a quote is quoted
        assert text.split("\n")[0] == "id\tpremise\thypothesis\tlabel" and "\np10\t\ufeffbom\t" in text
        assert '\t"a\rb"\t' in text


@pytest.mark.parametrize("suffix", [".tsv", ".csv"])
def test_cells_that_begin_like_formulas_are_written_inert(tmp_path, suffix):
    cells = ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-2+3", "@SUM(A1)", "-1.5", "+3", "a=b", "1e5"]
    path = tmp_path / f"f{suffix}"
    path.write_text(format_table(path, ["id", "premise"], [[str(i), c] for i, c in enumerate(cells)]))
    read = pd.read_csv(path, sep="\t" if suffix == ".tsv" else ",", dtype=str, keep_default_na=False)
    assert read["premise"].tolist() == ["'=HYPERLINK(\"http://x\",\"y\")", "'+1+2", "'-2+3", "'@SUM(A1)", "-1.5", "+3",
                                        "a=b", "1e5"]


def test_an_unquoted_tsv_with_quotes_in_its_sentences_reads_as_it_stands(tmp_path):
    path = tmp_path / "plain.tsv"
    path.write_text('premise\thypothesis\n"Hi," she said.\tShe spoke.\n"Quoted" at the start\tx\n'
                    'A "quote" inside\tand "another\n')
    pairs = read_custom(path, "custom", "test").pairs
    assert [(p.premise, p.hypothesis) for p in pairs] == [('"Hi," she said.', "She spoke."),
                                                           ('"Quoted" at the start', "x"),
                                                           ('A "quote" inside', 'and "another')]
