"""Similarity scores: GLUE's STS-B tsv, and the STS Benchmark's own `sts-*.csv` (Cer et al. 2017).

A score stays text, as the file writes it ("4.750"); the reader checks that it is a finite number
inside the task's range, and the engine converts it (`corpora.task.Task.targets`).
"""
from __future__ import annotations

from pathlib import Path

from nli_baselines.features.pair import Pair

from .common import BadRows, SplitData, checked_score, iter_lines, iter_tsv, sentence_pair

STS_RANGE = (0.0, 5.0)
# genre, filename, year, index, score, sentence1, sentence2; some rows add the sources after them
_STS_COLUMNS = ("genre", "filename", "year", "index", "score", "sentence1", "sentence2")


def read_stsb(path: Path, dataset: str, split: str, on_bad_row: str = "error", *,
              score_range: tuple[float, float] | None = STS_RANGE) -> SplitData:
    """GLUE STS-B (`index genre filename year old_index source1 source2 sentence1 sentence2 score`;
    test.tsv has no score), or a `.csv` file in the STS Benchmark's own layout (`read_sts_benchmark`).
    Ids are GLUE's `index`."""
    if path.suffix.lower() == ".csv":
        return read_sts_benchmark(path, dataset, split, on_bad_row, score_range=score_range)
    bad = BadRows(path, on_bad_row)
    pairs = []
    for number, row in iter_tsv(path, bad, ("index", "sentence1", "sentence2")):
        score = None
        if "score" in row:
            score = checked_score(row["score"], score_range, number, bad)
            if score is None:
                continue
        sentences = sentence_pair(row["sentence1"], row["sentence2"], ("sentence1", "sentence2"), number, bad)
        if sentences is not None:
            pairs.append(Pair(row["index"], *sentences, score, meta=_genre(row.get("genre"))))
    return bad.split(dataset, split, pairs)


def read_sts_benchmark(path: Path, dataset: str, split: str, on_bad_row: str = "error", *,
                       score_range: tuple[float, float] | None = STS_RANGE) -> SplitData:
    """The STS Benchmark's `sts-{train,dev,test}.csv`: tab-separated despite the name, no header, no
    quoting; `genre filename year index score sentence1 sentence2`, then the sources on some rows.

    The pairs are GLUE's STS-B row for row: ids are the 0-based row numbers (GLUE's `index`), and
    the sentences lose the spaces around them, as GLUE's copy did.
    """
    bad = BadRows(path, on_bad_row)
    pairs = []
    for number, line in iter_lines(path, bad):
        cells = line.split("\t")
        if len(cells) < len(_STS_COLUMNS):
            bad.bad(number, f"expected at least {len(_STS_COLUMNS)} tab-separated columns ({' '.join(_STS_COLUMNS)}), "
                            f"found {len(cells)}", "wrong column count")
            continue
        score = checked_score(cells[4], score_range, number, bad)
        if score is None:
            continue
        sentences = sentence_pair(cells[5].strip(), cells[6].strip(), ("sentence1", "sentence2"), number, bad)
        if sentences is not None:
            pairs.append(Pair(str(bad.rows - 1), *sentences, score, meta=_genre(cells[0])))
    return bad.split(dataset, split, pairs)


def _genre(value: str | None) -> dict:
    """A pair's `meta` holding its genre (captions, news or forums; cross-validation stratifies
    by it, and reports break dev figures down by it): the file's `main-captions`, `main-news`,
    `main-forum` or `main-forums` without the prefix, forum and forums as one."""
    if not value:
        return {}
    genre = value.strip().lower().removeprefix("main-")
    return {"genre": "forums" if genre == "forum" else genre}
