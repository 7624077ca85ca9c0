"""Every reader on the shared corpora (exact counts, a known row) and on hand-made quirky or broken files."""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from nli_baselines.experiments.corpora import CORPORA, CorpusNotFoundError, custom_corpus, get_corpus
from nli_baselines.experiments.corpora.readers.common import DataFormatError
from nli_baselines.experiments.corpora.readers.custom import read_custom
from nli_baselines.experiments.corpora.readers.glue import read_ax, read_rte
from nli_baselines.experiments.corpora.readers.pascal import read_pascal
from nli_baselines.experiments.corpora.readers.sick import read_sick
from nli_baselines.experiments.corpora.readers.snli import read_nli, tokens_and_tags
from nli_baselines.experiments.corpora.readers.superglue import read_superglue
from nli_baselines.features.labels import CB3, two_class
from tests.conftest import NEEDS_PYARROW

# ---------------------------------------------------------------- shared corpora


@pytest.mark.parametrize("name, split, pairs, labels", [
    ("sick", "train", 4439, {"contradiction": 641, "entailment": 1274, "neutral": 2524}),
    ("sick", "dev", 495, {"contradiction": 71, "entailment": 143, "neutral": 281}),
    ("rte", "train", 2490, {"entailment": 1249, "not_entailment": 1241}),
    ("rte", "dev", 277, {"entailment": 146, "not_entailment": 131}),
    ("rte", "test", 3000, {}),
    ("rte3", "train", 800, {"entailment": 412, "not_entailment": 388}),
    ("rte1", "train", 567, {"entailment": 283, "not_entailment": 284}),
    ("rte2", "train", 400, {"entailment": 210, "not_entailment": 190}),
    ("cb", "train", 250, {"contradiction": 119, "entailment": 115, "neutral": 16}),
    ("cb", "dev", 56, {"contradiction": 28, "entailment": 23, "neutral": 5}),
    ("cb", "test", 250, {}),
    ("ax", "test", 1104, {}),
])
def test_shared_corpus_counts(data_dir, name, split, pairs, labels):
    data = get_corpus(name).load(split, data_dir)
    assert len(data.pairs) == pairs == data.rows
    assert data.label_counts() == labels
    assert not data.skipped


def test_sick_has_no_test_rows_in_the_shared_subset(data_dir):
    data = get_corpus("sick").load("test", data_dir)
    assert data.rows == 0 and data.pairs == []


def test_known_rows(data_dir):
    sick = get_corpus("sick").load("train", data_dir).pairs[0]
    assert (sick.id, sick.label) == ("1", "neutral")
    assert sick.premise == ("A group of kids is playing in a yard and an old man is standing in the background")
    rte = get_corpus("rte").load("train", data_dir).pairs[0]
    assert (rte.id, rte.hypothesis, rte.label) == ("0", "Weapons of Mass Destruction Found in Iraq.", "not_entailment")
    test = get_corpus("rte").load("test", data_dir).pairs
    assert test[46].premise.startswith('"Relative size and the power of the purse')  # quote kept, not eaten
    assert [p.id for p in test] == [str(i) for i in range(3000)]
    rte3 = get_corpus("rte3").load("train", data_dir).pairs[0]
    assert (rte3.id, rte3.hypothesis, rte3.label) == ("1", "Baikalfinansgroup was sold to Rosneft.", "entailment")
    assert rte3.meta == {"task": "IE", "length": "short"}
    rte1 = get_corpus("rte1").load("train", data_dir).pairs[0]
    assert (rte1.id, rte1.hypothesis, rte1.label) == ("8", "Crude oil prices rose to $37.80 per barrel",
                                                      "not_entailment")
    cb = get_corpus("cb").load("train", data_dir).pairs[0]
    assert (cb.id, cb.hypothesis, cb.label) == ("0", "the language was peeled down", "entailment")
    ax = get_corpus("ax").load("test", data_dir).pairs[0]
    assert (ax.id, ax.premise, ax.hypothesis, ax.label) == ("0", "The cat sat on the mat.",
                                                            "The cat did not sit on the mat.", None)


def test_snli_sample(data_dir):
    sample = data_dir / "snli_1.0_sample"
    dev = get_corpus("snli").load("dev", sample)
    assert (dev.rows, len(dev.pairs), dict(dev.skipped)) == (1289, 1273, {"no gold label": 16})
    assert dev.label_counts() == {"contradiction": 419, "entailment": 433, "neutral": 421}
    first = dev.pairs[0]
    assert (first.id, first.label) == ("4705552913.jpg#2r1n", "neutral")
    assert first.premise_tokens == ("Two", "women", "are", "embracing", "while", "holding", "to", "go",
                                    "packages", ".")
    assert first.premise_tags == ("CD", "NNS", "VBP", "VBG", "IN", "VBG", "TO", "VB", "NNS", ".")
    train = get_corpus("snli").load("train", sample)
    assert (len(train.pairs), train.pairs[0].id, train.pairs[0].label) == (10, "3416050480.jpg#4r1n", "neutral")
    txt = read_nli(sample / "snli_1.0_dev.txt", "snli", "dev")
    assert len(txt.pairs) == 10
    assert [(p.id, p.label, p.premise_tags) for p in txt.pairs] == [
        (p.id, p.label, p.premise_tags) for p in dev.pairs[:10]]


# ---------------------------------------------------------------- parse tags


def test_tokens_and_tags_from_parse():
    parse = "(ROOT (S (NP (DT A) (NN man)) (VP (VBZ is) (VP (VBG eating) (NP (-LRB- -LRB-) (NN pizza)))) (. .)))"
    assert tokens_and_tags(parse) == (("A", "man", "is", "eating", "-LRB-", "pizza", "."),
                                      ("DT", "NN", "VBZ", "VBG", "-LRB-", "NN", "."))
    assert tokens_and_tags("") == ((), ())


# ---------------------------------------------------------------- quirks on hand-made files


def write(path: Path, text: str, newline: str = "\n", encoding: str = "utf-8") -> Path:
    path.write_bytes(text.replace("\n", newline).encode(encoding))
    return path


def test_rte_tsv_keeps_quotes_and_reads_crlf(tmp_path):
    path = write(tmp_path / "train.tsv", 'index\tsentence1\tsentence2\tlabel\n'
                 '0\t"Quoted start, no end\tplain\tentailment\n'
                 '1\t "x" inside\t"a"\tnot_entailment', newline="\r\n")
    data = read_rte(path, "rte", "train")
    assert [(p.premise, p.hypothesis, p.label) for p in data.pairs] == [
        ('"Quoted start, no end', "plain", "entailment"), (' "x" inside', '"a"', "not_entailment")]


def test_pascal_both_label_styles(tmp_path):
    rte1 = write(tmp_path / "rte1_dev.xml", '<?xml version="1.0"?>\n<entailment-corpus>\n'
                 '<pair id="8" value="FALSE" task="IR"><t>A b</t><h>c</h></pair>\n'
                 '<pair id="9" value="TRUE"><t>d</t><h>e</h></pair></entailment-corpus>\n', newline="\r\n")
    rte3 = write(tmp_path / "rte3_dev.xml", '<entailment-corpus challenge="3">\n'
                 '<pair id="1" entailment="YES"><t> A\n  b </t><h>c</h></pair>\n'
                 '<pair id="2" entailment="NO"><t>d</t><h>e</h></pair></entailment-corpus>')
    assert [(p.id, p.label) for p in read_pascal(rte1, "rte1", "train").pairs] == [
        ("8", "not_entailment"), ("9", "entailment")]
    pairs = read_pascal(rte3, "rte3", "train").pairs
    assert [(p.id, p.premise, p.label) for p in pairs] == [("1", "A b", "entailment"), ("2", "d", "not_entailment")]
    test = write(tmp_path / "rte3_test.xml", '<entailment-corpus><pair id="5"><t>x</t><h>y</h></pair>'
                 '</entailment-corpus>')
    assert read_pascal(test, "rte3", "test").pairs[0].label is None


def test_sick_split_by_semeval_set(tmp_path):
    header = "pair_ID\tsentence_A\tsentence_B\tentailment_label\tSemEval_set"
    path = write(tmp_path / "SICK.txt", f"{header}\n1\ta\tb\tNEUTRAL\tTRAIN\n2\tc\td\tENTAILMENT\tTRIAL\n"
                 "3\te\tf\tCONTRADICTION\tTEST\n4\tg\th\tENTAILMENT\tTRAIN", newline="\r\n")
    got = {s: [(p.id, p.label) for p in read_sick(path, "sick", s).pairs] for s in ("train", "dev", "test")}
    assert got == {"train": [("1", "neutral"), ("4", "entailment")], "dev": [("2", "entailment")],
                   "test": [("3", "contradiction")]}


def test_ax_labeled_with_multi_phenomenon_cells(tmp_path):
    header = ("Lexical Semantics\tPredicate-Argument Structure\tLogic\tKnowledge\tDomain\tPremise\t"
              "Hypothesis\tLabel")
    path = write(tmp_path / "diagnostic-full.tsv",
                 f"{header}\n\t\tNegation;Double negation\t\tArtificial\tThe cat sat.\tThe cat did not sit.\t"
                 "contradiction\nLexical entailment\t\t\tCommon sense\tNews\tA b.\tA c.\tentailment\n",
                 newline="\r\n")
    pairs = read_ax(path, "ax", "test_labeled").pairs
    assert [(p.id, p.label) for p in pairs] == [("0", "contradiction"), ("1", "entailment")]
    assert pairs[0].meta["categories"] == {"Logic": ["Negation", "Double negation"]}
    assert pairs[1].meta["categories"] == {"Lexical Semantics": ["Lexical entailment"],
                                           "Knowledge": ["Common sense"]}


def test_superglue_unlabeled_test(tmp_path):
    path = write(tmp_path / "test.jsonl", '{"premise": "a", "hypothesis": "b", "idx": 7}')
    pair = read_superglue(path, "cb", "test", labels=("entailment", "contradiction", "neutral")).pairs[0]
    assert (pair.id, pair.label) == ("7", None)


