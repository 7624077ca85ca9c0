"""Train and evaluate a baseline: the SNLI paper's lexicalized classifier, its ablations, edit distance.

    python experiments/run.py --ablate cross_bigrams                 # SNLI, lexicalized minus cross-bigrams
    python experiments/run.py --dataset sick --paper-table           # the paper's Table 4/5 rows at once
    python experiments/run.py --dataset demo --top-features 10       # offline, no files needed
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import features
from experiments.commandline.arguments import (
    add_data_arguments,
    add_featurizer_arguments,
    add_import_argument,
    add_parallel_arguments,
    add_selection_arguments,
    count,
    custom_files,
    featurizer_options,
    import_user_modules,
    parse_c_grid,
)
from experiments.commandline.exits import closed_pipe_ends_quietly, user_errors
from experiments.commandline.paths import check_output_dir, check_output_file
from experiments.corpora import resolve_data_dir
from experiments.engine.config import RunConfig
from experiments.engine.errors import UsageError
from experiments.engine.experiment import run
from experiments.outputs.records import write_json_atomic
from experiments.outputs.plots import plot_rows
from experiments.outputs.report import data_notes, error_rows, format_report, summary_table
from experiments.outputs.tabular import SUFFIXES, format_table
from features.atomic import atomic_write
from models import MODELS

PLOTTED_FEATURES = 15  # strongest weights drawn per class with --plots


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_arguments(parser)
    add_import_argument(parser)
    group = parser.add_argument_group("model and features")
    group.add_argument("--model", default="lr", choices=list(MODELS), help="default: lr")
    group.add_argument("--features", default="lexicalized", metavar="GROUP_OR_LIST",
                       help=f"a group ({', '.join(features.GROUPS)}) or a comma list of types "
                            f"({', '.join(features.FEATURE_TYPES)}); default: lexicalized")
    group.add_argument("--ablate", action="append", default=[], metavar="NAME",
                       help="remove a feature type or group (repeatable)")
    group.add_argument("--two-class", action="store_true", help="entailment vs not_entailment")
    group.add_argument("--paper-table", action="store_true",
                       help="the paper's rows in one run: lexicalized, unigrams only, unlexicalized, "
                            "edit distance, two-class LR (and majority)")
    group.add_argument("--ablation-table", action="store_true",
                       help="one run per feature type ablated from --features, plus the full set")
    group.add_argument("--wordnet", action="store_true",
                       help="edit distance: let CV choose whether substituting a WordNet synonym or hypernym "
                            "(on lemmas) is free, as EOP's lemma + WordNet configuration does")
    add_featurizer_arguments(group)
    add_selection_arguments(group)
    run_group = parser.add_argument_group("run")
    run_group.add_argument("--train-size", type=count(1), metavar="N", help="train on a seeded random sample of N pairs")
    run_group.add_argument("--seed", type=int, default=0)
    run_group.add_argument("--eval-split", default="dev", metavar="dev|test|SPLIT",
                           help="split to score (default: dev; a corpus without dev is cross-validated)")
    run_group.add_argument("--cv-folds", type=count(2), default=5, help="folds where a corpus has no dev split")
    run_group.add_argument("--bootstrap", type=count(0), default=0, metavar="N",
                           help="refit on N resamples of the training set and report the spread of the score")
    run_group.add_argument("--top-features", type=count(0), default=0, metavar="K",
                           help="print the K highest-weighted features per class, as words")
    run_group.add_argument("--out", metavar="FILE.json", help="write the run record here")
    run_group.add_argument("--errors", metavar="FILE.tsv",
                           help="write every scored pair with gold and predicted label, confidence and the features "
                                "that pushed the prediction (.tsv, .csv or .jsonl)")
    run_group.add_argument("--plots", metavar="DIR", help="draw the confusion matrix and the strongest feature "
                                                          "weights per class as PNG files here")
    run_group.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    add_parallel_arguments(run_group)
    run_group.add_argument("--quiet", action="store_true", help="no progress output; print the result table only")
    out = parser.add_argument_group("predictions and saved models")
    out.add_argument("--predict", metavar="SPLIT", choices=["test"],
                     help="predict the test split(s) of the benchmark task(s) (implied by --glue-out/--superglue-out)")
    out.add_argument("--glue-out", metavar="DIR", help="write GLUE prediction files (e.g. RTE.tsv) here")
    out.add_argument("--superglue-out", metavar="DIR", help="write SuperGLUE prediction files (e.g. CB.jsonl) here")
    out.add_argument("--glue-zip", metavar="FILE", help="bundle the written prediction files into one flat zip")
    out.add_argument("--with-ax", action="store_true",
                     help="also predict the GLUE diagnostic (AX.tsv) with this three-class model")
    out.add_argument("--save-model", metavar="PATH", help="save the fitted model (one file) for predict.py")
    return parser


def config_from_args(args) -> RunConfig:
    return RunConfig(dataset=args.dataset, data_dir=args.data_dir, model=args.model, features=args.features,
                     ablate=tuple(args.ablate), two_class=args.two_class, train_size=args.train_size,
                     seed=args.seed, eval_split=args.eval_split, paper_table=args.paper_table,
                     ablation_table=args.ablation_table,
                     top_features=max(args.top_features, PLOTTED_FEATURES if args.plots else 0), jobs=args.jobs,
                     explain=bool(args.errors),
                     on_bad_row=args.on_bad_row, featurizer=featurizer_options(args),
                     grids={"C": parse_c_grid(args.c_grid), **({"wordnet": (False, True)} if args.wordnet else {})},
                     cv_folds=args.cv_folds, bootstrap=args.bootstrap,
                     label_map=args.label_map, allow_unseen_labels=args.allow_unseen_labels,
                     progress=not args.quiet,
                     backend=args.backend, scheduler=args.scheduler, custom=custom_files(args))


def main(argv: list[str] | None = None) -> int:
    with user_errors():
        import_user_modules(argv)
    args = build_parser().parse_args(argv)
    with user_errors(), closed_pipe_ends_quietly():
        out_dirs = {b: Path(d) for b, d in (("glue", args.glue_out), ("superglue", args.superglue_out)) if d}
        if args.predict and not out_dirs:
            raise UsageError("--predict test needs --glue-out DIR or --superglue-out DIR "
                             "(for other files, use --save-model and experiments/predict.py)")
        if (out_dirs or args.save_model or args.errors) and (args.paper_table or args.ablation_table):
            raise UsageError("a table fits several models; predictions, --save-model and --errors take a single run")
        if args.errors and Path(args.errors).suffix.lower() not in SUFFIXES:
            raise UsageError(f"--errors must end in .tsv, .csv or .jsonl, not {Path(args.errors).name!r}")
        # Every output is checked before any work: a run must not fail at its end for a bad path.
        check_output_file(args.out, "--out", overwrite=args.overwrite)
        check_output_file(args.save_model, "--save-model")
        check_output_file(args.glue_zip, "--glue-zip")
        check_output_file(args.errors, "--errors", overwrite=args.overwrite)
        check_output_dir(args.plots, "--plots")
        for benchmark, path in out_dirs.items():
            check_output_dir(path, f"--{benchmark}-out")
        config = config_from_args(args)
        record = run(config)
        predictor = next(iter(record.pop("_predictors").values()))
        examples = record.pop("_examples")
        notes = []
        if args.errors:
            text, flattened = format_table(args.errors, *error_rows(next(iter(examples.values()))))
            atomic_write(args.errors, text)
            notes.append(f"errors file written to {args.errors}"
                         + (f" ({flattened} text cell(s) with tabs or line breaks written as spaces)" if flattened
                            else ""))
        if args.plots:
            notes += [f"plot written to {path}" for path in plot_rows(record, args.plots)]
        if args.save_model:
            predictor.save(args.save_model)
            notes.append(f"model saved to {args.save_model}")
        if out_dirs:
            from experiments.outputs.submissions import write_submissions
            written = write_submissions(predictor, config.corpus(), out_dirs, data_dir=resolve_data_dir(args.data_dir),
                                        on_bad_row=args.on_bad_row, jobs=config.jobs, progress=not args.quiet,
                                        with_ax=args.with_ax, zip_path=Path(args.glue_zip) if args.glue_zip else None,
                                        log=notes.append)
            record["predictions"] = [str(p) for p in written]
        if args.out:  # the record is on disk before anything is printed
            write_json_atomic(args.out, record)
            notes.append(f"record written to {args.out}")
        if args.quiet:
            for note in data_notes(record):
                print(note, file=sys.stderr)
        print(summary_table(record) if args.quiet else format_report(record))
        for note in notes:
            print(note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
