"""Label new pairs with a saved model.

    python experiments/run.py --dataset sick --save-model sick.model
    python experiments/predict.py --model sick.model --input pairs.tsv --out predictions.tsv [--proba]

The input is a .tsv, .csv or .jsonl with premise and hypothesis columns (names settable); a
label column, if present, is scored. The output format follows the --out suffix (.tsv/.csv/.jsonl):
id, prediction and, with --proba, one probability column per class.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

import numpy as np

from experiments.commandline.arguments import jobs_count
from experiments.commandline.exits import closed_pipe_ends_quietly, user_errors
from experiments.commandline.paths import check_not_input, check_output_file
from experiments.corpora.readers.common import ON_BAD_ROW_CHOICES
from experiments.corpora.readers.custom import read_custom
from experiments.engine.errors import UsageError
from experiments.outputs.model_files import load_predictor
from features.annotation import annotate
from features.atomic import atomic_write
from features.labels import two_class


def format_rows(path: Path, ids, predictions, proba=None) -> str:
    classes, probabilities = proba if proba else ([], None)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        lines = []
        for n, (i, label) in enumerate(zip(ids, predictions)):
            row = {"id": i, "prediction": label}
            if probabilities is not None:
                row["proba"] = {c: float(p) for c, p in zip(classes, probabilities[n])}
            lines.append(json.dumps(row))
        return "".join(line + "\n" for line in lines)
    if suffix not in (".tsv", ".csv"):
        raise UsageError(f"--out must end in .tsv, .csv or .jsonl, not {path.name!r}")
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t" if suffix == ".tsv" else ",", lineterminator="\n",
                        quoting=csv.QUOTE_MINIMAL)
    writer.writerow(["id", "prediction"] + [f"p_{c}" for c in classes])
    for n, (i, label) in enumerate(zip(ids, predictions)):
        extra = [f"{p:.6f}" for p in probabilities[n]] if probabilities is not None else []
        writer.writerow([i, label] + extra)
    return buffer.getvalue()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a file written by run.py --save-model")
    parser.add_argument("--input", required=True, help=".tsv, .csv or .jsonl")
    parser.add_argument("--out", required=True, help=".tsv, .csv or .jsonl")
    parser.add_argument("--proba", action="store_true", help="add class probabilities (logistic regression)")
    parser.add_argument("--premise-column", default="premise")
    parser.add_argument("--hypothesis-column", default="hypothesis")
    parser.add_argument("--label-column", default="label")
    parser.add_argument("--id-column", default=None, help="default: the input's line number")
    parser.add_argument("--on-bad-row", choices=ON_BAD_ROW_CHOICES, default="error")
    parser.add_argument("--jobs", type=jobs_count, default=1, help="tagging workers; -1: one per core")
    args = parser.parse_args(argv)
    with user_errors(), closed_pipe_ends_quietly():
        out = Path(args.out)
        if out.suffix.lower() not in (".tsv", ".csv", ".jsonl"):
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
        if data.skipped:
            print(f"skipped {sum(data.skipped.values())} bad row(s): {dict(data.skipped)}", file=sys.stderr)
        pairs = annotate(data.pairs, jobs=args.jobs)
        predictions = [str(x) for x in predictor.predict(pairs)]
        proba = predictor.predict_proba(pairs) if args.proba else None
        atomic_write(out, format_rows(out, [p.id for p in pairs], predictions, proba))
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