def test_custom_formats_and_empty_sentences(tmp_path):
    tsv = write(tmp_path / "t.tsv", "premise\thypothesis\tlabel\nA man.\t\tyes\n\tB.\tno\n")
    csv = write(tmp_path / "t.csv", 'premise,hypothesis,label\n"A, quoted man.",B.,yes\n')
    jsonl = write(tmp_path / "t.jsonl", '{"premise": "A.", "hypothesis": "B.", "label": "no"}\n\n')
    assert [(p.premise, p.hypothesis) for p in read_custom(tsv, "c", "train").pairs] == [("A man.", ""), ("", "B.")]
    assert read_custom(csv, "c", "train").pairs[0].premise == "A, quoted man."
    assert read_custom(jsonl, "c", "train").pairs[0].label == "no"
    corpus = custom_corpus(train=str(tsv), test=str(jsonl))
    assert corpus.splits == ("train", "test") and corpus.dev_split is None


# ---------------------------------------------------------------- malformed input


@pytest.mark.parametrize("name, text, reader, message", [
    ("bad.jsonl", '{"sentence1": "a", "sentence2": "b", "gold_label": "neutral"}\n{"sentence1": ',
     read_nli, r"bad.jsonl:2: invalid JSON"),
    ("bad.jsonl", '{"sentence1": "a", "gold_label": "neutral"}', read_nli, r"bad.jsonl:1: missing field.*sentence2"),
    ("bad.jsonl", '{"sentence1": "a", "sentence2": "b", "gold_label": "maybe"}', read_nli,
     r"bad.jsonl:1: unknown label 'maybe'"),
    ("train.tsv", "index\tsentence1\tsentence2\tlabel\n0\ta\tb\n", read_rte,
     r"train.tsv:2: expected 4 tab-separated columns, found 3"),
    ("train.tsv", "index\tsentence1\tlabel\n0\ta\tentailment\n", read_rte, r"train.tsv:1: header lacks.*sentence2"),
    ("rte3_dev.xml", '<entailment-corpus>\n<pair id="1" entailment="YES"><t>a</t><h>b</pair>\n', read_pascal,
     r"rte3_dev.xml:2: malformed XML"),
    ("rte3_dev.xml", '<entailment-corpus>\n<pair id="1" entailment="MAYBE"><t>a</t><h>b</h></pair>'
     '</entailment-corpus>', read_pascal, r"rte3_dev.xml:2: unknown label 'MAYBE'"),
    ("rte3_dev.xml", '<entailment-corpus>\n\n<pair id="1" entailment="YES"><t>a</t></pair></entailment-corpus>',
     read_pascal, r"rte3_dev.xml:3: pair lacks"),
])
def test_malformed_rows_name_file_line_and_reason(tmp_path, name, text, reader, message):
    path = write(tmp_path / name, text)
    with pytest.raises(DataFormatError, match=message):
        reader(path, "x", "train")


def test_undecodable_bytes(tmp_path):
    path = tmp_path / "dev.tsv"
    path.write_bytes(b"index\tsentence1\tsentence2\tlabel\n0\ta\tb\tentailment\n1\t\xff\xfe\tb\tentailment\n")
    with pytest.raises(DataFormatError, match=r"dev.tsv:3: undecodable bytes"):
        read_rte(path, "rte", "dev")
    data = read_rte(path, "rte", "dev", on_bad_row="skip")
    assert (len(data.pairs), data.rows, dict(data.skipped)) == (1, 2, {"undecodable bytes": 1})


def test_skip_counts_every_bad_row(tmp_path):
    lines = ['{"sentence1": "a", "sentence2": "b", "gold_label": "neutral"}', "{oops",
             '{"sentence1": "a", "sentence2": "b", "gold_label": "-"}',
             '{"sentence1": "a", "sentence2": "b", "gold_label": "maybe"}', '["a list"]',
             '{"sentence2": "b", "gold_label": "neutral"}']
    data = read_nli(write(tmp_path / "x.jsonl", "\n".join(lines)), "snli", "dev", on_bad_row="skip")
    assert len(data.pairs) == 1 and data.rows == 6
    assert dict(data.skipped) == {"invalid JSON": 2, "no gold label": 1, "unknown label": 1, "missing field": 1}
    assert sum(data.skipped.values()) + len(data.pairs) == data.rows


def test_missing_corpus_message(tmp_path):
    with pytest.raises(CorpusNotFoundError) as info:
        get_corpus("sick").load("train", tmp_path)
    message = str(info.value)
    assert str(tmp_path / "sick" / "SICK.txt") in message
    assert "download.py sick" in message and "NLI_DATA_DIR" in message and "--dataset demo" in message


def test_registry_labels_and_two_class_mapping():
    assert set(CORPORA) >= {"snli", "mnli", "sick", "rte", "rte1", "rte2", "rte3", "ax", "cb", "superglue-rte",
                            "ax-b", "demo"}
    assert [two_class(x) for x in ("entailment", "neutral", "contradiction", None)] == [
        "entailment", "not_entailment", "not_entailment", None]
    assert get_corpus("rte").is_two_class and not get_corpus("sick").is_two_class
    with pytest.raises(ValueError, match="unknown dataset 'nope'"):
        get_corpus("nope")


def test_mnli_glue_tsv_layout(tmp_path):
    header = ("index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
              "sentence2_parse\tsentence1\tsentence2\tlabel1\tgold_label")
    row = ("0\t1\t1n\tfiction\t( a b )\t( c )\t(ROOT (NP (DT A) (NN b)))\t(ROOT (NN c))\tA b\tc\tneutral\tneutral")
    (tmp_path / "glue" / "MNLI").mkdir(parents=True)
    write(tmp_path / "glue" / "MNLI" / "dev_matched.tsv", f"{header}\n{row}\n")
    pair = get_corpus("mnli").load("dev_matched", tmp_path).pairs[0]
    assert (pair.id, pair.label, pair.premise_tags, pair.meta) == ("0", "neutral", ("DT", "NN"), {"genre": "fiction"})
    write(tmp_path / "multinli_1.0_train.jsonl", json.dumps(
        {"gold_label": "contradiction", "sentence1": "A b", "sentence2": "c", "pairID": "9",
         "sentence1_parse": "(ROOT (NP (DT A) (NN b)))", "sentence2_parse": "(ROOT (NN c))", "genre": "slate"}))
    pair = get_corpus("mnli").load("train", tmp_path).pairs[0]
    assert (pair.id, pair.label, pair.hypothesis_tokens) == ("9", "contradiction", ("c",))


# ---------------------------------------------------------------- inputs that crashed, merged or miscounted
# (issue 14, items 5 and 9): each bad input is an error naming FILE:LINE, or one counted skip.

def read_cb(path, dataset="cb", split="test", on_bad_row="error"):
    return read_superglue(path, dataset, split, on_bad_row, labels=CB3)


def jsonl_row(**fields) -> str:
    return json.dumps(fields)


def assert_bad_row(path, reader, message, category, good=0):
    """The row is an error naming the file and line; with skip it is counted under `category`."""
    with pytest.raises(DataFormatError, match=message):
        reader(path, "x", "train")
    data = reader(path, "x", "train", on_bad_row="skip")
    assert (len(data.pairs), dict(data.skipped)) == (good, {category: 1})
    assert data.rows == good + 1


def test_csv_field_longer_than_the_csv_module_limit(tmp_path):
    # 131,072 characters is the csv module's default cap; a long cell outside the sentences is fine.
    notes, long = "n" * 150_000, "x" * 200_000
    path = write(tmp_path / "t.csv", f"premise,hypothesis,label,notes\nA.,B.,yes,{notes}\n\"{long}\",B.,no,\n")
    assert_bad_row(path, read_custom, r"t.csv:3: field 'premise' is 200,000 characters long; the limit is 100,000",
                   "sentence too long", good=1)
    assert csv.field_size_limit() == 131_072  # the process-wide cap is put back


@pytest.mark.parametrize("line, message", [
    ("[" * 100_000 + "]" * 100_000, r"x.jsonl:2: invalid JSON \(nested too deeply\)"),
    ('{"sentence1": ' + "[" * 100_000 + "]" * 100_000 + "}", r"x.jsonl:2: invalid JSON \(nested too deeply\)"),
    ('{"sentence1": "a", "sentence2": "b", "gold_label": "neutral", "n": ' + "9" * 5000 + "}",
     r"x.jsonl:2: invalid JSON \(.*5000 digits"),
    # 1,000 levels: within orjson's limit (1,023), beyond json's; the same bad row with or without orjson
    ('{"sentence1": "a", "sentence2": "b", "gold_label": "neutral", "x": ' + "[" * 1000 + "]" * 1000 + "}",
     r"x.jsonl:2: invalid JSON \(nested too deeply\)"),
])
def test_jsonl_lines_json_cannot_hold(tmp_path, line, message):
    good = jsonl_row(sentence1="a", sentence2="b", gold_label="neutral")
    assert_bad_row(write(tmp_path / "x.jsonl", f"{good}\n{line}\n"), read_nli, message, "invalid JSON", good=1)


@pytest.mark.parametrize("reader, row", [
    (read_nli, '{"sentence1": "a\\ud800", "sentence2": "b", "gold_label": "neutral"}'),
    (read_nli, '{"sentence1": "a", "sentence2": "b", "gold_label": "neutral", "pairID": "\\udfff"}'),
    (read_cb, '{"premise": "a", "hypothesis": "\\udbff", "idx": 0}'),
    (read_custom, '{"premise": "a", "hypothesis": "b", "label": ["x", "\\ud800"]}'),
])
def test_jsonl_lone_surrogate_is_a_bad_row(tmp_path, reader, row):
    assert_bad_row(write(tmp_path / "x.jsonl", row), reader, r"x.jsonl:1: field '\w+' holds a lone surrogate",
                   "lone surrogate")


def test_jsonl_escaped_surrogate_pairs_are_text(tmp_path):
    path = write(tmp_path / "x.jsonl", '{"sentence1": "a \\ud83d\\ude00", "sentence2": "\\\\ud800", '
                 '"gold_label": "neutral"}')
    pair = read_nli(path, "snli", "dev").pairs[0]
    assert (pair.premise, pair.hypothesis) == ("a \U0001F600", "\\ud800")


LONG = "w" * 100_001  # one over MAX_SENTENCE_CHARS
SICK_HEADER = "pair_ID\tsentence_A\tsentence_B\tentailment_label\tSemEval_set"


