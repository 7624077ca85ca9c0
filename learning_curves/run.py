"""Learning curves: accuracy against the number of training pairs, as CSV, JSON and plots.

    python learning_curves/run.py --dataset sick --sizes 1,10,100,1000,all --seeds 3 \\
        --configs lexicalized,unlexicalized --out results/curve-sick [--reference snli-paper]

A point is a run's row (run.py's options all apply: --model, --features, --ablate, --two-class,
--C, --seed, --label-map, ...) fitted on a sample of the training split. Features are built
once for the whole split; points run in parallel (--jobs) and are saved as they finish: the
same command resumes, reusing the points already in DIR/curve.csv when DIR/run.json records the
same settings and data. From Python: `nb.learning_curve(dataset="sick", ...)`.
"""
from __future__ import annotations

from pathlib import Path

from nli_baselines.experiments.commandline.arguments import build_parser, given_options, import_user_modules, output
from nli_baselines.experiments.commandline.exits import (closed_pipe_ends_quietly, terminated_cleanly, user_errors,
                                                         warnings_in_one_line)
from nli_baselines.experiments.commandline.paths import check_output_dir
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.outputs.records import write_json_atomic


def main(argv: list[str] | None = None) -> int:
    with user_errors():
        import_user_modules(argv)
    args = build_parser("curve", __doc__).parse_args(argv)
    with terminated_cleanly(), user_errors(), closed_pipe_ends_quietly(), warnings_in_one_line():
        # lazy: the engine imports scikit-learn and every model (seconds); --help and a bad option answer without it
        from nli_baselines.experiments.api import CurveResult
        from nli_baselines.experiments.engine.curve import learning_curve

        out = output(args, "out")
        if not out:
            raise UsageError("--out DIR is required: the directory for curve.csv, curve.json and the plots")
        check_output_dir(out, "--out")  # before any work: a bad argument must not cost a featurization
        config = RunConfig("curve", **given_options(args, "curve"))
        result = CurveResult(learning_curve(config, out, overwrite=output(args, "overwrite")), config)
        out = Path(out)
        write_json_atomic(out / "curve.json", result.record)
        paths = result.plot(out)
        print(result.table())
        print(f"wrote {out / 'curve.csv'}, {out / 'curve.json'}, " + ", ".join(map(str, paths)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
