"""What `run.py` writes besides its report: the record, the errors file, plots, the saved model and
prediction files; every path checked before any work, and a failed output never costs the record."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from nli_baselines.experiments.breakdowns.hans import check_model_labels, missing_hans, run_hans
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.corpora import CORPORA, get_corpus, resolve_data_dir
from nli_baselines.experiments.engine.rows import plan_rows
from nli_baselines.experiments.outputs.model_files import ModelFileError, check_savable
from nli_baselines.experiments.outputs.records import write_json_atomic
from nli_baselines.experiments.outputs.tabular import format_table
from nli_baselines.experiments.reports.plots import plot_names
from nli_baselines.experiments.reports.report import data_notes, error_rows
from nli_baselines.experiments.submissions.files import TASKS, SubmissionError, submission_tasks
from nli_baselines.experiments.submissions.submitting import write_submissions
from nli_baselines.features.labels import NLI3
from nli_baselines.features.storage.atomic import atomic_write
from nli_baselines.models import get_model

from ..outputs.formats import FORMATS
from .arguments import output
from .paths import OutputPlan

TABLE_SUFFIXES = (".tsv", ".csv", ".jsonl")
PLOTTED_FEATURES = 15  # strongest weights drawn per class with --plots


@dataclass
class RunOutputs:
    out: str | None = None
    errors: str | None = None
    errors_only: bool = False
    plots: str | None = None
    save_model: str | None = None
    predict: str | None = None
    with_ax: bool = False
    with_hans: bool = False
    hans_predictions: str | None = None
    glue_zip: str | None = None
    overwrite: bool = False
    quiet: bool = False
    prediction_dirs: dict = field(default_factory=dict)  # format name -> directory
    modules: list = field(default_factory=list)

    @classmethod
    def from_args(cls, args) -> RunOutputs:
        names = ("out", "errors", "errors_only", "plots", "save_model", "predict", "with_ax", "with_hans",
                 "hans_predictions", "glue_zip", "overwrite")
        values = {name: output(args, name) for name in names}
        values["with_hans"] = bool(values["with_hans"] or values["hans_predictions"])  # the file implies the scores
        dirs = {fmt.name: output(args, fmt.option) for fmt in FORMATS.values()}
        return cls(**values, quiet=bool(getattr(args, "quiet", False)),
                   prediction_dirs={name: Path(d) for name, d in dirs.items() if d},
                   modules=list(getattr(args, "modules", []) or []))

    # ---------------------------------------------------------------- before any work

    def check(self, given: dict) -> RunConfig:
        """The run's configuration, with every output checked against it and against the inputs."""
        config = RunConfig("run", **given)
        if self.plots and config.top_features < PLOTTED_FEATURES and any(
                row.spec.weights is not None for row in plan_rows(config, config.corpus())):
            # the weights panel draws them; a model without weights has no panel, and no note on an
            # option the user did not give
            config = config.replace(top_features=PLOTTED_FEATURES)
        table = config.paper_table or config.ablation_table or config.artifact_table
        if self.predict and not self.prediction_dirs:
            raise UsageError("--predict test needs a directory for the files: "
                             + " or ".join(f"--{f.option.replace('_', '-')} DIR" for f in FORMATS.values())
                             + " (for other files, use --save-model and experiments/predict.py)")
        if (self.prediction_dirs or self.save_model or self.errors or self.with_ax or self.with_hans) and table:
            raise UsageError("a table fits several models; predictions, --with-ax, --with-hans, --save-model and "
                             "--errors take a single run")
        if self.errors and Path(self.errors).suffix.lower() not in TABLE_SUFFIXES:
            raise UsageError(f"--errors must end in .tsv, .csv or .jsonl, not {Path(self.errors).name!r}")
        if self.errors_only and not self.errors:
            raise UsageError("--errors-only says what --errors FILE holds; give --errors FILE")
        if self.save_model:
            self._check_savable(config)
        if self.glue_zip and not self.prediction_dirs:
            raise UsageError("--glue-zip bundles the prediction files of --glue-out or --superglue-out; give one")
        self._plan(overwrite=True).check()  # the paths' shapes first: a directory for a file, a file under a file
        inputs = input_files(config, self.prediction_dirs) + [m for m in self.modules if m.endswith(".py")]
        if self.with_hans:
            inputs += _hans_files(config)
        self._plan(overwrite=self.overwrite).check(inputs)  # then inputs, each other, existing files
        if self.with_ax:
            self._check_ax(config)
        if self.with_hans:
            self._check_hans(config)
        plan = self._plan(overwrite=self.overwrite, directories=False)
        if self.plots:
            corpus = config.corpus()
            plan.directory(self.plots, "--plots", plot_names([r.name for r in plan_rows(config, corpus)],
                                                             scores=corpus.task.is_scores))
        for name, directory in self.prediction_dirs.items():
            plan.directory(directory, f"--{FORMATS[name].option.replace('_', '-')}", self._prediction_files(config, name))
        plan.check(inputs)
        return config

    def _plan(self, overwrite: bool, directories: bool = True) -> OutputPlan:
        """The output files (and, with `directories`, the directories, without what goes in them)."""
        plan = OutputPlan(overwrite=overwrite)
        plan.file(self.out, "--out")
        plan.file(self.errors, "--errors")
        plan.file(self.save_model, "--save-model")
        plan.file(self.glue_zip, "--glue-zip")
        plan.file(self.hans_predictions, "--hans-predictions")
        if directories:
            plan.directory(self.plots, "--plots")
            for name, directory in self.prediction_dirs.items():
                plan.directory(directory, f"--{FORMATS[name].option.replace('_', '-')}")
        return plan

    def _check_savable(self, config: RunConfig) -> None:
        """--save-model: a model whose fitted form cannot be saved is refused now, not after training."""
        for row in plan_rows(config, config.corpus()):
            try:
                check_savable(get_model(row.model))
            except ModelFileError as exc:
                raise UsageError(f"--save-model: {exc}") from None

    def _check_ax(self, config: RunConfig) -> None:
        """--with-ax: GLUE's diagnostic takes entailment / neutral / contradiction, so the model must
        be a three-class NLI model: known before any training."""
        if "glue" not in self.prediction_dirs:
            raise UsageError("--with-ax writes AX.tsv among the GLUE files: give --glue-out DIR too")
        row = plan_rows(config, config.corpus())[0]
        corpus = config.corpus()
        labels = _model_labels(config)
        if labels is not None and labels != set(NLI3):
            raise UsageError(f"--with-ax needs a three-class NLI model; {corpus.name}'s labels are "
                             f"{', '.join(sorted(labels))}")
        if row.two_class:
            raise UsageError(f"--with-ax needs a three-class model (entailment, neutral, contradiction); this run's "
                             f"{row.spec.title} is two-class" + (" (--two-class)" if config.two_class else ""))

    def _check_hans(self, config: RunConfig) -> None:
        """--with-hans: HANS scores entailment against the rest, so the model's labels must be NLI labels
        with entailment among them (two or three classes); --hans-predictions needs HANS's own file
        (without it --with-hans scores hans-mini): both known before any training."""
        if self.hans_predictions:
            missing = missing_hans(resolve_data_dir(config.data_dir))
            if missing:
                raise UsageError(missing)
        labels = _model_labels(config)
        if labels is not None:
            try:
                check_model_labels(sorted(labels))
            except ValueError as exc:
                raise UsageError(f"--with-hans: {exc}") from None

    def _prediction_files(self, config: RunConfig, fmt: str) -> list[str]:
        try:
            return [task.filename for task in submission_tasks(config.corpus(), fmt, self.with_ax)]
        except SubmissionError as exc:
            raise UsageError(str(exc)) from None

    # ---------------------------------------------------------------- after the run

    def write(self, result) -> None:
        """Write every output, then the record, then print the report; an output that fails is
        reported after the record is safe on disk."""
        record = result.record
        notes, failure = [], None
        try:
            self._write_outputs(result, notes)
        except Exception as exc:  # the record must survive a failed output; the failure is re-raised below
            failure = exc
            record.setdefault("notes", []).append(f"an output failed: {type(exc).__name__}: {exc}")
        if self.out:  # the record is on disk before anything is printed
            write_json_atomic(self.out, record)
            notes.append(f"record written to {self.out}")
        if failure is not None:
            if self.out:
                print(f"record written to {self.out}", file=sys.stderr)
            raise failure
        if self.quiet:
            for note in data_notes(record):
                print(note, file=sys.stderr)
        print(result.table() if self.quiet else result.report())
        for note in notes:
            print(note)

    def _write_outputs(self, result, notes: list) -> None:
        record = result.record
        if self.errors:
            atomic_write(self.errors, format_table(self.errors, *error_rows(result.examples(),
                                                                            wrong_only=self.errors_only)))
            notes.append(f"errors file written to {self.errors}")
        if self.plots:
            notes += [f"plot written to {path}" for path in result.plots(self.plots)]
        predictor = next(iter(result.models.values()))
        if self.save_model:
            predictor.save(self.save_model)
            notes.append(f"model saved to {self.save_model}")
        if self.prediction_dirs:
            config = result.config
            scores: dict = {}
            written = write_submissions(predictor, config.corpus(), self.prediction_dirs,
                                        data_dir=resolve_data_dir(config.data_dir), on_bad_row=config.on_bad_row,
                                        jobs=config.jobs, progress=config.progress, with_ax=self.with_ax,
                                        zip_path=Path(self.glue_zip) if self.glue_zip else None, log=notes.append,
                                        scores=scores)
            record["predictions"] = [str(p) for p in written]
            if scores:
                record["diagnostics"] = scores
        if self.with_hans:
            config = result.config
            name, scores, lines = run_hans(predictor, resolve_data_dir(config.data_dir),
                                           on_bad_row=config.on_bad_row, jobs=config.jobs, progress=config.progress,
                                           predictions_file=self.hans_predictions)
            notes += lines
            record.setdefault("diagnostics", {})[name] = scores


