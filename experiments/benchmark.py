"""Speed and memory of the suite at SNLI scale, on a generated corpus of SNLI's size and shape.

    python experiments/benchmark.py --json results/features.json            # the six feature types
    python experiments/benchmark.py --tagging --data-dir ../shared/data     # spaCy tagging, cold vs warm cache
    python experiments/benchmark.py --pairs 550152 --end-to-end --json results/e2e.json   # read..predict
    python experiments/benchmark.py --end-to-end --scaling 55000,137500,275000,550152 --json results/scaling.json

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


def _pipeline(data_dir: str, C: float, queue) -> None:
    """The end-to-end stages in a fresh process (so its peak RSS is the pipeline's own)."""
    from experiments.corpora import get_corpus
    from experiments.readers.snli import tokens_and_tags
    from models import LogisticClassifier
    import json as _json
    stages = {}
    corpus = get_corpus("snli")
    started = time.perf_counter()
    train = corpus.load("train", data_dir).pairs
    dev = corpus.load("dev", data_dir).pairs
    stages["read_jsonl_and_parse_tags"] = time.perf_counter() - started
    # Of which parse-tag extraction alone (re-done on the parse strings of 20,000 lines, scaled).
    with open(Path(data_dir) / "snli_1.0_train.jsonl", encoding="utf-8") as handle:
        sample = [_json.loads(next(handle)) for _ in range(min(20_000, len(train)))]
    started = time.perf_counter()
    for row in sample:
        tokens_and_tags(row["sentence1_parse"])
        tokens_and_tags(row["sentence2_parse"])
    stages_detail = {"parse_tags_seconds_estimate": (time.perf_counter() - started) * len(train) / len(sample)}
    started = time.perf_counter()
    featurizer = PairFeaturizer()
    X = featurizer.fit_transform(train)
    stages["featurize"] = time.perf_counter() - started
    y = np.array([p.label for p in train], dtype=object)
    started = time.perf_counter()
    model = LogisticClassifier(C=C).fit(X, y)
    stages["fit_logistic_regression"] = time.perf_counter() - started
    started = time.perf_counter()
    predictions = model.predict(featurizer.transform(dev))
    stages["predict_10k"] = time.perf_counter() - started
    accuracy = float(np.mean(predictions == np.array([p.label for p in dev], dtype=object)))
    queue.put({"pairs": len(train), "stages": stages, "detail": {**stages_detail, "columns": X.shape[1],
               "nnz": int(X.nnz), "solver": model.solver_, "solver_iterations": model.n_iter_, "C": C,
               "dev_accuracy": accuracy,
               "featurize_by_type": featurizer.timings_}, "peak_rss_bytes": peak_rss_bytes()})


def bench_end_to_end(n_pairs: int, seed: int, C: float, dev_pairs: int = 10_000) -> dict:
    import multiprocessing
    from experiments.synthetic import write_snli_jsonl
    with tempfile.TemporaryDirectory(prefix="nli-e2e-") as data_dir:
        started = time.perf_counter()
        pairs = generate_pairs(n_pairs + dev_pairs, seed=seed)  # one vocabulary for train and dev
        write_snli_jsonl(pairs[:n_pairs], Path(data_dir) / "snli_1.0_train.jsonl")
        write_snli_jsonl(pairs[n_pairs:], Path(data_dir) / "snli_1.0_dev.jsonl")
        size = (Path(data_dir) / "snli_1.0_train.jsonl").stat().st_size
        del pairs
        gc.collect()
        log(f"wrote {n_pairs} + {dev_pairs} pairs as SNLI jsonl ({size / 2 ** 20:.0f} MiB) in "
            f"{time.perf_counter() - started:.0f}s")
        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        child = context.Process(target=_pipeline, args=(data_dir, C, queue))
        child.start()
        result = queue.get()
        child.join()
    result["total_seconds"] = sum(result["stages"].values())
    result["pairs_per_second"] = result["pairs"] / result["total_seconds"]
    result["train_jsonl_bytes"] = size
    log(f"end to end, {n_pairs} pairs: {result['total_seconds']:.1f}s "
        f"({', '.join(f'{k} {v:.1f}' for k, v in result['stages'].items())}); "
        f"peak RSS {result['peak_rss_bytes'] / 2 ** 30:.2f} GiB")
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=SNLI_TRAIN_PAIRS)
    parser.add_argument("--repeats", type=int, default=3, help="featurization runs; the median is reported")
    parser.add_argument("--dict-pairs", type=int, default=50_000,
                        help="subset for the slow dict + DictVectorizer reference (default 50,000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tagging", action="store_true", help="measure spaCy tagging and the tag cache instead")
    parser.add_argument("--end-to-end", action="store_true",
                        help="read SNLI jsonl, extract parse tags, featurize, fit LR, predict 10,000 pairs")
    parser.add_argument("--scaling", metavar="SIZES", help="with --end-to-end: several corpus sizes, one process each")
    parser.add_argument("--C", type=float, default=0.1,
                        help="logistic regression C for --end-to-end (default 0.1: on this corpus dev accuracy"
                             " rises as C falls below 1, and C=1.0 fits 3x slower)")
    parser.add_argument("--write-snli", metavar="DIR",
                        help="only write the generated corpus (train: --pairs, dev: 10,000) as SNLI jsonl into DIR")
    parser.add_argument("--tag-sentences", type=int, default=20_000)
    parser.add_argument("--data-dir", help="corpora for the tagging benchmark (SICK cold/warm)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="OUT", help="write the figures as JSON")
    args = parser.parse_args(argv)
    record: dict = {"versions": versions(), "cpus": os.cpu_count()}
    if args.write_snli:
        from experiments.synthetic import write_snli_jsonl
        pairs = generate_pairs(args.pairs + 10_000, seed=args.seed)
        out = Path(args.write_snli)
        out.mkdir(parents=True, exist_ok=True)
        write_snli_jsonl(pairs[:args.pairs], out / "snli_1.0_train.jsonl")
        write_snli_jsonl(pairs[args.pairs:], out / "snli_1.0_dev.jsonl")
        print(f"wrote {args.pairs} train and 10000 dev pairs to {out}")
        return 0
    if args.tagging:
        record["tagging"] = bench_tagging(args.data_dir, args.tag_sentences)
    elif args.end_to_end:
        sizes = [int(x) for x in args.scaling.split(",")] if args.scaling else [args.pairs]
        runs = [bench_end_to_end(n, args.seed, args.C) for n in sizes]
        record.update(runs[-1])
        if len(runs) > 1:
            per_pair = {r["pairs"]: r["total_seconds"] / r["pairs"] for r in runs}
            record["scaling"] = {"runs": runs, "seconds_per_pair": per_pair,
                                 "ratio_largest_to_smallest": per_pair[max(per_pair)] / per_pair[min(per_pair)]}
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