@pytest.mark.parametrize("name, text, reader, field", [
    ("train.tsv", f"index\tsentence1\tsentence2\tlabel\n0\t{LONG}\tb\tentailment\n", read_rte, "sentence1"),
    ("diagnostic-full.tsv", f"Domain\tPremise\tHypothesis\tLabel\nNews\ta\t{LONG}\tneutral\n", read_ax,
     "Hypothesis"),
    ("SICK.txt", f"{SICK_HEADER}\n1\t{LONG}\tb\tNEUTRAL\tTRAIN\n", read_sick, "sentence_A"),
    ("x.jsonl", jsonl_row(sentence1="a", sentence2=LONG, gold_label="neutral"), read_nli, "sentence2"),
    ("x.txt", f"gold_label\tsentence1\tsentence2\nneutral\t{LONG}\tb\n", read_nli, "sentence1"),
    ("x.jsonl", jsonl_row(premise=LONG, hypothesis="b", idx=0), read_cb, "premise"),
    ("x.jsonl", jsonl_row(premise="a", hypothesis=LONG), read_custom, "hypothesis"),
    ("x.tsv", f"premise\thypothesis\n{LONG}\tb\n", read_custom, "premise"),
    ("x.csv", f"premise,hypothesis\na,{LONG}\n", read_custom, "hypothesis"),
    ("rte3_dev.xml", f'<entailment-corpus>\n<pair id="1" entailment="YES"><t>{LONG}</t><h>b</h></pair>'
     "</entailment-corpus>", read_pascal, "t"),
])
def test_sentence_over_the_length_limit_is_a_bad_row(tmp_path, name, text, reader, field):
    line = 1 if name.endswith(".jsonl") else 2  # the other files have a header line
    assert_bad_row(write(tmp_path / name, text), reader,
                   rf"{name}:{line}: field '{field}' is 100,001 characters long; the limit is 100,000",
                   "sentence too long")


@pytest.mark.parametrize("fields, message", [
    ({"sentence1": 123}, r"field 'sentence1' must be a string, not a number"),
    ({"sentence1": None}, r"field 'sentence1' must be a string, not null"),
    ({"sentence2": ["b"]}, r"field 'sentence2' must be a string, not an array"),
    ({"gold_label": 5}, r"field 'gold_label' must be a string, not a number"),
    ({"gold_label": ["neutral"]}, r"field 'gold_label' must be a string, not an array"),
    ({"gold_label": None}, r"field 'gold_label' must be a string, not null"),
    ({"sentence1_parse": 5}, r"field 'sentence1_parse' must be a string, not a number"),
    ({"sentence2_parse": ["(NN b)"]}, r"field 'sentence2_parse' must be a string, not an array"),
    ({"pairID": ["1"]}, r"field 'pairID' must be a string or an integer, not an array"),
    ({"genre": {"x": 1}}, r"field 'genre' must be a string, not an object"),
])
def test_snli_fields_of_the_wrong_json_type(tmp_path, fields, message):
    row = {"sentence1": "a", "sentence2": "b", "gold_label": "neutral", "sentence1_parse": "(NN a)",
           "sentence2_parse": "(NN b)", "pairID": "1"} | fields
    assert_bad_row(write(tmp_path / "x.jsonl", json.dumps(row)), read_nli, rf"x.jsonl:1: {message}",
                   "wrong field type")


@pytest.mark.parametrize("fields, message", [
    ({"premise": 5}, r"field 'premise' must be a string, not a number"),
    ({"hypothesis": None}, r"field 'hypothesis' must be a string, not null"),
    ({"premise": {"text": "a"}}, r"field 'premise' must be a string, not an object"),
    ({"label": 1}, r"field 'label' must be a string, not a number"),
    ({"label": None}, r"field 'label' must be a string, not null"),
    ({"idx": "abc"}, r"field 'idx' must be an integer, not a string"),
    ({"idx": "7"}, r"field 'idx' must be an integer, not a string"),
    ({"idx": 1.5}, r"field 'idx' must be an integer, not a number"),
    ({"idx": True}, r"field 'idx' must be an integer, not a boolean"),
    ({"idx": None}, r"field 'idx' must be an integer, not null"),
])
def test_superglue_fields_of_the_wrong_json_type(tmp_path, fields, message):
    row = {"premise": "a", "hypothesis": "b", "label": "neutral", "idx": 3} | fields
    assert_bad_row(write(tmp_path / "x.jsonl", json.dumps(row)), read_cb, rf"x.jsonl:1: {message}", "wrong field type")


def test_superglue_ids_are_the_integer_idx(tmp_path):
    rows = [{"sentence1": "a", "sentence2": "b", "idx": 12}, {"sentence1": "c", "sentence2": "d"}]
    data = read_superglue(write(tmp_path / "x.jsonl", "\n".join(map(json.dumps, rows))), "superglue-rte", "test")
    assert [p.id for p in data.pairs] == ["12", "1"]


@pytest.mark.parametrize("fields, message", [
    ({"premise": ["a"]}, r"field 'premise' must be a string or an integer, not an array"),
    ({"premise": {"a": 1}}, r"field 'premise' must be a string or an integer, not an object"),
    ({"premise": None}, r"field 'premise' must be a string or an integer, not null"),
    ({"hypothesis": True}, r"field 'hypothesis' must be a string or an integer, not a boolean"),
    ({"label": None}, r"field 'label' must be a string or an integer, not null"),
])
def test_custom_jsonl_fields_of_the_wrong_json_type(tmp_path, fields, message):
    row = {"premise": "a", "hypothesis": "b", "label": "yes"} | fields
    assert_bad_row(write(tmp_path / "x.jsonl", json.dumps(row)), read_custom, rf"x.jsonl:1: {message}",
                   "wrong field type")


def test_custom_jsonl_integers_are_text(tmp_path):
    # Exported datasets often hold integer labels and ids; their text is unambiguous.
    path = write(tmp_path / "x.jsonl", jsonl_row(premise=7, hypothesis="b", label=0, id=41))
    pair = read_custom(path, "c", "train", id_column="id").pairs[0]
    assert (pair.id, pair.premise, pair.label) == ("41", "7", "0")


def test_snlis_own_file_as_a_training_file_leaves_out_pairs_without_a_gold_label(tmp_path):
    # SNLI's jsonl through --train-file made "-" (no consensus among annotators) a fourth class.
    rows = [("A dog runs .", "An animal moves .", "entailment"), ("A dog runs .", "A cat sleeps .", "-"),
            ("A man sits .", "A man stands .", "contradiction")]
    path = write(tmp_path / "snli_1.0_train.jsonl", "".join(
        json.dumps({"gold_label": g, "sentence1": a, "sentence2": b, "pairID": f"p{i}"}) + "\n"
        for i, (a, b, g) in enumerate(rows)))
    data = read_custom(path, "c", "train", premise="sentence1", hypothesis="sentence2", label="gold_label")
    assert [(p.id, p.label) for p in data.pairs] == [("p0", "entailment"), ("p2", "contradiction")]
    assert data.skipped == {"no gold label": 1}
    # In any other label column "-" is a label like another.
    other = write(tmp_path / "x.jsonl", jsonl_row(premise="a", hypothesis="b", label="-"))
    assert read_custom(other, "c", "train").pairs[0].label == "-"


def test_custom_jsonl_numbers_in_the_label_column_are_their_shortest_text(tmp_path):
    # A score (3.80 in the file) is its shortest text, as a float column's is; elsewhere a float is no text.
    path = write(tmp_path / "x.jsonl", '{"premise": "a", "hypothesis": "b", "label": 3.80}\n'
                                       '{"premise": "a", "hypothesis": "b", "label": 1e-3}\n')
    assert [p.label for p in read_custom(path, "c", "train").pairs] == ["3.8", "0.001"]
    assert_bad_row(write(tmp_path / "y.jsonl", jsonl_row(premise=1.5, hypothesis="b", label="x")), read_custom,
                   r"y.jsonl:1: field 'premise' must be a string or an integer, not a number", "wrong field type")


def test_csv_unterminated_quote_swallowing_the_rest_of_the_file(tmp_path):
    rows = "".join(f"P{i}.,H{i}.\n" for i in range(34))
    path = write(tmp_path / "t.csv", f'premise,hypothesis\nA.,"B. oops\n{rows}')
    with pytest.raises(DataFormatError, match=r"t.csv:2: unterminated quote: the quoted field opened on line 2 "
                                              r"runs to the end of the file \(35 lines\)"):
        read_custom(path, "c", "test")
    data = read_custom(path, "c", "test", on_bad_row="skip")  # the rows after the stray quote are kept
    assert (data.rows, len(data.pairs), dict(data.skipped)) == (35, 34, {"unterminated quote": 1})
    assert [p.id for p in data.pairs][:2] == ["1", "2"] and data.pairs[-1].premise == "P33."


def test_csv_stray_quote_closed_by_a_later_one(tmp_path):
    path = write(tmp_path / "t.csv", 'premise,hypothesis,label\nA.,"B. oops,yes\nC.,D.,no\nE.,F" end,yes\nG.,H.,no\n')
    with pytest.raises(DataFormatError, match=r"t.csv:2: unterminated quote\? the quoted field opened on line 2 "
                                              r"closes on line 4 in the middle of a field"):
        read_custom(path, "c", "train")
    data = read_custom(path, "c", "train", on_bad_row="skip")
    assert [(p.id, p.hypothesis) for p in data.pairs] == [("1", "D."), ("2", 'F" end'), ("3", "H.")]
    assert (data.rows, dict(data.skipped)) == (4, {"unterminated quote": 1})


def test_csv_multi_line_fields_keep_their_blank_lines(tmp_path):
    path = write(tmp_path / "t.csv", 'premise,hypothesis\n"One.\n\nThree, ""quoted"".",B.\n\nC.,D.\n',
                 newline="\r\n")
    data = read_custom(path, "c", "test")
    assert [(p.id, p.premise) for p in data.pairs] == [("0", 'One.\n\nThree, "quoted".'), ("1", "C.")]
    assert data.rows == 2


def test_csv_multi_line_record_with_wrong_column_count_names_its_first_line(tmp_path):
    path = write(tmp_path / "t.csv", 'premise,hypothesis,label\n"One\ntwo",B.\nC.,D.,yes\n')
    assert_bad_row(path, read_custom, r"t.csv:2: expected 3 comma-separated columns, found 2 \(the record spans "
                   r"lines 2-3\)", "wrong column count", good=1)


def test_csv_line_numbers_count_blank_lines(tmp_path):
    path = write(tmp_path / "t.csv", "premise,hypothesis,label\n\na,b,yes\n\n  \n\nc,d\n")
    assert_bad_row(path, read_custom, r"t.csv:7: expected 3 comma-separated columns, found 2",
                   "wrong column count", good=1)
    assert read_custom(path, "c", "train", on_bad_row="skip").pairs[0].id == "0"


