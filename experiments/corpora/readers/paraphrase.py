"""Paraphrase pairs: MRPC (GLUE's tsv, or Microsoft's own files split as GLUE splits them) and
QQP (GLUE's tsv). Labels are GLUE's: 1 = paraphrase (duplicate), 0 = not."""
from __future__ import annotations

from pathlib import Path

from nli_baselines.features.labels import BINARY01
from nli_baselines.features.pair import Pair

from .common import (UNDECODABLE, BadRows, DataFormatError, SplitData, decoded_lines, is_blank, iter_lines, iter_tsv,
                     map_label, sentence_pair)

_BINARY = {label: label for label in BINARY01}
MRPC_COLUMNS = ("Quality", "#1 ID", "#2 ID", "#1 String", "#2 String")
# The ids of GLUE's MRPC dev split, beside Microsoft's files: GLUE's name, and its download's.
DEV_IDS = ("dev_ids.tsv", "mrpc_dev_ids.tsv")
_DOWNLOAD = "python experiments/download.py mrpc"


def read_mrpc(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """GLUE MRPC: train.tsv and dev.tsv (`Quality #1 ID #2 ID #1 String #2 String`, with a byte-order
    mark), test.tsv (`index` for `Quality`, unlabeled); or Microsoft's `msr_paraphrase_*.txt`
    (`read_msr_paraphrase`). Ids are the 0-based row numbers of GLUE's files (test: its `index`)."""
    if path.name.startswith("msr_paraphrase_"):
        return read_msr_paraphrase(path, dataset, split, on_bad_row)
    bad = BadRows(path, on_bad_row)
    pairs = []
    for number, row in iter_tsv(path, bad, ("#1 String", "#2 String")):
        label = None
        if "Quality" in row:
            label = map_label(row["Quality"], _BINARY, number, bad)
            if label is None:
                continue
        sentences = sentence_pair(row["#1 String"], row["#2 String"], ("#1 String", "#2 String"), number, bad)
        if sentences is not None:
            pairs.append(Pair(row.get("index", str(bad.rows - 1)), *sentences, label))
    return bad.split(dataset, split, pairs)


def read_msr_paraphrase(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """Microsoft's `msr_paraphrase_train.txt` split as GLUE splits it: dev is the pairs whose
    (#1 ID, #2 ID) `dev_ids.tsv` (beside it) names, train the others, each in file order; any other
    file (`msr_paraphrase_test.txt`, GLUE's test set, labeled here) is read whole. Ids are the
    0-based row numbers within the split, as in GLUE's train.tsv, dev.tsv and test.tsv.

    A row whose ids cannot be read (too few columns, undecodable bytes) counts under train.
    """
    dev_ids = _dev_ids(path) if path.name == "msr_paraphrase_train.txt" else None
    bad = BadRows(path, on_bad_row)
    lines = ((n, text, problem) for n, text, problem in decoded_lines(path, header=1) if not is_blank(text))
    header_number, header_text, problem = next(lines, (1, "", None))
    if problem:
        raise DataFormatError(path, header_number, f"header line: {problem}")
    header = header_text.split("\t")
    if header != list(MRPC_COLUMNS):
        raise DataFormatError(path, header_number, f"expected the header {' / '.join(MRPC_COLUMNS)}, found "
                                                   f"{' / '.join(header)}")
    pairs: list[Pair] = []
    named = set()
    for number, line, problem in lines:
        cells = line.split("\t")
        key = (cells[1].strip(), cells[2].strip()) if len(cells) >= 3 and not problem else None
        if dev_ids is not None:
            in_dev = key in dev_ids
            if in_dev:
                named.add(key)
            if (split == "dev") != in_dev:
                continue
        bad.rows += 1
        if problem:
            bad.bad(number, problem, UNDECODABLE)
            continue
        if len(cells) != len(MRPC_COLUMNS):
            bad.bad(number, f"expected {len(MRPC_COLUMNS)} tab-separated columns, found {len(cells)}",
                    "wrong column count")
            continue
        label = map_label(cells[0], _BINARY, number, bad)
        sentences = None if label is None else sentence_pair(cells[3], cells[4], MRPC_COLUMNS[3:], number, bad)
        if sentences is not None:
            pairs.append(Pair(str(bad.rows - 1), *sentences, label))
    if dev_ids is not None and len(named) < len(dev_ids):
        missing = sorted(dev_ids - named)
        raise DataFormatError(path, None, f"{len(missing)} of the {len(dev_ids)} dev pairs its dev_ids.tsv names are "
                                          f"not in it (first: {' '.join(missing[0])}): the two files do not belong "
                                          "together")
    return bad.split(dataset, split, pairs)


def _dev_ids(path: Path) -> set[tuple[str, str]]:
    """The (#1 ID, #2 ID) pairs of GLUE's MRPC dev split, from the dev_ids.tsv beside `path`."""
    found = next((path.parent / name for name in DEV_IDS if (path.parent / name).is_file()), None)
    if found is None:
        raise DataFormatError(path, None, f"GLUE's MRPC train and dev splits are taken from it by the ids of "
                                          f"{DEV_IDS[0]}, which is not beside it ({_DOWNLOAD} fetches both)")
    bad = BadRows(found, "error")
    ids = set()
    for number, line in iter_lines(found, bad):
        cells = line.strip().split("\t")
        if len(cells) != 2 or not all(cell.strip().isdigit() for cell in cells):
            raise DataFormatError(found, number, "expected two tab-separated MRPC ids (#1 ID, #2 ID)")
        ids.add((cells[0].strip(), cells[1].strip()))
    if not ids:
        raise DataFormatError(found, None, "no dev ids in it")
    return ids


def read_qqp(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """GLUE QQP: `id qid1 qid2 question1 question2 is_duplicate` (test.tsv: `id question1 question2`,
    unlabeled), read unquoted; ids are its `id`."""
    bad = BadRows(path, on_bad_row)
    pairs = []
    for number, row in iter_tsv(path, bad, ("id", "question1", "question2")):
        label = None
        if "is_duplicate" in row:
            label = map_label(row["is_duplicate"], _BINARY, number, bad)
            if label is None:
                continue
        sentences = sentence_pair(row["question1"], row["question2"], ("question1", "question2"), number, bad)
        if sentences is not None:
            pairs.append(Pair(row["id"], *sentences, label))
    return bad.split(dataset, split, pairs)
