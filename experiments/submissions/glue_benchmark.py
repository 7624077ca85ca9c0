"""The whole GLUE benchmark in one call: each task's default baseline trained and scored on dev,
its test split predicted into the official file, the eleven files zipped, and a table of dev
figures with GLUE's average beside the GLUE paper's own baselines.

Each task's baseline (features and model) was chosen on its dev split, never on test (the
figures behind each choice are in docs/submissions.md, "The whole benchmark"); a model's own
settings (C, alpha) are chosen as every run chooses them (`--tune-on auto`). A task whose files
are missing is listed and left out, and the average is marked partial.
"""
from __future__ import annotations

import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from nli_baselines._version import __version__
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.engine.experiment import run
from nli_baselines.experiments.submissions.bundles import make_bundle, missing_tasks
from nli_baselines.experiments.submissions.glue_tasks import BY_NAME, GLUE_TASKS, GlueTask
from nli_baselines.features.registry import reads_wordnet, resolve
from nli_baselines.features.text.wordnet_data import setup_command, wordnet_available

from ..corpora import get_corpus, resolve_data_dir
from ..corpora.task import METRICS
from ..outputs.records import versions, write_json_atomic
from ..reports.published import GLUE_BASELINES, GLUE_SOURCE, glue_dev
from ..reports.tables import Table
from .submitting import write_submissions

# The GLUE paper's baselines on the dev sets (Table 6; `reports.published` holds each figure with its
# source), each task's figure as GLUE scores it (the mean of a task's two metrics; MNLI: matched
# and mismatched averaged, as the paper's dev table prints it).
PAPER_DEV = {baseline: {task.name: glue_dev(baseline, task.name) for task in GLUE_TASKS} for baseline in GLUE_BASELINES}
PAPER_SOURCE = GLUE_SOURCE


def missing_data(task: GlueTask, data_dir) -> str | None:
    """Why `task` cannot run here (its train, dev or test split is not in the data directory, or
    its file there is not a regular file: a FIFO, a link to a device, a directory), or None."""
    corpus = get_corpus(task.corpus)
    splits = [split for split in ("train", task.dev_split, corpus.test_split) if split is not None]
    unreadable = [f"{split}: {why}" for split in splits if (why := corpus.unreadable(split, Path(data_dir)))]
    if unreadable:
        return "; ".join(unreadable)
    lacking = [split for split in splits if not corpus.locate_or_generated(split, Path(data_dir))]
    return f"{', '.join(lacking)} not found" if lacking else None


def task_score(record: dict, metric: str) -> float | None:
    """A task's GLUE figure (x 100): its selection metric on dev (`Task.selection_metric`: one
    metric, or the mean of two); None where it is undefined (a correlation of constant
    predictions), which the average leaves out rather than count as 0."""
    value = record["rows"][0]["metrics"][record["data"]["eval_split"]][metric]
    return None if value is None else 100 * value