def input_files(config: RunConfig, prediction_dirs: dict | None = None) -> list[Path]:
    """The files a run reads: its corpus' files (every split found), and the test files of the
    tasks it writes predictions for."""
    data_dir = resolve_data_dir(config.data_dir)
    corpus = config.corpus()
    corpora = [corpus]
    if prediction_dirs:
        corpora += [get_corpus(t.corpus) for t in TASKS.values() if t.corpus != corpus.name and t.corpus in
                    _known_corpora()]
    found = []
    for c in corpora:
        for split in c.splits:
            found += [p for p in c.candidates(split, data_dir) if p.exists()]
    return found


def _model_labels(config: RunConfig) -> set | None:
    """The labels of the run's task, known before training: the corpus' label set, or a custom
    task's training labels, after --label-map (--two-class aside); None if unknown."""
    corpus = config.corpus()
    labels = set(corpus.labels or ()) if corpus.labels else None
    if labels is None and "train" in corpus.splits:  # a custom task: its labels are its training file's
        labels = {p.label for p in corpus.load("train", resolve_data_dir(config.data_dir), config.on_bad_row).pairs
                  if p.label is not None}
    if config.label_map and labels is not None:
        labels = {config.label_map.get(label, label) for label in labels}
    return labels


def _hans_files(config: RunConfig) -> list[Path]:
    """The HANS files a --with-hans run reads (none when HANS is not there: it scores hans-mini)."""
    hans = get_corpus("hans")
    return [p for p in hans.candidates("test", resolve_data_dir(config.data_dir)) if p.exists()]


def _known_corpora() -> set:
    return set(CORPORA)
