"""HANS's breakdown (McCoy, Pavlick and Linzen 2019): accuracy per heuristic on entailed and on
non-entailed pairs, per subcase and per template, and HANS's own `pairID,gold_label` prediction files.

A model trained on a corpus where high word overlap usually means entailment says "entailment"
whenever the heuristic applies: near 100% on the entailed pairs of a heuristic and near 0% on
its non-entailed ones. Three-class predictions count neutral and contradiction as non-entailment,
as the authors' evaluation script does.
"""
from __future__ import annotations

from pathlib import Path

from nli_baselines.features.labels import CONTRADICTION, ENTAILMENT, NEUTRAL, NOT_ENTAILMENT
from nli_baselines.features.runtime.commands import command
from nli_baselines.features.storage.atomic import atomic_write

from ..corpora import CorpusNotFoundError, get_corpus, resolve_data_dir
from ..corpora.readers.hans import HANS_ENTAILMENT, HANS_LABELS, HANS_NON_ENTAILMENT
from ..outputs.formats import PredictionFileError, PredictionFormat

# A model's label -> HANS's: entailment stays, the rest is non-entailment.
TO_HANS = {ENTAILMENT: HANS_ENTAILMENT, NEUTRAL: HANS_NON_ENTAILMENT, CONTRADICTION: HANS_NON_ENTAILMENT,
           NOT_ENTAILMENT: HANS_NON_ENTAILMENT, HANS_NON_ENTAILMENT: HANS_NON_ENTAILMENT}
METRIC = "accuracy; neutral and contradiction count as non-entailment"
# What each heuristic takes as a sign of entailment (the paper's definitions, in our words).
HEURISTICS = {"lexical_overlap": "every word of the hypothesis is in the premise",
              "subsequence": "the hypothesis is a stretch of the premise",
              "constituent": "the hypothesis is a whole clause of the premise"}
# A heuristic a model follows: entailed accuracy at least this far above non-entailed accuracy.
FOLLOWS_GAP = 0.5


def _row(line: str) -> tuple[str, str]:
    cells = line.split(",")
    if len(cells) != 2:
        raise ValueError("expected pairID,label")
    return cells[0].strip(), cells[1].strip()


# The file the authors' evaluate_heur_output.py reads: a header, then one `pairID,label` line per pair.
# Not a registered format: it is not a benchmark's test-set file (no --*-out directory writes it).
HANS_FILE = PredictionFormat("hans", "HANS", ".txt", "pairID", encode=lambda i, label: f"{i},{label}", decode=_row,
                             header="pairID,gold_label")


def to_hans(label: str) -> str | None:
    """HANS's label for a model's label; None for a label that is no NLI label (WNLI's 0/1)."""
    return TO_HANS.get(str(label))


def check_model_labels(labels) -> None:
    """HANS scores entailment against the rest: a model must predict `entailment` and NLI labels."""
    labels = [str(label) for label in labels]
    if ENTAILMENT not in labels or any(to_hans(label) is None for label in labels):
        raise ValueError(f"HANS scores entailment against non-entailment, but this model predicts "
                         f"{', '.join(labels)}: train it with NLI labels (--label-map can rename them)")


def read_hans_predictions(path: Path | str) -> dict[str, str]:
    """pairID -> HANS label of a `pairID,gold_label` file; neutral, contradiction and not_entailment
    count as non-entailment. Raises ValueError naming the file and line."""
    try:
        rows = HANS_FILE.read(Path(path))
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from None
    except PredictionFileError as exc:
        raise ValueError(str(exc)) from None
    out = {}
    for number, (pair_id, label) in enumerate(rows, start=2):
        hans = to_hans(label)
        if hans is None:
            raise ValueError(f"{path}:{number}: label {label!r} is none of {', '.join(sorted(TO_HANS))}")
        out[pair_id] = hans
    return out


