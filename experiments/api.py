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

from pathlib import Path

import pandas as pd

from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.configuration.options import MAX_RESAMPLES
from nli_baselines.experiments.reports.explanations import explain_examples
from nli_baselines.experiments.statistics.significance import compare_predictions

from .breakdowns.hans import format_hans, hans_breakdown, predict_hans, to_hans
from .corpora import CORPORA, get_corpus
from .corpora.readers.hans import read_hans
from .corpora.task import NLI, Task
from .engine.curve import learning_curve as draw
from .engine.experiment import run as run_experiment
from .outputs.model_files import load_predictor
from .outputs.records import load_run_record, pick_row, record_problem, write_json_atomic
from .reports.plots import plot_curve_record, plot_rows
from .reports.report import curve_table, data_notes, format_comparison, format_report, summary_table


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
        """One line per row: train and evaluation accuracy, macro-F1, chosen settings, the paper's figure."""
        return summary_table(self.record)

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
    bootstrap interval; printed as a paragraph a person can read."""

    def __str__(self) -> str:
        return format_comparison(self)

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


def run(**options) -> RunResult:
    """Train and evaluate a baseline, as `run.py` does; options as on its command line.

        nb.run(dataset="sick", features="lexicalized", ablate=["cross_bigrams"])
        nb.run(dataset="rte3", paper_table=True, bootstrap=20)
        nb.run(train_file="train.csv", dev_file="dev.csv", label_column="gold")
    """
    config = RunConfig("run", **options)
    return RunResult(run_experiment(config), config)


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
        return curve_table(self.record)

    def plot(self, directory: Path | str, reference: str | None = None) -> list[Path]:
        """Write curve.png and curve.svg into `directory`; `reference` ("snli-paper") draws published points."""
        return plot_curve_record(self.record, Path(directory), reference=reference or self.config.reference)

    def __repr__(self) -> str:
        return self.table()


def learning_curve(*, out: Path | str | None = None, overwrite: bool = False, **options) -> CurveResult:
    """Accuracy against training-set size, as `learning_curves/run.py` draws it; options as on its
    command line (`sizes`, `seeds`, `configs`, and the run's data, feature and selection options).

    out: a directory where points are saved as they finish (`curve.csv`); the same call resumes.
    """
    config = RunConfig("curve", **options)
    return CurveResult(draw(config, out, overwrite=overwrite), config)


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
