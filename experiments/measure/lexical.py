"""Speed of the `wordnet` feature type at SNLI scale: SICK's real lemmas and tags, cycled.

    from experiments.measure.lexical import bench_wordnet
    bench_wordnet("../shared/data")          # SICK train+dev cycled to 550,152 pairs, 3 runs

Real sentences matter here: the cost is WordNet lookups per distinct lemma pair, which a
generated corpus would not reproduce. Cycling reuses SICK's annotation tuples, as SNLI's
readers share one premise among its hypotheses; every pair is still featurized on its own
(the type deduplicates sentences, never whole pairs).
"""
from __future__ import annotations

import gc
import statistics
import time
from itertools import cycle, islice
from pathlib import Path

from experiments.corpora.registry import get_corpus
from features import PairFeaturizer, annotate
from features.wordnet import WordNet
from features.wordnet_data import load_wordnet

from . import log


def sick_pairs_with_lemmas(data_dir: Path | str, n_pairs: int) -> tuple[list, int]:
    """SICK train+dev annotated with lemmas (spaCy; cached), cycled to `n_pairs`; and the distinct count."""
    corpus = get_corpus("sick")
    distinct = [p for split in ("train", "dev") for p in corpus.load(split, data_dir).pairs]
    distinct = annotate(distinct, lemmas=True)
    return list(islice(cycle(distinct), n_pairs)), len(distinct)


def bench_wordnet(data_dir: Path | str, pairs: int = 550_152, repeats: int = 3) -> dict:
    """Seconds to fit_transform `wordnet` on `pairs` SICK pairs, `repeats` runs, each on a fresh
    feature (its relation cache empty, so every run pays its WordNet lookups); loading NLTK's
    reader is paid once per process and reported apart. Also the same through PairFeaturizer
    (the suite's route: encoding included) once."""
    data = sick_pairs_with_lemmas(data_dir, pairs)
    corpus, n_distinct = data
    started = time.perf_counter()
    load_wordnet()
    load_seconds = time.perf_counter() - started
    runs, lookups, cached = [], [], []
    for i in range(repeats):
        gc.collect()
        feature = WordNet()
        started = time.perf_counter()
        X = feature.fit_transform(corpus)
        runs.append(time.perf_counter() - started)
        lookups.append(feature.relations_.lookups)
        cached.append(len(feature.relations_))
        log(f"wordnet run {i + 1}/{repeats}: {runs[-1]:.2f}s, {lookups[-1]} distinct lemma pairs looked up")
        shape = X.shape
        del X, feature
    median = statistics.median(runs)
    gc.collect()
    featurizer = PairFeaturizer(features="wordnet", n_jobs=1)
    started = time.perf_counter()
    featurizer.fit_transform(corpus)
    featurizer_seconds = time.perf_counter() - started
    log(f"through PairFeaturizer: {featurizer_seconds:.2f}s (encode {featurizer.timings_['encode']:.2f}s)")
    return {"pairs": len(corpus), "distinct_pairs": n_distinct, "repeats": repeats,
            "wordnet_load_seconds": load_seconds, "seconds_per_run": runs, "median_seconds": median,
            "pairs_per_second": len(corpus) / median, "distinct_lemma_pairs_looked_up": lookups[0],
            "cached_lemma_pairs": cached[0], "n_columns": shape[1],
            "featurizer_seconds": featurizer_seconds, "featurizer_stages": dict(featurizer.timings_)}
