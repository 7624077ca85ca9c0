"""The suite from Python: `run`, `learning_curve`, `load_model`, `compare`, `hans`.

    import nli_baselines as nb
    result = nb.run(dataset="sick", features="lexicalized", ablate=["cross_bigrams"])
    print(result.table())                    # what run.py --quiet prints
    result.models["lexicalized-cross_bigrams"].predict([("A man sleeps.", "A person sleeps.")])
    result.examples().query("not correct")   # every scored pair, as a DataFrame

Options take the command line's names (`--train-size` is `train_size`); the command-line scripts
are thin wrappers over these functions.
"""
from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.configuration.options import MAX_RESAMPLES, for_command
from nli_baselines.experiments.reports.explanations import explain_examples
from nli_baselines.experiments.stats.significance import compare_predictions

from .breakdowns.hans import format_hans, hans_breakdown, predict_hans, to_hans
from .corpora import CORPORA, get_corpus
from .corpora.readers.hans import read_hans
from .corpora.task import NLI, Task
from .engine.curve import learning_curve as draw
from .engine.experiment import run as run_experiment
from .outputs.model_files import load_predictor
from .outputs.records import load_run_record, pick_row, record_problem, write_json_atomic
from .reports.plots import plot_curve_record, plot_rows
from .reports.report import (comparison_table, curve_summary, data_notes, format_comparison, format_report, hans_tables,
                             summary, summary_table)
from .reports.tables import html_blocks


class RunResult:
    """A finished run: its JSON record, its fitted models, and every scored pair.

    record: the run record (data only: config, data files and checksums, metrics, timings,
        versions), as `run.py --out` writes it.
    models: row name -> fitted `Predictor` (`.predict(pairs)`, `.predict_proba(pairs)`, `.save(path)`).
    """

    def __init__(self, outcome, config: RunConfig):
        self._outcome = outcome
        self.config = config
        self.record = outcome.record
        self.models = {name: o.predictor for name, o in outcome.outcomes.items()}

    @property
    def rows(self) -> list[str]:
        """The names of the rows, in table order."""
        return [row["name"] for row in self.record["rows"]]

    def row(self, name: str | None = None) -> dict:
        """One row of the record: the only one, or the one named."""
        return self.record["rows"][self.rows.index(self._name(name))]

    def _name(self, name: str | None) -> str:
        if name is None:
            if len(self.rows) > 1:
                raise ValueError(f"this run has {len(self.rows)} rows ({', '.join(self.rows)}): name one")
            return self.rows[0]
        if name not in self.rows:
            raise ValueError(f"no row {name!r}; the rows: {', '.join(self.rows)}")
        return name

    def table(self) -> str:
        """One line per row: train and evaluation accuracy, macro-F1, chosen settings, the paper's
        figure, as text within 100 columns (a notebook shows the result itself as an HTML table)."""
        return summary_table(self.record)

    def to_frame(self) -> pd.DataFrame:
        """The table as a DataFrame: a row per row of the run, its columns as the table heads them
        (numbers where every cell is one, e.g. `dev acc`; text otherwise, e.g. `vs reference`)."""
        return summary(self.record).frame()

    def _repr_html_(self) -> str:
        """A notebook's view: the run's notes, then its table, as HTML."""
        return html_blocks(*self.notes(), summary(self.record))

    def notes(self) -> list[str]:
        """What the run decided or found that a reader of its figures must know (skipped rows,
        detected columns, rows left out), as the command line prints them."""
        return data_notes(self.record)

    def report(self) -> str:
        """Everything `run.py` prints: notes, the table, and per row the per-class scores, the
        confusion matrix and the selection."""
        return format_report(self.record)

    def examples(self, name: str | None = None, k: int = 3):
        """Every scored pair of a row as a pandas DataFrame: id, premise, hypothesis, gold,
        predicted, correct, confidence, and the k features that pushed the model most toward its
        prediction, with their values and contributions. For a score task: id, premise,
        hypothesis, gold, predicted, error (absolute), and the k features that moved the score most."""

        name = self._name(name)
        outcome = self._outcome.outcomes[name]
        s = outcome.scored
        predictor = outcome.predictor
        table = explain_examples(predictor.spec, predictor.model, predictor.featurizer, predictor.columns, s["X"],
                                 s["gold"], s["predicted"], s["pairs"], k=k, task=predictor.task)
        return pd.DataFrame(table)

    def compare(self, a: str, b: str, *, resamples: int = 10_000) -> "Comparison":
        """Row `a` against row `b` on the same pairs: McNemar's exact test and a paired bootstrap."""
        return compare(self, self, row_a=a, row_b=b, resamples=resamples)

    def save(self, path: Path | str, *, overwrite: bool = False) -> Path:
        """Write the record as JSON (atomically); an existing file needs `overwrite`."""
        path = Path(path)
        if path.exists() and not overwrite:
            raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
        write_json_atomic(path, self.record)
        return path

    def plots(self, directory: Path | str) -> list[Path]:
        """The confusion matrix and strongest weights of every row, as PNG files in `directory`."""
        return plot_rows(self.record, directory)

    def __repr__(self) -> str:
        return self.table()