def hans_file_text(ids, labels) -> str:
    """A predictions file in HANS's layout (the model's labels mapped to HANS's two)."""
    return HANS_FILE.text([str(i) for i in ids], [to_hans(label) or str(label) for label in labels])


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def hans_breakdown(pairs, predictions: dict[str, str]) -> dict:
    """The breakdown of `predictions` (pair id -> a model's label or HANS's) on HANS pairs (meta
    heuristic, subcase, template): `heuristics` {heuristic: {"entailment": accuracy, "non-entailment":
    accuracy}}, `subcases` and `templates` {name: accuracy}, `overall`, the share predicted
    entailment, and `counts` (pairs per cell, each subcase's heuristic and gold label). Names keep
    the file's order. ValueError for a missing prediction, a label that is no NLI label, or pairs
    without HANS's fields."""
    if not pairs:
        raise ValueError("no HANS pairs to score")
    lacking = next((p for p in pairs if not p.meta.get("heuristic") or not p.meta.get("subcase")), None)
    if lacking is not None:
        raise ValueError(f"pair {lacking.id} has no heuristic or subcase: not a HANS pair")
    missing = [p.id for p in pairs if p.id not in predictions]
    if missing:
        raise ValueError(f"no prediction for {len(missing)} HANS pair(s), e.g. pairID {missing[0]}")
    heuristics: dict[str, dict[str, list[int]]] = {}
    subcases: dict[str, list[int]] = {}
    templates: dict[str, list[int]] = {}
    info: dict[str, dict] = {}
    hits = said_entailment = 0
    for pair in pairs:
        predicted = to_hans(predictions[pair.id])
        if predicted is None:
            raise ValueError(f"prediction {predictions[pair.id]!r} for pairID {pair.id} is no NLI label")
        gold = to_hans(pair.label)
        right = int(predicted == gold)
        hits += right
        said_entailment += predicted == HANS_ENTAILMENT
        heuristic, subcase = pair.meta["heuristic"], pair.meta["subcase"]
        cell = heuristics.setdefault(heuristic, {label: [0, 0] for label in HANS_LABELS})[gold]
        cell[0], cell[1] = cell[0] + right, cell[1] + 1
        for table, name in ((subcases, subcase), (templates, pair.meta.get("template") or "")):
            if name:
                counts = table.setdefault(name, [0, 0])
                counts[0], counts[1] = counts[0] + right, counts[1] + 1
        about = info.setdefault(subcase, {"heuristic": heuristic, "gold": gold})
        if about["gold"] != gold:
            about["gold"] = "mixed"
    return {
        "metric": METRIC, "examples": len(pairs), "overall": hits / len(pairs),
        "predicted_entailment": said_entailment / len(pairs),
        "heuristics": {h: {label: _share(*cells[label]) for label in HANS_LABELS} for h, cells in heuristics.items()},
        "subcases": {name: _share(*counts) for name, counts in subcases.items()},
        "templates": {name: _share(*counts) for name, counts in templates.items()},
        "counts": {"heuristics": {h: {label: cells[label][1] for label in HANS_LABELS}
                                  for h, cells in heuristics.items()},
                   "subcases": {name: {**info[name], "pairs": counts[1]} for name, counts in subcases.items()}},
    }


def followed(result: dict) -> list[str]:
    """The heuristics the model follows: right on their entailed pairs, wrong on their non-entailed ones."""
    out = []
    for heuristic, scores in result["heuristics"].items():
        entailed, non_entailed = scores[HANS_ENTAILMENT], scores[HANS_NON_ENTAILMENT]
        if entailed is not None and non_entailed is not None and entailed - non_entailed >= FOLLOWS_GAP:
            out.append(heuristic)
    return out


