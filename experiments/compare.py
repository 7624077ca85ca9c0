"""Is run A really better than run B? Compare two run records scored on the same split.

    python experiments/run.py --dataset sick --out full.json
    python experiments/run.py --dataset sick --ablate cross_bigrams --out ablated.json
    python experiments/compare.py full.json ablated.json

Prints both accuracies, their difference, McNemar's exact test on the pairs where the two runs
disagree, and a paired bootstrap 95% interval of the difference. For a record of a table
(--paper-table, --ablation-table), --row-a/--row-b name the row (an ablated row's name starts with
a dash: write --row-b=-bleu).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from experiments.commandline.exits import closed_pipe_ends_quietly, user_errors
from experiments.engine.errors import UsageError
from experiments.outputs.records import write_json_atomic
from experiments.engine.significance import compare_predictions


def load_row(path: str, row_name: str | None) -> tuple[dict, dict]:
    """(record, row) of a run record; the row is the only one, or the one named."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        rows = record["rows"]
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{path}: not a run record of experiments/run.py --out ({type(exc).__name__}: {exc})") from None
    names = [row["name"] for row in rows]
    if row_name is None and len(rows) > 1:
        raise UsageError(f"{path} holds a table of {len(rows)} rows ({', '.join(names)}); pick one with --row-a/--row-b")
    row = rows[0] if row_name is None else next((r for r in rows if r["name"] == row_name), None)
    if row is None:
        raise UsageError(f"{path} has no row {row_name!r}; its rows: {', '.join(names)}")
    if "predictions" not in row:
        raise UsageError(f"{path} holds no per-example predictions (written by an older version): run it again")
    return record, row


def describe(record: dict, row: dict) -> str:
    return f"{row['name']} ({record['data']['dataset']}, {record['config'].get('model', row['model'])})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", metavar="A.json", help="a run record (run.py --out)")
    parser.add_argument("b", metavar="B.json", help="another run record on the same split")
    parser.add_argument("--row-a", metavar="NAME", help="the row of A to compare, for a table")
    parser.add_argument("--row-b", metavar="NAME", help="the row of B to compare, for a table")
    parser.add_argument("--out", metavar="FILE.json", help="write the comparison as JSON")
    args = parser.parse_args(argv)
    with user_errors(), closed_pipe_ends_quietly():
        (record_a, row_a), (record_b, row_b) = load_row(args.a, args.row_a), load_row(args.b, args.row_b)
        if row_a["predictions"]["split"] != row_b["predictions"]["split"]:
            raise UsageError(f"A was scored on {row_a['predictions']['split']}, B on {row_b['predictions']['split']}")
        try:
            result = compare_predictions(row_a["predictions"], row_b["predictions"])
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        result.update(a=describe(record_a, row_a), b=describe(record_b, row_b), split=row_a["predictions"]["split"])
        if args.out:
            write_json_atomic(args.out, result)
        print(format_comparison(result))
    return 0


def format_comparison(r: dict) -> str:
    test, boot = r["mcnemar"], r["bootstrap"]
    low, high = boot["interval"]
    p = "< 0.001" if test["p"] < 0.001 else f"= {test['p']:.3f}"
    return "\n".join([
        f"A: {r['a']}", f"B: {r['b']}", f"scored on {r['split']} ({r['pairs']} pairs)", "",
        f"accuracy A {100 * r['accuracy_a']:.1f}, B {100 * r['accuracy_b']:.1f}; "
        f"difference A - B {100 * r['delta']:+.1f} points",
        f"McNemar's exact test: A right and B wrong on {test['a_only']} pairs, B right and A wrong on "
        f"{test['b_only']}: p {p}",
        f"paired bootstrap ({boot['resamples']} resamples of the pairs): {100 * boot['level']:.0f}% interval of the "
        f"difference {100 * low:+.1f} .. {100 * high:+.1f} points",
    ])


if __name__ == "__main__":
    sys.exit(main())
