"""Bundle the prediction files of several runs into the one zip a benchmark's server takes.

    python experiments/run.py --dataset rte --predict test --glue-out sub/glue
    python experiments/run.py --dataset mnli --predict test --glue-out sub/glue        # MNLI-m, MNLI-mm, AX
    python experiments/bundle.py glue sub/glue --out glue-submission.zip

    python experiments/run.py --dataset superglue-rte --predict test --superglue-out sub/sg   # RTE, AX-b, AX-g
    python experiments/run.py --dataset cb --predict test --superglue-out sub/sg              # CB
    python experiments/bundle.py superglue sub/sg --out superglue-submission.zip

Each input is a prediction file or a directory (its files with an official name are taken).
Every file is checked against its task before the zip is written: its layout, its labels (or,
for STS-B, scores in 0..5), its row count, and, where the test set is in the data directory, its
ids in the test set's order. Files of tasks this suite does not predict (BoolQ.jsonl, ... from
systems of yours) are checked for their layout only. A name no task of the benchmark has, or a
task given twice, stops the bundle; so does a GLUE bundle that lacks any of its eleven files
(the server takes only complete submissions) unless --partial. `python experiments/glue.py`
writes all eleven.
"""
from __future__ import annotations

import argparse

from nli_baselines.experiments.commandline.arguments import add_read_limit_argument, apply_read_limits
from nli_baselines.experiments.commandline.exits import (closed_pipe_ends_quietly, terminated_cleanly, user_errors,
                                                         warnings_in_one_line)
from nli_baselines.experiments.commandline.paths import OutputPlan
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.submissions.bundles import make_bundle, missing_tasks

BENCHMARKS = ("glue", "superglue")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_read_limit_argument(parser)
    parser.add_argument("benchmark", choices=BENCHMARKS, help="whose server the zip is for")
    parser.add_argument("inputs", nargs="+", metavar="FILE_OR_DIR", help="prediction files, or directories of them")
    parser.add_argument("--out", required=True, metavar="FILE.zip", help="the zip to write")
    parser.add_argument("--data-dir", metavar="DIR", help="where the test sets are (default: $NLI_DATA_DIR, else ./data)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out file (never an input)")
    parser.add_argument("--partial", action="store_true",
                        help="bundle a GLUE submission that lacks tasks (the server refuses it)")
    args = parser.parse_args(argv)
    with terminated_cleanly(), user_errors(), closed_pipe_ends_quietly(), warnings_in_one_line():
        apply_read_limits(args.read_limits)
        if not args.out.endswith(".zip"):
            raise UsageError(f"--out must end in .zip, not {args.out!r}")
        plan = OutputPlan(overwrite=args.overwrite)
        plan.file(args.out, "--out")
        plan.check(args.inputs)
        checked = make_bundle(args.benchmark, args.inputs, args.out, data_dir=args.data_dir, partial=args.partial)
        for item in checked:
            for note in item.notes:
                print(f"note: {note}")
        print(f"wrote {args.out}: " + ", ".join(f"{c.path.name} ({c.rows} rows)" for c in checked))
        missing = missing_tasks(args.benchmark, [c.path.name for c in checked])
        if missing and args.partial:
            print(f"note: partial: {', '.join(missing)} missing; the server takes only complete submissions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
