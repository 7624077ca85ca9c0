"""End to end at SNLI scale: write the generated corpus as SNLI jsonl, then read it with its parse
tags, featurize, choose C on the dev pairs as `experiments/run.py` does (a path along the grid,
whose chosen fit is the model) and predict 10,000 dev pairs, in a fresh process. Also: is every
fit converged, how does each candidate's dev accuracy compare with a cold fit at a tight
tolerance, and how far is the fit from scikit-learn's at 100,000 pairs."""
from __future__ import annotations

import gc
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks.synthetic import generate_pairs
from nli_baselines.experiments.outputs.records import peak_rss_bytes
from nli_baselines.features import PairFeaturizer

from . import log

CONVERGENCE_PAIRS = 100_000
# The tight tolerance of the cold fit each candidate of the path is compared with: newton-pcg from
# zero to ||gradient|| <= 1e-5 ||gradient at 0||, 100x tighter than the default (SOLVER_TOL).
CANDIDATE_REFERENCE_TOL = 1e-5
# The reference: scikit-learn's own newton-cg (an independent implementation) in float64, run
# until its largest gradient entry is below 1e-8.
REFERENCE = {"solver": "newton-cg", "tol": 1e-8, "max_iter": 1000}


def _pipeline(data_dir: str, C: float | None, reference: bool, queue) -> None:
    """The end-to-end stages in a fresh process (so its peak RSS is the pipeline's own)."""
    import json as _json

    from nli_baselines.experiments.corpora import get_corpus
    from nli_baselines.experiments.corpora.readers.snli import tokens_and_tags
    from nli_baselines.experiments.engine.selection import choose
    from nli_baselines.models import LogisticClassifier
    from nli_baselines.models.logistic import SPEC
    stages, detail = {}, {}
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
    detail["parse_tags_seconds_estimate"] = (time.perf_counter() - started) * len(train) / len(sample)
    del sample
    started = time.perf_counter()
    featurizer = PairFeaturizer()
    X = featurizer.fit_transform(train)
    stages["featurize"] = time.perf_counter() - started
    detail["featurize_by_type"] = featurizer.timings_
    y = np.array([p.label for p in train], dtype=object)
    started = time.perf_counter()
    X_dev = featurizer.transform(dev)  # once: choosing C, the reference check and predicting all score it
    dev_featurize_seconds = time.perf_counter() - started
    y_dev = np.array([p.label for p in dev], dtype=object)
    selection = None
    if C is None:
        # As experiments/run.py chooses: the model's grid, scored on the dev pairs, fitted as a path
        # (extended at an edge, stopped once dev accuracy has fallen twice in a row or significantly); the chosen
        # candidate's fit is the model.
        started = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            chosen = choose(LogisticClassifier(), dict(SPEC.tuning.grid), X, y, X_dev, y_dev,
                            extend=dict(SPEC.tuning.extend), path=SPEC.tuning.path, describe=SPEC.describe)
        stages["choose_C_and_fit"] = time.perf_counter() - started
        selection = {**chosen.record(), "seconds": stages["choose_C_and_fit"], "seconds_per_candidate": chosen.seconds,
                     "unconverged_fits": sum("max_iter" in str(w.message) for w in caught)}
        C = chosen.chosen["C"]
        model = chosen.model if chosen.model is not None else LogisticClassifier(C=C).fit(X, y)
        log(f"chose C={C} in {selection['seconds']:.0f}s: {selection['scores']}"
            + (f"; skipped {selection['skipped']}" if selection["skipped"] else ""))
    else:
        started = time.perf_counter()
        model = LogisticClassifier(C=C).fit(X, y)
        stages["fit_logistic_regression"] = time.perf_counter() - started
    started = time.perf_counter()
    predictions = model.predict(X_dev)
    stages["predict_10k"] = dev_featurize_seconds + time.perf_counter() - started  # from raw pairs, as a user would
    accuracy = float(np.mean(predictions == y_dev))
    pipeline_peak = peak_rss_bytes()
    result = {"pairs": len(train), "stages": stages, "peak_rss_bytes": pipeline_peak, "C": C,
              "selection": selection, "converged": model.converged_, "n_iter": model.n_iter_,
              "solver": model.solver_, "dev_accuracy": accuracy,
              "detail": {**detail, "columns": X.shape[1], "nnz": int(X.nnz)}}
    if reference and selection is not None:
        result["candidates"] = _cold_candidates(X, y, X_dev, y_dev, selection)
    if reference and len(train) >= CONVERGENCE_PAIRS:
        result.update(_convergence_check(X, y, X_dev, y_dev, C))
    queue.put(result)


