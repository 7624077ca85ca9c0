"""Featurizer options: one table gives defaults, validation and the command-line flags."""
from __future__ import annotations

import argparse
import inspect

import pytest

from experiments.commandline.arguments import add_featurizer_arguments, featurizer_options
from experiments.engine.config import RunConfig
from experiments.engine.errors import UsageError
from features import OPTIONS, PairFeaturizer
from features.options import DEFAULTS, resolve_options


def test_featurizer_defaults_are_the_table():
    params = inspect.signature(PairFeaturizer).parameters
    assert {name: params[name].default for name in OPTIONS} == DEFAULTS


def test_flags_come_from_the_table():
    parser = argparse.ArgumentParser()
    add_featurizer_arguments(parser)
    assert featurizer_options(parser.parse_args([])) == DEFAULTS
    args = parser.parse_args(["--no-lowercase", "--tag-match", "exact", "--min-count", "2", "--scale", "maxabs"])
    assert featurizer_options(args) == {**DEFAULTS, "lowercase": False, "tag_match": "exact", "min_count": 2,
                                        "scale": "maxabs"}
    with pytest.raises(SystemExit):
        parser.parse_args(["--tag-match", "second_letter"])


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
    with pytest.raises(UsageError, match=message):
        RunConfig(featurizer=given)


def test_featurizer_refuses_bad_values_before_any_work(tiny):
    with pytest.raises(ValueError, match="tag_match must be one of"):
        PairFeaturizer(tag_match="second_letter").fit(tiny)
