"""What the experiment drivers need to know about a model, declared once, next to the model.

Everything that runs, tunes, reports, saves or plots a model reads its `ModelSpec`; nothing
branches on a model's name. Adding a model is one module (the estimator and its spec) plus one
entry in `models.MODELS`.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from nli_baselines.features.storage.schema import Bool, Choice, Float, Int

INPUT_KINDS = ("matrix", "pairs")
TARGETS = ("labels", "scores")  # what a model predicts: a class, or a number (a regressor)


@dataclass(frozen=True)
class Tuning:
    """Hyperparameters chosen by `experiments.engine.selection`, never on a test split.

    grid: candidate values per parameter, tried in this order (ties keep the earlier candidate).
    on: "dev": by accuracy on the dev split, or by stratified k-fold CV on train where a corpus
        has no dev split; "cv": always by stratified k-fold CV on train.
    extend: for a numeric parameter on a geometric grid, the (lowest, highest) value the grid may
        be extended to when the best candidate sits at one of its ends.
    stronger: which end of the path parameter's grid regularizes more: "smaller" values (C of
        logistic regression) or "larger" ones (alpha of ridge regression); a path fitted for a
        choice by CV runs from that end (`experiments.engine.choice`).
    path: a parameter the estimator fits cheaply as a path, through its method
        `fit_path(X, y, values, *, start=None)`, which yields one fitted estimator per value, in
        the order given, each fitted on all of X (from `start`: a fitted estimator, or a list of
        them with the one nearest the first value last; or however the model sees fit). On a
        dev split selection then fits the candidates in order, stops once dev accuracy has
        fallen twice in a row or significantly below the best, and keeps the chosen fit instead
        of refitting (`experiments.engine.selection`).
    """

    grid: Mapping[str, tuple]
    on: str = "dev"
    extend: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    path: str | None = None
    stronger: str = "smaller"

    def __post_init__(self):
        if self.on not in ("dev", "cv"):
            raise ValueError(f"Tuning.on must be 'dev' or 'cv', got {self.on!r}")
        if self.stronger not in ("smaller", "larger"):
            raise ValueError(f"Tuning.stronger must be 'smaller' or 'larger', got {self.stronger!r}")
        if self.path is not None and self.path not in self.grid:
            raise ValueError(f"Tuning.path {self.path!r} is not a parameter of the grid ({', '.join(self.grid)})")


def _no_details(model) -> dict:
    return {}


def _field_for(values):
    """A field for a grid's candidates: a choice among texts or flags, else a finite number."""
    values = tuple(values)
    if all(isinstance(v, bool) for v in values):
        return Bool()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return Int(lo=min(values + (0,)), hi=max(values) * 1000 + 1000)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return Float(lo=min(0.0, *values), hi=max(values) * 1e4 + 1.0)
    return Choice(values)