def test_csv_carriage_return_inside_an_unquoted_field(tmp_path):
    path = write(tmp_path / "t.csv", "premise,hypothesis\na,b\nc\rd,e\n")
    assert_bad_row(path, read_custom, r"t.csv:3: malformed CSV \(new-line character seen in unquoted field",
                   "malformed CSV", good=1)


def test_csv_undecodable_line_inside_a_quoted_field(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b'premise,hypothesis\n"a\n\xff b",c\nd,e\n')
    assert_bad_row(path, read_custom, r"t.csv:3: undecodable bytes \(not UTF-8\) at byte 0", "undecodable bytes",
                   good=1)


def test_sick_undecodable_line_is_counted_once_over_the_splits(tmp_path):
    path = tmp_path / "SICK.txt"
    path.write_bytes(f"{SICK_HEADER}\r\n1\ta\tb\tNEUTRAL\tTRAIN\r\n2\tc\td\tENTAILMENT\tTRIAL\r\n".encode()
                     + b"3\tc\xff\td\tENTAILMENT\tTRIAL\r\n4\te\tf\tNEUTRAL\t\xffTRIAL\r\n5\tg\th\tNEUTRAL\tTEST")
    splits = {s: read_sick(path, "sick", s, on_bad_row="skip") for s in ("train", "dev", "test")}
    got = {s: (d.rows, len(d.pairs), dict(d.skipped)) for s, d in splits.items()}
    assert got == {"train": (2, 1, {"undecodable bytes": 1}), "dev": (2, 1, {"undecodable bytes": 1}),
                   "test": (1, 1, {})}
    with pytest.raises(DataFormatError, match=r"SICK.txt:4: undecodable bytes"):
        read_sick(path, "sick", "dev")
    with pytest.raises(DataFormatError, match=r"SICK.txt:5: undecodable bytes"):
        read_sick(path, "sick", "train")
    assert len(read_sick(path, "sick", "test").pairs) == 1


def test_pascal_follows_the_declared_encoding(tmp_path):
    path = write(tmp_path / "rte3_dev.xml", '<?xml version="1.0" encoding="ISO-8859-1"?>\n<entailment-corpus>\n'
                 '<pair id="1" entailment="YES"><t>Caf\u00e9 cr\u00e8me</t><h>\u00e0 Paris</h></pair>'
                 '</entailment-corpus>', encoding="latin-1")
    pair = read_pascal(path, "rte3", "train").pairs[0]
    assert (pair.premise, pair.hypothesis) == ("Caf\u00e9 cr\u00e8me", "\u00e0 Paris")


@pytest.mark.parametrize("encoding, message", [("foo", "unknown encoding: foo"),
                                               ("Shift_JIS", "multi-byte encodings are not supported")])
def test_pascal_declared_encoding_it_cannot_read(tmp_path, encoding, message):
    path = write(tmp_path / "rte3_dev.xml", f'<?xml version="1.0" encoding="{encoding}"?>\n<entailment-corpus>\n'
                 '<pair id="1" entailment="YES"><t>a</t><h>b</h></pair></entailment-corpus>')
    with pytest.raises(DataFormatError, match=rf"rte3_dev.xml:1: unreadable XML encoding: {message}"):
        read_pascal(path, "rte3", "train")


def test_pascal_nested_pair(tmp_path):
    path = write(tmp_path / "rte3_dev.xml", '<entailment-corpus>\n<pair id="1" entailment="YES"><t>a</t>\n'
                 '<pair id="2" entailment="NO"><t>b</t><h>c</h></pair>\n<h>d</h></pair>\n'
                 '<pair id="3" entailment="NO"><t>e</t><h>f</h></pair></entailment-corpus>')
    with pytest.raises(DataFormatError, match=r"rte3_dev.xml:3: a <pair> inside the <pair> opened on line 2"):
        read_pascal(path, "rte3", "train")
    data = read_pascal(path, "rte3", "train", on_bad_row="skip")
    assert ([p.id for p in data.pairs], data.rows, dict(data.skipped)) == (["3"], 3, {"nested pair": 2})


def test_pascal_second_t_element(tmp_path):
    path = write(tmp_path / "rte3_dev.xml", '<entailment-corpus>\n<pair id="1" entailment="YES"><t>a</t>'
                 '<t>b</t><h>c</h></pair></entailment-corpus>')
    assert_bad_row(path, read_pascal, r"rte3_dev.xml:2: pair has more than one <t> element", "malformed pair")


# ---------------------------------------------------------------- fast paths give the reference results


def _reference_lines(data: bytes) -> list[tuple[int, str, str | None]]:
    """decoded_lines as specified: the whole file split on LF, CR stripped, decoded line by line."""
    raws = data.split(b"\n")
    if len(raws) > 1 and not raws[-1]:
        raws.pop()
    out = []
    for number, raw in enumerate(raws, start=1):
        raw = raw[:-1] if raw.endswith(b"\r") else raw
        try:
            text, problem = raw.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            text, problem = raw.decode("utf-8", errors="replace"), f"undecodable bytes (not UTF-8) at byte {exc.start}"
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        out.append((number, text, problem))
    return out


@pytest.mark.parametrize("data", [
    b"", b"\n", b"a", b"a\n", b"\xef\xbb\xbfa\r\nb\r\n\r\nc", b"a\rb\r\n\xffx\ny\xc3\n\n", b"\r\n" * 5 + b"z\r",
    "".join(f"line {i} \u00e9\r\n" if i % 3 else f"line {i}\n" for i in range(200)).encode() + b"bad \xc3(\nend",
])
def test_block_reading_equals_reading_line_by_line(tmp_path, monkeypatch, data):
    import nli_baselines.experiments.corpora.readers.common as common
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    for block in (7, 64, 1 << 23):  # blocks ending mid-line, mid-character, and the whole file
        monkeypatch.setattr(common, "_BLOCK_BYTES", block)
        assert list(common.decoded_lines(path)) == _reference_lines(data)


@pytest.mark.parametrize("data", [
    b"a\rb\r\n\xffx\ny\xc3\n\n", b"\r\n" * 5 + b"z\r", b"a\rb\rc\r" * 20, b"\xef\xbb\xbf" + b"x\ty\r\n" * 30,
    "".join(f"line {i} \u00e9\r\n" if i % 3 else f"line {i}\n" for i in range(50)).encode() + b"bad \xc3(\nend",
])
def test_reading_a_few_bytes_at_a_time_reads_the_same_lines(tmp_path, monkeypatch, data):
    # The first line alone is read 64 KiB at a time; the line endings are still decided by the first 8 MiB.
    import nli_baselines.experiments.corpora.readers.common as common
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    monkeypatch.setattr(common, "_BLOCK_BYTES", 64)
    for keep_cr in (False, "lf-files"):
        whole = list(common.decoded_lines(path, keep_cr=keep_cr))
        for block in (1, 5, 64):
            assert list(common.decoded_lines(path, keep_cr=keep_cr, block_bytes=block)) == whole
    assert len(list(common.decoded_lines(path))) == (60 if data.startswith(b"a\rb\rc") else len(whole))


def test_jsonl_through_orjson_equals_the_standard_library(tmp_path, monkeypatch):
    import nli_baselines.experiments.corpora.readers.common as common
    rows = [jsonl_row(sentence1="a", sentence2="b", gold_label="neutral", pairID=123456789012345678901234567890),
            jsonl_row(sentence1="é \u2028", sentence2="b", gold_label="entailment", pairID=7, genre="x"),
            '{"sentence1": "a", "sentence2": "b", "gold_label": "neutral", "score": 1.5, "pairID": "f"}',
            '{"sentence1": "a", "sentence2": "b", "gold_label": "neutral", "pairID": "d", "pairID": "dup"}',
            '{"sentence1": "a", "sentence2": NaN, "gold_label": "neutral"}',
            '{"sentence1": "a\\ud800", "sentence2": "b", "gold_label": "neutral"}',
            '{"sentence1": "a", "sentence2": "b", "gold_label": "neutral", "x": 1e400}',
            '{"sentence1": "a", "sentence2": "b", "gold_label": "-"}', "[1, 2]", "{not json", "null"]
    path = write(tmp_path / "x.jsonl", "\n".join(rows))
    fast = read_nli(path, "snli", "dev", on_bad_row="skip")
    monkeypatch.setattr(common, "_orjson", None)
    slow = read_nli(path, "snli", "dev", on_bad_row="skip")
    assert [(p.id, p.premise, p.hypothesis, p.label, dict(p.meta)) for p in fast.pairs] == [
        (p.id, p.premise, p.hypothesis, p.label, dict(p.meta)) for p in slow.pairs]
    assert fast.pairs[0].id == "123456789012345678901234567890" and len(fast.pairs) == 5
    assert (fast.rows, dict(fast.skipped)) == (slow.rows, dict(slow.skipped))


def test_well_formed_rows_equal_the_checked_path(tmp_path, monkeypatch):
    import nli_baselines.experiments.corpora.readers.snli as snli
    parse = "(ROOT (S (NP (DT A) (NN dog)) (VP (VBZ runs)) (. .)))"
    rows = [jsonl_row(sentence1="A dog runs .", sentence2="A dog runs .", gold_label=g, pairID=i, genre=genre,
                      sentence1_parse=parse, sentence2_parse=parse if i % 2 else "")
            for i, (g, genre) in enumerate([("neutral", "fiction"), ("entailment", ""), ("contradiction", "x")])]
    rows.append(jsonl_row(sentence1="a", sentence2="b", gold_label="neutral", captionID="c"))
    path = write(tmp_path / "x.jsonl", "\n".join(rows))
    fast = read_nli(path, "snli", "dev")
    monkeypatch.setattr(snli, "_well_formed_pair", lambda *args: None)
    checked = read_nli(path, "snli", "dev")
    assert fast.pairs == checked.pairs and [p.meta for p in fast.pairs] == [p.meta for p in checked.pairs]
    assert fast.pairs[1].premise_tags == ("DT", "NN", "VBZ", ".") and fast.pairs[3].id == "4"


# ------------------------------------------------------------------ inputs a new task brings


