"""End to end at SNLI scale: write the generated corpus as SNLI jsonl, then read it with its parse
tags, featurize, fit logistic regression and predict 10,000 dev pairs in a fresh process."""
from __future__ import annotations

import gc
import tempfile
import time
from pathlib import Path

import numpy as np

from features import PairFeaturizer

from ..corpora.synthetic import generate_pairs
from ..engine.records import peak_rss_bytes
from . import log


def _pipeline(data_dir: str, C: float, queue) -> None:
    """The end-to-end stages in a fresh process (so its peak RSS is the pipeline's own)."""
    import json as _json

    from models import LogisticClassifier

    from ..corpora import get_corpus
    from ..corpora.readers.snli import tokens_and_tags
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

    from ..corpora.synthetic import write_snli_jsonl
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
