"""A QQP-sized corpus in GLUE QQP's official layout, for measuring speed at its scale (QQP itself is
not in this environment).

Shape (GLUE QQP-clean): 363,846 training and 40,430 dev pairs of questions, ~37% duplicates;
questions ~11 tokens, a question word first and `?` last, drawn from a Zipf-like vocabulary;
some questions come back in later pairs with their `qid`, as Quora's do. A duplicate rewords its
question (most tokens kept, a few replaced, a neighbouring pair swapped), a non-duplicate shares
about a third of them, so a classifier has something to learn.

    python benchmarks/benchmark.py --write-qqp DIR     # DIR/QQP/train.tsv and dev.tsv
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from nli_baselines.features.storage.atomic import atomic_open

QQP_TRAIN_PAIRS = 363_846
QQP_DEV_PAIRS = 40_430
DUPLICATE_RATE = 0.37
HEADER = "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate"
_OPENERS = ("what", "how", "why", "is", "can", "which", "who", "do", "does", "where", "should", "when", "are")
_FUNCTION = ("the", "a", "is", "to", "in", "of", "i", "and", "for", "you", "my", "it", "be", "on", "with", "that",
             "are", "do", "best", "get", "an", "can", "from", "your", "or", "people", "have", "me", "as", "good")


def _vocabulary(size: int) -> list[str]:
    return list(_FUNCTION) + [f"w{i}" for i in range(size - len(_FUNCTION))]


def generate_qqp(n_pairs: int, seed: int = 0, vocab_size: int = 50_000, mean_tokens: float = 11.0,
                 first_id: int = 0, first_qid: int = 1) -> list[tuple[int, int, int, str, str, str]]:
    """Deterministic rows (id, qid1, qid2, question1, question2, is_duplicate) of QQP's shape; every
    draw is made for all pairs at once."""
    rng = np.random.default_rng(seed)
    words = _vocabulary(vocab_size)
    zipf = 1.0 / (np.arange(1, vocab_size + 1, dtype=np.float64) + 2.0) ** 1.07
    zipf /= zipf.sum()
    # question1: a new question, or (a fifth of the time) one asked in an earlier pair, with its qid
    new = rng.random(n_pairs) >= 0.2
    new[:1] = True
    before = np.cumsum(new) - new  # new questions before each pair
    source = np.where(new, before, (rng.random(n_pairs) * np.maximum(before, 1)).astype(np.int64))
    n_new = int(new.sum())
    lengths = np.clip(rng.gamma(6.0, (mean_tokens - 2) / 6.0, n_new).round().astype(np.int64), 1, 60)  # + opener, ?
    body = rng.choice(vocab_size, size=int(lengths.sum()), p=zipf)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    openers = rng.integers(0, len(_OPENERS), n_new)
    # qids: each new question1 and every question2 takes the next number, in pair order
    step = new.astype(np.int64) + 1
    qid2 = first_qid + np.cumsum(step) - 1
    qid_of_new = (qid2 - 1)[new]
    qids = qid_of_new[source]
    # question2: a duplicate keeps most of question1's words (and swaps a neighbouring pair), a
    # non-duplicate about a third; the other words are drawn afresh
    duplicate = rng.random(n_pairs) < DUPLICATE_RATE
    first_lengths = lengths[source]
    total = int(first_lengths.sum())
    kept = rng.random(total) < np.repeat(np.where(duplicate, 0.8, 0.33), first_lengths)
    fresh = rng.choice(vocab_size, size=total, p=zipf)
    swap_at = rng.random(n_pairs)
    other_opener = np.where(duplicate | (rng.random(n_pairs) < 0.5), openers[source],
                            rng.integers(0, len(_OPENERS), n_pairs))
    rows = []
    at = 0
    for i in range(n_pairs):
        j = int(source[i])
        first = body[offsets[j]:offsets[j + 1]]
        n = len(first)
        second = np.where(kept[at:at + n], first, fresh[at:at + n])
        at += n
        if duplicate[i] and n > 2:
            k = int(swap_at[i] * (n - 1))
            second[k], second[k + 1] = second[k + 1], second[k]
        rows.append((first_id + i, int(qids[i]), int(qid2[i]), _question(int(openers[j]), first, words),
                     _question(int(other_opener[i]), second, words), "1" if duplicate[i] else "0"))
    return rows


def _question(opener: int, body, words: list[str]) -> str:
    return " ".join([_OPENERS[opener].capitalize(), *map(words.__getitem__, body.tolist())]) + "?"


def write_qqp(directory: Path, seed: int = 0, train: int = QQP_TRAIN_PAIRS, dev: int = QQP_DEV_PAIRS) -> list[Path]:
    """Write `directory`/QQP/train.tsv and dev.tsv in GLUE QQP's layout (`--dataset qqp --data-dir
    DIR` reads them); dev's ids and qids follow on from train's, its questions are its own."""
    folder = Path(directory) / "QQP"
    folder.mkdir(parents=True, exist_ok=True)
    train_rows = generate_qqp(train, seed=seed)
    last_qid = max((max(r[1], r[2]) for r in train_rows), default=0)
    dev_rows = generate_qqp(dev, seed=seed + 1, first_id=train, first_qid=last_qid + 1)
    written = []
    for name, rows in (("train.tsv", train_rows), ("dev.tsv", dev_rows)):
        with atomic_open(folder / name, "w") as out:
            out.write(HEADER + "\n")
            out.writelines("\t".join(map(str, row)) + "\n" for row in rows)
        written.append(folder / name)
    return written
