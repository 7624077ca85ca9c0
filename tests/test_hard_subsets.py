"""The hard subsets (Gururangan et al. 2018): SNLI's `snli_1.0_test_hard.jsonl` as `--eval-split
test_hard`, MultiNLI's hidden-label hard test sets, and their download sources."""
from __future__ import annotations

import json

import pytest

import nli_baselines as nb
from nli_baselines.experiments.corpora import CorpusNotFoundError, get_corpus
from nli_baselines.experiments.corpora.download.sources import DownloadError, download
from nli_baselines.experiments.configuration.errors import UsageError
from tests.test_download import server  # noqa: F401  (the local HTTP server fixture)

SENTENCES = {  # label -> (premise, hypothesis) as word/TAG
    "entailment": ("A/DT man/NN is/VBZ sleeping/VBG ./.", "A/DT person/NN is/VBZ sleeping/VBG ./."),
    "contradiction": ("A/DT man/NN is/VBZ sleeping/VBG ./.", "A/DT man/NN is/VBZ running/VBG ./."),
    "neutral": ("A/DT man/NN is/VBZ sleeping/VBG ./.", "A/DT tired/JJ man/NN is/VBZ sleeping/VBG at/IN home/NN ./."),
}


def snli_row(pair_id: str, label: str, sentences: str | None = None) -> str:
    """One line of SNLI's official jsonl (every key of the release; parses from word/TAG)."""
    premise, hypothesis = SENTENCES[sentences or label]

    def parts(sentence):
        words = [item.rsplit("/", 1) for item in sentence.split()]
        return (" ".join(w for w, _ in words), "( " + " ".join(w for w, _ in words) + " )",
                "(ROOT (S " + " ".join(f"({t} {w})" for w, t in words) + "))")
    (s1, b1, p1), (s2, b2, p2) = parts(premise), parts(hypothesis)
    return json.dumps({"annotator_labels": [label], "captionID": pair_id.split("r")[0], "gold_label": label,
                       "pairID": pair_id, "sentence1": s1, "sentence1_binary_parse": b1, "sentence1_parse": p1,
                       "sentence2": s2, "sentence2_binary_parse": b2, "sentence2_parse": p2}) + "\n"


LABELS = ("entailment", "contradiction", "neutral")


@pytest.fixture
def snli_dir(tmp_path):
    folder = tmp_path / "data" / "snli_1.0"
    folder.mkdir(parents=True)
    for split, n in (("train", 30), ("dev", 9)):
        (folder / f"snli_1.0_{split}.jsonl").write_text(
            "".join(snli_row(f"{split}{i}r1", LABELS[i % 3]) for i in range(n)))
    return tmp_path / "data"


HARD = (snli_row("h0r1e", "entailment") + snli_row("h1r1c", "contradiction") + snli_row("h2r1n", "-", "neutral")
        + snli_row("h3r1n", "neutral"))


def test_eval_split_test_hard_scores_the_hard_file(snli_dir):
    hard = snli_dir / "snli_hard" / "snli_1.0_test_hard.jsonl"
    with pytest.raises(CorpusNotFoundError, match=r"(?s)split 'test_hard'.*download.py snli-hard"):
        get_corpus("snli").load("test_hard", snli_dir)
    hard.parent.mkdir()
    hard.write_text(HARD)
    result = nb.run(dataset="snli", data_dir=snli_dir, eval_split="test_hard", features="unlexicalized",
                    C=[1.0], quiet=True)
    data = result.record["data"]
    assert data["eval_split"] == "test_hard"
    assert data["splits"]["test_hard"] == {"rows": 4, "pairs": 3, "skipped": {"no gold label": 1}}
    assert result.row()["predictions"]["ids"] == ["h0r1e", "h1r1c", "h3r1n"]
    assert result.row()["metrics"]["test_hard"]["pairs"] == 3


def test_mnli_hard_sets_are_read_unlabeled_and_refused_as_eval_splits(snli_dir):
    folder = snli_dir / "multinli_1.0"
    folder.mkdir()
    for split in ("train", "dev_matched"):
        train = (snli_dir / "snli_1.0" / "snli_1.0_train.jsonl").read_text()
        (folder / f"multinli_1.0_{split}.jsonl").write_text(train)
    hard = snli_dir / "multinli_hard" / "multinli_0.9_test_matched_unlabeled_hard.jsonl"
    hard.parent.mkdir()
    hard.write_text(snli_row("m0", "hidden", "entailment") + snli_row("m1", "hidden", "neutral"))
    data = get_corpus("mnli").load("test_matched_hard", snli_dir)
    assert [p.label for p in data.pairs] == [None, None] and not data.labeled
    with pytest.raises(UsageError, match="the test_matched_hard split of mnli is unlabeled"):
        nb.run(dataset="mnli", data_dir=snli_dir, eval_split="test_matched_hard", features="unlexicalized",
               C=[1.0], quiet=True)


def test_download_sources_of_the_hard_subsets(server, tmp_path):  # noqa: F811
    root, base = server
    (root / "snli_1.0_test_hard.jsonl").write_text(HARD)
    data = tmp_path / "data"
    result = download("snli-hard", data, url=f"{base}/snli_1.0_test_hard.jsonl", progress=False)
    assert result.files == [data / "snli_hard" / "snli_1.0_test_hard.jsonl"]
    assert len(get_corpus("snli").load("test_hard", data).pairs) == 3
    with pytest.raises(DownloadError, match="mnli-hard-matched has no public download address: .*--url PATH"):
        download("mnli-hard-matched", data, progress=False)
    local = tmp_path / "multinli_0.9_test_matched_unlabeled_hard.jsonl"
    local.write_text(snli_row("m0", "hidden", "entailment"))
    result = download("mnli-hard-matched", data, url=str(local), progress=False)
    assert len(get_corpus("mnli").load("test_matched_hard", data).pairs) == 1