def _cold_candidates(X, y, X_dev, y_dev, selection: dict) -> dict:
    """Every value of the grid (fitted by the path or skipped by it) fitted cold at
    `CANDIDATE_REFERENCE_TOL`: each candidate's dev accuracy against its cold reference, in
    points (`gap_points`), and the choice a careful cold search over the same values makes."""
    from nli_baselines.models import LogisticClassifier
    values = sorted({float(label.split("=")[1]) for label in selection["scores"]} | set(selection["skipped"]))
    out, reference = {}, {}
    for C in values:
        label = f"C={C}"
        started = time.perf_counter()
        cold = LogisticClassifier(C=C, tol=CANDIDATE_REFERENCE_TOL, max_iter=200).fit(X, y)
        reference[C] = float(np.mean(cold.predict(X_dev) == y_dev))
        entry = {"reference_dev_accuracy": reference[C], "reference_seconds": time.perf_counter() - started,
                 "reference_iterations": cold.n_iter_, "reference_converged": cold.converged_}
        if label in selection["scores"]:
            entry["dev_accuracy"] = selection["scores"][label]
            entry["gap_points"] = 100 * (selection["scores"][label] - reference[C])
        else:
            entry["skipped_by_the_path"] = True
        out[label] = entry
        log(f"  cold reference at {label}: dev {100 * reference[C]:.2f}%"
            + (f", path {100 * entry['dev_accuracy']:.2f}% (gap {entry['gap_points']:+.2f} points)"
               if "gap_points" in entry else " (skipped by the path)") + f", {entry['reference_seconds']:.0f}s")
    cold_choice = max(values, key=lambda C: (reference[C], -C))  # ties keep the smaller C, as choose does
    gaps = [abs(e["gap_points"]) for e in out.values() if "gap_points" in e]
    return {"reference": f"LogisticClassifier(tol={CANDIDATE_REFERENCE_TOL}) from zero, per value",
            "per_candidate": out, "max_abs_gap_points": max(gaps) if gaps else None,
            "cold_search_choice": {"C": cold_choice}, "same_choice": cold_choice == selection["chosen"]["C"]}


def _convergence_check(X, y, X_dev, y_dev, C: float, size: int = CONVERGENCE_PAIRS) -> dict:
    """The default fit against a tight reference fit on `size` training pairs (a fixed sample):
    relative gap of scikit-learn's objective, and dev accuracy difference."""
    from sklearn.linear_model import LogisticRegression

    from nli_baselines.models import LogisticClassifier
    from nli_baselines.models.newton_pcg import objective
    rows = np.sort(np.random.default_rng([0, size]).choice(X.shape[0], min(size, X.shape[0]), replace=False))
    Xs, ys = X[rows], y[rows]
    classes, codes = np.unique(ys, return_inverse=True)
    started = time.perf_counter()
    ours = LogisticClassifier(C=C).fit(Xs, ys)
    ours_seconds = time.perf_counter() - started
    started = time.perf_counter()
    reference = LogisticRegression(C=C, **REFERENCE).fit(Xs.astype(np.float64), ys)
    reference_seconds = time.perf_counter() - started
    f_ours = objective(Xs, codes, ours.model_.coef_, ours.model_.intercept_, C)
    f_reference = objective(Xs, codes, reference.coef_, reference.intercept_, C)
    ours_accuracy = float(np.mean(ours.predict(X_dev) == y_dev))
    reference_accuracy = float(np.mean(reference.predict(X_dev) == y_dev))
    gap = (f_ours - f_reference) / abs(f_reference)
    log(f"convergence at {len(rows)} pairs, C={C}: objective gap {gap:.2e}, dev accuracy "
        f"{ours_accuracy:.4f} vs reference {reference_accuracy:.4f}")
    return {"objective_gap": gap, "accuracy_gap_vs_reference": ours_accuracy - reference_accuracy,
            "convergence_check": {"pairs": len(rows), "C": C, "objective": f_ours, "reference_objective": f_reference,
                                  "dev_accuracy": ours_accuracy, "reference_dev_accuracy": reference_accuracy,
                                  "seconds": ours_seconds, "reference_seconds": reference_seconds,
                                  "n_iter": ours.n_iter_, "converged": ours.converged_,
                                  "reference": {"implementation": "sklearn.linear_model.LogisticRegression",
                                                "dtype": "float64", **REFERENCE,
                                                "n_iter": int(np.max(reference.n_iter_))}}}


def bench_end_to_end(n_pairs: int, seed: int, C: float | None, dev_pairs: int = 10_000,
                     reference: bool = True) -> dict:
    """C None: choose it as experiments/run.py does (a path along the grid, the chosen fit kept);
    reference: compare every candidate with a cold fit at a tight tolerance, and the default fit
    with scikit-learn's (at 100,000 pairs)."""
    import multiprocessing

    from benchmarks.synthetic import write_snli_jsonl
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
        child = context.Process(target=_pipeline, args=(data_dir, C, reference, queue))
        child.start()
        result = queue.get()
        child.join()
    result["total_seconds"] = sum(result["stages"].values())
    result["pairs_per_second"] = result["pairs"] / result["total_seconds"]
    result["train_jsonl_bytes"] = size
    if result["selection"]:
        result["total_seconds_with_selection"] = result["total_seconds"]  # choosing C is a stage now
    log(f"end to end, {n_pairs} pairs: {result['total_seconds']:.1f}s "
        f"({', '.join(f'{k} {v:.1f}' for k, v in result['stages'].items())}); C={result['C']}, "
        f"converged {result['converged']} after {result['n_iter']} steps; "
        f"peak RSS {result['peak_rss_bytes'] / 2 ** 30:.2f} GiB")
    return result