def test_nested_jsonl_fields_ids_and_columns_recorded(tmp_path):
    from nli_baselines.experiments.corpora.readers.custom import read_custom
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"idx": 7, "input": {"context": "A man sleeps .", "claim": "A person sleeps ."}, '
                    '"output": {"label": "yes"}}\n'
                    '{"idx": 9, "input": {"context": "A dog runs .", "claim": "A cat runs ."}, "output": {"label": "no"}}\n')
    data = read_custom(path, "custom", "train", premise="input.context", hypothesis="input.claim",
                       label="output.label")
    assert [(p.id, p.premise, p.hypothesis, p.label) for p in data.pairs] == [
        ("7", "A man sleeps .", "A person sleeps .", "yes"), ("9", "A dog runs .", "A cat runs .", "no")]
    assert data.fields == {"premise": "input.context", "hypothesis": "input.claim", "label": "output.label",
                           "id": "idx"}
    assert any("ids from column 'idx' (detected)" in note for note in data.notes)


@pytest.mark.parametrize("name", ["id", "idx", "pairID", "pair_id"])
def test_an_id_column_is_found_by_itself(tmp_path, name):
    from nli_baselines.experiments.corpora.readers.custom import read_custom
    path = tmp_path / "pairs.tsv"
    path.write_text(f"premise\thypothesis\t{name}\nA b .\tA .\tx17\n")
    assert read_custom(path, "custom", "train").pairs[0].id == "x17"


def test_a_mistyped_id_column_is_an_error(tmp_path):
    from nli_baselines.experiments.corpora.readers.custom import read_custom
    path = tmp_path / "pairs.tsv"
    path.write_text("premise\thypothesis\tpair\nA b .\tA .\tx17\n")
    with pytest.raises(DataFormatError, match=r"pairs.tsv:1: no id column 'pairid'; the columns are premise, hypothesis"):
        read_custom(path, "custom", "train", id_column="pairid")
    with pytest.raises(DataFormatError, match="both column 'premise'"):
        read_custom(path, "custom", "train", premise="premise", hypothesis="premise")


@pytest.mark.parametrize("suffix, header", [(".tsv", "premise\thypothesis\tpremise"),
                                            (".csv", "premise,label,hypothesis,label")])
def test_a_header_that_names_a_column_twice_is_refused(tmp_path, suffix, header):
    from nli_baselines.experiments.corpora.readers.custom import read_custom
    path = tmp_path / f"pairs{suffix}"
    sep = "\t" if suffix == ".tsv" else ","
    path.write_text(header + "\n" + sep.join(["a"] * len(header.split(sep))) + "\n")
    with pytest.raises(DataFormatError, match=r":1: the header names column '(premise|label)' twice"):
        read_custom(path, "custom", "train")


def test_cr_only_line_endings_keep_every_row(tmp_path):
    from nli_baselines.experiments.corpora.readers.custom import read_custom
    path = tmp_path / "mac.tsv"
    rows = "".join(f"A man number {i} sleeps .\rA person sleeps .\rentailment\r".replace("\r", "\t", 2)
                   for i in range(301))
    path.write_bytes(("premise\thypothesis\tlabel\r" + rows).encode())
    data = read_custom(path, "custom", "test")
    assert len(data.pairs) == 301 and data.pairs[-1].premise == "A man number 300 sleeps ."
    assert data.pairs[0].label == "entailment" and data.pairs[0].id == "0"


def test_a_nested_field_named_without_its_path_gets_the_dotted_name(tmp_path):
    from nli_baselines.experiments.corpora.readers.common import DataFormatError
    from nli_baselines.experiments.corpora.readers.custom import read_custom
    path = tmp_path / "nested.jsonl"
    path.write_text('{"pair": {"p": "A man sleeps .", "h": "A man is asleep ."}, "label": "entailment"}\n')
    with pytest.raises(DataFormatError, match=r"nested.jsonl:1: missing field 'p' \(the row has pair, label; name it "
                                              r"pair.p\)"):
        read_custom(path, "custom", "train", premise="p", hypothesis="pair.h")
    assert read_custom(path, "custom", "train", premise="pair.p", hypothesis="pair.h").pairs[0].premise == \
        "A man sleeps ."


def test_snli_pairs_keep_their_trees_and_share_a_premise_s(tmp_path):
    # The trees are where the strongest group's dependency parses come from (no parser needed).
    premise = "(ROOT (S (NP (DT A) (NN dog)) (VP (VBZ runs))))"
    rows = [{"sentence1": "A dog runs", "sentence2": h, "gold_label": "neutral", "sentence1_parse": premise,
             "sentence2_parse": f"(ROOT (NP (NN {h})))", "pairID": str(i)} for i, h in enumerate(("x", "y"))]
    path = tmp_path / "snli_1.0_dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    first, second = read_nli(path, "snli", "dev").pairs
    assert first.premise_tree == premise and first.hypothesis_tree == "(ROOT (NP (NN x)))"
    assert first.premise_tree is second.premise_tree and first.premise_tokens is second.premise_tokens
    assert first == first.with_annotation((("A", "dog", "runs"), ("DT", "NN", "VBZ")), (("x",), ("NN",)))


# ------------------------------------------------------------- jsonl a block at a time, progress


def _snli_rows() -> list[str]:
    """Rows the column-at-a-time path builds and rows it leaves to the row path, mixed."""
    p1, p2 = "(ROOT (S (NP (DT A) (NN dog)) (VP (VBZ runs)) (. .)))", "(ROOT (NP (NN x\u3000y) (-LRB- -LRB-)))"
    rows = []
    for i in range(60):
        row = dict(sentence1=f"s{i % 7}", sentence2="h", gold_label=("neutral", "entailment", "-", "hidden")[i % 4],
                   pairID=f"p{i}" if i % 5 else "", sentence1_parse=(p1, p2, f"(X ({i % 7} y))")[i % 3],
                   sentence2_parse=(p2, p1, "", "(A  b) (\0 \0) (c d)\n(e f)")[i % 4])
        if i % 6 < 2:
            row["genre"] = "fiction" if i % 6 else ""
        rows.append(json.dumps(row))
    return rows


def _same_pairs(fast, checked):
    """Equal pairs (the fields == leaves out too), interned tokens, a premise's tuples shared alike."""
    assert (fast.rows, dict(fast.skipped)) == (checked.rows, dict(checked.skipped))
    assert fast.pairs == checked.pairs
    for p, q in zip(fast.pairs, checked.pairs):
        assert (p.premise_tree, p.hypothesis_tree, p.meta) == (q.premise_tree, q.hypothesis_tree, q.meta)
        assert all(s is sys.intern(s) for s in (p.premise_tokens or ()) + (p.hypothesis_tags or ()))
    assert _first_sharing(fast.pairs) == _first_sharing(checked.pairs)


def _first_sharing(pairs) -> list[int]:
    """For each pair, the first pair holding the very same premise tokens."""
    return [next(i for i, q in enumerate(pairs) if q.premise_tokens is p.premise_tokens) for p in pairs]


@pytest.mark.parametrize("block, bad_lines", [(1 << 23, False), (1 << 23, True), (200, True)])
def test_jsonl_block_path_equals_the_row_path(tmp_path, monkeypatch, block, bad_lines):
    # One block of rows (built by columns), blocks read line by line, and a mix of both.
    import nli_baselines.experiments.corpora.readers.common as common
    import nli_baselines.experiments.corpora.readers.snli as snli
    monkeypatch.setattr(common, "_BLOCK_BYTES", block)
    lines = _snli_rows()
    if bad_lines:
        lines[40:40] = ["", "{not json", jsonl_row(sentence1=None, sentence2="b", gold_label="neutral")]
    path = write(tmp_path / "x.jsonl", "\n".join(lines))
    fast = read_nli(path, "snli", "dev", on_bad_row="skip")
    monkeypatch.setattr(snli, "_text_columns", lambda rows: None)
    checked = read_nli(path, "snli", "dev", on_bad_row="skip")
    _same_pairs(fast, checked)
    assert len(fast.pairs) == 45 and fast.skipped == (
        {"no gold label": 15, "invalid JSON": 1, "wrong field type": 1} if bad_lines else {"no gold label": 15})
    assert [(p.id, p.label, dict(p.meta)) for p in fast.pairs[:2]] == [("1", "neutral", {}),
                                                                        ("p1", "entailment", {"genre": "fiction"})]


@pytest.mark.parametrize("bad_lines, message", [
    ({3: jsonl_row(sentence1="a", sentence2="b", gold_label="maybe"), 6: "{not json"}, r"x.jsonl:4: unknown label"),
    ({3: "{not json", 6: jsonl_row(sentence1="a", sentence2="b", gold_label="maybe")}, r"x.jsonl:4: invalid JSON"),
    ({2: jsonl_row(sentence1="a", sentence2="b", gold_label="-"), 4: jsonl_row(sentence1="a", sentence2="b",
                                                                                 gold_label="maybe"),
      6: jsonl_row(sentence1="a", sentence2="b", gold_label="huh")}, r"x.jsonl:5: unknown label 'maybe'"),
    ({2: jsonl_row(sentence1="a", sentence2="b", gold_label="-"), 5: jsonl_row(sentence1="a", sentence2=[],
                                                                                 gold_label="neutral")},
     r"x.jsonl:6: field 'sentence2' must be a string"),
])
def test_the_first_bad_row_of_a_block_is_the_one_reported(tmp_path, bad_lines, message):
    lines = [jsonl_row(sentence1="a", sentence2="b", gold_label="neutral", sentence1_parse="(A a)",
                       sentence2_parse="(B b)") for _ in range(8)]
    for number, line in bad_lines.items():
        lines[number] = line
    with pytest.raises(DataFormatError, match=message):
        read_nli(write(tmp_path / "x.jsonl", "\n".join(lines)), "snli", "dev")


def test_tokens_and_tags_of_many_equal_one_parse_at_a_time():
    from nli_baselines.experiments.corpora.readers.snli import _Leaves, _tokens_and_tags_of_many
    parses = ["(ROOT (S (NP (DT A) (NN dog)) (VP (VBZ runs))))", "", "(ROOT)", "(A  b) (c\td) (e\u3000f) (g\xa0h) (i j)",
              "(\0 \0) (x (y z))", "(A b)\n(C d)(E f)", "(NN dog) (DT A)"]
    tokens, tags = _tokens_and_tags_of_many(parses, _Leaves())
    assert list(zip(tokens, tags)) == [tokens_and_tags(p) for p in parses]
    assert tokens[0] == ("A", "dog", "runs") and tokens[1] == () and tokens[3] == ("j",)
    assert _tokens_and_tags_of_many([], _Leaves()) == ([], [])


