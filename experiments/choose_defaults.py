"""Choose the featurizer's open choices on dev data: the numbers behind PairFeaturizer's defaults.

    python experiments/choose_defaults.py --data-dir ../shared/data --out results/defaults.json

Each choice (lowercasing, what "share a POS tag" compares, scaling of real-valued features,
BLEU smoothing) is varied alone from a base configuration; every variant is scored with
logistic regression (C chosen on dev) on SICK TRIAL, GLUE RTE dev, and the SNLI sample's
1,273 dev pairs by 5-fold cross-validation (the sample has no real training split).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import features
from experiments.corpora import get_corpus, resolve_data_dir
from experiments.engine.config import RunConfig
from experiments.engine.experiment import Row, run_row
from experiments.engine.records import write_json_atomic
from experiments.engine.splits import Splits, load_splits
from features.annotation import annotate
from features.combine import PairFeaturizer
from features.options import DEFAULTS

BASE = dict(DEFAULTS)
VARIANTS = [("base", {}), ("lowercase=False", {"lowercase": False}), ("tag_match=exact", {"tag_match": "exact"}),
            ("scale=none", {"scale": "none"}), ("scale=maxabs", {"scale": "maxabs"}),
            ("bleu_smoothing=floor", {"bleu_smoothing": "floor"}),
            ("bleu_smoothing=add-k", {"bleu_smoothing": "add-k"}), ("bleu_smoothing=none", {"bleu_smoothing": "none"}),
            ("min_count=1", {"min_count": 1}), ("min_count=2", {"min_count": 2}), ("min_count=5", {"min_count": 5}),
            ("min_count=10", {"min_count": 10})]
GROUPS = ("lexicalized", "unlexicalized")


def datasets(data_dir: Path, log) -> dict[str, Splits]:
    out = {}
    for name in ("sick", "rte"):
        config = RunConfig(dataset=name, data_dir=str(data_dir), progress=False)
        out[name] = load_splits(config, get_corpus(name), log)
    sample = get_corpus("snli").load("dev", data_dir / "snli_1.0_sample")
    pairs = annotate(sample.pairs)
    out["snli_sample"] = Splits(get_corpus("snli"), pairs, None, None, "cv5(dev sample)", {}, {}, {})
    return out


def score(data: Splits, options: dict, jobs: int) -> dict:
    featurizer = PairFeaturizer(features="lexicalized", **options)
    matrices = {"train": featurizer.fit_transform(data.train)}
    if data.selection is not None:
        matrices["selection"] = matrices["evaluation"] = featurizer.transform(data.selection)
    config = RunConfig(progress=False, featurizer=options)
    out = {}
    for group in GROUPS:
        row = Row(group, "lr", tuple(features.resolve(group)), data.corpus.is_two_class)
        result = run_row(row, data, matrices, featurizer, config, jobs)
        out[group] = result["metrics"][data.eval_name]["accuracy"]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir")
    parser.add_argument("--out", help="write the table as JSON")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="comma list of variant labels to run (default: all)")
    args = parser.parse_args(argv)
    data = datasets(resolve_data_dir(args.data_dir), lambda m: print(m, file=sys.stderr))
    table = {}
    wanted = set(args.only.split(",")) if args.only else None
    for label, change in VARIANTS:
        if wanted and label not in wanted:
            continue
        started = time.perf_counter()
        table[label] = {name: score(d, {**BASE, **change}, args.jobs) for name, d in data.items()}
        means = {g: float(np.mean([table[label][n][g] for n in data])) for g in GROUPS}
        table[label]["mean"] = means
        cells = "  ".join(f"{n}: lex {100 * v['lexicalized']:.1f} unlex {100 * v['unlexicalized']:.1f}"
                          for n, v in table[label].items())
        print(f"{label:<22} {cells}  ({time.perf_counter() - started:.0f}s)", flush=True)
    if args.out:
        write_json_atomic(args.out, {"base": BASE, "variants": table})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
