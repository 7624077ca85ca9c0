"""`RunConfig`: everything that determines a run's numbers, each value checked once against the
options table (`configuration.options`) and recorded verbatim in the run's JSON record."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from nli_baselines.features.options import OPTIONS

from ..corpora import custom_corpus, get_corpus
from ..corpora.hub import hub_corpus, is_hub_dataset
from ..corpora.registry import registered_copy
from .errors import UsageError
from .options import OptionError, for_command, options, unknown_option

CUSTOM_FILES = ("train_file", "dev_file", "test_file")
CUSTOM_COLUMNS = ("premise_column", "hypothesis_column", "label_column", "id_column")
HUB_OPTIONS = ("train_split", "dev_split", "test_split", "revision")  # a Hugging Face dataset's, only
TABLES = ("paper_table", "ablation_table", "artifact_table")  # the runs that fit several rows


@dataclass(frozen=True, init=False, eq=False, repr=False)
class RunConfig:
    """The settings of a run (`command="run"`), a learning curve (`"curve"`) or a prediction
    (`"predict"`): the table's options for that command, by name, as `nb.run` and the command
    lines take them. Missing options take their defaults; a value an option does not take, or a
    name no option has, is a UsageError naming the flag. Frozen: `replace` makes a changed copy.

        config = RunConfig(dataset="sick", features="lexicalized", ablate=["cross_bigrams"])
        config.ablate   # ('cross_bigrams',)

    Every option of every command is a field (an option of another command keeps its default);
    `given` holds the names the caller set, `notes` what the run will say about them.
    """

    command: str
    # BEGIN generated from the options table by tests/option_signatures.py: do not edit by hand
    dataset: str
    source: str
    train_split: str | None
    dev_split: str | None
    test_split: str | None
    revision: str | None
    data_dir: str | None
    on_bad_row: str
    label_map: dict[str, str]
    allow_unseen_labels: bool
    train_file: str | None
    dev_file: str | None
    test_file: str | None
    quoting: str
    premise_column: str | None
    hypothesis_column: str | None
    label_column: str
    target: str
    id_column: str | None
    model: str
    features: str
    ablate: tuple[str, ...]
    two_class: bool
    paper_table: bool
    ablation_table: bool
    artifact_table: bool
    wordnet: bool
    lowercase: bool
    tag_match: str
    scale: str
    bleu_smoothing: str
    min_count: int
    bins: int
    bin_integers: str
    C: tuple[float, ...] | None
    tune_on: str
    choose: str
    cv_folds: int
    seed: int
    train_size: int | None
    eval_split: str
    bootstrap: int
    top_features: int
    sizes: tuple[str, ...]
    seeds: int
    configs: tuple[str, ...] | None
    reference: str | None
    jobs: int
    backend: str
    scheduler: str | None
    quiet: bool
    # END generated
    given: frozenset[str]
    notes: list[str]  # options given that this run does not use: said, not silently dropped

    def __init__(self, command: str = "run", **given: Any):
        table = {o.name: o for o in for_command(command, config_only=True)}
        for name in given:
            if name not in table:
                raise UsageError(unknown_option(name, command))
        for option in options().values():
            if not option.config:
                continue
            try:
                # A default written as the command line writes it ("1,10,all") is read as a given
                # value is, so a field holds the same kind of value whether given or not.
                value = option.check(given[option.name] if option.name in given else option.default) \
                    if option.name in given or isinstance(option.default, str) else option.default
            except OptionError as exc:
                raise UsageError(str(exc)) from None
            object.__setattr__(self, option.name, value)
        object.__setattr__(self, "command", command)
        object.__setattr__(self, "given", frozenset(given))  # what the user set, as opposed to defaults
        object.__setattr__(self, "notes", [])
        self._check_together()

    def _check_together(self) -> None:
        """Options that only mean something together: a file of pairs is the custom corpus; a flag
        the run would ignore is refused, or noted where it is harmless."""
        if "label_map" in self.given and not self.label_map:
            raise UsageError("--label-map: no OLD=NEW pairs given")
        if self.command == "predict":
            return
        if not str(self.features).strip(" ,"):
            raise UsageError("--features: no feature types given (a group such as lexicalized, or a comma list)")
        tables = [f"--{n.replace('_', '-')}" for n in TABLES if getattr(self, n, False)]
        if len(tables) > 1:
            raise UsageError(f"{tables[0]} and {tables[1]} are two kinds of table: give one")
        if self.scheduler and self.backend != "dask":
            self.notes.append("--scheduler is for --backend dask; this run uses local workers")
        if self.backend == "dask" and "jobs" in self.given:
            self.notes.append("--jobs counts local workers; with --backend dask the cluster's workers run the grid")
        files = [n for n in CUSTOM_FILES if getattr(self, n)]
        if files and self.dataset != "custom":
            if "dataset" in self.given:
                raise UsageError(f"--{files[0].replace('_', '-')} reads pairs of your own, but --dataset is "
                                 f"{self.dataset!r}: drop --dataset (your files are the corpus), or give "
                                 "--dataset custom")
            object.__setattr__(self, "dataset", "custom")
        if self.dataset != "custom" and "quoting" in self.given:
            raise UsageError(f"--quoting says how your own .tsv and .csv files are read (--train-file ...); "
                             f"{self.dataset!r} is read by its own reader")
        if self.dataset != "custom" and not self.hub_dataset:
            columns = [n for n in CUSTOM_COLUMNS if n in self.given]
            if "target" in self.given:
                raise UsageError(f"--target says what the labels of your own files (--train-file ...) or of a Hugging "
                                 f"Face dataset (--dataset hf:NAME) are; {self.dataset!r} declares its own")
            if columns:
                raise UsageError(f"--{columns[0].replace('_', '-')} names a column of your own files "
                                 f"(--train-file ...) or of a Hugging Face dataset (--dataset hf:NAME); the columns of "
                                 f"{self.dataset!r} are known")
        self._check_source()

    @property
    def hub_dataset(self) -> bool:
        """`--dataset hf:NAME[:CONFIG]`: a Hugging Face dataset read as it is."""
        return is_hub_dataset(self.dataset)

    def _check_source(self) -> None:
        """--source and the hub's options (--train-split, ..., --revision) against the dataset; a
        hub copy that lacks what the official files have is said once, here."""
        flags = [f"--{n.replace('_', '-')}" for n in HUB_OPTIONS if getattr(self, n, None)]
        if self.dataset == "custom" or self.hub_dataset:
            if self.source not in (("auto", "hf") if self.hub_dataset else ("auto",)):
                raise UsageError(f"--source {self.source} chooses where a corpus the suite knows is read from; "
                                 + (f"{self.dataset} is a Hugging Face dataset" if self.hub_dataset else
                                    "your files are your corpus"))
            if self.dataset == "custom" and flags:
                raise UsageError(f"{flags[0]} is for a Hugging Face dataset (--dataset hf:NAME); your own files are "
                                 "--train-file, --dev-file and --test-file")
            if self.hub_dataset:
                known = registered_copy(self.dataset)
                if known:
                    self.notes.append(f"{self.dataset} is the hub copy of {known}: --dataset {known} --source hf "
                                      "reads it with that corpus' labels, splits and prediction files")
            return
        try:
            corpus = get_corpus(self.dataset)
            source = corpus.source_for(self.source)
        except ValueError as exc:
            raise UsageError(f"--source {self.source}: {exc}" if "source" in self.given else str(exc)) from None
        if source == "files" and flags:
            raise UsageError(f"{flags[0]} is for a Hugging Face dataset; {self.dataset} is read from its official "
                             "files here: add --source hf to read its hub copy")
        if source == "hf" and corpus.hub.lacks:
            self.notes.append(f"{self.dataset} read from {corpus.hub.address}: the hub copy {corpus.hub.lacks}")

    # ---------------------------------------------------------------- what the engine reads

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in sorted(self.given))
        return f"RunConfig({self.command!r}{', ' if shown else ''}{shown})"

    def __eq__(self, other) -> bool:
        return isinstance(other, RunConfig) and self.to_dict() == other.to_dict() and self.command == other.command

    def check_label_map(self, labels) -> None:
        """Refuse --label-map keys that are no label of the data (a typo would map nothing)."""
        unknown = [old for old in self.label_map if old not in labels]
        if unknown:
            near = difflib.get_close_matches(unknown[0], sorted(map(str, labels)), n=1, cutoff=0.6)
            raise UsageError(f"--label-map: {unknown[0]!r} is not a label of the data (its labels: "
                             f"{', '.join(sorted(map(str, labels)))})" + (f"; did you mean {near[0]}?" if near else ""))

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)

    def replace(self, **changes) -> RunConfig:
        """A copy with some options changed (checked like the originals)."""
        given = {n: getattr(self, n) for n in self.given}
        return RunConfig(self.command, **{**given, **changes})

    def to_dict(self) -> dict:
        """The options of this command, JSON-able (for the run record)."""
        out = {}
        for option in for_command(self.command, config_only=True):
            value = getattr(self, option.name)
            out[option.name] = list(value) if isinstance(value, tuple) else value
        return out

    def signature(self) -> dict:
        """The options that change a run's numbers (what a resumed learning curve must match)."""
        return {o.name: self.to_dict()[o.name] for o in for_command(self.command, config_only=True)
                if o.affects_results}

    @property
    def featurizer(self) -> dict:
        """`PairFeaturizer` options (`features.options`)."""
        return {name: getattr(self, name) for name in OPTIONS if hasattr(self, name)}

    @property
    def grids(self) -> dict:
        """Candidates that override a model's own grid: `--C`, and `--wordnet` for edit distance."""
        grids = {}
        if getattr(self, "C", None):
            grids["C"] = tuple(self.C)
        if getattr(self, "wordnet", False):
            grids["wordnet"] = (False, True)
        return grids

    @property
    def progress(self) -> bool:
        return not self.quiet

    @property
    def custom(self) -> dict:
        """The custom corpus' files and columns."""
        return {"train": self.train_file, "dev": self.dev_file, "test": self.test_file,
                "premise": self.premise_column, "hypothesis": self.hypothesis_column,
                "label": self.label_column, "id": self.id_column, "quoting": self.quoting}

    def corpus(self):
        """The corpus the run reads: a registered one (from its files or its hub copy, as --source
        says), your files (custom), or a Hugging Face dataset (hf:NAME)."""
        try:
            c = self.custom
            if self.dataset == "custom":
                return custom_corpus(c["train"], c["dev"], c["test"], premise=c["premise"],
                                     hypothesis=c["hypothesis"], label=c["label"], id_column=c["id"],
                                     quoting=c["quoting"], target=self.target, on_bad_row=self.on_bad_row)
            splits = {"train": self.train_split, "dev": self.dev_split, "test": self.test_split}
            if self.hub_dataset:
                return hub_corpus(self.dataset, premise=c["premise"], hypothesis=c["hypothesis"], label=c["label"],
                                  id_column=c["id"], splits=splits, revision=self.revision, progress=self.progress,
                                  target=self.target)
            return get_corpus(self.dataset).via(self.source, splits=splits, revision=self.revision,
                                                progress=self.progress)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


def option_names(command: str = "run") -> list[str]:
    return [o.name for o in for_command(command, config_only=True)]


__all__ = ["RunConfig", "option_names", "options"]
