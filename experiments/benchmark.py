"""Speed and memory of the suite at SNLI scale, on a generated corpus of SNLI's size and shape.

    python experiments/benchmark.py --json results/features.json            # the six feature types
    python experiments/benchmark.py --tagging --data-dir ../shared/data     # spaCy tagging, cold vs warm cache

Featurization is measured `--repeats` times and the median is reported (the machine is shared
and noisy); the straightforward per-pair dict + DictVectorizer build and scikit-learn's
HashingVectorizer are measured in the same run, so their ratios are comparable.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import the suite from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import gc
import os
import statistics
import tempfile
import time

import numpy as np

from experiments.memory import PeakRSS
from experiments.records import peak_rss_bytes, versions, write_json_atomic
from experiments.synthetic import SNLI_TRAIN_PAIRS, generate_pairs
from features import BUILTIN, PairFeaturizer


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def corpus_shape(pairs) -> dict:
    p_len = np.fromiter((len(p.premise_tokens) for p in pairs), dtype=np.int64, count=len(pairs))
    h_len = np.fromiter((len(p.hypothesis_tokens) for p in pairs), dtype=np.int64, count=len(pairs))
    words = {w for p in pairs for w in p.hypothesis_tokens} | {w for p in pairs for w in p.premise_tokens}
    return {"premise_mean_tokens": float(p_len.mean()), "hypothesis_mean_tokens": float(h_len.mean()),
            "vocabulary_types": len(words), "distinct_premises": len({p.premise for p in pairs})}


def bench_features(pairs, repeats: int, dict_pairs: int, jobs: int) -> dict:
    n = len(pairs)
    out: dict = {"pairs": n}
    runs, stages = [], []
    with PeakRSS() as peak:
        for i in range(repeats):
            gc.collect()
            featurizer = PairFeaturizer(n_jobs=jobs)
            started = time.perf_counter()
            X = featurizer.fit_transform(pairs)
            runs.append(time.perf_counter() - started)
            stages.append(dict(featurizer.timings_))
            log(f"featurize run {i + 1}/{repeats}: {runs[-1]:.2f}s  ({', '.join(f'{k} {v:.2f}' for k, v in featurizer.timings_.items())})")
            shape, nnz = X.shape, X.nnz
            del X, featurizer
    median = statistics.median(runs)
    out.update(featurize_seconds=median, featurize_runs=runs, pairs_per_second=n / median,
               threads=jobs, n_columns=shape[1], nnz=nnz, peak_rss_bytes=peak.bytes,
               stages_of_median_run=stages[runs.index(median)] if median in runs else stages[0])
    # Each type alone, single-threaded: its own time and peak memory.
    per_type, per_type_rss = {}, {}
    for name in BUILTIN:
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
    from experiments.dict_features import dict_featurize
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


def bench_tagging(data_dir: str | None, sentences: int) -> dict:
    """spaCy tok2vec+tagger throughput, and cold vs warm annotation of SICK (all splits found)."""
    from experiments.corpora import get_corpus
    from experiments.readers.demo import generate_demo
    from features.annotation import SpacyTagger, annotate
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=SNLI_TRAIN_PAIRS)
    parser.add_argument("--repeats", type=int, default=3, help="featurization runs; the median is reported")
    parser.add_argument("--dict-pairs", type=int, default=50_000,
                        help="subset for the slow dict + DictVectorizer reference (default 50,000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tagging", action="store_true", help="measure spaCy tagging and the tag cache instead")
    parser.add_argument("--tag-sentences", type=int, default=20_000)
    parser.add_argument("--data-dir", help="corpora for the tagging benchmark (SICK cold/warm)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="OUT", help="write the figures as JSON")
    args = parser.parse_args(argv)
    record: dict = {"versions": versions(), "cpus": os.cpu_count()}
    if args.tagging:
        record["tagging"] = bench_tagging(args.data_dir, args.tag_sentences)
    else:
        started = time.perf_counter()
        pairs = generate_pairs(args.pairs, seed=args.seed)
        record["corpus"] = {"generator": "experiments.synthetic.generate_pairs", "seed": args.seed,
                            "seconds": time.perf_counter() - started, **corpus_shape(pairs)}
        record["corpus_rss_bytes"] = peak_rss_bytes()
        log(f"generated {len(pairs)} pairs in {record['corpus']['seconds']:.1f}s: {record['corpus']}")
        record.update(bench_features(pairs, args.repeats, args.dict_pairs, args.jobs))
    record["process_peak_rss_bytes"] = peak_rss_bytes()
    if args.json:
        write_json_atomic(args.json, record)
    import json
    print(json.dumps({k: v for k, v in record.items() if k != "versions"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
