"""Is run A really better than run B? Compare two run records scored on the same pairs.

    python experiments/run.py --dataset sick --out full.json
    python experiments/run.py --dataset sick --ablate cross_bigrams --out ablated.json
    python experiments/compare.py full.json ablated.json

Prints both accuracies, their difference, McNemar's exact test on the pairs where the two runs
disagree (with its reading in words), and a paired bootstrap 95% interval of the difference.
Both records must have scored the same split of the same data files (their sha256). For a record
of a table (--paper-table, --ablation-table), --row-a/--row-b name the row (an ablated row's name
starts with a dash: write --row-b=-bleu). From Python: `nb.compare(a, b)`.
"""
from __future__ import annotations

import argparse
import sys

from nli_baselines.experiments.commandline.exits import (closed_pipe_ends_quietly, terminated_cleanly, user_errors,
                                                         warnings_in_one_line)
from nli_baselines.experiments.commandline.paths import OutputPlan
from nli_baselines.experiments.outputs.records import write_json_atomic


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", metavar="A.json", help="a run record (run.py --out)")
    parser.add_argument("b", metavar="B.json", help="another run record on the same split")
    parser.add_argument("--row-a", metavar="NAME", help="the row of A to compare, for a table")
    parser.add_argument("--row-b", metavar="NAME", help="the row of B to compare, for a table")
    parser.add_argument("--out", metavar="FILE.json", help="write the comparison as JSON")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out file (never an input)")
    args = parser.parse_args(argv)
    with terminated_cleanly(), user_errors(), closed_pipe_ends_quietly(), warnings_in_one_line():
        # lazy: the API brings the engine and scikit-learn (seconds); --help answers without them
        from nli_baselines.experiments.api import compare
        plan = OutputPlan(overwrite=args.overwrite)
        plan.file(args.out, "--out")
        plan.check([args.a, args.b])  # before any work; --out is never one of the records
        result = compare(args.a, args.b, row_a=args.row_a, row_b=args.row_b)
        if args.out:
            write_json_atomic(args.out, dict(result))
        print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
