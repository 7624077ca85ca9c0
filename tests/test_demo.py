"""The generated demo corpus: deterministic, sized, balanced, fully tagged."""
from __future__ import annotations

from collections import Counter

from nli_baselines.experiments.corpora import get_corpus
from nli_baselines.experiments.corpora.generated.demo import generate_demo


def test_demo_is_deterministic_and_seeded():
    assert generate_demo("train") == generate_demo("train")
    assert generate_demo("dev", seed=1) != generate_demo("dev", seed=2)


def test_demo_size_labels_and_tags():
    corpus = get_corpus("demo")
    sizes = {s: len(corpus.load(s).pairs) for s in ("train", "dev", "test")}
    assert sizes == {"train": 4000, "dev": 1000, "test": 1000}
    train = corpus.load("train").pairs
    counts = Counter(p.label for p in train)
    assert set(counts) == {"entailment", "neutral", "contradiction"} and min(counts.values()) > 1200
    for p in train:
        assert p.is_annotated and len(p.premise_tokens) == len(p.premise_tags)
        assert " ".join(p.hypothesis_tokens).replace(" .", ".") == p.hypothesis
    assert len({p.premise for p in train}) > 500 and len({(p.premise, p.hypothesis) for p in train}) > 3000
    dev = {(p.premise, p.hypothesis) for p in corpus.load("dev").pairs}
    assert len(dev - {(p.premise, p.hypothesis) for p in train}) > 500  # dev is not a copy of train
    assert any(" not " in p.hypothesis for p in train) and any(p.hypothesis.startswith("No ") for p in train)
