"""Score predictions on the GLUE diagnostic set: R3 overall, per category and per phenomenon.

    python experiments/diagnose.py --diagnostic data/glue/AX/diagnostic-full.tsv --predictions out/AX.tsv
    python experiments/diagnose.py --diagnostic data/glue/AX/diagnostic-full.tsv --model mnli.model

AX.tsv style (three-class) predictions get R3, the three-class Matthews correlation; AX-b style
(entailment / not_entailment, .tsv or .jsonl) get the two-class MCC against the gold labels
mapped to two classes.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from experiments.commandline.arguments import add_import_argument, import_user_modules
from experiments.commandline.exits import user_errors
from experiments.corpora.readers.glue import read_ax
from experiments.engine.errors import UsageError
from experiments.outputs.records import write_json_atomic
from experiments.outputs.breakdown import breakdown, format_breakdown
from experiments.outputs.model_files import load_predictor
from experiments.outputs.submissions import TASKS, SubmissionError, read_predictions


def main(argv=None) -> int:
    with user_errors():
        import_user_modules(argv)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_import_argument(parser)
    parser.add_argument("--diagnostic", required=True, help="the labeled diagnostic-full.tsv")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="a model saved by run.py --save-model")
    source.add_argument("--predictions", help="an AX.tsv (GLUE) or AX-b.jsonl (SuperGLUE) prediction file")
    parser.add_argument("--out", help="write the breakdown as JSON")
    args = parser.parse_args(argv)
    with user_errors():
        path = Path(args.diagnostic)
        if path.name != "diagnostic-full.tsv":
            raise UsageError(f"{path}: expected the labeled diagnostic-full.tsv (the unlabeled diagnostic.tsv "
                             "has no gold labels to score against)")
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
        pairs = read_ax(path, "ax", "test_labeled").pairs
        if args.model:
            predictor = load_predictor(args.model)
            from features.annotation import annotate
            annotated = annotate(pairs, lemmas=predictor.needs_lemmas)
            predictions = dict(zip((p.id for p in pairs), map(str, predictor.predict(annotated))))
        else:
            pred_path = Path(args.predictions)
            task = TASKS[("superglue", "AX-b")] if pred_path.suffix == ".jsonl" else TASKS[("glue", "AX")]
            try:
                predictions = dict(read_predictions(task, pred_path))
            except (OSError, SubmissionError) as exc:
                raise UsageError(str(exc)) from None
        try:
            result = breakdown(pairs, predictions)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    print(format_breakdown(result))
    if args.out:
        write_json_atomic(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