def test_the_leaf_pattern_s_class_is_what_backslash_s_leaves_out():
    # The class is written out for speed; it must stay the characters `[^\s()]` matches.
    import re

    from nli_baselines.experiments.corpora.readers.snli import _TAG_OR_WORD
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    assert re.findall(_TAG_OR_WORD.removesuffix("++"), every) == re.findall(r"[^\s()]", every)


def test_reading_a_large_file_shows_its_progress_on_stderr(tmp_path, monkeypatch, capsys, terminal):
    import nli_baselines.experiments.corpora.readers.common as common
    from nli_baselines.experiments.corpora.readers.common import reading_progress
    path = write(tmp_path / "snli_1.0_train.jsonl", "\n".join(_snli_rows()))
    quiet = read_nli(path, "snli", "train")
    assert capsys.readouterr().err == ""
    with reading_progress(True):
        small = read_nli(path, "snli", "train")  # below the threshold: no bar
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(common, "PROGRESS_MIN_BYTES", 1)
    with reading_progress(True):
        shown = read_nli(path, "snli", "train")
    assert "reading snli_1.0_train.jsonl" in capsys.readouterr().err
    with reading_progress(True), reading_progress(False):
        read_nli(path, "snli", "train")
    read_nli(path, "snli", "train")  # the switch is off again after the block
    assert capsys.readouterr().err == ""
    _same_pairs(shown, quiet)
    _same_pairs(small, quiet)


# ---------------------------------------------------------------- TSV files whose quotes are text (GLUE's)

# GLUE's MRPC layout (a byte-order mark, `Quality`, two ids, two strings): line 3 opens its first
# string with `"` and closes its second with one, as MRPC's train.tsv:603 does; line 4's first string
# is a whole quotation, which CSV would strip; the others are plain.
MRPC = ('\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n'
        '1\t702876\t702977\tAmrozi accused his brother .\tReferring to him , Amrozi accused his brother .\n'
        '1\t497592\t497567\t" Writing safe programs is adequate .\tWriting safe programs is adequate . "\n'
        '0\t1330381\t1330521\t" We will work with the board . "\tHe said they would work with the board .\n'
        '1\t3344667\t3344648\tYucaipa owned Dominick \'s .\tYucaipa bought Dominick \'s .\n')
MRPC_COLUMNS = dict(premise="#1 String", hypothesis="#2 String", label="Quality")


def test_a_glue_tsv_is_read_with_its_quotes_as_text(tmp_path):
    path = write(tmp_path / "train.tsv", MRPC)
    data = read_custom(path, "custom", "train", **MRPC_COLUMNS)
    assert (data.rows, len(data.pairs), dict(data.skipped)) == (4, 4, {})
    assert [(p.premise, p.hypothesis) for p in data.pairs[1:3]] == [
        ('" Writing safe programs is adequate .', 'Writing safe programs is adequate . "'),
        ('" We will work with the board . "', "He said they would work with the board .")]
    assert data.notes[-1] == ("train.tsv: read unquoted: its quotes are text, as in GLUE's TSV files (read as CSV, 2 "
                              "line(s) would lose their quotes or cells, the first line 3); --quoting csv reads them "
                              "as CSV")
    assert read_custom(path, "custom", "train", quoting="none", **MRPC_COLUMNS).pairs == data.pairs
    # Read as CSV, line 3 is four cells, and the message says what to do.
    with pytest.raises(DataFormatError, match=r"train.tsv:3: expected 5 tab-separated columns, found 4; read as CSV, "
                                              r"a cell in quotes holds a tab: if the file's quotes are text \(as in "
                                              r"GLUE's TSV files\), read it with --quoting none"):
        read_custom(path, "custom", "train", quoting="csv", **MRPC_COLUMNS)
    as_csv = read_custom(path, "custom", "train", quoting="csv", on_bad_row="skip", **MRPC_COLUMNS)
    assert as_csv.pairs[1].premise == " We will work with the board . "  # the quotes CSV takes away
    assert (as_csv.unread, as_csv.bad_lines) == (1, [3])


def test_quoting_auto_keeps_csv_quoting_where_a_file_needs_it(tmp_path):
    # As the suite (and the csv module, and pandas) write a TSV: quoted cells hold tabs, line breaks, doubled quotes.
    written = write(tmp_path / "ours.tsv", 'premise\thypothesis\tlabel\n"A\ttab ."\tB .\tyes\n'
                                           '"He said ""hi"" ."\tC .\tno\n"Two\nlines ."\tD .\tyes\n')
    data = read_custom(written, "c", "train")
    assert [p.premise for p in data.pairs] == ["A\ttab .", 'He said "hi" .', "Two\nlines ."]
    assert not any("quot" in note for note in data.notes)
    # Both kinds in one file: read as CSV (as before), and the note says how to read every quote as text.
    mixed = write(tmp_path / "mixed.tsv", 'premise\thypothesis\tlabel\n"A\ttab ."\tB .\tyes\n'
                                          '" Quoted , plain ."\tC .\tno\n')
    data = read_custom(mixed, "c", "train")
    assert [p.premise for p in data.pairs] == ["A\ttab .", " Quoted , plain ."]
    assert data.notes[-1] == ("mixed.tsv: read as CSV-quoted (line 2 needs it), though 1 line(s) read right only with "
                              "their quotes as text (the first line 3); --quoting none reads every quote as text")
    # Every quote as text: the tab in line 2 splits it.
    data = read_custom(mixed, "c", "train", quoting="none", on_bad_row="skip")
    assert [p.premise for p in data.pairs] == ['" Quoted , plain ."'] and data.bad_lines == [2]
    with pytest.raises(ValueError, match="quoting must be one of auto, csv, none"):
        read_custom(mixed, "c", "train", quoting="never")


def test_a_quote_that_swallows_a_line_break_loses_no_row(tmp_path):
    # Line 2 opens a quote that closes at the end of a cell on line 3: as CSV, one record of two cells
    # (lines 2-3), so line 3 vanished inside a bad row. Read as text, both rows are there.
    path = write(tmp_path / "t.tsv", 'premise\thypothesis\tlabel\n" Opens here .\tB .\tyes\nC .\tD . "\tno\n'
                                     'E .\tF .\tyes\n')
    data = read_custom(path, "c", "train")
    assert (data.rows, [p.id for p in data.pairs]) == (3, ["0", "1", "2"])
    assert [(p.premise, p.hypothesis) for p in data.pairs[:2]] == [('" Opens here .', "B ."), ("C .", 'D . "')]
    # Unquoted CSV: a quote is text, a comma always separates.
    path = write(tmp_path / "t.csv", 'premise,hypothesis\n"Hi there,B."\nC.,D.\n')
    data = read_custom(path, "c", "train", quoting="none")
    assert [(p.premise, p.hypothesis) for p in data.pairs] == [('"Hi there', 'B."'), ("C.", "D.")]


@pytest.mark.parametrize("task, columns, rows", [
    ("MRPC", MRPC_COLUMNS, {"train": 3668, "dev": 408, "test": 1725}),
    ("STS-B", dict(premise="sentence1", hypothesis="sentence2", label="score"),
     {"train": 5749, "dev": 1500, "test": 1379}),
])
def test_glue_tsvs_with_quotes_read_every_row(data_dir, task, columns, rows):
    for split, count in rows.items():
        data = read_custom(data_dir / "glue" / task / f"{split}.tsv", "custom", split, **columns)
        assert len(data.pairs) == data.rows == count and not data.skipped
        assert "read unquoted: its quotes are text" in data.notes[-1]
    test = read_custom(data_dir / "glue" / "MRPC" / "test.tsv", "custom", "test", **MRPC_COLUMNS)
    if task == "MRPC":  # test.tsv:1608, which CSV read as four cells
        assert test.pairs[1606].premise.startswith('" I had never wanted the matter to come to court')
        assert test.pairs[1606].hypothesis.endswith('surrounded it . "')


# ------------------------------------------------------------------ bounds of what is read, in every format


def _sentences(n: int) -> list[tuple[str, str]]:
    return [(f"A man number {i} sleeps .", f"A person sleeps {i} .") for i in range(n)]


def _table(path: Path, n: int) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq
    premises, hypotheses = zip(*_sentences(n))
    table = pa.table({"premise": list(premises), "hypothesis": list(hypotheses), "label": ["yes"] * n})
    if path.suffix == ".parquet":
        pq.write_table(table, path)
    else:
        with pa.ipc.new_file(path, table.schema) as writer:
            writer.write_table(table)
    return path


