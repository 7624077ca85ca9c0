"""Score predictions on a diagnostic set: GLUE's AX (R3 overall, per category and phenomenon) or
SuperGLUE's AX-g (accuracy and gender parity).

    python experiments/diagnose.py --diagnostic data/glue/AX/diagnostic-full.tsv --predictions out/AX.tsv
    python experiments/diagnose.py --diagnostic data/glue/AX/diagnostic-full.tsv --model mnli.model
    python experiments/diagnose.py --diagnostic data/superglue/AX-g/AX-g.jsonl --predictions out/AX-g.jsonl

Three-class predictions (GLUE's AX.tsv) get R3, the three-class Matthews correlation; two-class
ones (SuperGLUE's AX-b.jsonl: entailment / not_entailment) get the two-class MCC against the gold
labels mapped to two classes. AX-g's examples come in pairs that differ only in the pronoun's
gender: gender parity is the share of pairs predicted alike. A prediction file's format is told
by its suffix (the prediction formats' registry, `experiments.outputs.formats`).
"""
from __future__ import annotations

import argparse
from pathlib import Path


def main(argv=None) -> int:
    from experiments.commandline.arguments import add_import_argument, import_user_modules
    from experiments.commandline.exits import user_errors

    with user_errors():
        import_user_modules(argv)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_import_argument(parser)
    parser.add_argument("--diagnostic", required=True, help="the labeled diagnostic-full.tsv, or AX-g.jsonl")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="a model saved by run.py --save-model")
    source.add_argument("--predictions", help="a diagnostic's prediction file (AX.tsv, AX-b.jsonl)")
    parser.add_argument("--out", help="write the breakdown as JSON")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    args = parser.parse_args(argv)
    with user_errors():
        from experiments.commandline.paths import OutputPlan
        from experiments.corpora.readers.glue import read_ax
        from experiments.engine.errors import UsageError
        from experiments.outputs.breakdown import breakdown, format_breakdown, format_parity, gender_parity
        from experiments.outputs.records import write_json_atomic

        plan = OutputPlan(overwrite=args.overwrite)
        plan.file(args.out, "--out")
        plan.check([args.diagnostic, args.model or args.predictions])
        path = Path(args.diagnostic)
        winogender = path.suffix == ".jsonl"
        if path.name != "diagnostic-full.tsv" and not winogender:
            raise UsageError(f"{path}: expected the labeled diagnostic-full.tsv (the unlabeled diagnostic.tsv "
                             "has no gold labels to score against), or SuperGLUE's AX-g.jsonl")
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
        if winogender:
            from experiments.corpora.readers.superglue import read_superglue
            pairs = read_superglue(path, "ax-g", "test").pairs
        else:
            pairs = read_ax(path, "ax", "test_labeled").pairs
        if args.model:
            from experiments.outputs.model_files import load_predictor
            from features.annotation import annotate
            predictor = load_predictor(args.model)
            annotated = annotate(pairs, lemmas=predictor.needs_lemmas)
            predictions = dict(zip((p.id for p in pairs), map(str, predictor.predict(annotated))))
        else:
            predictions = read_diagnostic_predictions(Path(args.predictions))
        try:
            result = gender_parity(pairs, predictions) if winogender else breakdown(pairs, predictions)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    print(format_parity(result) if winogender else format_breakdown(result))
    if args.out:
        write_json_atomic(args.out, result)
    return 0


def read_diagnostic_predictions(path: Path) -> dict[str, str]:
    """id -> label of a diagnostic's prediction file, in the format its suffix names."""
    from experiments.engine.errors import UsageError
    from experiments.outputs.formats import PredictionFileError, format_for
    from experiments.outputs.submissions import TASKS, SubmissionError, read_predictions
    try:
        fmt = format_for(path)
        task = TASKS.get((fmt.name, path.stem)) or next(t for t in TASKS.values() if t.diagnostic and
                                                        t.benchmark == fmt.name)
        return dict(read_predictions(task, path))
    except (OSError, SubmissionError, PredictionFileError, StopIteration) as exc:
        raise UsageError(str(exc) or f"{path}: not a diagnostic's prediction file") from None


if __name__ == "__main__":
    raise SystemExit(main())
