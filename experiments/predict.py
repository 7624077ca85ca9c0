"""Label new pairs with a saved model.

    python experiments/run.py --dataset sick --save-model sick.model
    python experiments/predict.py --model sick.model --input pairs.tsv --out predictions.tsv [--proba]

The input is a .tsv, .csv, .jsonl, .parquet or .arrow file, or a Hugging Face dataset (hf:NAME[:CONFIG]:
its test split, or the split --test-split names), with premise and hypothesis columns: those the model was
trained with (a saved model remembers its columns and label map), found by name, or named with
--premise-column/--hypothesis-column. A label column, if present, is copied to the output and
scored. The output format follows the --out suffix (.tsv/.csv/.jsonl): id, premise, hypothesis,
gold (when the input has labels), predicted and, with --proba, one probability column per class.
A model that uses a custom feature type needs the module that registers it: --import MODULE.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from nli_baselines.experiments.commandline.arguments import build_parser, given_options, import_user_modules, output
from nli_baselines.experiments.commandline.exits import (closed_pipe_ends_quietly, terminated_cleanly, user_errors,
                                                         warnings_in_one_line)
from nli_baselines.experiments.commandline.paths import OutputPlan
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.corpora.hub import hub_corpus, is_hub_dataset
from nli_baselines.experiments.corpora.readers.custom import has_column, read_custom
from nli_baselines.experiments.corpora.task import METRICS
from nli_baselines.experiments.outputs.tabular import SUFFIXES, format_table
from nli_baselines.experiments.submissions.files import require_every_row
from nli_baselines.features.labels import two_class
from nli_baselines.features.runtime.shown import shown
from nli_baselines.features.storage.atomic import atomic_write


def prediction_rows(pairs, predictions, proba=None) -> tuple[list[str], list[list]]:
    """(header, rows): the input's id, text and gold label (when it has labels), the prediction,
    and with `proba` = (classes, probabilities) one column per class."""
    classes, probabilities = proba if proba else ([], None)
    labeled = any(p.label is not None for p in pairs)
    header = ["id", "premise", "hypothesis"] + (["gold"] if labeled else []) + ["predicted"]
    header += [f"p_{c}" for c in classes]
    rows = []
    for n, (pair, label) in enumerate(zip(pairs, predictions)):
        row = [pair.id, pair.premise, pair.hypothesis] + ([pair.label] if labeled else []) + [label]
        rows.append(row + ([float(x) for x in probabilities[n]] if probabilities is not None else []))
    return header, rows


def main(argv=None) -> int:
    with user_errors():
        import_user_modules(argv)
    args = build_parser("predict", __doc__).parse_args(argv)
    with terminated_cleanly(), user_errors(), closed_pipe_ends_quietly(), warnings_in_one_line():
        return _predict(args, given_options(args, "predict"), output)


def _predict(args, given: dict, output) -> int:
    # lazy: a model file brings scikit-learn and the featurizer (seconds); --help and a bad option answer without it
    from nli_baselines.experiments.outputs.model_files import load_predictor

    model_path, input_path, out = output(args, "model_file"), output(args, "input"), output(args, "predictions")
    for value, flag in ((model_path, "--model FILE"), (input_path, "--input FILE"), (out, "--out FILE")):
        if not value:
            raise UsageError(f"{flag} is required")
    out = Path(out)
    if out.suffix.lower() not in SUFFIXES:
        raise UsageError(f"--out must end in .tsv, .csv or .jsonl, not {out.name!r}")
    plan = OutputPlan(overwrite=output(args, "overwrite"))
    plan.file(out, "--out")
    hub = is_hub_dataset(input_path)  # a Hugging Face dataset, not a file
    plan.check([model_path] if hub else [input_path, model_path])
    predictor = load_predictor(model_path)
    for note in predictor.notes:
        print(f"note: {note}", file=sys.stderr)
    path = Path(input_path)
    if hub:
        split = _hub_split(input_path, given.get("test_split"))
        input_name = f"{input_path}[{split}]"
        dataset = hub_corpus(input_path, splits={"test": split}, needed=())
        has = lambda name: dataset.has_column(name, "test")  # noqa: E731
    else:
        if "test_split" in given:
            raise UsageError("--test-split names the split of a Hugging Face dataset (--input hf:NAME) to label; "
                             f"{path.name} is a file")
        if not path.is_file():
            raise UsageError(f"{path}: no such input file")
        input_name = path.name
        quoting = RunConfig("predict", **{k: v for k, v in given.items() if k == "quoting"}).quoting
        has = lambda name: has_column(path, name, quoting)  # noqa: E731
    proba_wanted = output(args, "proba")
    if proba_wanted and predictor.task.is_scores:
        raise UsageError(f"a {predictor.model_name} model predicts scores, which have no probabilities; drop --proba")
    if proba_wanted and not hasattr(predictor.model, "predict_proba"):
        raise UsageError(f"a {predictor.model_name} model has no probabilities; drop --proba")
    # The columns and label map the model was trained with (columns the input has), unless the
    # command line says otherwise.
    trained = predictor.info.get("input", {})
    kept = {k: v for k, v in trained.items() if k == "label_map" or (isinstance(v, str) and has(v))}
    # One note for the text columns the input lacks (missing label and id columns only mean unlabeled,
    # unnumbered input).
    lacking = [name for name in sorted(set(trained) - set(kept) - set(given)) if name not in ("label_column",
                                                                                             "id_column")]
    if lacking:
        named = ", ".join(f"{name.replace('_column', '')} {trained[name]!r}" for name in lacking)
        print(f"note: the model was trained with the column{'s' if len(lacking) > 1 else ''} {named}, which "
              f"{input_name} lacks; finding {'them' if len(lacking) > 1 else 'it'} by name instead", file=sys.stderr)
    try:  # what the model file remembers is checked as the command line's options are, but said to be the file's
        RunConfig("predict", **{k: v for k, v in kept.items() if k not in given})
    except UsageError as exc:
        raise UsageError(f"{model_path}: the input settings the model remembers are not usable ({exc}); give "
                         "them on the command line") from None
    config = RunConfig("predict", **{**kept, **given})
    columns = dict(premise=config.premise_column, hypothesis=config.hypothesis_column, label=config.label_column,
                   id_column=config.id_column)
    if hub:
        dataset = hub_corpus(input_path, **columns, splits={"test": split}, needed=())
        data = dataset.load("test", None, config.on_bad_row)
    else:
        data = read_custom(path, "input", "predict", config.on_bad_row, quoting=config.quoting, **columns)
    for note in data.notes:  # they quote the input's column names: shown escaped, in one line
        print(f"note: {shown(note, 2000)}", file=sys.stderr)
    require_every_row(data, out)
    if data.skipped:
        print(f"skipped {sum(data.skipped.values())} row(s): {dict(data.skipped)}", file=sys.stderr)
    pairs = data.pairs
    if config.label_map:
        mapped = [p if p.label is None else p.with_label(config.label_map.get(p.label, p.label)) for p in pairs]
        if "label_map" not in given and any(a.label != b.label for a, b in zip(pairs, mapped)):
            mapping = shown(",".join(f"{k}={v}" for k, v in config.label_map.items()), 500)  # the model file's
            print(f"note: the gold column shows {shown(input_name)}'s labels mapped by the model's label map "
                  f"({mapping}), as they were in training", file=sys.stderr)
        pairs = mapped
    task = predictor.task
    gold = _gold(pairs, predictor, input_name, out)  # before any work: a gold column that cannot be scored
    notes: list[str] = []
    pairs = predictor.annotated(pairs, jobs=config.jobs, progress=config.progress, notes=notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    predicted = predictor.predict(pairs)
    predictions = [float(x) for x in predicted] if task.is_scores else [str(x) for x in predicted]
    proba = predictor.predict_proba(pairs) if proba_wanted else None
    atomic_write(out, format_table(out, *prediction_rows(pairs, predictions, proba)))
    message = f"wrote {len(pairs)} predictions to {out}"
    if gold is not None:
        if task.by_accuracy:
            message += (f"; accuracy against the input's labels: "
                        f"{100 * np.mean(np.array(gold) == np.array(predictions)):.1f}%")
        else:
            figures = task.score(gold, np.asarray(predictions, dtype=gold.dtype))
            message += (f"; against the input's {'scores' if task.is_scores else 'labels'}: "
                        + ", ".join(f"{METRICS[name].title} {'n/a' if value is None else f'{100 * value:.1f}'}"
                                    for name, value in figures.items()))
            undefined = task.undefined(gold, np.asarray(predictions, dtype=gold.dtype))
            if undefined:  # n/a, and why: a correlation of a constant side is undefined, not 0
                message += f" (n/a: {'; '.join(dict.fromkeys(undefined.values()))})"
    print(message)
    return 0


def _gold(pairs, predictor, input_name: str, out):
    """The input's gold labels or scores as the model's task scores them, when every pair has
    one (else None). A score is a number a fit can take, in any range: the range a task of your
    own has is its model's training range, which other files' scores may leave. A gold column
    that cannot be scored is a UsageError, before anything is written."""
    gold = [p.label for p in pairs]
    if not pairs or any(g is None for g in gold):
        return None
    if predictor.two_class:
        gold = [two_class(g) for g in gold]
    task = predictor.task
    if task.by_accuracy:
        return np.array(gold, dtype=object)
    try:
        return (replace(task, score_range=None) if task.is_scores else task).targets(gold)
    except ValueError as exc:
        raise UsageError(f"{input_name}: its gold column cannot be scored: {exc}; {out} not written") from None


def _hub_split(dataset: str, given: str | None) -> str:
    """The split of a Hugging Face dataset that predict.py labels: --test-split, else its test split
    found by name (`corpora.hub`); a dataset without one is a UsageError listing its splits."""
    corpus = hub_corpus(dataset, splits={"test": given}, needed=("test",))
    if corpus.test_split is None:
        raise UsageError(f"{dataset}: which split to label? it has {', '.join(corpus.parts)}; choose with --test-split")
    return "+".join(corpus.parts["test"])


if __name__ == "__main__":
    raise SystemExit(main())