# Each format the suite reads, as a file of n pairs: (build(folder, n) -> path, read(path), the line
# where the k-th row starts (1-based; None for a table, whose rows have no lines)).
FORMATS = {
    "tsv": (lambda d, n: write(d / "p.tsv", "premise\thypothesis\tlabel\n" + "".join(
        f"{p}\t{h}\tyes\n" for p, h in _sentences(n))), lambda path: read_custom(path, "c", "train"), lambda k: k + 1),
    "tsv, a quoted cell over two lines": (lambda d, n: write(d / "q.tsv", "premise\thypothesis\tlabel\n" + "".join(
        (f'"{p}\nwith a line break"\t{h}\tyes\n' if i == 0 else f"{p}\t{h}\tyes\n")
        for i, (p, h) in enumerate(_sentences(n)))), lambda path: read_custom(path, "c", "train"),
                                          lambda k: k + 1 + (k > 1)),
    "csv": (lambda d, n: write(d / "p.csv", "premise,hypothesis,label\n" + "".join(
        f'"{p}, or so","{h}",yes\n\n' for p, h in _sentences(n))), lambda path: read_custom(path, "c", "train"),
            lambda k: 2 * k),
    "jsonl": (lambda d, n: write(d / "p.jsonl", "".join(jsonl_row(premise=p, hypothesis=h, label="yes")
                                                        for p, h in _sentences(n)).replace("}", "}\n")),
              lambda path: read_custom(path, "c", "train"), lambda k: k),
    "snli jsonl": (lambda d, n: write(d / "snli_1.0_dev.jsonl", "\n".join(
        jsonl_row(sentence1=p, sentence2=h, gold_label="neutral", pairID=str(i)) for i, (p, h) in
        enumerate(_sentences(n)))), lambda path: read_nli(path, "snli", "dev"), lambda k: k),
    "glue tsv": (lambda d, n: write(d / "dev.tsv", "index\tsentence1\tsentence2\tlabel\n" + "".join(
        f"{i}\t{p}\t{h}\tentailment\n" for i, (p, h) in enumerate(_sentences(n)))),
                 lambda path: read_rte(path, "rte", "dev"), lambda k: k + 1),
    "sick": (lambda d, n: write(d / "SICK.txt", "pair_ID\tsentence_A\tsentence_B\tentailment_label\tSemEval_set\n"
                                + "".join(f"{i}\t{p}\t{h}\tNEUTRAL\tTRAIN\n" for i, (p, h) in enumerate(_sentences(n))),
                                newline="\r\n"), lambda path: read_sick(path, "sick", "train"), lambda k: k + 1),
    "cola (no header)": (lambda d, n: write(d / "train.tsv", "".join(f"src\t1\t\t{p}\n" for p, _ in _sentences(n))),
                         lambda path: _read_cola(path), lambda k: k),
    "xml": (lambda d, n: write(d / "rte3_dev.xml", "<entailment-corpus>\n" + "".join(
        f'<pair id="{i}" entailment="YES"><t>{p}</t><h>{h}</h></pair>\n' for i, (p, h) in enumerate(_sentences(n)))
        + "</entailment-corpus>\n"), lambda path: read_pascal(path, "rte3", "dev"), lambda k: k + 1),
    "parquet": (lambda d, n: _table(d / "p.parquet", n), lambda path: read_custom(path, "c", "train"), None),
    "arrow": (lambda d, n: _table(d / "p.arrow", n), lambda path: read_custom(path, "c", "train"), None),
}
TEXT_FORMATS = [name for name, (_, _, line) in FORMATS.items() if line is not None]
# Every format as a test parameter; parquet and Arrow need pyarrow (the hf extra) and skip without it.
FORMAT_PARAMS = [pytest.param(name, marks=NEEDS_PYARROW) if line is None else name
                 for name, (_, _, line) in FORMATS.items()]


def _read_cola(path):
    from nli_baselines.experiments.corpora.readers.single_sentence import read_cola
    return read_cola(path, "cola", "train")


@pytest.fixture
def small_blocks(monkeypatch):
    """Text read 64 bytes at a time: every bound is then checked across many blocks."""
    import nli_baselines.experiments.corpora.readers.common as common
    monkeypatch.setattr(common, "_BLOCK_BYTES", 64)


@pytest.mark.parametrize("fmt", FORMAT_PARAMS)
def test_every_format_holds_the_rows_bound(tmp_path, read_limits, small_blocks, fmt):
    build, read, line = FORMATS[fmt]
    path = build(tmp_path, 40)
    read_limits.rows = 39
    where = f"{path.name}:{line(40)}" if line else path.name
    with pytest.raises(DataFormatError, match=rf"{where}: more than 39 rows \(the bound; raise it with --read-limit "
                                              r"rows=SIZE\)"):
        read(path)
    read_limits.rows = 40
    assert len(read(path).pairs) == 40


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_every_text_format_holds_the_line_bound(tmp_path, read_limits, small_blocks, fmt):
    build, read, _ = FORMATS[fmt]
    path = build(tmp_path, 40)
    lines = path.read_bytes().split(b"\n")
    longest = max(len(line) for line in lines)
    number = next(i for i, line in enumerate(lines, start=1) if len(line) == longest)
    read_limits.line = longest - 1
    with pytest.raises(DataFormatError, match=rf"{path.name}:{number}: a line longer than {longest - 1} bytes \(the "
                                              r"bound; raise it with --read-limit line=SIZE\)"):
        read(path)
    read_limits.line = longest
    assert len(read(path).pairs) == 40


@pytest.mark.parametrize("fmt", FORMAT_PARAMS)
def test_every_format_holds_the_bytes_bound(tmp_path, read_limits, fmt):
    build, read, _ = FORMATS[fmt]
    path = build(tmp_path, 40)
    size = path.stat().st_size
    read_limits.bytes = size - 1
    with pytest.raises(DataFormatError, match=rf"{path.name}: {size:,} bytes, more than {size - 1:,} \(the bound; "
                                              r"raise it with --read-limit bytes=SIZE\)"):
        read(path)
    read_limits.bytes = size
    assert len(read(path).pairs) == 40


@NEEDS_PYARROW
@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_tables_hold_the_decoded_bound(tmp_path, read_limits, fmt):
    build, read, _ = FORMATS[fmt]
    path = build(tmp_path, 40)
    read_limits.decoded = 1000  # the sentences alone are ~1,600 bytes
    with pytest.raises(DataFormatError, match=rf"{path.name}: its columns hold more than 1,000 bytes once decoded"):
        read(path)
    read_limits.decoded = 1 << 20
    assert len(read(path).pairs) == 40


@pytest.mark.parametrize("fmt", ["jsonl", "glue tsv", "tsv", "xml"])
def test_a_file_past_the_rows_bound_is_refused_before_its_rows_are_built(tmp_path, read_limits, small_blocks,
                                                                        monkeypatch, fmt):
    # Refused at once, from a count of its lines in bytes: no pair is made (a file of 12 million short
    # rows read to 3.7 GB before this), whichever row crosses the bound.
    from nli_baselines.features import pair as pair_module
    build, read, line = FORMATS[fmt]
    path = build(tmp_path, 2000)
    read_limits.rows = 10
    made = []
    original = pair_module.Pair.__init__
    monkeypatch.setattr(pair_module.Pair, "__init__", lambda self, *a, **k: made.append(1) or original(self, *a, **k))
    with pytest.raises(DataFormatError, match=rf"{path.name}:{line(11)}: more than 10 rows"):
        read(path)
    assert not made


def _reference_row_past_bound(data: bytes, header: int, bound: int) -> tuple[int, bool] | None:
    """rows_past_bound as specified: the lines `decoded_lines` gives, the non-blank ones counted."""
    seen = 0
    quoted = False
    for number, text, _ in _reference_lines(data.replace(b"\r", b"\n") if b"\n" not in data[:64] and b"\r" in
                                            data[:64] else data):
        if text.strip(" \t\r\x0b\x0c"):
            seen += 1
            if seen == bound + header + 1:
                return number, quoted
        quoted = quoted or '"' in text
    return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.lists(st.sampled_from([b"a", b" ", b"\t", b"\r", b"\n", b"\n", b'"', b"\xef\xbb\xbf", b"\xff",
                                      b"\x0b", b"\x1c"]), max_size=60).map(b"".join),
       header=st.integers(0, 1), bound=st.integers(0, 8))
def test_counting_rows_in_bytes_counts_the_lines_read(tmp_path, read_limits, monkeypatch, data, header, bound):
    import nli_baselines.experiments.corpora.readers.common as common
    monkeypatch.setattr(common, "_BLOCK_BYTES", 64)  # the data's first block decides CR-only line endings
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    read_limits.rows = bound
    assert common.rows_past_bound(path, header) == _reference_row_past_bound(data, header, bound)


def test_quoting_auto_notes_a_line_read_as_it_stands_in_a_file_read_as_csv(tmp_path):
    # Line 2 needs CSV quoting (a tab in a quoted cell); line 3's quotes make no CSV cells, so it is
    # read as it stands. Both kinds: the file is read as CSV, and the note says so and names line 3.
    path = write(tmp_path / "mixed.tsv", 'premise\thypothesis\n"a\tb"\tc\n"Hi," she said.\tx\nplain\ty\n')
    data = read_custom(path, "c", "train")
    assert [(p.premise, p.hypothesis) for p in data.pairs] == [("a\tb", "c"), ('"Hi," she said.', "x"),
                                                                ("plain", "y")]
    assert data.notes[-1] == ("mixed.tsv: read as CSV-quoted (line 2 needs it), though 1 line(s) read right only with "
                              "their quotes as text (the first line 3; 1 of them, whose quotes make no CSV cells, read "
                              "as they stand, the first line 3); --quoting none reads every quote as text")
    # Alone, such a line makes the file one read unquoted, and the note says that too.
    path = write(tmp_path / "stray.tsv", 'premise\thypothesis\n"Hi," she said.\tx\n')
    data = read_custom(path, "c", "train")
    assert [(p.premise, p.hypothesis) for p in data.pairs] == [('"Hi," she said.', "x")]
    assert data.notes[-1].startswith("stray.tsv: read unquoted: its quotes are text, as in GLUE's TSV files (read as "
                                     "CSV, 1 line(s) would lose their quotes or cells, the first line 2)")


def _restarting_records(lines, delimiter=",", lenient=False):
    """`_csv_records` as first written: after a refused record, the csv module reads again from the
    line after its first. The same records; time quadratic in the lines a quote swallows."""
    from nli_baselines.experiments.corpora.readers.custom import (UNTERMINATED_QUOTE, _LineFeed, _literal, _Record,
                                                                  _runaway_quote)
    width, start = None, 0
    while start < len(lines):
        feed = _LineFeed(lines, start)
        reader = csv.reader(feed, delimiter=delimiter)
        while True:
            begin = feed.position
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield _literal(lines, begin) if lenient else _Record(
                    lines[begin][0], lines[begin][0], None, f"malformed CSV ({exc})", "malformed CSV")
                start = begin + 1
                break
            end = feed.position - 1
            first, last = lines[begin][0], lines[end][0]
            runaway = _runaway_quote(lines, begin, end, feed.exhausted, delimiter)
            if runaway is None and lenient and end > begin and width is not None and len(cells) != width:
                runaway = (f"unterminated quote? the quoted field opened on line {first} closes on line {last}, "
                           f"making a record of {len(cells)} cells, not {width}")
            if runaway:
                yield _literal(lines, begin) if lenient else _Record(first, last, None, runaway, UNTERMINATED_QUOTE)
                start = begin + 1
                break
            if begin == end and not lines[begin][1].strip(" \t\r\x0b\x0c"):
                continue
            width = len(cells) if width is None else width
            undecodable = next(((n, p) for n, _, p in lines[begin:end + 1] if p), None)
            yield (_Record(undecodable[0], last, None, undecodable[1], "undecodable bytes") if undecodable
                   else _Record(first, last, cells))


# Lines of quotes, separators and text: quotes that open, close mid-field, double, or run to the end.
CSV_LINES = st.lists(st.text(st.sampled_from(['"', "\t", ",", "a", " ", "\r", "\x00"]), max_size=7), min_size=1,
                     max_size=16)


