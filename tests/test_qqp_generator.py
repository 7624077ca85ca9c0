"""The generated QQP-sized corpus (experiments/corpora/generated/qqp.py): QQP's official layout,
read by the qqp corpus, and written by `benchmark.py --write-qqp`."""
from __future__ import annotations

from nli_baselines.experiments.corpora import get_corpus
from benchmarks.qqp import HEADER, generate_qqp, write_qqp


def test_the_generated_qqp_corpus_is_in_qqps_layout(tmp_path):
    train, dev = write_qqp(tmp_path, seed=3, train=2000, dev=300)
    assert train.read_text().splitlines()[0] == HEADER == dev.read_text().splitlines()[0]
    corpus = get_corpus("qqp")
    pairs = corpus.load("train", tmp_path).pairs
    assert len(pairs) == 2000 and [p.id for p in pairs[:3]] == ["0", "1", "2"]
    assert 0.33 < sum(p.label == "1" for p in pairs) / 2000 < 0.41  # ~37% duplicates
    assert all(p.premise.endswith("?") and p.hypothesis.endswith("?") for p in pairs)
    assert [p.id for p in corpus.load("dev", tmp_path).pairs][:2] == ["2000", "2001"]
    lines = [line.split("\t") for line in train.read_text().splitlines()[1:]]
    text_of: dict[str, str] = {}
    for _, qid1, qid2, q1, q2, _ in lines:  # a qid is one question, however often it is asked
        assert text_of.setdefault(qid1, q1) == q1 and text_of.setdefault(qid2, q2) == q2
    assert len(text_of) < 2 * len(lines)  # some questions come back
    assert generate_qqp(50, seed=3) == generate_qqp(50, seed=3) != generate_qqp(50, seed=4)


def test_benchmark_writes_the_qqp_corpus(tmp_path, monkeypatch):
    from benchmarks import benchmark
    from benchmarks import qqp
    monkeypatch.setattr(qqp, "write_qqp", lambda folder, seed: write_qqp(folder, seed, train=40, dev=10))
    assert benchmark.main(["--write-qqp", str(tmp_path), "--seed", "3"]) == 0
    assert [len(get_corpus("qqp").load(s, tmp_path).pairs) for s in ("train", "dev")] == [40, 10]