class Comparison(dict):
    """Two systems on the same pairs (`compare`): accuracies, difference, McNemar's p, paired
    bootstrap interval; printed as a paragraph a person can read, shown as a table in a notebook."""

    def __str__(self) -> str:
        return format_comparison(self)

    def to_frame(self) -> pd.DataFrame:
        """A, B and A - B with their figures, as a DataFrame."""
        return comparison_table(self).frame()

    def _repr_html_(self) -> str:
        return comparison_table(self).html()

    __repr__ = __str__


def _predictions(source, row: str | None) -> tuple[dict, str, dict]:
    """(row's predictions, description, record) of a RunResult or a run record (dict or JSON path)."""
    if isinstance(source, RunResult):
        record = source.record
        row_record = source.row(row)
    else:
        if not isinstance(source, (str, Path, dict)):
            raise UsageError(f"compare takes RunResults, run records or their paths, not {type(source).__name__}")
        record = load_run_record(source) if isinstance(source, (str, Path)) else source
        problem = record_problem(record)
        if problem:
            raise UsageError(f"the record given is not a run record of run.py --out ({problem})")
        row_record = pick_row(record, row, str(source) if isinstance(source, (str, Path)) else "the record")
    what = f"{row_record['name']} ({record['data']['dataset']}, {row_record['model']})"
    return row_record["predictions"], what, record


def _same_data(record_a: dict, record_b: dict, split: str) -> None:
    """Refuse to compare runs whose scored split came from different files (sha256): equal ids and
    gold labels do not make equal data."""
    def digests(record):
        files = record.get("data", {}).get("files", {})
        scored = files.get(split) or files.get("train", [])  # out-of-fold scores come from train
        return sorted(f.get("sha256") for f in scored if isinstance(f, dict))

    a, b = digests(record_a), digests(record_b)
    if a and b and a != b:
        raise UsageError(f"the two runs were scored on different data: their {split} files differ (sha256 "
                         f"{a[0][:12]}... against {b[0][:12]}...)")


def compare(a, b, *, row_a: str | None = None, row_b: str | None = None, resamples: int = 10_000) -> Comparison:
    """Is A really better than B? Both must be scored on the same pairs of the same data files.

    a, b: `RunResult`s, run records, or paths of records written by `run.py --out`.
    row_a, row_b: the row of a table (a paper or ablation table) to compare.
    """
    if isinstance(resamples, bool) or not isinstance(resamples, int) or not 1 <= resamples <= MAX_RESAMPLES:
        raise UsageError(f"resamples must be a whole number from 1 to {MAX_RESAMPLES:,}, not {resamples!r}")
    pa, what_a, record_a = _predictions(a, row_a)
    pb, what_b, record_b = _predictions(b, row_b)
    if pa["split"] != pb["split"]:
        raise UsageError(f"A was scored on {pa['split']}, B on {pb['split']}")
    _same_data(record_a, record_b, pa["split"])
    task_a, task_b = _task_of(record_a), _task_of(record_b)
    if task_a != task_b:
        raise UsageError(f"A and B were judged as different tasks ({task_a.describe()}; {task_b.describe()})")
    try:
        result = compare_predictions(pa, pb, resamples=resamples, task=task_a)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    result.update(a=what_a, b=what_b, split=pa["split"])
    return Comparison(result)


