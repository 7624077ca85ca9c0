"""Every reader on the shared corpora (exact counts, a known row) and on hand-made quirky or broken files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.corpora import CORPORA, CorpusNotFoundError, custom_corpus, get_corpus
from experiments.corpora.readers.common import DataFormatError
from experiments.corpora.readers.custom import read_custom
from experiments.corpora.readers.glue import read_ax, read_rte
from experiments.corpora.readers.pascal import read_pascal
from experiments.corpora.readers.sick import read_sick
from experiments.corpora.readers.snli import read_nli, tokens_and_tags
from experiments.corpora.readers.superglue import read_superglue
from features.labels import two_class

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
