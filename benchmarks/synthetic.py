"""An SNLI-shaped annotated corpus for measuring speed at SNLI scale (the real SNLI is not needed).

Shape (SNLI 1.0 train): 550,152 pairs; each premise shared by ~3.7 hypotheses; premises ~14.1
tokens, hypotheses ~8.3; a ~37k-type vocabulary with Zipf-like frequencies, each word type
carrying one PTB tag from a realistic mix (frequent types are function words). Hypotheses copy
about half their tokens from the premise, more for entailment, and contradictions often carry a
negation, so a classifier has something to learn.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from nli_baselines.features.labels import NLI3
from nli_baselines.features.pair import Pair

SNLI_TRAIN_PAIRS = 550_152
LABELS = NLI3
# Tag mix of content types (by type), and function words for the most frequent ranks.
_CONTENT_TAGS = {"NN": 0.38, "NNS": 0.12, "JJ": 0.18, "VBG": 0.09, "VBZ": 0.04, "VBP": 0.03, "VBD": 0.03,
                 "VBN": 0.03, "VB": 0.03, "RB": 0.05, "NNP": 0.02}
_FUNCTION = [("a", "DT"), (".", "."), ("the", "DT"), ("is", "VBZ"), ("in", "IN"), ("are", "VBP"),
             ("of", "IN"), ("on", "IN"), ("and", "CC"), ("with", "IN"), ("an", "DT"), ("man", "NN"),
             ("his", "PRP$"), ("two", "CD"), ("at", "IN"), ("to", "TO"), ("woman", "NN"), ("their", "PRP$"),
             ("people", "NNS"), (",", ","), ("her", "PRP$"), ("while", "IN"), ("some", "DT"), ("not", "RB"),
             ("there", "EX"), ("for", "IN"), ("it", "PRP"), ("they", "PRP"), ("three", "CD"), ("no", "DT")]


def _vocabulary(size: int, rng: np.random.Generator) -> tuple[list[str], list[str]]:
    words = [w for w, _ in _FUNCTION]
    tags = [t for _, t in _FUNCTION]
    names = list(_CONTENT_TAGS)
    probs = np.array(list(_CONTENT_TAGS.values()))
    drawn = rng.choice(len(names), size=size - len(words), p=probs / probs.sum())
    for i, t in enumerate(drawn):
        words.append(f"w{i}{'s' if names[t] == 'NNS' else ''}")
        tags.append(names[t])
    return words, tags


def generate_pairs(n_pairs: int = SNLI_TRAIN_PAIRS, seed: int = 0, vocab_size: int = 37_000,
                   premise_mean: float = 14.1, hypothesis_mean: float = 8.3) -> list[Pair]:
    """Deterministic annotated pairs of SNLI's shape (tokens and tags set, ids `synth-N`)."""
    rng = np.random.default_rng(seed)
    words, tags = _vocabulary(vocab_size, rng)
    ranks = np.arange(1, vocab_size + 1, dtype=np.float64)
    zipf = 1.0 / (ranks + 2.0) ** 1.07
    zipf /= zipf.sum()
    n_premises = max(1, round(n_pairs / 3.67))
    p_len = np.clip(rng.gamma(7.0, premise_mean / 7.0, n_premises).round().astype(int), 2, 60)
    p_tokens = rng.choice(vocab_size, size=int(p_len.sum()), p=zipf)
    p_off = np.concatenate([[0], np.cumsum(p_len)])
    which = np.sort(rng.integers(0, n_premises, n_pairs))
    labels = rng.integers(0, 3, n_pairs)
    h_len = np.clip(rng.gamma(6.0, hypothesis_mean / 6.0, n_pairs).round().astype(int), 1, 40)
    fresh = rng.choice(vocab_size, size=int(h_len.sum()), p=zipf)
    copy_rate = np.array([0.75, 0.45, 0.4])[labels]
    h_off = np.concatenate([[0], np.cumsum(h_len)])
    copy = rng.random(int(h_len.sum())) < np.repeat(copy_rate, h_len)
    pick = rng.random(int(h_len.sum()))
    negate = (labels == 2) & (rng.random(n_pairs) < 0.35)
    not_id = words.index("not")
    pairs = []
    shared: dict[int, tuple] = {}  # a premise's tuples are shared by its pairs, as readers do
    for i in range(n_pairs):
        prem = p_tokens[p_off[which[i]]:p_off[which[i] + 1]]
        lo, hi = h_off[i], h_off[i + 1]
        hyp = np.where(copy[lo:hi], prem[(pick[lo:hi] * len(prem)).astype(int)], fresh[lo:hi])
        if negate[i] and len(hyp) > 2:
            hyp[1] = not_id
        if which[i] not in shared:
            pt = tuple(words[t] for t in prem)
            shared[which[i]] = (" ".join(pt), pt, tuple(tags[t] for t in prem))
        text, pt, ptags = shared[which[i]]
        ht = tuple(words[t] for t in hyp)
        pairs.append(Pair(f"synth-{i}", text, " ".join(ht), LABELS[labels[i]],
                          pt, ptags, ht, tuple(tags[t] for t in hyp)))
    return pairs


def flat_parse(tokens, tags) -> str:
    """A bracketed parse with every token a preterminal under one S (what the SNLI reader needs)."""
    return "(ROOT (S " + " ".join(f"({t} {w})" for w, t in zip(tokens, tags)) + "))"


def write_snli_jsonl(pairs: list[Pair], path: Path) -> None:
    """Write pairs in SNLI 1.0's official jsonl layout (all ten keys), parse strings included."""
    with open(path, "w", encoding="utf-8") as out:
        for p in pairs:
            out.write(json.dumps({
                "annotator_labels": [p.label], "captionID": p.id.split("-")[-1] + ".jpg#0",
                "gold_label": p.label, "pairID": p.id,
                "sentence1": p.premise, "sentence1_binary_parse": "( " + p.premise + " )",
                "sentence1_parse": flat_parse(p.premise_tokens, p.premise_tags),
                "sentence2": p.hypothesis, "sentence2_binary_parse": "( " + p.hypothesis + " )",
                "sentence2_parse": flat_parse(p.hypothesis_tokens, p.hypothesis_tags)}) + "\n")
