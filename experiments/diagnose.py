"""Score predictions on a diagnostic set: GLUE's AX (R3 overall, per category and phenomenon),
SuperGLUE's AX-g (accuracy and gender parity) or HANS (accuracy per heuristic on entailed and on
non-entailed pairs, per subcase).

    python experiments/diagnose.py --diagnostic data/glue/AX/diagnostic-full.tsv --predictions out/AX.tsv
    python experiments/diagnose.py --diagnostic data/glue/AX/diagnostic-full.tsv --model mnli.model
    python experiments/diagnose.py --diagnostic data/superglue/AX-g/AX-g.jsonl --predictions out/AX-g.jsonl
    python experiments/diagnose.py --diagnostic data/hans/heuristics_evaluation_set.txt --model sick.model
    python experiments/diagnose.py --diagnostic hans-mini --model sick.model   # generated: no download

A diagnostic is its labeled file, or the name of the corpus holding it (ax, ax-g, hans: read from
--data-dir; hans-mini: the HANS-style pairs the suite generates).

Three-class predictions (GLUE's AX.tsv) get R3, the three-class Matthews correlation; two-class
ones (SuperGLUE's AX-b.jsonl: entailment / not_entailment) get the two-class MCC against the gold
labels mapped to two classes. AX-g's examples come in pairs that differ only in the pronoun's
gender: gender parity is the share of pairs predicted alike. A prediction file's format is told
by its suffix (the prediction formats' registry, `experiments.outputs.formats`). HANS's predictions
are its own `pairID,gold_label` file; a three-class model's neutral and contradiction count as
non-entailment. Each diagnostic is an entry of `experiments.submissions.diagnostic_sets`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nli_baselines.experiments.commandline.arguments import add_import_argument, import_user_modules
from nli_baselines.experiments.commandline.exits import (closed_pipe_ends_quietly, terminated_cleanly, user_errors,
                                                         warnings_in_one_line)
from nli_baselines.experiments.commandline.paths import OutputPlan
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.corpora import get_corpus, resolve_data_dir
from nli_baselines.experiments.outputs.records import write_json_atomic


def main(argv=None) -> int:
    with user_errors():
        import_user_modules(argv)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_import_argument(parser)
    parser.add_argument("--diagnostic", required=True,
                        help="the labeled diagnostic-full.tsv, AX-g.jsonl, or HANS's heuristics_evaluation_set.txt; "
                             "or a name: ax, ax-g, hans (under --data-dir), hans-mini (generated)")
    parser.add_argument("--data-dir", help="where a diagnostic given by name is looked for (default: $NLI_DATA_DIR, "
                                           "else ./data)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="a model saved by run.py --save-model")
    source.add_argument("--predictions", help="a diagnostic's prediction file (AX.tsv, AX-b.jsonl, HANS's "
                                              "pairID,gold_label file)")
    parser.add_argument("--out", help="write the breakdown as JSON")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    args = parser.parse_args(argv)
    with terminated_cleanly(), user_errors(), closed_pipe_ends_quietly(), warnings_in_one_line():
        # lazy: scoring a model brings scikit-learn and the featurizer (seconds); --help answers without them
        from nli_baselines.experiments.outputs.model_files import load_predictor
        from nli_baselines.experiments.submissions.diagnostic_sets import diagnostic_for, named, names

        plan = OutputPlan(overwrite=args.overwrite)
        plan.file(args.out, "--out")
        path = Path(args.diagnostic)
        by_name = None if path.is_file() else named(args.diagnostic)
        if by_name is not None:
            diagnostic, split = by_name
            corpus, data_dir = get_corpus(args.diagnostic), resolve_data_dir(args.data_dir)
            plan.check([*(p for p in corpus.candidates(split, data_dir) if p.exists()), args.model or args.predictions])
            data = corpus.load(split, data_dir)  # not there: where it was looked for, and the download
        else:
            plan.check([args.diagnostic, args.model or args.predictions])
            if not path.is_file():
                raise UsageError(f"{path}: no such file, and not a diagnostic's name ({', '.join(names())})")
            try:
                diagnostic = diagnostic_for(path)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            data = diagnostic.read(path)
        pairs = data.pairs
        predictor = None
        if args.model:
            predictor = load_predictor(args.model)
            for note in predictor.notes:
                print(f"note: {note}", file=sys.stderr)
        notes: list[str] = []
        try:
            if predictor is not None:
                if diagnostic.check_labels is not None:
                    diagnostic.check_labels(predictor.labels)
                annotated = predictor.annotated(pairs, notes=notes)  # as the model's training pairs were
                predictions = dict(zip((p.id for p in pairs), map(str, predictor.predict(annotated))))
            else:
                predictions = diagnostic.predictions(Path(args.predictions))
            result = diagnostic.score(pairs, predictions)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if data.skipped:
            result["skipped"] = dict(data.skipped)
        if notes:
            result["notes"] = notes
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        print(diagnostic.format(result))
        if args.out:  # a full disk or a read-only folder is one line too
            write_json_atomic(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
