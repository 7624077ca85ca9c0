"""`RunConfig`: everything that determines a run's numbers, recorded verbatim in its JSON record."""
from __future__ import annotations

from dataclasses import dataclass, field

from features.options import resolve_options

from ..corpora import Corpus, custom_corpus, get_corpus
from .errors import UsageError
from .parallel import resolve_jobs


@dataclass
class RunConfig:
    """A run of `experiments/run.py` (and the settings learning curves share with it).

    featurizer: `PairFeaturizer` options (`features.options`); missing ones take their defaults.
    grids: candidate values per hyperparameter, overriding the model's own grid (`--C` sets "C").
    bootstrap: refit on this many resamples of the training set and report the spread of the score.
    label_map: gold label -> label of the task (e.g. {"yes": "entailment", "no": "not_entailment"}).
    allow_unseen_labels: warn, instead of stopping, when dev or test has labels training never shows.
    explain: keep, per scored pair, the model's confidence and the features that pushed it to its
        prediction (for --errors); the record then carries them under `_examples`.
    custom: for dataset "custom", the train/dev/test files and column names.
    """

    dataset: str = "snli"
    data_dir: str | None = None
    model: str = "lr"
    features: str = "lexicalized"
    ablate: tuple[str, ...] = ()
    two_class: bool = False
    train_size: int | None = None
    seed: int = 0
    eval_split: str = "dev"
    paper_table: bool = False
    ablation_table: bool = False
    top_features: int = 0
    jobs: int = 1
    on_bad_row: str = "error"
    featurizer: dict = field(default_factory=dict)
    grids: dict = field(default_factory=dict)
    cv_folds: int = 5
    bootstrap: int = 0
    label_map: dict = field(default_factory=dict)
    allow_unseen_labels: bool = False
    explain: bool = False
    progress: bool = True
    backend: str = "local"
    scheduler: str | None = None
    custom: dict = field(default_factory=dict)

    def __post_init__(self):
        try:
            self.featurizer = resolve_options(self.featurizer)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        self.ablate = tuple(self.ablate)
        self.grids = {name: tuple(values) for name, values in self.grids.items()}
        for name, values in self.grids.items():
            if not values:
                raise UsageError(f"the grid of {name} is empty")
        if self.backend == "local":
            self.jobs = resolve_jobs(self.jobs)
        if isinstance(self.cv_folds, bool) or not isinstance(self.cv_folds, int) or self.cv_folds < 2:
            raise UsageError(f"--cv-folds takes a number of folds of at least 2, got {self.cv_folds!r}")
        if self.top_features < 0:
            raise UsageError(f"--top-features takes a count of at least 0, got {self.top_features}")
        if self.train_size is not None and self.train_size < 1:
            raise UsageError("--train-size must be at least 1")

    def corpus(self) -> Corpus:
        if self.dataset == "custom":
            c = self.custom
            try:
                return custom_corpus(c.get("train"), c.get("dev"), c.get("test"), premise=c.get("premise"),
                                     hypothesis=c.get("hypothesis"), label=c.get("label", "label"),
                                     id_column=c.get("id"))
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        try:
            return get_corpus(self.dataset)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
