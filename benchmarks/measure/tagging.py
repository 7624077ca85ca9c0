"""spaCy tagging throughput, and annotating SICK with a cold and a warm tag cache."""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from . import log


def bench_tagging(data_dir: str | None, sentences: int) -> dict:
    """spaCy tok2vec+tagger throughput, and cold vs warm annotation of SICK (all splits found)."""
    from nli_baselines.features.text.annotation import SpacyTagger, annotate

    from nli_baselines.experiments.corpora import get_corpus
    from nli_baselines.experiments.corpora.generated.demo import generate_demo
    out: dict = {}
    texts: list[str] = []
    if data_dir:
        for name in ("sick", "rte", "cb"):
            corpus = get_corpus(name)
            for split in corpus.available_splits(Path(data_dir)):
                for p in corpus.load(split, data_dir).pairs:
                    texts += [p.premise, p.hypothesis]
    texts += [p.premise for s in ("train", "dev", "test") for p in generate_demo(s)]
    texts = list(dict.fromkeys(texts))
    texts = (texts * (sentences // max(len(texts), 1) + 1))[:sentences]
    tagger = SpacyTagger()
    tagger.tag(texts[:100])  # load the model outside the timing
    started = time.perf_counter()
    tagger.tag(texts)
    seconds = time.perf_counter() - started
    out["spacy"] = {"tagger": tagger.name, "sentences": len(texts), "seconds": seconds,
                    "sentences_per_second": len(texts) / seconds}
    log(f"spaCy: {len(texts) / seconds:.0f} sentences/s on {len(texts)} sentences")
    if data_dir:
        sick = get_corpus("sick")
        pairs = [p for split in sick.available_splits(Path(data_dir)) for p in sick.load(split, data_dir).pairs]
        with tempfile.TemporaryDirectory() as cache:
            times = {}
            for run in ("cold", "warm"):
                stats: dict = {}
                started = time.perf_counter()
                annotate(pairs, cache_dir=cache, stats=stats)
                times[run] = time.perf_counter() - started
                times[f"{run}_stats"] = stats
        out["sick_annotation"] = {"pairs": len(pairs), "cold_seconds": times["cold"], "warm_seconds": times["warm"],
                                  "warm_speedup": times["cold"] / times["warm"], "cold": times["cold_stats"],
                                  "warm": times["warm_stats"]}
        log(f"SICK annotation: cold {times['cold']:.2f}s, warm {times['warm']:.3f}s "
            f"({times['cold'] / times['warm']:.0f}x)")
    return out
