"""Choose the featurizer's open choices on dev data: the numbers behind PairFeaturizer's defaults.

    python benchmarks/choose_defaults.py --data-dir ../shared/data --out results/defaults.json [--markdown]

Every option of `features.options` is varied alone from the defaults (each alternative value in
turn); every variant is scored with logistic regression on the lexicalized and the unlexicalized
features, on five estimates: SICK TRIAL and GLUE RTE dev (C chosen on dev), the SNLI sample's
1,273 dev pairs by 5-fold cross-validation (it has no real training split), and 5-fold
cross-validation on the SICK and GLUE RTE training splits (4,439 and 2,490 pairs, nine and four
times the dev splits, so less noisy; C chosen by the same folds). A default is the value with
the best mean over the five.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from nli_baselines import features
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.corpora import get_corpus, resolve_data_dir
from nli_baselines.experiments.engine.experiment import Prepared, run_row
from nli_baselines.experiments.engine.rows import Row
from nli_baselines.experiments.engine.splits import Splits, load_splits
from nli_baselines.experiments.outputs.records import write_json_atomic
from nli_baselines.features.featurizer import PairFeaturizer
from nli_baselines.features.options import DEFAULTS, OPTIONS
from nli_baselines.features.text.annotation import annotate
from nli_baselines.models import MODELS

ESTIMATES = ("sick_dev", "rte_dev", "snli_sample_cv", "sick_train_cv", "rte_train_cv")
GROUPS = ("lexicalized", "unlexicalized")


def variants() -> list[tuple[str, dict]]:
    """The defaults, then each option's alternatives one at a time."""
    return [("defaults", {})] + [(f"{name}={value}", {name: value}) for name, option in OPTIONS.items()
                                 for value in option.alternatives()]


def datasets(data_dir: Path, log) -> dict[str, Splits]:
    out = {}
    for name in ("sick", "rte"):
        loaded = load_splits(RunConfig(dataset=name, data_dir=str(data_dir), quiet=True), get_corpus(name), log)
        out[f"{name}_dev"] = loaded
        out[f"{name}_train_cv"] = Splits(loaded.corpus, loaded.train, None, None, "cv5(train)", {}, {}, {})
    sample = get_corpus("snli").load("dev", data_dir / "snli_1.0_sample")
    out["snli_sample_cv"] = Splits(get_corpus("snli"), annotate(sample.pairs), None, None, "cv5(dev sample)", {}, {},
                                   {})
    return {name: out[name] for name in ESTIMATES}


def score(data: Splits, options: dict, jobs: int) -> dict:
    featurizer = PairFeaturizer(features="lexicalized", **options)
    matrices = {"train": featurizer.fit_transform(data.train)}
    if data.selection is not None:
        matrices["selection"] = matrices["evaluation"] = featurizer.transform(data.selection)
    # The dev estimates choose C on dev (what they were defined as), not by --tune-on auto's CV.
    config = RunConfig(quiet=True, tune_on="dev", **options)
    prepared = Prepared(data.corpus, data, featurizer, matrices)
    out = {}
    for group in GROUPS:
        row = Row(group, MODELS["lr"], tuple(features.resolve(group)), data.corpus.is_two_class)
        result = run_row(row, prepared, config, jobs, keep=False).result
        out[group] = result["metrics"][data.eval_name]["accuracy"]
    return out


def markdown(table: dict) -> str:
    """The table of defaults (docs/features.md): accuracy (%) lexicalized / unlexicalized per estimate, and the means."""
    head = ["variant", *ESTIMATES, "mean"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, row in table.items():
        cells = [f"{100 * row[e]['lexicalized']:.1f} / {100 * row[e]['unlexicalized']:.1f}" for e in (*ESTIMATES, "mean")]
        lines.append(f"| {'**' + label + '**' if label == 'defaults' else label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir")
    parser.add_argument("--out", help="write the table as JSON")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="comma list of variant labels to run (default: all)")
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown (docs/features.md)")
    args = parser.parse_args(argv)
    data = datasets(resolve_data_dir(args.data_dir), lambda m: print(m, file=sys.stderr))
    table = {}
    wanted = set(args.only.split(",")) if args.only else None
    for label, change in variants():
        if wanted and label not in wanted:
            continue
        started = time.perf_counter()
        table[label] = {name: score(d, {**DEFAULTS, **change}, args.jobs) for name, d in data.items()}
        table[label]["mean"] = {g: float(np.mean([table[label][n][g] for n in data])) for g in GROUPS}
        cells = "  ".join(f"{n}: {100 * v['lexicalized']:.1f}/{100 * v['unlexicalized']:.1f}"
                          for n, v in table[label].items())
        print(f"{label:<26} {cells}  ({time.perf_counter() - started:.0f}s)", flush=True)
    if args.markdown:
        print(markdown(table))
    if args.out:
        write_json_atomic(args.out, {"defaults": DEFAULTS, "estimates": list(ESTIMATES), "variants": table})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
