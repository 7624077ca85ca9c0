"""Featurization speed and memory at SNLI scale: the six types together and alone, against the
straightforward dict build and scikit-learn's HashingVectorizer measured in the same run."""
from __future__ import annotations

import gc
import statistics
import time

import numpy as np

from features import PAPER_TYPES, PairFeaturizer

from . import log
from .memory import PeakRSS


def corpus_shape(pairs) -> dict:
    p_len = np.fromiter((len(p.premise_tokens) for p in pairs), dtype=np.int64, count=len(pairs))
    h_len = np.fromiter((len(p.hypothesis_tokens) for p in pairs), dtype=np.int64, count=len(pairs))
    words = {w for p in pairs for w in p.hypothesis_tokens} | {w for p in pairs for w in p.premise_tokens}
    return {"premise_mean_tokens": float(p_len.mean()), "hypothesis_mean_tokens": float(h_len.mean()),
            "vocabulary_types": len(words), "distinct_premises": len({p.premise for p in pairs})}


def bench_features(pairs, repeats: int, dict_pairs: int, jobs: int) -> dict:
    n = len(pairs)
    out: dict = {"pairs": n}
    runs, stages, peaks = [], [], []
    for i in range(repeats):
        gc.collect()
        with PeakRSS() as peak:  # the process's RSS (corpus included) while this run featurizes
            featurizer = PairFeaturizer(n_jobs=jobs)
            started = time.perf_counter()
            X = featurizer.fit_transform(pairs)
            runs.append(time.perf_counter() - started)
        peaks.append(peak.bytes)
        stages.append(dict(featurizer.timings_))
        log(f"featurize run {i + 1}/{repeats}: {runs[-1]:.2f}s, peak RSS {peaks[-1] / 2 ** 30:.2f} GiB "
            f"({', '.join(f'{k} {v:.2f}' for k, v in featurizer.timings_.items())})")
        shape, nnz = X.shape, X.nnz
        del X, featurizer
    median = statistics.median(runs)
    # peak_rss_bytes is the first run: featurizing once in a fresh process. Later runs inherit the
    # allocator's fragmentation and peak higher; every run's own peak is kept in peak_rss_runs.
    out.update(featurize_seconds=median, featurize_runs=runs, pairs_per_second=n / median,
               threads=jobs, n_columns=shape[1], nnz=nnz, peak_rss_bytes=peaks[0],
               peak_rss_runs=peaks, peak_rss_first_run=peaks[0], peak_rss_max=max(peaks),
               stages_of_median_run=stages[runs.index(median)] if median in runs else stages[0])
    # Each type alone, single-threaded: its own time and peak memory.
    per_type, per_type_rss = {}, {}
    for name in PAPER_TYPES:
        gc.collect()
        with PeakRSS() as type_peak:
            featurizer = PairFeaturizer(features=name, n_jobs=1)
            started = time.perf_counter()
            featurizer.fit_transform(pairs)
            per_type[name] = time.perf_counter() - started - featurizer.timings_["encode"]
        per_type_rss[name] = type_peak.bytes
        log(f"  {name}: {per_type[name]:.2f}s alone (after encoding)")
        del featurizer
    out["per_type"] = per_type
    out["per_type_pairs_per_second"] = {k: n / v for k, v in per_type.items()}
    out["per_type_peak_rss_bytes"] = per_type_rss
    out["encode_seconds"] = statistics.median(s["encode"] for s in stages)

    # The straightforward build, on a stated subset (it runs at a few thousand pairs/s).
    subset = pairs[:dict_pairs]
    from .dict_reference import dict_featurize
    gc.collect()
    started = time.perf_counter()
    dict_featurize(subset)
    dict_seconds = time.perf_counter() - started
    ours_subset = []
    for _ in range(repeats):
        started = time.perf_counter()
        PairFeaturizer(n_jobs=jobs).fit_transform(subset)
        ours_subset.append(time.perf_counter() - started)
    ours_seconds = statistics.median(ours_subset)
    out["dict_baseline"] = {"pairs": len(subset), "dict_seconds": dict_seconds, "ours_seconds": ours_seconds,
                            "dict_pairs_per_second": len(subset) / dict_seconds,
                            "ours_pairs_per_second": len(subset) / ours_seconds}
    out["speedup_vs_dict"] = dict_seconds / ours_seconds
    log(f"dict + DictVectorizer on {len(subset)} pairs: {dict_seconds:.2f}s; ours {ours_seconds:.2f}s "
        f"({out['speedup_vs_dict']:.1f}x)")

    # A plain bag of uni- and bigrams over the same pairs, as a speed reference.
    from sklearn.feature_extraction.text import HashingVectorizer
    texts = [f"{p.premise} ||| {p.hypothesis}" for p in pairs]
    hashing = []
    for _ in range(repeats):
        started = time.perf_counter()
        HashingVectorizer(ngram_range=(1, 2)).transform(texts)
        hashing.append(time.perf_counter() - started)
    hashing_seconds = statistics.median(hashing)
    out["hashing_ngrams"] = {"seconds": hashing_seconds, "pairs_per_second": n / hashing_seconds}
    out["ratio_vs_hashing_ngrams"] = out["pairs_per_second"] / (n / hashing_seconds)
    log(f"HashingVectorizer(1,2): {hashing_seconds:.2f}s; ours/hashing speed ratio "
        f"{out['ratio_vs_hashing_ngrams']:.2f}")
    return out
