"""Learning curves: accuracy against the number of training pairs, as CSV, JSON and plots.

    python learning_curves/run.py --dataset sick --sizes 1,10,100,1000,all --seeds 3 \\
        --configs lexicalized,unlexicalized --out results/curve-sick [--reference snli-paper]

Features are built once for the whole training split; each point slices its rows. Points run
in parallel (--jobs) and are saved as they finish: running the same command again resumes,
reusing the points already in DIR/curve.csv.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

import features
from experiments import __version__
from experiments.commandline.arguments import (
    add_data_arguments,
    add_featurizer_arguments,
    add_import_argument,
    add_parallel_arguments,
    add_selection_arguments,
    corpus_from_args,
    count,
    custom_files,
    featurizer_options,
    import_user_modules,
    parse_c_grid,
)
from experiments.commandline.exits import closed_pipe_ends_quietly, user_errors
from experiments.commandline.paths import check_output_dir
from experiments.engine.config import RunConfig
from experiments.engine.errors import UsageError
from experiments.engine.parallel import grid_backend, n_jobs
from experiments.outputs.records import versions, write_json_atomic
from experiments.engine.splits import labels_of, load_splits
from experiments.outputs.published import SNLI_LEARNING_CURVE
from features.combine import PairFeaturizer
from learning_curves.curve import aggregate, fit_point, parse_config, parse_sizes, plan, read_points, write_points
from learning_curves.plot import plot_curve
from models import MODELS

REFERENCES = {"snli-paper": (SNLI_LEARNING_CURVE, "SNLI paper, Fig. 4 (SNLI test)")}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_arguments(parser)
    add_import_argument(parser)
    parser.add_argument("--sizes", default="1,10,100,1000,10000,all", help="training sizes; 'all' = the whole split")
    parser.add_argument("--seeds", type=count(1), default=3, help="random samples per size (default 3)")
    parser.add_argument("--configs", default="lexicalized,unlexicalized",
                        help="comma list of curves: a feature group or type (logistic regression), several "
                             "joined by '+' (lexicalized+negation), MODEL:FEATURES for another model that reads "
                             f"features, or a model that reads pairs ({', '.join(n for n, s in MODELS.items() if not s.uses_features)})")
    parser.add_argument("--eval-split", default="dev", help="dev (default) or test")
    parser.add_argument("--out", required=True, metavar="DIR", help="where curve.csv/json/png/svg go")
    parser.add_argument("--overwrite", action="store_true", help="discard points of a different earlier run in DIR")
    add_parallel_arguments(parser)
    features_group = parser.add_argument_group("features and selection")
    add_featurizer_arguments(features_group)
    add_selection_arguments(features_group)
    parser.add_argument("--reference", choices=sorted(REFERENCES), help="draw published points for comparison")
    parser.add_argument("--quiet", action="store_true")
    return parser


def signature(args, data, run_config) -> dict:
    """What makes points comparable: the same data files, split, featurizer options and C grid."""
    return {"dataset": args.dataset, "eval_split": data.eval_name, "files": data.files,
            "suite_version": __version__, "c_grid": args.c_grid, "featurizer": run_config.featurizer}


def main(argv=None) -> int:
    with user_errors():
        import_user_modules(argv)
    args = build_parser().parse_args(argv)
    with user_errors(), closed_pipe_ends_quietly():
        return draw(args)


def draw(args) -> int:
    log = (lambda m: None) if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    # Checks that need no data come first: a bad argument must not cost a featurization.
    check_output_dir(args.out, "--out")
    try:
        parse_sizes(args.sizes, sys.maxsize)
    except ValueError as exc:
        raise UsageError(f"--sizes: {exc}") from None
    try:
        curves = {c.name: c for c in map(parse_config, (c for c in args.configs.split(",") if c.strip()))}
    except ValueError as exc:
        raise UsageError(f"--configs: {exc}") from None
    if not curves:
        raise UsageError("--configs: no curve given")
    configs = list(curves)
    corpus = corpus_from_args(args)
    run_config = RunConfig(dataset=args.dataset, data_dir=args.data_dir, eval_split=args.eval_split,
                           on_bad_row=args.on_bad_row, progress=not args.quiet, jobs=args.jobs,
                           grids={"C": parse_c_grid(args.c_grid)}, featurizer=featurizer_options(args),
                           label_map=args.label_map, allow_unseen_labels=args.allow_unseen_labels,
                           backend=args.backend, scheduler=args.scheduler, custom=custom_files(args))
    lemmas = any(c.spec.needs_lemmas or features.types_need_lemmas(c.feature_types) for c in curves.values())
    data = load_splits(run_config, corpus, log, lemmas=lemmas)
    if data.evaluation is None:
        raise UsageError(f"{corpus.name} has no dev split to score points on; use --eval-split test")
    try:
        sizes, notes = parse_sizes(args.sizes, len(data.train))
    except ValueError as exc:
        raise UsageError(f"--sizes: {exc}") from None
    for note in notes:
        log(note)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sig = signature(args, data, run_config)
    sig_path = out / "run.json"
    if sig_path.exists() and json.loads(sig_path.read_text()) != sig:
        if not args.overwrite:
            raise UsageError(f"{out} holds points of a different run (data, split or version); "
                             "use another --out or pass --overwrite")
        (out / "curve.csv").unlink(missing_ok=True)
    write_json_atomic(sig_path, sig)

    started = time.perf_counter()
    inputs = build_inputs(curves, data, corpus.is_two_class, run_config.featurizer, log)
    featurize_seconds = time.perf_counter() - started
    csv_path = out / "curve.csv"
    done, dropped = read_points(csv_path)
    if dropped:
        log(f"{csv_path}: {dropped} malformed line(s) dropped (an interrupted write); those points are recomputed")
    points = plan(configs, sizes, args.seeds)
    todo = [p for p in points if p.key not in done]
    # A clipped size gives every seed the whole split: fit once, record it for each seed.
    unique = list({(p.config, p.size, p.seed if p.size < len(data.train) else -1): p for p in todo}.values())
    log(f"{len(points)} points: {len(points) - len(todo)} reused from {csv_path}, {len(unique)} to fit")
    computed = 0
    if unique:
        from tqdm import tqdm  # not tqdm.auto: in a notebook it warns without ipywidgets
        with grid_backend(args.backend, args.scheduler):
            jobs = Parallel(n_jobs=n_jobs(args.backend, args.jobs), return_as="generator_unordered")(
                delayed(fit_point)(p, curves[p.config], inputs[p.config], run_config) for p in unique)
            rows_done = list(_drain(tqdm(jobs, total=len(unique), desc="points", disable=args.quiet), todo, done,
                                    csv_path, len(data.train), configs))
        computed = len(rows_done)
    rows = [done[p.key] for p in points]
    write_points(csv_path, list(done.values()), configs)
    table = aggregate(rows)
    n_classes = len(set(inputs[configs[0]]["y"][0]))
    record = {"dataset": args.dataset, "eval_split": data.eval_name, "train_pairs": len(data.train),
              "eval_pairs": len(data.evaluation), "configs": configs, "sizes": [s for s, _ in sizes],
              "seeds": args.seeds, "notes": notes, "curve": table, "points_computed": computed,
              "points_reused": len(points) - len(todo), "featurize_seconds": featurize_seconds,
              "total_seconds": time.perf_counter() - started, "sampling": "numpy.random.default_rng([seed, size]), "
              "without replacement; sizes >= the split are the whole split", "versions": versions(),
              "signature": sig}
    write_json_atomic(out / "curve.json", record)
    reference, ref_label = REFERENCES.get(args.reference, (None, ""))
    title = f"Learning curve on {args.dataset} ({len(data.train):,} training pairs; {data.eval_name} split)"
    subtitle = f"mean \u00b1 std over {args.seeds} random samples per size; LR's C chosen on {data.eval_name}"
    y_train, _, y_eval = inputs[configs[0]]["y"]
    values, counts = np.unique(y_train, return_counts=True)
    majority = float(np.mean(y_eval == values[np.argmax(counts)]))
    plot_curve(table, out, title=title, eval_name=data.eval_name, n_classes=n_classes,
               titles={name: c.title for name, c in curves.items()}, reference=reference,
               reference_label=ref_label, subtitle=subtitle, majority=majority)
    print(summary(table, data.eval_name))
    print(f"wrote {csv_path}, {out / 'curve.json'}, {out / 'curve.png'}, {out / 'curve.svg'}")
    return 0


def _drain(results, todo, done: dict, csv_path: Path, n_train: int, order: list[str]):
    """Record each finished point (for every seed it stands for) and save the CSV at once."""
    for row in results:
        for p in todo:
            if p.config == row["config"] and p.size == row["size"] and (p.seed == row["seed"] or p.size >= n_train):
                done[p.key] = {**row, "seed": p.seed, "requested_size": p.requested}
        write_points(csv_path, list(done.values()), order)
        yield row


def build_inputs(curves: dict, data, binary_corpus: bool, options: dict, log) -> dict:
    """Per config: the (train, selection, eval) inputs and labels, from one featurization."""
    matrix_types = [t for t in features.FEATURE_TYPES if any(t in c.feature_types for c in curves.values())]
    matrices, featurizer = {}, None
    if matrix_types:
        featurizer = PairFeaturizer(features=matrix_types, **options)
        matrices["train"] = featurizer.fit_transform(data.train)
        matrices["selection"] = featurizer.transform(data.selection) if data.selection is not None else None
        matrices["eval"] = (matrices["selection"] if data.evaluation is data.selection
                            else featurizer.transform(data.evaluation))
        log(f"featurized {len(data.train)} training pairs once: {featurizer.n_features_out_} columns")
    inputs = {}
    for name, curve in curves.items():
        spec = curve.spec
        if spec.uses_features:
            cols = featurizer.columns_for(curve.feature_types)
            X = tuple(None if m is None else m[:, cols] for m in
                      (matrices["train"], matrices["selection"], matrices["eval"]))
        else:
            X = (data.train, data.selection, data.evaluation)
        binary = binary_corpus or spec.two_class_only
        inputs[name] = {"X": X, "y": (labels_of(data.train, binary), labels_of(data.selection, binary),
                                      labels_of(data.evaluation, binary))}
    return inputs


def summary(table: dict, eval_name: str) -> str:
    lines = [f"{'config':<16} {'size':>8} {'seeds':>5} {eval_name + ' acc':>12} {'std':>6} {'train acc':>10}"]
    for config, points in table.items():
        for p in points:
            lines.append(f"{config:<16} {p['size']:>8} {p['seeds']:>5} {100 * p['eval_mean']:>12.1f} "
                         f"{100 * p['eval_std']:>6.1f} {100 * p['train_mean']:>10.1f}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