def _task_of(record: dict):
    """The task a run record was judged as (records from before tasks: labels, by accuracy)."""
    raw = record.get("task")
    if not raw:
        return NLI
    try:
        return Task(raw["target"], None if raw.get("labels") is None else tuple(raw["labels"]), raw.get("positive"),
                    None if raw.get("score_range") is None else tuple(raw["score_range"]), tuple(raw["metrics"]),
                    raw["select_by"], bool(raw.get("single_sentence", False)))
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"the record's task is not a task this suite declares ({exc})") from None


def _given(params: dict, command: str) -> dict:
    """The options a call set: a parameter left at its default is not given, as an option left off
    the command line is not (the same type and value as the default counts as left off)."""
    out = {}
    for option in for_command(command, config_only=True):
        value, default = params[option.name], option.default
        if isinstance(value, list) and isinstance(default, tuple):
            value = tuple(value)
        same = (value is None and default in (None, {})  # the signature writes no label map as None
                or type(value) is type(default) and value == default)
        if not same:
            out[option.name] = value
    return out


# BEGIN generated from the options table by tests/option_signatures.py: do not edit by hand
def run(
        *, dataset: str = "snli", source: str = "auto", train_split: str | None = None, dev_split: str | None = None,
        test_split: str | None = None, revision: str | None = None, data_dir: str | PathLike[str] | None = None,
        on_bad_row: str = "error", label_map: Mapping[str, str] | str | None = None, allow_unseen_labels: bool = False,
        train_file: str | PathLike[str] | None = None, dev_file: str | PathLike[str] | None = None,
        test_file: str | PathLike[str] | None = None, quoting: str = "auto", premise_column: str | None = None,
        hypothesis_column: str | None = None, label_column: str = "label", target: str = "auto",
        id_column: str | None = None, model: str = "lr", features: str | Sequence[str] = "lexicalized",
        ablate: str | Sequence[str] = (), two_class: bool = False, paper_table: bool = False,
        ablation_table: bool = False, artifact_table: bool = False, wordnet: bool = False, lowercase: bool = True,
        tag_match: str = "first_letter", scale: str = "standard", bleu_smoothing: str = "exp", min_count: int = 3,
        bins: int = 5, bin_integers: str = "values", C: float | Sequence[float] | str | None = None,
        tune_on: str = "auto", choose: str = "auto", cv_folds: int = 5, seed: int = 0, train_size: int | None = None,
        eval_split: str = "dev", bootstrap: int = 0, top_features: int = 0, jobs: int = 1, backend: str = "local",
        scheduler: str | None = None, quiet: bool = False,
) -> RunResult:
    """Train and evaluate a baseline, as `run.py` does: a `RunResult` (its table, record and fitted models).

        nb.run(dataset="sick", features="lexicalized", ablate=["cross_bigrams"])
        nb.run(dataset="rte3", paper_table=True, bootstrap=20)
        nb.run(train_file="train.csv", dev_file="dev.csv", label_column="gold")

    A value an option does not take is a UsageError with the command line's message; passing an
    option's default is the same as leaving it out.

    Options, the command line's by name (--train-size is train_size):

    dataset: corpus name (custom: given --train-file), or hf:NAME[:CONFIG] for a Hugging Face dataset: a hub name
        (stanfordnlp/snli; read from the local cache when it has it, and only from there with HF_HUB_OFFLINE=1) or a
        local directory (data files in the hub's layout, or a save_to_disk folder); names (default: "snli")
    source: where a corpus the suite knows is read from: its official files (files), or its Hugging Face hub copy (hf;
        same labels, splits and prediction files); auto: the files, except for a corpus only the hub has (anli)
        (default: "auto")
    train_split: the Hugging Face dataset's split to train on (default: found by name: train, else the one train_*); a+b
        joins several (default: None)
    dev_split: its dev split (default: validation, dev, valid or val, else validation_matched or dev_matched, else the
        one validation_*, dev_*, ...) (default: None)
    test_split: its test split (default: test, else test_matched, else the one test_*); predict.py: the split of --input
        hf:NAME to label (default: None)
    revision: the hub dataset's revision: a branch, tag or commit (default: the latest; offline, the cached copy, which
        must be the commit given) (default: None)
    data_dir: where corpora live (default: $NLI_DATA_DIR, else ./data) (default: None)
    on_bad_row: stop at the first malformed row, or skip and count it (default: "error")
    label_map: rename gold labels, e.g. yes=entailment,no=not_entailment (two-class models such as edit distance read
        entailment/not_entailment) (default: None)
    allow_unseen_labels: warn instead of stopping when dev or test has labels that training never shows (default: False)
    train_file: training pairs (.tsv, .csv, .jsonl, .parquet or .arrow with named columns) (default: None)
    dev_file: dev pairs, which choose settings and are scored (default: None)
    test_file: test pairs (--eval-split test, or predictions) (default: None)
    quoting: how the quotes of a .tsv or .csv file are read: csv (a cell in quotes may hold tabs, commas, line breaks),
        none (quotes are text, as in GLUE's TSV files), or auto: CSV for .csv; for .tsv, what the file shows (said in a
        note) (default: "auto")
    premise_column: default: found among premise/hypothesis, sentence1/sentence2, sentence_A/sentence_B, text_a/text_b,
        question/sentence, ...; a dotted path names a nested JSON field or struct field (input.premise) (default: None)
    hypothesis_column: see --premise-column (default: None)
    label_column: the gold label's column (default: "label")
    target: what the label column holds: classes, or scores to regress on; auto: scores when every value is a number and
        one is not whole or more than 10 are distinct (said in one line) (default: "auto")
    id_column: default: found among id, idx, pairID, pair_id, uid, else the data rows' indices from 0, as GLUE's index
        column (row numbers in parquet, Arrow and Hugging Face data) (default: None)
    model: the classifier (default: "lr")
    features: a feature group or a comma list of groups and types (default: "lexicalized")
    ablate: remove a feature type or group (repeatable) (default: ())
    two_class: entailment vs not_entailment (default: False)
    paper_table: the paper's rows in one run: lexicalized, unigrams only, unlexicalized, edit distance, two-class LR
        (and majority) (default: False)
    ablation_table: the full set and each feature type ablated once (default: False)
    artifact_table: annotation artifacts: majority, hypothesis-only, premise-only, unlexicalized, lexicalized and
        strongest, each against the majority class and hypothesis-only (McNemar's p) (default: False)
    wordnet: edit distance: let CV choose whether substituting a WordNet synonym or hypernym (on lemmas) is free, as
        EOP's lemma + WordNet configuration does (default: False)
    lowercase: compare and name words in lowercase (default: True)
    tag_match: what 'share a POS tag' compares in cross features: exact PTB tags, or their first letters (NN ~ NNS)
        (default: "first_letter")
    scale: scaling of the real-valued features (bleu, length_diff, overlap) (default: "standard")
    bleu_smoothing: sacrebleu smoothing method of the bleu feature (default: "exp")
    min_count: keep an indicator feature only if at least this many training pairs have it (default: 3)
    bins: indicator copies of each real-valued feature: at most this many quantile bins fitted on train (0: none)
        (default: 5)
    bin_integers: bins of whole-number features (length difference, counts): one per value seen in training, or
        quantiles (default: "values")
    C: candidate inverse regularization strengths of logistic regression (default: the model's grid) (default: None)
    tune_on: what chooses C and the other settings: the dev split, or k-fold CV on train; auto: CV when the training
        split is larger than dev and below 50,000 pairs (the steadier judge there), else dev; edit distance tunes on
        train (default: "auto")
    choose: how the baseline itself is chosen: cv: its feature group, model and setting (alpha, C) among the corpus'
        candidates (the setting alone of the baseline --features and --model name, where given) by k-fold CV on train
        (stratified by genre where the pairs have one, as STS-B's), dev scored once to confirm; auto: cv for a corpus
        that declares candidates (stsb, sick-relatedness, mrpc) when neither --features nor --model is given; off:
        --features and --model as given (default: "auto")
    cv_folds: folds of cross-validation (settings by --tune-on cv; scores where a corpus has no dev split) (default: 5)
    seed: seeds sampling, folds and resamples (default: 0)
    train_size: train on a seeded random sample of N pairs (default: None)
    eval_split: split to score: dev (a corpus without dev is cross-validated), test, or a split's name (default: "dev")
    bootstrap: refit on N resamples of the training set and report the spread of the score (default: 0)
    top_features: print the K highest-weighted features per class, as words (default: 0)
    jobs: parallel workers for grids and tagging; -1: one per core (default: 1)
    backend: where grids run: local joblib workers, or a Dask cluster (needs --scheduler) (default: "local")
    scheduler: Dask scheduler address, e.g. tcp://host:8786 (default: None)
    quiet: no progress output; print the result table only (default: False)
    """
    config = RunConfig("run", **_given(locals(), "run"))
    return RunResult(run_experiment(config), config)


