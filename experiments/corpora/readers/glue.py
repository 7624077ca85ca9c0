"""GLUE tsv tasks: RTE (train/dev/unlabeled test) and the AX diagnostic set (unlabeled and labeled)."""
from __future__ import annotations

from pathlib import Path

from nli_baselines.features.labels import BINARY01, NLI2, NLI3
from nli_baselines.features.pair import Pair

from .common import BadRows, SplitData, iter_tsv, map_label, sentence_pair

_NLI_MAP = {label: label for label in NLI3}
AX_CATEGORIES = ("Lexical Semantics", "Predicate-Argument Structure", "Logic", "Knowledge")


def read_glue_pairs(path: Path, dataset: str, split: str, on_bad_row: str = "error",
                    labels: tuple[str, ...] = NLI2,
                    columns: tuple[str, str] = ("sentence1", "sentence2")) -> SplitData:
    """`index<TAB>sentence1<TAB>sentence2[<TAB>label]`, read unquoted (GLUE files are not CSV-quoted).

    columns: the premise and hypothesis columns (QNLI: question, sentence).
    """
    bad = BadRows(path, on_bad_row)
    mapping = {label: label for label in labels}
    pairs = []
    for number, row in iter_tsv(path, bad, ("index", *columns)):
        label = None
        if "label" in row:
            label = map_label(row["label"], mapping, number, bad)
            if label is None:
                continue
        sentences = sentence_pair(row[columns[0]], row[columns[1]], columns, number, bad)
        if sentences is None:
            continue
        pairs.append(Pair(row["index"], *sentences, label))
    return bad.split(dataset, split, pairs)


def read_qnli(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """GLUE QNLI: does the sentence answer the question? (question as premise, sentence as hypothesis)."""
    return read_glue_pairs(path, dataset, split, on_bad_row, NLI2, ("question", "sentence"))


def read_wnli(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """GLUE WNLI: labels 1 (entailment) and 0."""
    return read_glue_pairs(path, dataset, split, on_bad_row, BINARY01)


def read_rte(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    return read_glue_pairs(path, dataset, split, on_bad_row, NLI2)


def read_ax(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """The GLUE diagnostic: unlabeled `diagnostic.tsv`, or labeled `diagnostic-full.tsv`.

    In the labeled file the four category cells may be empty or list several
    fine-grained phenomena separated by `;`; they go to `meta["categories"]` as
    {coarse category: [phenomena]}. Ids are the 0-based row order, which is the
    `index` of the unlabeled file.
    """
    if path.name != "diagnostic-full.tsv":
        return read_glue_pairs(path, dataset, split, on_bad_row, NLI3)
    bad = BadRows(path, on_bad_row)
    pairs = []
    for index, (number, row) in enumerate(iter_tsv(path, bad, ("Premise", "Hypothesis", "Label"))):
        label = map_label(row["Label"], _NLI_MAP, number, bad)
        if label is None:
            continue
        sentences = sentence_pair(row["Premise"], row["Hypothesis"], ("Premise", "Hypothesis"), number, bad)
        if sentences is None:
            continue
        categories = {}
        for name in AX_CATEGORIES:
            cell = (row.get(name) or "").strip()
            if cell:
                categories[name] = [p.strip() for p in cell.split(";") if p.strip()]
        meta = {"categories": categories, "domain": row.get("Domain", "")}
        pairs.append(Pair(str(index), *sentences, label, meta=meta))
    return bad.split(dataset, split, pairs)
