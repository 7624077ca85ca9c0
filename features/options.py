"""The featurizer's open choices, declared once: names, allowed values, defaults and help.

`PairFeaturizer` takes its defaults and validation from this table, the feature types check
their parameters against it, and the command-line scripts build their flags from it
(`--tag-match`, `--no-lowercase`, ...). The defaults were chosen on dev data; the numbers are
in the table of defaults (docs/features.md) (`python benchmarks/choose_defaults.py`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

TAG_MATCH_CHOICES = ("exact", "first_letter")
SCALE_CHOICES = ("none", "standard", "maxabs")
SMOOTHING_CHOICES = ("exp", "floor", "add-k", "none")
# Bins size an allocation per real-valued column; beyond a thousand quantiles there is nothing to gain.
MAX_BINS = 1000


@dataclass(frozen=True)
class Option:
    """One parameter of `PairFeaturizer` that the suite exposes everywhere.

    feature_param: the parameter's name in the feature types, where it differs (bleu's `smoothing`).
    candidates: for a numeric option, the values `benchmarks/choose_defaults.py` compares.
    """

    name: str
    default: Any
    help: str
    choices: tuple | None = None
    minimum: int | None = None
    maximum: int | None = None
    feature_param: str | None = None
    candidates: tuple | None = None

    def alternatives(self) -> tuple:
        """The values other than the default that choosing the default compares it with."""
        values = (False, True) if self.kind is bool else self.choices or self.candidates or ()
        return tuple(v for v in values if v != self.default)

    @property
    def kind(self) -> type:
        return type(self.default)

    def check(self, value) -> None:
        """Raise ValueError naming the option when `value` is not allowed."""
        if self.kind is bool:
            if not isinstance(value, (bool, int)) or value not in (0, 1):
                raise ValueError(f"{self.name} must be True or False, got {value!r}")
        elif self.choices is not None:
            if value not in self.choices:
                raise ValueError(f"{self.name} must be one of {', '.join(map(repr, self.choices))}, got {value!r}")
        elif self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{self.name} must be an integer, got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise ValueError(f"{self.name} must be at least {self.minimum}, got {value}")
            if self.maximum is not None and value > self.maximum:
                raise ValueError(f"{self.name} must be at most {self.maximum:,}, got {value:,}")


OPTIONS: dict[str, Option] = {o.name: o for o in (
    Option("lowercase", True, "compare and name words in lowercase"),
    Option("tag_match", "first_letter", "what 'share a POS tag' compares in cross features: exact PTB tags, "
           "or their first letters (NN ~ NNS)", TAG_MATCH_CHOICES),
    Option("scale", "standard", "scaling of the real-valued features (bleu, length_diff, overlap)", SCALE_CHOICES),
    Option("bleu_smoothing", "exp", "sacrebleu smoothing method of the bleu feature", SMOOTHING_CHOICES,
           feature_param="smoothing"),
    Option("min_count", 3, "keep an indicator feature only if at least this many training pairs have it",
           minimum=1, maximum=1_000_000, candidates=(1, 2, 3, 5, 10)),
    Option("bins", 5, "indicator copies of each real-valued feature: at most this many quantile bins "
           "fitted on train (0: none)", minimum=0, maximum=MAX_BINS, candidates=(0, 3, 5, 10, 20)),
    Option("bin_integers", "values", "bins of whole-number features (length difference, counts): one per "
           "value seen in training, or quantiles", ("values", "quantiles")),
)}
DEFAULTS: dict[str, Any] = {name: option.default for name, option in OPTIONS.items()}


def check_option(name: str, value) -> None:
    OPTIONS[name].check(value)


def resolve_options(given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every option, `given` values over the defaults, each checked; unknown names are a ValueError."""
    given = dict(given or {})
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown featurizer option(s) {', '.join(unknown)}; valid: {', '.join(OPTIONS)}")
    resolved = {**DEFAULTS, **given}
    for name, value in resolved.items():
        check_option(name, value)
    return resolved


def feature_params(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options under the names the feature types take (`bleu_smoothing` -> `smoothing`)."""
    return {OPTIONS[name].feature_param or name: value for name, value in options.items()}