def learning_curve(
        *, dataset: str = "snli", source: str = "auto", train_split: str | None = None, dev_split: str | None = None,
        test_split: str | None = None, revision: str | None = None, data_dir: str | PathLike[str] | None = None,
        on_bad_row: str = "error", label_map: Mapping[str, str] | str | None = None, allow_unseen_labels: bool = False,
        train_file: str | PathLike[str] | None = None, dev_file: str | PathLike[str] | None = None,
        test_file: str | PathLike[str] | None = None, quoting: str = "auto", premise_column: str | None = None,
        hypothesis_column: str | None = None, label_column: str = "label", target: str = "auto",
        id_column: str | None = None, model: str = "lr", features: str | Sequence[str] = "lexicalized",
        ablate: str | Sequence[str] = (), two_class: bool = False, wordnet: bool = False, lowercase: bool = True,
        tag_match: str = "first_letter", scale: str = "standard", bleu_smoothing: str = "exp", min_count: int = 3,
        bins: int = 5, bin_integers: str = "values", C: float | Sequence[float] | str | None = None,
        tune_on: str = "auto", cv_folds: int = 5, seed: int = 0, train_size: int | None = None, eval_split: str = "dev",
        sizes: str | Sequence[int | str] = "1,10,100,1000,10000,all", seeds: int = 3,
        configs: str | Sequence[str] | None = None, reference: str | None = None, jobs: int = 1, backend: str = "local",
        scheduler: str | None = None, quiet: bool = False, out: str | PathLike[str] | None = None,
        overwrite: bool = False,
) -> CurveResult:
    """Accuracy against training-set size, as `learning_curves/run.py` draws it: a `CurveResult`.

        nb.learning_curve(dataset="sick", sizes="10,100,1000,all", seeds=3)

    out: a directory where points are saved as they finish (`curve.csv`); the same call resumes.
    overwrite: start again in `out` instead of resuming.

    Options, the command line's by name (--train-size is train_size):

    dataset: corpus name (custom: given --train-file), or hf:NAME[:CONFIG] for a Hugging Face dataset: a hub name
        (stanfordnlp/snli; read from the local cache when it has it, and only from there with HF_HUB_OFFLINE=1) or a
        local directory (data files in the hub's layout, or a save_to_disk folder); names (default: "snli")
    source: where a corpus the suite knows is read from: its official files (files), or its Hugging Face hub copy (hf;
        same labels, splits and prediction files); auto: the files, except for a corpus only the hub has (anli)
        (default: "auto")
    train_split: the Hugging Face dataset's split to train on (default: found by name: train, else the one train_*); a+b
        joins several (default: None)
    dev_split: its dev split (default: validation, dev, valid or val, else validation_matched or dev_matched, else the
        one validation_*, dev_*, ...) (default: None)
    test_split: its test split (default: test, else test_matched, else the one test_*); predict.py: the split of --input
        hf:NAME to label (default: None)
    revision: the hub dataset's revision: a branch, tag or commit (default: the latest; offline, the cached copy, which
        must be the commit given) (default: None)
    data_dir: where corpora live (default: $NLI_DATA_DIR, else ./data) (default: None)
    on_bad_row: stop at the first malformed row, or skip and count it (default: "error")
    label_map: rename gold labels, e.g. yes=entailment,no=not_entailment (two-class models such as edit distance read
        entailment/not_entailment) (default: None)
    allow_unseen_labels: warn instead of stopping when dev or test has labels that training never shows (default: False)
    train_file: training pairs (.tsv, .csv, .jsonl, .parquet or .arrow with named columns) (default: None)
    dev_file: dev pairs, which choose settings and are scored (default: None)
    test_file: test pairs (--eval-split test, or predictions) (default: None)
    quoting: how the quotes of a .tsv or .csv file are read: csv (a cell in quotes may hold tabs, commas, line breaks),
        none (quotes are text, as in GLUE's TSV files), or auto: CSV for .csv; for .tsv, what the file shows (said in a
        note) (default: "auto")
    premise_column: default: found among premise/hypothesis, sentence1/sentence2, sentence_A/sentence_B, text_a/text_b,
        question/sentence, ...; a dotted path names a nested JSON field or struct field (input.premise) (default: None)
    hypothesis_column: see --premise-column (default: None)
    label_column: the gold label's column (default: "label")
    target: what the label column holds: classes, or scores to regress on; auto: scores when every value is a number and
        one is not whole or more than 10 are distinct (said in one line) (default: "auto")
    id_column: default: found among id, idx, pairID, pair_id, uid, else the data rows' indices from 0, as GLUE's index
        column (row numbers in parquet, Arrow and Hugging Face data) (default: None)
    model: the classifier (default: "lr")
    features: a feature group or a comma list of groups and types (default: "lexicalized")
    ablate: remove a feature type or group (repeatable) (default: ())
    two_class: entailment vs not_entailment (default: False)
    wordnet: edit distance: let CV choose whether substituting a WordNet synonym or hypernym (on lemmas) is free, as
        EOP's lemma + WordNet configuration does (default: False)
    lowercase: compare and name words in lowercase (default: True)
    tag_match: what 'share a POS tag' compares in cross features: exact PTB tags, or their first letters (NN ~ NNS)
        (default: "first_letter")
    scale: scaling of the real-valued features (bleu, length_diff, overlap) (default: "standard")
    bleu_smoothing: sacrebleu smoothing method of the bleu feature (default: "exp")
    min_count: keep an indicator feature only if at least this many training pairs have it (default: 3)
    bins: indicator copies of each real-valued feature: at most this many quantile bins fitted on train (0: none)
        (default: 5)
    bin_integers: bins of whole-number features (length difference, counts): one per value seen in training, or
        quantiles (default: "values")
    C: candidate inverse regularization strengths of logistic regression (default: the model's grid) (default: None)
    tune_on: what chooses C and the other settings: the dev split, or k-fold CV on train; auto: CV when the training
        split is larger than dev and below 50,000 pairs (the steadier judge there), else dev; edit distance tunes on
        train (default: "auto")
    cv_folds: folds of cross-validation (settings by --tune-on cv; scores where a corpus has no dev split) (default: 5)
    seed: seeds sampling, folds and resamples (default: 0)
    train_size: train on a seeded random sample of N pairs (default: None)
    eval_split: split to score: dev (a corpus without dev is cross-validated), test, or a split's name (default: "dev")
    sizes: training sizes; 'all' = the whole split (default: "1,10,100,1000,10000,all")
    seeds: random samples per size (default: 3)
    configs: comma list of curves: a feature group or type (--model reads it), several joined by '+'
        (lexicalized+negation), MODEL:FEATURES, or a model that reads pairs; default: --features when given, else
        lexicalized,unlexicalized (default: None)
    reference: draw published points for comparison (default: None)
    jobs: parallel workers for grids and tagging; -1: one per core (default: 1)
    backend: where grids run: local joblib workers, or a Dask cluster (needs --scheduler) (default: "local")
    scheduler: Dask scheduler address, e.g. tcp://host:8786 (default: None)
    quiet: no progress output; print the result table only (default: False)
    """
    config = RunConfig("curve", **_given(locals(), "curve"))
    return CurveResult(draw(config, out, overwrite=overwrite), config)
