"""Argument groups and error handling shared by the command-line scripts."""
from __future__ import annotations

import argparse
import contextlib
import sys

from .corpora import CORPORA, Corpus, CorpusNotFoundError, custom_corpus, get_corpus
from .readers.common import ON_BAD_ROW_CHOICES, DataFormatError

EXIT_USAGE = 2  # bad arguments, missing corpus, malformed input


class UsageError(Exception):
    """A user error the CLI reports in one line and exits 2 for."""


def add_data_arguments(parser: argparse.ArgumentParser, dataset_default: str | None = "snli") -> None:
    group = parser.add_argument_group("data")
    group.add_argument("--dataset", default=dataset_default, choices=sorted(CORPORA) + ["custom"],
                       metavar="NAME", help=f"corpus name: {', '.join(sorted(CORPORA))}, or custom "
                       f"(default: {dataset_default})")
    group.add_argument("--data-dir", metavar="DIR",
                       help="where corpora live (default: $NLI_DATA_DIR, else ./data)")
    group.add_argument("--on-bad-row", choices=ON_BAD_ROW_CHOICES, default="error",
                       help="stop at the first malformed row, or skip and count it (default: error)")
    custom = parser.add_argument_group("custom dataset (--dataset custom)")
    custom.add_argument("--train-file", metavar="FILE", help=".tsv, .csv or .jsonl with named columns")
    custom.add_argument("--dev-file", metavar="FILE")
    custom.add_argument("--test-file", metavar="FILE")
    custom.add_argument("--premise-column", default="premise", metavar="NAME")
    custom.add_argument("--hypothesis-column", default="hypothesis", metavar="NAME")
    custom.add_argument("--label-column", default="label", metavar="NAME")
    custom.add_argument("--id-column", default=None, metavar="NAME")


def parse_c_grid(text: str) -> tuple[float, ...]:
    """`--C 0.1,1,3` -> (0.1, 1.0, 3.0); anything else is a UsageError."""
    try:
        grid = tuple(float(c) for c in text.split(",") if c.strip())
    except ValueError:
        raise UsageError(f"--C takes a comma-separated list of numbers, not {text!r}") from None
    if not grid or min(grid) <= 0:
        raise UsageError(f"--C takes positive numbers, not {text!r}")
    return grid


def corpus_from_args(args: argparse.Namespace) -> Corpus:
    if args.dataset == "custom":
        try:
            return custom_corpus(args.train_file, args.dev_file, args.test_file, premise=args.premise_column,
                                 hypothesis=args.hypothesis_column, label=args.label_column,
                                 id_column=args.id_column)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return get_corpus(args.dataset)


@contextlib.contextmanager
def user_errors():
    """Turn the errors a user can fix into a message on stderr and exit status 2."""
    try:
        yield
    except (CorpusNotFoundError, DataFormatError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None
