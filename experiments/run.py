"""Train and evaluate a baseline: the SNLI paper's lexicalized classifier, its ablations, edit distance.

    python experiments/run.py --ablate cross_bigrams                 # SNLI, lexicalized minus cross-bigrams
    python experiments/run.py --dataset sick --paper-table           # the paper's Table 4/5 rows at once
    python experiments/run.py --dataset demo --top-features 10       # offline, no files needed
    python experiments/run.py --train-file train.csv --dev-file dev.csv   # your own pairs

From Python: `nb.run(dataset="sick", ablate=["cross_bigrams"])` (this script is a thin
wrapper over it).
"""
from __future__ import annotations

from nli_baselines.experiments.commandline.arguments import build_parser, given_options, import_user_modules
from nli_baselines.experiments.commandline.exits import (closed_pipe_ends_quietly, terminated_cleanly, user_errors,
                                                         warnings_in_one_line)


def main(argv: list[str] | None = None) -> int:
    with user_errors():
        import_user_modules(argv)
    args = build_parser("run", __doc__).parse_args(argv)
    with terminated_cleanly(), user_errors(), closed_pipe_ends_quietly(), warnings_in_one_line():
        # lazy: the engine imports scikit-learn and every model (seconds); --help and a bad option answer without it
        from nli_baselines.experiments.api import RunResult
        from nli_baselines.experiments.commandline.run_outputs import RunOutputs
        from nli_baselines.experiments.engine.experiment import run
        outputs = RunOutputs.from_args(args)
        given = given_options(args, "run")
        config = outputs.check(given)  # every output path is checked before any work
        result = RunResult(run(config), config)
        outputs.write(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