@settings(max_examples=500, deadline=None)
@given(texts=CSV_LINES, delimiter=st.sampled_from(["\t", ","]), lenient=st.booleans(), bad_at=st.integers(0, 20))
def test_csv_records_are_those_of_reading_again_after_each_refused_record(texts, delimiter, lenient, bad_at):
    from nli_baselines.experiments.corpora.readers.custom import _csv_records
    lines = [(i + 1, text, "undecodable" if i == bad_at else None) for i, text in enumerate(texts)]
    assert [r[:5] for r in _csv_records(lines, delimiter, lenient)] == [
        r[:5] for r in _restarting_records(lines, delimiter, lenient)]


def _lines_read(monkeypatch):
    """A list whose length counts the lines handed to the csv module from here on."""
    from nli_baselines.experiments.corpora.readers import custom
    fed, handed = [], custom._LineFeed.__next__

    def counted(self):
        line = handed(self)
        fed.append(1)
        return line
    monkeypatch.setattr(custom._LineFeed, "__next__", counted)
    return fed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(unit=st.lists(st.text(st.sampled_from(['"', "\t", ",", "a", " "]), max_size=8), min_size=1, max_size=4),
       delimiter=st.sampled_from(["\t", ","]), lenient=st.booleans())
@example(unit=['a\t"x"\t"'], delimiter="\t", lenient=True)  # a quote left open from outside a quote and inside one
@example(unit=['a\t"x"\t"', 'y"z'], delimiter="\t", lenient=False)  # ... closed in the middle of a field
def test_csv_records_take_work_linear_in_the_lines(monkeypatch, unit, delimiter, lenient):
    # A file repeating a few lines, at two scales: four times the lines, at most ~four times the work.
    from nli_baselines.experiments.corpora.readers.custom import _csv_records
    fed = _lines_read(monkeypatch)

    def work(repeats: int) -> int:
        lines = [(i + 1, text, None) for i, text in enumerate(["h\tx\ty"] + unit * repeats)]
        fed.clear()
        list(_csv_records(lines, delimiter, lenient))
        return len(fed)
    assert work(64) <= 5 * work(16) + 20


def test_a_file_of_quotes_that_stay_open_reads_in_linear_time(tmp_path, monkeypatch, read_limits):
    # Each line leaves a quote open whether it starts inside one or not, so each ran to the end of
    # the file when reading began again there: 4,000 lines took 4 s, 25,000 (200 KB) minutes.
    fed = _lines_read(monkeypatch)
    path = write(tmp_path / "open.tsv", "premise\thypothesis\tlabel\n" + 'a\t"x"\t"\n' * 4000)
    data = read_custom(path, "c", "train", quoting="csv", on_bad_row="skip")
    assert (data.rows, dict(data.skipped)) == (4000, {"unterminated quote": 4000})
    assert len(fed) <= 4 * 4001
    fed.clear()
    data = read_custom(path, "c", "train")  # auto: each line read as it stands
    assert (len(data.pairs), data.pairs[0].premise, data.pairs[0].hypothesis) == (4000, "a", '"x"')
    assert len(fed) <= 4 * 4001


HEADERS = {".tsv": "premise\thypothesis\n", ".csv": "premise,hypothesis\n", ".jsonl": ""}
# What a hostile or broken file repeats: quotes, separators, long cells of quotes, JSON nested deep.
HOSTILE_LINES = st.lists(st.one_of(
    st.text(st.sampled_from(['"', "\t", ",", "a", " ", "{", "["]), max_size=8),
    st.integers(1, 40).map(lambda n: "a" + '"' * n + "\tb"),
    st.integers(1, 400).map(lambda depth: '{"premise": "a", "hypothesis": ' + "[" * depth + "]" * depth + "}"),
    st.just('{"premise": "a", "hypothesis": "b"}')), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(unit=HOSTILE_LINES, suffix=st.sampled_from(list(HEADERS)))
@example(unit=['a\t"x"\t"'], suffix=".tsv")
def test_no_reader_takes_work_or_memory_faster_than_linear_in_its_input(tmp_path, monkeypatch, unit, suffix):
    # Work: the lines handed to the csv module and the characters to a JSON parser; memory: the
    # peak of what Python allocates while reading. At four times the input, at most ~four times each.
    import tracemalloc

    import nli_baselines.experiments.corpora.readers.common as common
    fed = _lines_read(monkeypatch)
    parsed = []
    loads, orjson = json.loads, common._orjson
    monkeypatch.setattr(common.json, "loads", lambda text, *a, **k: parsed.append(len(text)) or loads(text, *a, **k))
    if orjson is not None:
        monkeypatch.setattr(common, "_orjson", type("Counted", (), {"loads": staticmethod(
            lambda text: parsed.append(len(text)) or orjson.loads(text))}))

    def read(repeats: int) -> tuple[int, int]:
        path = tmp_path / f"f{repeats}{suffix}"
        path.write_text(HEADERS[suffix] + "".join(line + "\n" for line in unit * repeats))
        fed.clear()
        parsed.clear()
        tracemalloc.start()
        try:
            read_custom(path, "c", "train", on_bad_row="skip", premise="premise", hypothesis="hypothesis")
        except DataFormatError:
            pass  # a header that names no such columns: refused, after the same work
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return len(fed) + sum(parsed), peak
    (work, memory), (more_work, more_memory) = read(16), read(64)
    assert more_work <= 5 * work + 64
    assert more_memory <= 5 * memory + (64 << 10)


@pytest.mark.parametrize("given, value", [("rows=10", ("rows", 10)), ("line=0001MiB", ("line", 1 << 20)),
                                          ("bytes= 16 GiB ", ("bytes", 16 << 30)), ("decoded=2k", ("decoded", 2000)),
                                          ("rows=9223372036854775807", ("rows", (1 << 63) - 1))])
def test_read_limit_values(given, value):
    from nli_baselines.experiments.corpora.readers.common import parse_read_limit
    assert parse_read_limit(given) == value


@pytest.mark.parametrize("given, message", [
    ("rows=\u0661\u0660", r"^--read-limit 'rows=\u0661\u0660': '\u0661\u0660' is not a whole number with an optional "
                          r"unit"),  # Arabic-Indic digits: int() takes them, a size does not
    ("rows=" + "9" * 5000, r"^--read-limit 'rows=9+\.\.\. \(5,007 characters\): more than "
                           r"9,223,372,036,854,775,807, the largest bound$"),  # not Python's own message
    ("rows=9223372036854775808", r"more than 9,223,372,036,854,775,807"),
    ("rows=10000000T", r"more than 9,223,372,036,854,775,807"),
    ("width=3", r"expected NAME=SIZE with NAME one of bytes, rows, line, decoded, predictions"),
])
def test_read_limit_values_refused_in_one_line(given, message):
    from nli_baselines.experiments.corpora.readers.common import parse_read_limit
    with pytest.raises(ValueError, match=message):
        parse_read_limit(given)


def test_the_bounds_are_declared_once():
    # The help and the guide's table show the defaults ReadLimits declares.
    import argparse
    import dataclasses
    import re

    from nli_baselines.experiments.commandline.arguments import add_read_limit_argument
    from nli_baselines.experiments.corpora.readers.common import ReadLimits, format_size, parse_read_limit
    parser = argparse.ArgumentParser()
    add_read_limit_argument(parser)
    shown = " ".join(parser.format_help().split())
    assert "bytes (8GiB), rows (10M), line (16MiB), decoded (8GiB) or predictions (256MiB)" in shown
    assert all(f"{spec.name} ({format_size(spec.default)})" in shown for spec in dataclasses.fields(ReadLimits))
    guide = (Path(__file__).resolve().parents[1] / "docs" / "data.md").read_text()
    table = dict(re.findall(r"^\| `(\w+)` \| ([\d,]+(?: [KMGT]i?B)?) \|", guide, re.M))
    assert set(table) == {spec.name for spec in dataclasses.fields(ReadLimits)}
    for spec in dataclasses.fields(ReadLimits):
        assert parse_read_limit(f"{spec.name}={table[spec.name].replace(',', '')}") == (spec.name, spec.default)


@pytest.mark.parametrize("name, text, refused", [
    ("joined.csv", 'premise,hypothesis\na,b\n"x\ny",c\n"p\nq",r\n', None),  # 6 lines, 3 records
    ("joined.csv", 'premise,hypothesis\na,b\n"x\ny",c\nd,"e\nf"\n\ng,h\n', 8),  # the 4th record starts on line 8
    ("joined.tsv", 'premise\thypothesis\n"a\nb"\tc\n\n  \na\tb\na\tb\na\tb\n', 8),
    ("stray.tsv", 'premise\thypothesis\n"Hi," she\n said.\tx\na\tb\na\tb\n', 5),  # read unquoted: lines are rows
    ("open.tsv", 'premise\thypothesis\na\tb\n"a\tb\na\tb\n', None),  # auto: a quote left open is a line of its own
])
def test_records_past_the_bound_are_counted_where_quotes_join_lines(tmp_path, read_limits, name, text, refused):
    path = write(tmp_path / name, text)
    read_limits.rows = 3
    if refused is None:
        assert read_custom(path, "c", "train", on_bad_row="skip").rows == 3
    else:
        with pytest.raises(DataFormatError, match=rf"{name}:{refused}: more than 3 rows"):
            read_custom(path, "c", "train", on_bad_row="skip")


def test_a_long_first_line_read_a_few_bytes_at_a_time_takes_few_reads(tmp_path, monkeypatch):
    # Each read added to the line held so far, copying it: reading a 16 MiB line 64 KiB at a time
    # copied ~2 GB. Reads now grow with the line, so its bytes are copied a bounded number of times.
    from nli_baselines.experiments.corpora.readers import common
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"premise": "' + b"a" * (1 << 20) + b'"}\nnext\n')
    reads = []
    opened = common.open_input

    class Counted:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def read(self, size):
            reads.append(size)
            return self.handle.read(size)

        def fileno(self):
            return self.handle.fileno()
    monkeypatch.setattr(common, "open_input", lambda *a, **k: Counted(opened(*a, **k)))
    lines = list(common.decoded_lines(path, block_bytes=1024))
    assert [n for n, _, _ in lines] == [1, 2] and lines[1][1] == "next"
    assert len(reads) <= 24 and sum(reads) <= 4 * path.stat().st_size
