"""Argument groups shared by the command-line scripts, built from the library's own declarations
(corpus registry, featurizer options, model registry), so a flag's choices live in one place."""
from __future__ import annotations

import argparse
import importlib
import math
import os
import sys

from features.options import OPTIONS
from models import C_GRID

from ..corpora import CORPORA, Corpus, custom_corpus, get_corpus
from ..corpora.readers.common import ON_BAD_ROW_CHOICES
from ..engine.errors import UsageError
from ..engine.parallel import BACKENDS, resolve_jobs


def label_map(text: str) -> dict[str, str]:
    """An argparse type: `yes=entailment,no=not_entailment` -> {"yes": "entailment", "no": "not_entailment"}."""
    mapping = {}
    for item in (s.strip() for s in text.split(",") if s.strip()):
        old, sep, new = item.partition("=")
        if not sep or not old.strip() or not new.strip():
            raise argparse.ArgumentTypeError(f"expected OLD=NEW pairs separated by commas, got {item!r}")
        if old.strip() in mapping:
            raise argparse.ArgumentTypeError(f"label {old.strip()!r} is mapped twice")
        mapping[old.strip()] = new.strip()
    return mapping


def count(minimum: int):
    """An argparse type: an integer of at least `minimum` (e.g. `--seeds 0` is refused)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a number of at least {minimum}, got {value}")
        return value
    parse.__name__ = f"count>={minimum}"
    return parse


def jobs_count(text: str) -> int:
    """`--jobs`: a positive count, or -1 for one per core; more than the cores is capped, with a note."""
    try:
        return resolve_jobs(int(text))
    except (ValueError, UsageError) as exc:
        raise argparse.ArgumentTypeError(str(exc) if isinstance(exc, UsageError) else
                                         f"expected a whole number, got {text!r}") from None


def import_user_modules(argv: list[str] | None) -> None:
    """Import every `--import MODULE` of the command line before anything else, so the feature types
    and models it registers exist when the parser lists the choices and when models are loaded.

    The current directory is searched first (a script's own directory is on sys.path, not the
    user's), like `python -m` does.
    """
    pre = argparse.ArgumentParser(add_help=False)
    add_import_argument(pre)
    modules = pre.parse_known_args(sys.argv[1:] if argv is None else argv)[0].modules
    if modules and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as exc:  # the user's code: any failure is theirs to see, in one line
            raise UsageError(f"--import {name}: {type(exc).__name__}: {exc}") from None


def add_import_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--import", dest="modules", action="append", default=[], metavar="MODULE",
                        help="import this module of yours first (repeatable): its register_feature and "
                             "register_model calls make its feature types and models available")


def add_data_arguments(parser: argparse.ArgumentParser, dataset_default: str | None = "snli") -> None:
    group = parser.add_argument_group("data")
    group.add_argument("--dataset", default=dataset_default, choices=sorted(CORPORA) + ["custom"],
                       metavar="NAME", help=f"corpus name: {', '.join(sorted(CORPORA))}, or custom "
                       f"(default: {dataset_default})")
    group.add_argument("--data-dir", metavar="DIR",
                       help="where corpora live (default: $NLI_DATA_DIR, else ./data)")
    group.add_argument("--on-bad-row", choices=ON_BAD_ROW_CHOICES, default="error",
                       help="stop at the first malformed row, or skip and count it (default: error)")
    group.add_argument("--label-map", type=label_map, default={}, metavar="OLD=NEW,...",
                       help="rename gold labels, e.g. yes=entailment,no=not_entailment (two-class models, such "
                            "as edit distance, read entailment/not_entailment)")
    group.add_argument("--allow-unseen-labels", action="store_true",
                       help="warn instead of stopping when dev or test has labels that training never shows")
    custom = parser.add_argument_group("custom dataset (--dataset custom)")
    custom.add_argument("--train-file", metavar="FILE", help=".tsv, .csv or .jsonl with named columns")
    custom.add_argument("--dev-file", metavar="FILE")
    custom.add_argument("--test-file", metavar="FILE")
    custom.add_argument("--premise-column", metavar="NAME",
                        help="default: found among premise/hypothesis, sentence1/sentence2, sentence_A/sentence_B")
    custom.add_argument("--hypothesis-column", metavar="NAME")
    custom.add_argument("--label-column", default="label", metavar="NAME")
    custom.add_argument("--id-column", default=None, metavar="NAME")


def custom_files(args: argparse.Namespace) -> dict:
    """The custom dataset's files and columns (empty for a registered corpus)."""
    if args.dataset != "custom":
        return {}
    return {"train": args.train_file, "dev": args.dev_file, "test": args.test_file, "premise": args.premise_column,
            "hypothesis": args.hypothesis_column, "label": args.label_column, "id": args.id_column}


def corpus_from_args(args: argparse.Namespace) -> Corpus:
    if args.dataset == "custom":
        c = custom_files(args)
        try:
            return custom_corpus(c["train"], c["dev"], c["test"], premise=c["premise"], hypothesis=c["hypothesis"],
                                 label=c["label"], id_column=c["id"])
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    return get_corpus(args.dataset)


def add_featurizer_arguments(group) -> None:
    """One flag per featurizer option (`features.options`): `--tag-match`, `--no-lowercase`, ..."""
    for option in OPTIONS.values():
        flag = "--" + option.name.replace("_", "-")
        if option.kind is bool:
            group.add_argument(flag, dest=option.name, action=argparse.BooleanOptionalAction, default=option.default,
                               help=f"{option.help} (default: {'on' if option.default else 'off'})")
        else:
            kind = count(option.minimum) if option.kind is int and option.minimum is not None else option.kind
            group.add_argument(flag, dest=option.name, type=kind, choices=option.choices,
                               default=option.default, metavar=None if option.choices else "N",
                               help=f"{option.help} (default: {option.default})")


def featurizer_options(args: argparse.Namespace) -> dict:
    return {name: getattr(args, name) for name in OPTIONS}


def add_selection_arguments(group) -> None:
    group.add_argument("--C", dest="c_grid", metavar="LIST", default=",".join(map(str, C_GRID)),
                       help=f"candidate inverse regularization strengths of logistic regression, chosen on dev "
                            f"(default: {','.join(map(str, C_GRID))})")


def parse_c_grid(text: str) -> tuple[float, ...]:
    """`--C 0.1,1,3` -> (0.1, 1.0, 3.0); anything else is a UsageError."""
    try:
        grid = tuple(float(c) for c in text.split(",") if c.strip())
    except ValueError:
        raise UsageError(f"--C takes a comma-separated list of numbers, not {text!r}") from None
    if not grid or not all(math.isfinite(c) and c > 0 for c in grid):
        raise UsageError(f"--C takes positive, finite numbers, not {text!r}")
    return grid


def add_parallel_arguments(group) -> None:
    group.add_argument("--jobs", type=jobs_count, default=1,
                       help="parallel workers for grids and tagging; -1: one per core (default: 1)")
    group.add_argument("--backend", choices=BACKENDS, default="local",
                       help="where grids run: local joblib workers, or a Dask cluster (needs --scheduler)")
    group.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address, e.g. tcp://host:8786")
