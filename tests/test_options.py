"""Options declared once: one table gives defaults, checks, the command-line flags of run.py, the
learning curves and predict.py, and what a resumed curve must match."""
from __future__ import annotations

import argparse
import inspect

import pytest

from nli_baselines.experiments.commandline.arguments import build_parser, given_options
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.configuration.options import COMMANDS, for_command, options
from nli_baselines.features import OPTIONS, PairFeaturizer
from nli_baselines.features.options import DEFAULTS, resolve_options


def test_featurizer_defaults_are_the_table():
    params = inspect.signature(PairFeaturizer).parameters
    assert {name: params[name].default for name in OPTIONS} == DEFAULTS
    assert RunConfig().featurizer == DEFAULTS


def test_flags_come_from_the_table():
    parser = build_parser("run")
    assert RunConfig(**given_options(parser.parse_args([]), "run")).featurizer == DEFAULTS
    args = parser.parse_args(["--no-lowercase", "--tag-match", "exact", "--min-count", "2", "--scale", "maxabs"])
    assert RunConfig(**given_options(args, "run")).featurizer == {
        **DEFAULTS, "lowercase": False, "tag_match": "exact", "min_count": 2, "scale": "maxabs"}
    with pytest.raises(UsageError, match="--tag-match: must be one of exact, first_letter; got 'second_letter'"):
        RunConfig(**given_options(parser.parse_args(["--tag-match", "second_letter"]), "run"))


@pytest.mark.parametrize("given, message", [
    ({"tag_match": "second_letter"}, "tag_match must be one of 'exact', 'first_letter', got 'second_letter'"),
    ({"min_count": 0}, "min_count must be at least 1, got 0"),
    ({"bleu_smoothing": "laplace"}, "bleu_smoothing must be one of"),
    ({"lowercase": "yes"}, "lowercase must be True or False"),
    ({"colour": "red"}, "unknown featurizer option"),
])
def test_bad_values_are_named(given, message):
    with pytest.raises(ValueError, match=message):
        resolve_options(given)
    flag = "--" + next(iter(given)).replace("_", "-")
    with pytest.raises(UsageError, match=f"{flag}|unknown option 'colour'"):
        RunConfig(**given)


def test_featurizer_refuses_bad_values_before_any_work(tiny):
    with pytest.raises(ValueError, match="tag_match must be one of"):
        PairFeaturizer(tag_match="second_letter").fit(tiny)


# ------------------------------------------------------------------ the table walked


DATA_MODEL_SELECTION = ("data", "custom data (your pairs: .tsv, .csv, .jsonl, .parquet or .arrow files, or --dataset "
                                "hf:NAME)", "model and features", "selection")


def test_every_data_feature_model_and_selection_option_reaches_the_curves():
    # A new option of these groups cannot be left out of the learning curves.
    for option in options().values():
        if option.group in DATA_MODEL_SELECTION and option.name not in ("paper_table", "ablation_table",
                                                                                       "artifact_table"):
            assert "curve" in option.commands, option.name
            assert option.config and "run" in option.commands, option.name


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_parses_exactly_its_options(command):
    parser = build_parser(command)
    # --import and --read-limit act on the process before any option is read, as on every command.
    dests = {action.dest for action in parser._actions} - {"help", "modules", "read_limits"}
    assert dests == {o.name for o in for_command(command)}  # every option of the command, and only those
    mine = [o.cli_flag for o in for_command(command)]
    assert len(mine) == len(set(mine))  # no flag spelled twice within a command


def test_values_are_checked_once_whatever_their_source():
    # From the command line (text) and from Python (values), the same checks and the same values.
    parser = build_parser("run")
    typed = RunConfig(**given_options(parser.parse_args(
        ["--C", "0.1,1", "--seed", "7", "--ablate", "bleu", "--ablate", "overlap", "--label-map", "yes=entailment",
         "--cv-folds", "3", "--two-class"]), "run"))
    python = RunConfig(C=[0.1, 1], seed=7, ablate=["bleu", "overlap"], label_map={"yes": "entailment"}, cv_folds=3,
                       two_class=True)
    assert typed == python and typed.grids == {"C": (0.1, 1.0)} and typed.ablate == ("bleu", "overlap")
    for bad, message in [({"seed": -1}, "--seed: expected a number of at least 0"),
                         ({"seed": 2 ** 32}, "--seed: expected a number of at most"),
                         ({"cv_folds": 1000}, "--cv-folds: expected a number of at most 100"),
                         ({"bins": 10 ** 9}, "--bins: expected a number of at most"),
                         ({"C": "0.1,x"}, "--C: takes a comma-separated list of numbers"),
                         ({"model": "lrr"}, "did you mean lr"),
                         ({"sizes": "10"}, "unknown option 'sizes' for run; it is an option of curve"),
                         ({"trainsize": 3}, "did you mean train_size")]:
        with pytest.raises(UsageError, match=message):
            RunConfig(**bad)


def test_a_file_of_pairs_is_the_custom_corpus(tmp_path):
    train = tmp_path / "t.tsv"
    assert RunConfig(train_file=str(train)).dataset == "custom"
    with pytest.raises(UsageError, match="drop --dataset"):
        RunConfig(dataset="sick", train_file=str(train))
    with pytest.raises(UsageError, match="--premise-column names a column of your own files"):
        RunConfig(dataset="sick", premise_column="text")


def test_the_curve_signature_holds_every_option_that_changes_a_point():
    signature = RunConfig("curve").signature()
    assert {"label_map", "premise_column", "hypothesis_column", "two_class", "seed", "C", "bins", "train_size",
            "model", "features", "ablate", "cv_folds", "eval_split"} <= set(signature)
    assert not {"jobs", "quiet", "sizes", "seeds", "data_dir", "backend"} & set(signature)


def test_help_lists_every_group():
    text = build_parser("run").format_help()
    for group in ("data", "model and features", "selection", "evaluation", "outputs", "execution"):
        assert f"\n{group}" in text
    assert "--glue-out" in text and "--superglue-out" in text  # from the prediction formats' registry
    assert isinstance(build_parser("curve"), argparse.ArgumentParser)
