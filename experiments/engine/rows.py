"""The rows of a run: what each fits (a model, its feature types, two or more classes).

A run has one row, the paper's table, an ablation table, or, for a learning curve, one row per
curve; every row is fitted and scored by the same code (`engine.experiment.run_row`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from nli_baselines import features
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.configuration.options import DEFAULT_CONFIGS
from nli_baselines.features.registry import FEATURE_TYPES, describe, reads_premise, reads_wordnet
from nli_baselines.features.text.wordnet_data import WordNetMissingError, search_path, setup_command, wordnet_available
from nli_baselines.models import DEFAULT_MODEL, DEFAULT_MODELS, MODELS, ModelSpec, get_model

from ..corpora.task import NLI


@dataclass
class Row:
    """One line of a results table (or one curve). It carries the model's spec itself, so a worker
    process needs no registry to run it (a model registered in a notebook works with --jobs 2)."""

    name: str
    spec: ModelSpec
    feature_types: tuple[str, ...]
    two_class: bool
    grid: dict = field(default_factory=dict)  # candidates this row fixes (e.g. wordnet=(True,))
    reference: bool = False  # the row the others of its label granularity are compared with
    versus: tuple[str, ...] = ()  # other rows of the table this one is also compared with (the artifact table)

    @property
    def model(self) -> str:
        return self.spec.name

    @property
    def title(self) -> str:
        """How plots name the row: the model, and its features as a group title or a list."""
        if not self.spec.uses_features:
            return self.spec.title
        what = describe(self.feature_types)
        return what if _is_default(self.spec) else f"{self.spec.title}: {what}"


@dataclass(frozen=True)
class PaperRow:
    """A row of a table of fixed rows (`--paper-table`, `--artifact-table`). two_class None is the
    corpus' own label set; grid fixes candidates of the model's selection; wordnet rows need
    WordNet and are skipped, with a note, without it; reference: the row the others with as many classes are compared with (the first such row
    kept: on a two-class corpus, lexicalized). versus: rows this one is compared with besides
    its reference (each row's difference and McNemar's p, `significance.compare_with_named`)."""

    name: str
    model: str
    features: str | None
    two_class: bool | None
    grid: tuple = ()
    wordnet: bool = False
    reference: bool = False
    versus: tuple[str, ...] = ()


# The SNLI paper's rows (Tables 4 and 5), all from one featurization. A row that would repeat an
# earlier one (two-class LR on a two-class corpus) is left out.
PAPER_TABLE = (
    PaperRow("lexicalized", "lr", "lexicalized", None, reference=True),
    PaperRow("unigrams_only", "lr", "unigrams_only", None),
    PaperRow("unlexicalized", "lr", "unlexicalized", None),
    PaperRow("edit_distance", "edit_distance", None, True),
    PaperRow("lr_two_class", "lr", "lexicalized", True, reference=True),
    # Table 4's "+ lexical resources": the classifier with WordNet, and EOP's lemma + WordNet edit distance.
    PaperRow("lr_lexical_resources", "lr", "lexicalized,wordnet", True, wordnet=True),
    PaperRow("edit_distance_wordnet", "edit_distance", None, True, grid=(("wordnet", (True,)),), wordnet=True),
    PaperRow("majority", "majority", None, True),  # the paper's Table 4 quotes the 2-class majority
    # Beyond the paper: the strongest classical baseline (WordNet alignment, syntax, quantifiers), and
    # gradient-boosted trees stacked on it; both read WordNet and a dependency parse of every sentence.
    PaperRow("strongest", "lr", "strongest", None, wordnet=True),
    PaperRow("stacked", "stacked", "strongest", None, wordnet=True),
)

# `--artifact-table` (Gururangan et al. 2018; Poliak et al. 2018): how far a model that reads one side
# of the pair only gets above the majority class, and how far the full models get above it. Every row
# has the corpus' own labels (or two with --two-class), and every row is compared with the majority
# class and with hypothesis-only.
_VERSUS = ("majority", "hypothesis_only")
ARTIFACT_TABLE = (
    PaperRow("majority", "majority", None, None),
    PaperRow("hypothesis_only", "lr", "hypothesis_only", None, versus=_VERSUS),
    PaperRow("premise_only", "lr", "premise_only", None, versus=_VERSUS),
    PaperRow("unlexicalized", "lr", "unlexicalized", None, versus=_VERSUS),
    PaperRow("lexicalized", "lr", "lexicalized", None, versus=_VERSUS),
    PaperRow("strongest", "lr", "strongest", None, wordnet=True, versus=_VERSUS),
)


@dataclass(frozen=True)
class Table:
    """A table of fixed rows, asked for by its run option. follows_two_class: --two-class applies to
    its rows (the paper's rows have label sets of their own, so there it does not)."""

    rows: tuple[PaperRow, ...]
    follows_two_class: bool


TABLES = {"paper_table": Table(PAPER_TABLE, False), "artifact_table": Table(ARTIFACT_TABLE, True)}


def resolve_types(spec, ablate=(), corpus=None, notes: list | None = None, *, strict: bool = True) -> tuple[str, ...]:
    """The feature types `spec` names (a group, a type, a comma list) minus `ablate`.

    corpus: where its task is single sentences (CoLA, SST-2), the types that read the premise are
        left out of groups, with a line in `notes`; naming one itself is a UsageError (not when
        `strict` is off: a table's fixed rows, where a row left with no type is the caller's to drop).
    """
    try:
        types = tuple(features.resolve(spec, list(ablate)))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if corpus is None or not corpus.task.single_sentence:
        return types
    kept = tuple(t for t in types if not reads_premise(t))
    named = [item.strip() for item in (spec.split(",") if isinstance(spec, str) else spec)
             if item.strip() in types and reads_premise(item.strip())]
    if strict and named:
        one = ", ".join(t for t in FEATURE_TYPES if not reads_premise(t))
        raise UsageError(f"--features {named[0]}: {corpus.name} is single sentences (no premise), and {named[0]} reads "
                         f"the premise; the types that read one sentence: {one}")
    if notes is not None and len(kept) < len(types):
        _note_left_out(notes, corpus.name, [t for t in types if t not in kept])
    if strict and not kept:
        raise UsageError(f"--features {spec if isinstance(spec, str) else ','.join(spec)}: every type of it reads the "
                         f"premise, and {corpus.name} is single sentences")
    return kept


def _note_left_out(notes: list, corpus: str, left: list[str]) -> None:
    """One line for the run, however many of its rows left types out: it names them all."""
    prefix, end = f"{corpus} is single sentences (no premise): ", " left out of every group (they read the premise)"
    at = next((i for i, note in enumerate(notes) if note.startswith(prefix) and note.endswith(end)), None)
    earlier = notes[at][len(prefix):-len(end)].split(", ") if at is not None else []
    names = ", ".join(t for t in FEATURE_TYPES if t in set(earlier) | set(left))
    if at is None:
        notes.append(prefix + names + end)
    else:
        notes[at] = prefix + names + end


def model_spec(name: str) -> ModelSpec:
    try:
        return get_model(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def for_task(spec: ModelSpec, task, notes: list | None = None) -> ModelSpec:
    """`spec`, or the model that plays its part for the task's target (`ModelSpec.counterpart`:
    logistic regression's is ridge regression), said in `notes` when given; a model with none is
    a UsageError naming the models that predict the task's target."""
    if spec.target == task.target:
        return spec
    other = MODELS.get(spec.counterpart) if spec.counterpart else None
    if other is not None and other.target == task.target:
        if notes is not None:
            notes.append(f"--model {spec.name} predicts {spec.target}, and this task's target is {task.target}: "
                         f"{other.title} (--model {other.name}) plays its part")
        return other
    fitting = ", ".join(name for name, m in MODELS.items() if m.target == task.target)
    raise UsageError(f"{spec.title} (--model {spec.name}) predicts {spec.target}, and this task's target is "
                     f"{task.target}: choose one of {fitting}")


def plan_rows(config: RunConfig, corpus, notes: list | None = None) -> list[Row]:
    """The rows to run: the paper's table, an ablation table, a learning curve's configs, or the
    single configured row.

    notes: receives why a row of a table (`--paper-table`, `--artifact-table`) was left out.
    """
    binary_corpus = corpus.is_two_class
    task = corpus.task
    notes = [] if notes is None else notes
    if task.is_scores and config.two_class:
        raise UsageError(f"--two-class maps labels to entailment / not_entailment; {corpus.name}'s target is a score")
    table = next((t for option, t in TABLES.items() if getattr(config, option, False)), None)
    if table is not None:
        asked = bool(config.two_class) and table.follows_two_class
        rows = []
        for paper in table.rows:
            spec = MODELS[paper.model]
            if task.is_scores:
                try:
                    scored = for_task(spec, task)
                except UsageError:
                    notes.append(f"row {paper.name} left out: {spec.title} predicts labels, and {corpus.name}'s "
                                 "target is a score")
                    continue
                if paper.two_class and not spec.reference:
                    notes.append(f"row {paper.name} left out: it is scored on two classes, and {corpus.name}'s "
                                 "target is a score")
                    continue
                spec = scored
                if paper.name == paper.model:  # a row named after its model takes its counterpart's name
                    paper = replace(paper, name=spec.name)
            if paper.wordnet and not wordnet_available():
                notes.append(f"row {paper.name} left out: it needs WordNet 3.0 ({setup_command()})")
                continue
            binary = not task.is_scores and (binary_corpus or spec.two_class_only or bool(paper.two_class) or asked)
            types = resolve_types(paper.features, (), corpus, notes, strict=False) if spec.uses_features else ()
            if spec.uses_features and not types:
                notes.append(f"row {paper.name} left out: its features all read the premise, and {corpus.name} is "
                             "single sentences")
                continue
            row = Row(paper.name, spec, types, binary,
                      dict(paper.grid), paper.reference and not any(r.reference and r.two_class == binary
                                                                    for r in rows), paper.versus)
            if not any((r.spec, r.feature_types, r.two_class, r.grid) == (row.spec, row.feature_types, row.two_class,
                                                                          row.grid) for r in rows):
                rows.append(row)
        return rows
    spec = for_task(model_spec(config.model), task, notes if "model" in config.given else None)
    binary = not task.is_scores and (config.two_class or binary_corpus or spec.two_class_only)
    if config.command == "curve":
        asked = (f"--configs {','.join(config.configs)}" if "configs" in config.given
                 else f"--features {config.features}")
        return check_wordnet(curve_rows(config, binary_corpus, task, notes, corpus), asked)
    if getattr(config, "ablation_table", False):
        if not spec.uses_features:
            raise UsageError(f"--ablation-table ablates feature types; model {spec.name!r} reads no features")
        full = resolve_types(config.features, config.ablate, corpus, notes)
        rows = [Row(row_name(spec.name, config.features), spec, full, binary, reference=True)]
        rows += [Row(row_name(spec.name, f"-{t}"), spec, resolve_types(list(full), [t]), binary)
                 for t in full if len(full) > 1]
        return check_wordnet(rows, f"--features {config.features}")
    types = resolve_types(config.features, config.ablate, corpus, notes) if spec.uses_features else ()
    name = row_name(spec.name, "-".join([config.features, *config.ablate])) if spec.uses_features else spec.name
    return check_wordnet([Row(name, spec, types, binary)], f"--features {config.features}")


def check_wordnet(rows: list[Row], asked: str) -> list[Row]:
    """`rows`, if WordNet is installed or none of their feature types reads it; else the
    WordNetMissingError that says where NLTK looked and how to install it, before anything is
    read or tagged (a table's rows are left out with a note instead: `plan_rows`). asked: the
    option that named the types, as the message says it."""
    needing = list(dict.fromkeys(t for row in rows for t in row.feature_types if reads_wordnet(t)))
    if needing and not wordnet_available():
        raise WordNetMissingError(search_path(), why=f"{asked} reads WordNet ({', '.join(needing)}): ")
    return rows


def row_name(model: str, features_name: str) -> str:
    return features_name if model in DEFAULT_MODELS.values() else f"{model} {features_name}"


def _is_default(spec: ModelSpec) -> bool:
    return DEFAULT_MODELS.get(spec.target) == spec.name


def curve_rows(config: RunConfig, binary_corpus: bool, task=None, notes: list | None = None,
               corpus=None) -> list[Row]:
    """A learning curve's rows: `--configs`, else the row `--model`/`--features` name when given,
    else lexicalized and unlexicalized. `--ablate` and `--two-class` apply to every curve; a
    model that does not predict the task's target gives way to its counterpart (`for_task`); a
    single-sentence corpus' curves leave out the types that read the premise (`resolve_types`)."""
    task = task or NLI
    items = config.configs
    if items is None:
        if {"features", "model", "ablate"} & config.given:
            spec = model_spec(config.model)
            items = (config.features.replace(",", "+") if spec.uses_features else spec.name,)
        else:
            items = tuple(DEFAULT_CONFIGS.split(","))
    rows = []
    for text in items:
        try:
            spec, types = parse_curve(text, config.model)
        except ValueError as exc:
            raise UsageError(f"--configs: {exc}") from None
        spec = for_task(spec, task, notes if ":" in text or "model" in config.given else None)
        name = text
        if spec.uses_features:
            if ":" not in text and not _is_default(spec):
                name = f"{spec.name}:{text}"
            if corpus is not None and corpus.task.single_sentence:
                named = text.strip().partition(":")[2 if ":" in text else 0]
                types = resolve_types(named.split("+"), (), corpus, notes)
            if config.ablate:
                types = resolve_types(list(types), config.ablate)
                name += "".join(f"-{a}" for a in config.ablate)
        if any(r.name == name for r in rows):
            continue
        rows.append(Row(name, spec, types, not task.is_scores and (config.two_class or binary_corpus
                                                                     or spec.two_class_only)))
    return rows


def parse_curve(text: str, default_model: str = DEFAULT_MODEL) -> tuple[ModelSpec, tuple[str, ...]]:
    """`lexicalized`, `lexicalized+negation`, `MODEL:FEATURES` or a pairs model's name; else ValueError.

    default_model: the model of a curve given by its features alone (`--model`)."""
    text = text.strip()
    model, sep, feats = text.partition(":")
    if not sep:
        if text in MODELS and not MODELS[text].uses_features:
            return MODELS[text], ()
        model, feats = default_model, text
    spec = get_model(model)
    if not spec.uses_features:
        raise ValueError(f"model {model!r} reads no features; give it as a config of its own: {model}")
    return spec, tuple(features.resolve(feats.split("+")))