def run_benchmark(out: Path, *, data_dir, tasks=None, jobs: int = 1, progress: bool = True, log=print,
                  zip_path: Path | None = None) -> dict:
    """Run every task of `tasks` (default: all of GLUE), write the prediction files into `out`, one
    record per task (`out/records/TASK.json`), the zip, and return the whole record."""

    data_dir = resolve_data_dir(data_dir)
    chosen = [BY_NAME[name] for name in tasks] if tasks else list(GLUE_TASKS)
    started = time.perf_counter()
    records, results, skipped = {}, {}, {}
    notes_all: list[str] = []
    written: list[Path] = []
    for n, task in enumerate(chosen, start=1):
        why = missing_data(task, data_dir)
        if why is not None:
            skipped[task.name] = why
            log(f"[{n}/{len(chosen)}] {task.name}: skipped ({why})")
            continue
        features = task.features
        if features is not None and _reads_wordnet(features) and not wordnet_available():
            features = task.without_wordnet
            notes_all.append(f"{task.name}: WordNet 3.0 is not installed, so {features} stands in for {task.features} "
                             f"({setup_command()})")
            log(f"note: {notes_all[-1]}")
        log(f"[{n}/{len(chosen)}] {task.name}: " + (f"{features}" + (f", {task.model}" if task.model else "")
                                                     if features is not None else "chosen by 5-fold CV on train")
            + f" on {task.corpus}")
        begun = time.perf_counter()
        options = dict(dataset=task.corpus, data_dir=str(data_dir), jobs=jobs, quiet=not progress)
        if features is not None:
            options.update(features=features, choose="off")
        if task.model:
            options["model"] = task.model
        config = RunConfig(**options)
        outcome = run(config, log=log if progress else (lambda message: None))
        predictor = next(iter(outcome.outcomes.values())).predictor
        notes: list[str] = []
        files = write_submissions(predictor, get_corpus(task.corpus), {"glue": out}, data_dir=data_dir, jobs=jobs,
                                  progress=progress, log=notes.append, scores=(diagnostics := {}))
        written += files
        record = outcome.record
        record["predictions"] = [str(p) for p in files]
        record["notes"] = record.get("notes", []) + notes
        if diagnostics:
            record["diagnostics"] = diagnostics
        record["glue"] = {"task": task.name, "score": task_score(record, get_corpus(task.corpus).task.selection_metric), "seconds": time.perf_counter() - begun}
        write_json_atomic(out / "records" / f"{task.name}.json", record)
        records[task.name] = record
        results[task.name] = record["glue"]["score"]
        for note in notes:
            log(f"    {note}")
        log(f"    {task.name}: dev {figures_text(record)} ({record['glue']['seconds']:.0f}s)")
    if not written:
        raise UsageError(f"no GLUE task could run: their data is missing or unreadable in {data_dir} "
                         f"({'; '.join(f'{k}: {v}' for k, v in skipped.items())})")
    lacking = missing_tasks("glue", [p.name for p in written])
    zip_path = zip_path or out / "glue.zip"
    make_bundle("glue", written, zip_path, data_dir=data_dir, partial=bool(lacking))
    scored = {name: score for name, score in results.items() if score is not None}
    undefined = {name: _why_undefined(records[name]) for name in results if results[name] is None}
    average = sum(scored.values()) / len(scored) if scored else None
    whole = {"suite_version": __version__, "data_dir": str(data_dir), "tasks": list(results), "scores": results,
             "average": average, "partial": bool(skipped or undefined), "skipped": skipped, "undefined": undefined,
             "files": [str(p) for p in written], "missing_files": lacking, "zip": str(zip_path),
             "dev_figures": {name: figures(r) for name, r in records.items()},
             "notes": notes_all,
             "chosen": {name: chosen_baseline(name, record) for name, record in records.items()},
             "paper_dev": PAPER_DEV, "paper_source": PAPER_SOURCE, "seconds": time.perf_counter() - started,
             "versions": versions()}
    write_json_atomic(out / "glue.json", whole)
    return whole


def _why_undefined(record: dict) -> str:
    """Why a task's dev figure is undefined, from its record (`undefined`: metric -> reason)."""
    dev = record["rows"][0]["metrics"][record["data"]["eval_split"]]
    reasons = dev.get("undefined", {})
    return "; ".join(dict.fromkeys(reasons.values())) or "undefined"


def _reads_wordnet(names: str) -> bool:
    return any(reads_wordnet(name) for name in resolve(names))


def figures(record: dict) -> dict:
    """A task record's dev metrics (x 100), by name."""
    dev = record["rows"][0]["metrics"][record["data"]["eval_split"]]
    return {name: None if dev[name] is None else 100 * dev[name] for name in record["task"]["metrics"]}