def format_hans(result: dict, title: str = "HANS") -> str:
    """The breakdown as a person reads it: per heuristic, entailed against non-entailed; per subcase."""
    def pct(x):
        return "n/a" if x is None else f"{100 * x:.1f}%"
    lines = [f"{title}: {result['examples']} pairs, accuracy {pct(result['overall'])} (neutral and contradiction "
             f"count as non-entailment); the model says entailment for {pct(result['predicted_entailment'])} "
             "of them"]
    if result.get("skipped"):
        lines.append("skipped rows: " + ", ".join(f"{reason} {n}" for reason, n in result["skipped"].items()))
    width = max(len("heuristic"), *(len(h) for h in result["heuristics"]))
    lines += ["", f"{'heuristic':<{width}}  {'entailed':>9}  {'non-entailed':>12}"]
    for heuristic, scores in result["heuristics"].items():
        counts = result["counts"]["heuristics"][heuristic]
        lines.append(f"{heuristic:<{width}}  {pct(scores[HANS_ENTAILMENT]):>9}  {pct(scores[HANS_NON_ENTAILMENT]):>12}"
                     f"  ({counts[HANS_ENTAILMENT]} + {counts[HANS_NON_ENTAILMENT]} pairs)")
    width = max(len("subcase"), *(len(s) for s in result["subcases"]))
    lines += ["", f"{'subcase':<{width}}  {'gold':<14}  {'pairs':>6}  {'accuracy':>8}"]
    for subcase, accuracy in result["subcases"].items():
        about = result["counts"]["subcases"][subcase]
        lines.append(f"{subcase:<{width}}  {about['gold']:<14}  {about['pairs']:>6}  {pct(accuracy):>8}")
    follows = followed(result)
    if follows:
        lines.append("")
        lines += [f"{heuristic}: the model follows the heuristic, saying entailment when "
                  f"{HEURISTICS.get(heuristic, 'it applies')}, right or wrong" for heuristic in follows]
    return "\n".join(lines)


def predict_hans(predictor, pairs, *, jobs: int = 1, progress: bool = False,
                 notes: list[str] | None = None) -> dict[str, str]:
    """pair id -> the model's label, for HANS pairs, annotated as the model's training pairs were
    (`Predictor.annotated`: tags from HANS's trees for a model trained on a corpus' trees, spaCy's
    for a model trained on spaCy's). ValueError when the model's labels are not NLI labels.
    notes: receives a line for each way the pairs could not be annotated as the training pairs were."""
    check_model_labels(predictor.labels)
    annotated = predictor.annotated(list(pairs), progress=progress, jobs=jobs, notes=notes)
    return dict(zip((p.id for p in annotated), map(str, predictor.predict(annotated))))


def run_hans(predictor, data_dir=None, *, on_bad_row: str = "error", jobs: int = 1, progress: bool = False,
             predictions_file: Path | str | None = None) -> tuple[str, dict, list[str]]:
    """After a run (`run.py --with-hans`): predict HANS's evaluation set where it is in the data
    directory, else the suite's `hans-mini` (saying so: its figures are not HANS's), score it and
    write the predictions file when asked. Returns (the set's name, its breakdown, the lines to
    print). predictions_file: HANS's own pairs only (`missing_hans` says why not, before a run)."""
    lines: list[str] = []
    try:
        name, data = "HANS", get_corpus("hans").load("test", data_dir, on_bad_row)
    except CorpusNotFoundError:
        if predictions_file:
            raise ValueError(missing_hans(data_dir)) from None
        name, data = "hans-mini", get_corpus("hans-mini").load("test", data_dir, on_bad_row)
        lines.append(f"{missing_hans(data_dir, what='HANS')}: scoring hans-mini, the suite's generated HANS-style "
                     f"pairs, in its place")
    notes: list[str] = []
    predictions = predict_hans(predictor, data.pairs, jobs=jobs, progress=progress, notes=notes)
    result = hans_breakdown(data.pairs, predictions)
    if data.skipped:
        result["skipped"] = dict(data.skipped)
    if notes:
        result["notes"] = notes
    lines += [f"note: {name}: {note}" for note in notes] + [format_hans(result, title=name)]
    if predictions_file:
        atomic_write(predictions_file, hans_file_text([p.id for p in data.pairs],
                                                      [predictions[p.id] for p in data.pairs]))
        lines.append(f"HANS predictions written to {predictions_file} (pairID,gold_label: the authors' "
                     "evaluate_heur_output.py reads it)")
    return name, result, lines


def missing_hans(data_dir, what: str = "--hans-predictions writes HANS's own pairs, and HANS") -> str | None:
    """One line saying where HANS's evaluation set was looked for and how to download it; None when
    it is there."""

    data_dir = resolve_data_dir(data_dir)
    looked = get_corpus("hans").candidates("test", data_dir)
    if any(p.exists() for p in looked):
        return None
    return (f"{what} is not under {Path(data_dir).absolute()} (looked for {', '.join(str(p.absolute()) for p in looked)}"
            f"; download it: {command('download')} hans --data-dir {Path(data_dir).absolute()})")
