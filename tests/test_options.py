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
    # A new option of these groups cannot be left out of the learning curves. A curve names its
    # configs (--configs), so the run's tables and its choice among a corpus' baselines stay the run's.
    for option in options().values():
        if option.group in DATA_MODEL_SELECTION and option.name not in ("paper_table", "ablation_table",
                                                                                       "artifact_table", "choose"):
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


# ------------------------------------------------------------------ the API's signatures and RunConfig's fields


def test_the_generated_signatures_follow_the_options_table():
    from tests.option_signatures import REPO, expected
    stale = [str(path.relative_to(REPO)) for path, text in expected().items() if path.read_text(encoding="utf-8") != text]
    assert not stale, f"{', '.join(stale)} no longer match the options table: run python -m tests.option_signatures"


@pytest.mark.parametrize("function, command, extra", [("run", "run", set()),
                                                      ("learning_curve", "curve", {"out", "overwrite"})])
def test_the_api_shows_every_option_with_its_default(function, command, extra):
    import nli_baselines as nb
    params = inspect.signature(getattr(nb, function)).parameters
    table = {o.name: o for o in for_command(command, config_only=True)}
    assert set(params) == set(table) | extra
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY and p.annotation != inspect.Parameter.empty
               for p in params.values())
    assert {n: params[n].default for n in table} == {n: None if o.default == {} else o.default for n, o in table.items()}
    doc = inspect.getdoc(getattr(nb, function))
    assert all(f"\n{name}: " in doc for name in table)


def test_the_config_is_a_frozen_dataclass_with_a_field_per_option():
    import dataclasses
    config = RunConfig(dataset="sick", ablate="cross_bigrams")
    names = {f.name for f in dataclasses.fields(RunConfig)}
    assert names == {o.name for o in options().values() if o.config} | {"command", "given", "notes"}
    assert config.ablate == ("cross_bigrams",) and config.given == {"dataset", "ablate"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.dataset = "snli"
    assert config.replace(seed=3).seed == 3 and config.seed == 0


@pytest.mark.parametrize("args, given", [
    (["--cv-folds", "1"], {"cv_folds": 1}), (["--seed", "-1"], {"seed": -1}),
    (["--tag-match", "second"], {"tag_match": "second"}), (["--C", "0,1"], {"C": "0,1"}),
    (["--label-map", "yes"], {"label_map": "yes"}), (["--dataset", "snly"], {"dataset": "snly"}),
])
def test_the_command_line_and_python_refuse_a_value_in_the_same_words(cli, args, given):
    import nli_baselines as nb
    done = cli("run", *args, "--quiet")
    with pytest.raises(UsageError) as refused:
        nb.run(**given, quiet=True)
    assert done.returncode == 2 and done.stderr.strip() == f"error: {refused.value}"


def test_an_option_at_its_default_counts_as_not_given():
    from nli_baselines.experiments.api import _given
    params = {o.name: o.default for o in for_command("run", config_only=True)}
    assert _given({**params, "label_map": None, "ablate": [], "seed": 0, "dataset": "sick"}, "run") == {
        "dataset": "sick"}
    # a value of another type is given, and checked: False is not the seed 0
    assert _given({**params, "seed": False}, "run") == {"seed": False}


def test_a_default_is_held_as_a_given_value_is():
    # --sizes left out held the text "1,10,...,all", which the curve read a character at a time:
    # learning_curves/run.py without --sizes (the guide's own example) ended in a traceback.
    config = RunConfig("curve")
    assert config.sizes == ("1", "10", "100", "1000", "10000", "all")
    assert config.sizes == RunConfig("curve", sizes="1,10,100,1000,10000,all").sizes
    for option in options().values():
        if option.config and isinstance(option.default, str):
            assert getattr(config, option.name) == option.check(option.default), option.name