def _shown(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"  # n/a: undefined, never 0


def _points(share: float | None) -> str:
    return _shown(None if share is None else 100 * share)


def figures_text(record: dict) -> str:
    return " / ".join(f"{METRICS[name].title} {_shown(value)}" for name, value in figures(record).items())


def chosen_baseline(name: str, record: dict) -> dict:
    """What a task's run fitted (features, model, setting) and the rule that chose it; for a
    choice by CV, its figures: the selection metric pooled, and its mean and spread over folds."""
    row = record["rows"][0]
    out = {"features": row["features"], "model": row["model"],
           "settings": row.get("selection", {}).get("chosen"), "rule": BY_NAME[name].rule}
    choice = record.get("choice")
    if choice:
        out["rule"] = choice["rule"]
        out["cv"] = {"metric": choice["metric"], "by": choice["by"], "name": choice["chosen"]["name"],
                     **{k: choice["chosen"][k] for k in ("pooled", "mean", "sd")}}
    return out


def baseline_lines(whole: dict) -> list[str]:
    """Which baseline each task ran and which rule chose it: the CV choice's figures where the
    task chose at run time, one line for the fixed ones."""
    out, fixed = [], []
    for name, chosen in whole.get("chosen", {}).items():
        if "cv" not in chosen:
            fixed.append(name)
            continue
        setting = ", ".join(f"{k}={v}" for k, v in (chosen.get("settings") or {}).items())
        cv, key = chosen["cv"], chosen["cv"]["metric"]
        # The candidate's name ("stacked_ridge strongest,similarity"): a list of 18 types is one
        # word no note can wrap.
        what = cv.get("name") or f"{chosen['model']} on {', '.join(chosen['features'])}"
        out.append(f"  {name}: {what}" + (f" ({setting})" if setting else "")
                   + f", chosen by {chosen['rule']}: CV {cv['by']} {_points(cv['mean'][key])} over the folds "
                   f"(sd {_points(cv['sd'][key])})")
    if fixed:
        out.append(f"  {', '.join(fixed)}: fixed baselines, chosen on dev when docs/submissions.md's table was measured")
    return out


def table(whole: dict) -> str:
    """Per task the dev figures and GLUE score beside the paper's baselines; then the averages, and
    under the table what it leaves out (tasks not run, partial averages, notes)."""
    return glue_table(whole).text()


def glue_table(whole: dict) -> Table:
    """The table of `table` (text, HTML, DataFrame), its notes under it."""
    names = [task.name for task in GLUE_TASKS]
    head = ["task", "dev figures", "score", *PAPER_DEV]
    rows, not_run = [], []
    for name in names:
        if name in whole["scores"]:
            shown = " / ".join(f"{METRICS[m].title} {_shown(v)}" for m, v in whole["dev_figures"][name].items())
            score = _shown(whole["scores"][name])
        else:
            shown, score = "(not run)", ""
            not_run.append(f"{name} ({whole['skipped'].get(name, 'not asked')})")
        rows.append([name, shown, score, *(one_decimal(PAPER_DEV[m][name]) for m in PAPER_DEV)])
    ran = [name for name, score in whole["scores"].items() if score is not None]  # the tasks averaged
    partial = len(ran) < len(names)
    rows.append(["GLUE average" + (" (partial)" if partial else ""), "", _shown(whole["average"]),
                 *(one_decimal(sum(PAPER_DEV[m][n] for n in ran) / len(ran)) if ran else "n/a" for m in PAPER_DEV)])
    notes = []
    if not_run:
        notes.append(f"not run: {'; '.join(not_run)}")
    for name, why in whole.get("undefined", {}).items():
        notes.append(f"n/a: {name}'s dev figure is undefined ({why}): left out of the average, not counted as 0")
    if partial:
        notes.append(f"partial: the average of the {len(ran)} of {len(names)} tasks that ran"
                     f"{' with a defined figure' if whole.get('undefined') else ''}, "
                     f"{', '.join(ran) or 'none'}; the paper's over the same")
    notes.append(f"the paper's columns: {PAPER_SOURCE}")
    notes += [line.strip() for line in baseline_lines(whole)]
    notes += [f"note: {note}" for note in whole.get("notes", [])]
    if whole["missing_files"]:
        notes.append(f"partial submission: {', '.join(whole['missing_files'])} missing (the server takes only "
                     "complete submissions)")
    return Table(head, rows, notes)


def one_decimal(value: float) -> str:
    """A published figure (or a mean of them) to one decimal, a tie rounded up: the paper's figures
    have one decimal, so their means end in 5 exactly, which binary floats would round either way
    (79.35 is stored as 79.3499..., 83.65 as 83.6500...)."""
    return str(Decimal(repr(round(value, 9))).quantize(Decimal("0.1"), ROUND_HALF_UP))