@dataclass(frozen=True)
class ModelSpec:
    """A model as the suite's drivers see it.

    factory: keyword parameters -> an unfitted scikit-learn style classifier.
    title: how reports and plots name it.
    input: "matrix" (the featurizer's sparse matrix, restricted to the row's feature types) or
        "pairs" (the annotated pairs themselves).
    two_class_only: trained and scored on entailment / not_entailment whatever the corpus.
    min_classes: the fewest training classes it can learn from.
    needs_lemmas: it reads lemmas (`features.annotate(..., lemmas=True)`).
    tuning: how its hyperparameters are chosen, or None.
    real_valued_param: for a matrix model that treats real-valued columns apart from indicator
        columns, the name of its parameter taking a boolean mask of the real-valued columns of the
        matrix it gets; the drivers set it from the featurizer (`PairFeaturizer.real_valued_mask`).
    hyperparameters: the parameters the command line and tuning may set (name -> a
        `features.storage.schema` field declaring its type and range): `--C` and the like reach only models
        that declare them, and they are the only parameters a model file sets on what the factory
        builds. None: those of the tuning grid, typed by its values (`declared_hyperparameters`).
    weights: fitted model -> (n_classes, n_columns) weights per class, for a model that explains
        itself by its features (top features, the features that pushed each prediction); None
        for one that cannot.
    explain: (fitted model, inputs) -> one text per input saying why it was labelled so (edit
        distance: its distance against the threshold); None for one that has no account.
    state: how a fitted model is kept in a model file (`models.state.EstimatorKind`); None:
        the kind is looked up by the class the factory builds (`models.sklearn_kinds`).
    describe: fitted model -> JSON-able facts for the run record and the report.
    reference: a reference row (the majority class; the mean score): reports read the other rows
        against it, and a table that has it needs no separately computed reference.
    target: "labels" (a classifier) or "scores" (a regressor); a run refuses a model whose target
        is not its task's, unless the model names a `counterpart`.
    counterpart: the registered model that plays this one's part for the other target (lr and
        ridge, stacked and stacked_ridge, majority and mean): `--model lr` on a score task runs
        ridge, and says so; tables of rows name one model for both kinds of task.
    range_param: for a regressor, its parameter taking the task's (lowest, highest) score, which
        its predictions are clipped to; the drivers set it from the task.
    """

    name: str
    factory: Callable[..., Any]
    title: str
    input: str = "matrix"
    two_class_only: bool = False
    min_classes: int = 2
    needs_lemmas: bool = False
    tuning: Tuning | None = None
    real_valued_param: str | None = None
    hyperparameters: Mapping[str, Any] | None = None
    state: Any = None
    weights: Callable[[Any], Any] | None = None
    explain: Callable[[Any, Any], list] | None = None
    describe: Callable[[Any], dict] = field(default=_no_details)
    reference: bool = False
    target: str = "labels"
    counterpart: str | None = None
    range_param: str | None = None

    def __post_init__(self):
        if self.input not in INPUT_KINDS:
            raise ValueError(f"ModelSpec.input must be one of {INPUT_KINDS}, got {self.input!r}")
        if self.target not in TARGETS:
            raise ValueError(f"ModelSpec.target must be one of {TARGETS}, got {self.target!r}")

    def __reduce_ex__(self, protocol):
        # A built-in spec is a registry entry every process has: pickled by name, so its
        # callables (lambdas, a kind's closures) need not pickle; a user's spec as before.
        if MODELS.get(self.name) is self and getattr(self.factory, "__module__", "").startswith(f"{__package__}."):
            return _registered, (self.name,)
        return object.__reduce_ex__(self, protocol)

    @property
    def uses_features(self) -> bool:
        return self.input == "matrix"

    @property
    def declared_hyperparameters(self) -> dict:
        """name -> field: as declared, or the tuning grid's parameters typed by their candidates."""
        if self.hyperparameters is not None:
            return dict(self.hyperparameters)
        return {name: _field_for(values) for name, values in (self.tuning.grid if self.tuning else {}).items()}

    @property
    def explains(self) -> bool:
        return self.weights is not None or self.explain is not None

    def build(self, *, seed: int = 0, jobs: int = 1, **params):
        """An unfitted estimator; the run's seed and worker count go to the factory if it takes them."""
        accepted = inspect.signature(self.factory).parameters
        run = {"random_state": seed, "n_jobs": jobs}
        return self.factory(**{k: v for k, v in run.items() if k in accepted}, **params)


# The registry: `--model` names -> specs (models/__init__.py registers the built-in ones).
MODELS: dict[str, ModelSpec] = {}
DEFAULT_MODEL = "lr"
# The model a run fits when --model is not given, per target; rows of these go unprefixed in tables.
DEFAULT_MODELS = {"labels": DEFAULT_MODEL, "scores": "ridge"}


def register_model(spec: ModelSpec, *, replace: bool = False) -> ModelSpec:
    """Add a model under `spec.name` (`replace=True` to redefine one, e.g. in a notebook)."""
    if spec.name in MODELS and not replace and MODELS[spec.name] != spec:
        raise ValueError(f"model name {spec.name!r} is already taken")
    MODELS[spec.name] = spec
    return spec


def unregister_model(name: str) -> None:
    if name in DEFAULT_MODELS.values():
        raise ValueError(f"cannot unregister the default model {name!r}")
    MODELS.pop(name, None)


def get_model(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(MODELS)}") from None


def _registered(name: str) -> ModelSpec:
    return get_model(name)