# END generated


class CurveResult:
    """A finished learning curve: every point, the table of means, and the plot.

    points: a DataFrame, one row per (config, size, seed).
    summary: a DataFrame, one row per (config, size): mean and standard deviation over the seeds.
    record: what `curve.json` holds.
    """

    def __init__(self, outcome, config: RunConfig):
        self._outcome = outcome
        self.config = config
        self.record = outcome.record
        self.points = pd.DataFrame(outcome.points)
        self.summary = pd.DataFrame([{"config": config_name, **point}
                                     for config_name, points in outcome.table.items() for point in points])

    def table(self) -> str:
        """The means per config and size, as text."""
        return curve_summary(self.record).text()

    def to_frame(self) -> pd.DataFrame:
        """The table of means as a DataFrame (`summary` holds them unrounded, `points` every seed)."""
        return curve_summary(self.record).frame()

    def _repr_html_(self) -> str:
        return curve_summary(self.record).html()

    def plot(self, directory: Path | str, reference: str | None = None) -> list[Path]:
        """Write curve.png and curve.svg into `directory`; `reference` ("snli-paper") draws published points."""
        return plot_curve_record(self.record, Path(directory), reference=reference or self.config.reference)

    def __repr__(self) -> str:
        return self.table()


def load_model(path: Path | str):
    """A model saved by `run.py --save-model` or `RunResult.models[name].save(path)`."""
    if not isinstance(path, (str, Path)):
        raise UsageError(f"load_model takes the path of a model file, not {type(path).__name__}")
    return load_predictor(path)


