"""The whole GLUE benchmark in one command: every task's baseline, every prediction file, the zip.

    python experiments/glue.py --data-dir DIR --out sub/
    python experiments/glue.py --data-dir DIR --out sub/ --tasks STS-B,MRPC,RTE

For each task (CoLA, SST-2, MRPC, STS-B, QQP, MNLI with AX, QNLI, RTE, WNLI) it trains the task's
default baseline (chosen on dev: docs/submissions.md), scores it on dev, predicts the test split
into GLUE's file (sub/CoLA.tsv, ...), and writes one record per task (sub/records/TASK.json),
the zip (sub/glue.zip) and the whole record (sub/glue.json). It prints a table of dev figures per
task and GLUE's average beside the GLUE paper's CBoW, single-task BiLSTM and GenSen. A task whose
data is missing is listed and left out; the average is then marked partial, and so is the zip
(the server takes only complete submissions).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nli_baselines.experiments.commandline.arguments import add_read_limit_argument, apply_read_limits
from nli_baselines.experiments.commandline.exits import (closed_pipe_ends_quietly, terminated_cleanly, user_errors,
                                                         warnings_in_one_line)
from nli_baselines.experiments.commandline.paths import OutputPlan
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.submissions.glue_tasks import GLUE_TASKS


def main(argv=None) -> int:
    names = [task.name for task in GLUE_TASKS]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", metavar="DIR", help="the corpora (default: $NLI_DATA_DIR, else ./data)")
    parser.add_argument("--out", required=True, metavar="DIR", help="the prediction files, records and zip")
    parser.add_argument("--tasks", metavar="NAMES", help=f"a comma list of tasks (default: all of {', '.join(names)})")
    parser.add_argument("--zip", metavar="FILE.zip", help="the submission zip (default: OUT/glue.zip)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes for annotation and grids")
    parser.add_argument("--quiet", action="store_true", help="the final table only")
    parser.add_argument("--overwrite", action="store_true", help="replace files an earlier run wrote in --out")
    add_read_limit_argument(parser)
    args = parser.parse_args(argv)
    with terminated_cleanly(), user_errors(), closed_pipe_ends_quietly(), warnings_in_one_line():
        apply_read_limits(args.read_limits)
        # lazy: the benchmark runs the engine, which imports scikit-learn and every model (seconds)
        from nli_baselines.experiments.submissions.glue_benchmark import run_benchmark, table
        tasks = [t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None
        unknown = [t for t in tasks or () if t not in names]
        if unknown:
            raise UsageError(f"--tasks: {unknown[0]!r} is not a GLUE task; choose from {', '.join(names)}")
        if args.zip and not args.zip.endswith(".zip"):
            raise UsageError(f"--zip must end in .zip, not {args.zip!r}")
        out = Path(args.out)
        plan = OutputPlan(overwrite=args.overwrite)
        files = [f"{name}.tsv" for task in GLUE_TASKS for name in task.files]
        plan.directory(out, "--out", files + ["glue.json"] + ([] if args.zip else ["glue.zip"])
                       + [f"records/{task.name}.json" for task in GLUE_TASKS])
        if args.zip:
            plan.file(args.zip, "--zip")
        plan.check([])
        out.mkdir(parents=True, exist_ok=True)
        log = (lambda message: None) if args.quiet else (lambda message: print(message, file=sys.stderr))
        whole = run_benchmark(out, data_dir=args.data_dir, tasks=tasks, jobs=args.jobs, progress=not args.quiet,
                              log=log, zip_path=Path(args.zip) if args.zip else None)
        print(table(whole))
        print(f"wrote {len(whole['files'])} prediction files, {whole['zip']} and {out / 'glue.json'} "
              f"in {whole['seconds']:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
