"""Label new pairs with a saved model.

    python experiments/run.py --dataset sick --save-model sick.model
    python experiments/predict.py --model sick.model --input pairs.tsv --out predictions.tsv [--proba]

The input is a .tsv, .csv or .jsonl with premise and hypothesis columns (names settable); a
label column, if present, is copied to the output and scored. The output format follows the
--out suffix (.tsv/.csv/.jsonl): id, premise, hypothesis, gold (when the input has labels),
prediction and, with --proba, one probability column per class. A model that uses a custom
feature type needs the module that registers it: --import MODULE.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from experiments.commandline.arguments import add_import_argument, import_user_modules, jobs_count
from experiments.commandline.exits import closed_pipe_ends_quietly, user_errors
from experiments.commandline.paths import check_not_input, check_output_file
from experiments.corpora.readers.common import ON_BAD_ROW_CHOICES
from experiments.corpora.readers.custom import read_custom
from experiments.engine.errors import UsageError
from experiments.outputs.model_files import load_predictor
from experiments.outputs.tabular import SUFFIXES, format_table
from features.annotation import annotate
from features.atomic import atomic_write
from features.labels import two_class


def prediction_rows(pairs, predictions, proba=None) -> tuple[list[str], list[list]]:
    """(header, rows): the input's id, text and gold label (when it has labels), the prediction,
    and with `proba` = (classes, probabilities) one column per class."""
    classes, probabilities = proba if proba else ([], None)
    labeled = any(p.label is not None for p in pairs)
    header = ["id", "premise", "hypothesis"] + (["gold"] if labeled else []) + ["prediction"]
    header += [f"p_{c}" for c in classes]
    rows = []
    for n, (pair, label) in enumerate(zip(pairs, predictions)):
        row = [pair.id, pair.premise, pair.hypothesis] + ([pair.label] if labeled else []) + [label]
        rows.append(row + ([float(x) for x in probabilities[n]] if probabilities is not None else []))
    return header, rows


def main(argv=None) -> int:
    with user_errors():
        import_user_modules(argv)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_import_argument(parser)
    parser.add_argument("--model", required=True, help="a file written by run.py --save-model")
    parser.add_argument("--input", required=True, help=".tsv, .csv or .jsonl")
    parser.add_argument("--out", required=True, help=".tsv, .csv or .jsonl")
    parser.add_argument("--proba", action="store_true", help="add class probabilities (logistic regression)")
    parser.add_argument("--premise-column", help="default: found among premise/hypothesis, sentence1/sentence2, ...")
    parser.add_argument("--hypothesis-column")
    parser.add_argument("--label-column", default="label")
    parser.add_argument("--id-column", default=None, help="default: the input's line number")
    parser.add_argument("--on-bad-row", choices=ON_BAD_ROW_CHOICES, default="error")
    parser.add_argument("--jobs", type=jobs_count, default=1, help="tagging workers; -1: one per core")
    args = parser.parse_args(argv)
    with user_errors(), closed_pipe_ends_quietly():
        out = Path(args.out)
        if out.suffix.lower() not in SUFFIXES:
            raise UsageError(f"--out must end in .tsv, .csv or .jsonl, not {out.name!r}")
        check_output_file(out, "--out")
        check_not_input(out, [args.input, args.model])
        predictor = load_predictor(args.model)
        path = Path(args.input)
        if not path.is_file():
            raise UsageError(f"{path}: no such input file")
        if args.proba and not hasattr(predictor.model, "predict_proba"):
            raise UsageError(f"a {predictor.model_name} model has no probabilities; drop --proba")
        data = read_custom(path, "input", "predict", args.on_bad_row, premise=args.premise_column,
                           hypothesis=args.hypothesis_column, label=args.label_column, id_column=args.id_column)
        for note in data.notes:
            print(f"note: {note}", file=sys.stderr)
        if data.skipped:
            print(f"skipped {sum(data.skipped.values())} bad row(s): {dict(data.skipped)}", file=sys.stderr)
        pairs = annotate(data.pairs, jobs=args.jobs, lemmas=predictor.needs_lemmas)
        predictions = [str(x) for x in predictor.predict(pairs)]
        proba = predictor.predict_proba(pairs) if args.proba else None
        text, flattened = format_table(out, *prediction_rows(pairs, predictions, proba))
        atomic_write(out, text)
        if flattened:
            print(f"note: {flattened} text cell(s) held tabs or line breaks, written as spaces in the TSV",
                  file=sys.stderr)
    gold = [p.label for p in pairs]
    message = f"wrote {len(pairs)} predictions to {out}"
    if pairs and all(g is not None for g in gold):
        if predictor.two_class:
            gold = [two_class(g) for g in gold]
        message += f"; accuracy against the input's labels: {100 * np.mean(np.array(gold) == np.array(predictions)):.1f}%"
    print(message)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