class HansResult:
    """A model on HANS (or on a HANS-style set): the breakdown, and every pair with the features
    that pushed the model.

    scores: what `diagnose.py --out` writes: `heuristics` {heuristic: {"entailment": accuracy,
        "non-entailment": accuracy}}, `subcases`, `templates`, `overall`, `predicted_entailment`, `counts`.
    """

    def __init__(self, source: str, pairs, predicted: dict, scores: dict, predictor):
        self.source, self.scores = source, scores
        self._pairs, self._predicted, self._predictor = pairs, predicted, predictor

    def table(self) -> str:
        """What `diagnose.py` prints: per heuristic, entailed against non-entailed; per subcase;
        after a line for each way the pairs could not be annotated as the model's training pairs were."""
        return "".join(f"note: {note}\n" for note in self.scores.get("notes", ())) + format_hans(self.scores,
                                                                                                 title=self.source)

    def to_frame(self, level: str = "heuristics") -> pd.DataFrame:
        """The breakdown as a DataFrame: per heuristic (accuracy % on entailed and on non-entailed
        pairs, their counts), or with level="subcases" per subcase."""
        levels = ("heuristics", "subcases")
        if level not in levels:
            raise ValueError(f"level is one of {', '.join(levels)}, not {level!r}")
        return hans_tables(self.scores)[levels.index(level)].frame()

    def _repr_html_(self) -> str:
        heuristics, subcases = hans_tables(self.scores)
        heuristics.title = f"{self.source}: {heuristics.title}"
        return html_blocks(*(f"note: {note}" for note in self.scores.get("notes", ())), heuristics, subcases)

    def examples(self, k: int = 3, toward: str | None = None):
        """Every pair as a pandas DataFrame: id, heuristic, subcase, premise, hypothesis, gold and
        predicted (HANS's labels: entailment / non-entailment), the model's own label, correct, the
        model's confidence in its label, and the k features that pushed it most toward that label,
        each with its value and contribution. `toward` (e.g. "entailment"): the features that push
        toward that label instead, and the confidence is the model's probability of it."""

        predictor = self._predictor
        if toward is not None and toward not in predictor.labels:
            raise ValueError(f"toward={toward!r} is not a label of this model ({', '.join(predictor.labels)})")
        pairs = predictor.annotated(self._pairs, notes=[])  # its notes are in the scores
        model_labels = [self._predicted[p.id] for p in pairs]
        shown = model_labels if toward is None else [toward] * len(pairs)
        table = explain_examples(predictor.spec, predictor.model, predictor.featurizer, predictor.columns,
                                 predictor._inputs(pairs), [p.label for p in pairs], shown, pairs, k=k)
        gold = [to_hans(p.label) for p in pairs]
        predicted = [to_hans(label) for label in model_labels]
        return pd.DataFrame({
            "id": table["id"], "heuristic": [p.meta.get("heuristic") for p in pairs],
            "subcase": [p.meta.get("subcase") for p in pairs], "premise": table["premise"],
            "hypothesis": table["hypothesis"], "gold": gold, "predicted": predicted, "model_label": model_labels,
            "correct": [g == x for g, x in zip(gold, predicted)], "confidence": table["confidence"],
            "top_features": table["top_features"]})

    def __repr__(self) -> str:
        return self.table()


def hans(model, source: str | Path = "hans", *, data_dir: Path | str | None = None,
         on_bad_row: str = "error") -> HansResult:
    """A model's HANS breakdown: accuracy per heuristic on entailed and on non-entailed pairs, per
    subcase (neutral and contradiction count as non-entailment), as `diagnose.py` prints it.

        nb.hans(result.models["lexicalized"])                   # hans/ under the data directory
        nb.hans(model, "hans-mini")                             # the suite's own HANS-style pairs
        nb.hans("sick.model", "heuristics_evaluation_set.txt")  # a file in HANS's layout

    model: a fitted Predictor (`RunResult.models[...]`, `load_model`), a one-row RunResult, or the
        path of a model file. source: a corpus whose test split holds HANS pairs ("hans", the
        official file under the data directory; "hans-mini", generated by the suite), or the path
        of a file in HANS's layout.
    """
    if isinstance(model, RunResult):
        model = model.models[model._name(None)]
    elif isinstance(model, (str, Path)):
        model = load_model(model)
    named = str(source) in CORPORA
    if not named and not Path(source).is_file():
        raise UsageError(f"{source}: neither a corpus of HANS pairs (hans, hans-mini) nor a file")
    data = (get_corpus(str(source)).load("test", data_dir, on_bad_row) if named
            else read_hans(Path(source), "hans", "test", on_bad_row))
    notes: list[str] = []
    try:
        predicted = predict_hans(model, data.pairs, notes=notes)
        scores = hans_breakdown(data.pairs, predicted)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if data.skipped:
        scores["skipped"] = dict(data.skipped)
    if notes:
        scores["notes"] = notes
    return HansResult(str(source) if named else Path(source).name, data.pairs, predicted, scores, model)
