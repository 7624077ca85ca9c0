"""The edit-distance classifier of the Excitement Open Platform (EditDistanceEDA), two classes.

Token-level weighted Levenshtein distance from the premise (EOP's text T) to the hypothesis H,
case-insensitive, after removing stop words by POS class; normalized by the cost of deleting all
of T plus inserting all of H; entailment when the normalized distance is at most a threshold
found by sequential search over the training distances. The delete/insert/substitute weights
are tuned on the training data (EOP tunes them by particle swarm in [0, 5]; we search a fixed
grid over the same range, which is deterministic), and the match weight is 0.
"""
from __future__ import annotations

import itertools

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from features.encoding import check_pairs
from features.labels import ENTAILMENT, NLI2, NOT_ENTAILMENT

from .common import TrainingDataError, check_training_labels
from .spec import ModelSpec

# EOP's English configuration removes punctuation, prepositions, articles, conjunctions and
# cardinal numbers; in PTB tags:
STOP_TAGS = frozenset({".", ",", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP", "#", "$",
                       "IN", "TO", "DT", "CC", "CD"})
WEIGHT_GRID = (0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
EOP_ENGLISH = {"delete": 0.495, "insert": 2.665, "substitute": 2.483}  # EOP's shipped English model
_SCALE = 1000  # rapidfuzz takes integer weights: weights are in thousandths


def content_tokens(pair, stop_tags=STOP_TAGS) -> tuple[list[str], list[str]]:
    """Lowercased premise and hypothesis tokens without stop words (by POS class)."""
    def keep(tokens, tags):
        return [t.lower() for t, g in zip(tokens, tags) if g not in stop_tags]
    return keep(pair.premise_tokens, pair.premise_tags), keep(pair.hypothesis_tokens, pair.hypothesis_tags)


def normalized_distances(premises, hypotheses, delete: float, insert: float, substitute: float,
                         workers: int = 1) -> np.ndarray:
    """Weighted Levenshtein distance T -> H divided by (delete * |T| + insert * |H|); 0 when both are empty."""
    weights = tuple(int(round(w * _SCALE)) for w in (insert, delete, substitute))  # rapidfuzz's order
    raw = process.cpdist(premises, hypotheses, scorer=Levenshtein.distance, scorer_kwargs={"weights": weights},
                         workers=workers, dtype=np.int64)
    t_len = np.fromiter(map(len, premises), dtype=np.float64, count=len(premises))
    h_len = np.fromiter(map(len, hypotheses), dtype=np.float64, count=len(hypotheses))
    norm = weights[1] * t_len + weights[0] * h_len
    return np.divide(raw, norm, out=np.zeros(len(raw)), where=norm > 0)


def best_threshold(distances: np.ndarray, entails: np.ndarray) -> tuple[float, float]:
    """Sequential search: every training distance as threshold (entailment iff d <= t); the
    threshold with the best training accuracy (the smallest on ties) and that accuracy."""
    order = np.argsort(distances, kind="stable")
    d, e = distances[order], entails[order].astype(np.int64)
    # Cutting after position i: the first i+1 pairs are called entailment, the rest not.
    correct = np.cumsum(e) + (np.sum(1 - e) - np.cumsum(1 - e))
    last_of_value = np.r_[d[1:] != d[:-1], True]  # a threshold includes every pair at that distance
    candidates = np.flatnonzero(last_of_value)
    accuracy = correct[candidates] / len(d)
    none_entailed = np.sum(1 - e) / len(d)
    best = int(np.argmax(accuracy))
    if none_entailed > accuracy[best]:
        return float(d[0]) - 1.0, float(none_entailed)
    return float(d[candidates[best]]), float(accuracy[best])


class EditDistanceClassifier(ClassifierMixin, BaseEstimator):
    """Entailment iff the normalized weighted edit distance T -> H is at most `threshold_`.

    delete, insert, substitute: operation weights; None (default) tunes all three on the training
        pairs over `weight_grid`, keeping the triple with the best training accuracy.
    tune_max_pairs: tune on a seeded sample of at most this many training pairs (SNLI scale);
        the threshold is then searched on all training pairs.
    Input: annotated pairs (stop words are removed by PTB tag). Labels: entailment / not_entailment.
    """

    def __init__(self, *, delete: float | None = None, insert: float | None = None,
                 substitute: float | None = None, stop_tags=STOP_TAGS, weight_grid=WEIGHT_GRID,
                 tune_max_pairs: int = 20_000, random_state: int = 0, n_jobs: int = 1):
        self.delete = delete
        self.insert = insert
        self.substitute = substitute
        self.stop_tags = stop_tags
        self.weight_grid = weight_grid
        self.tune_max_pairs = tune_max_pairs
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _tokens(self, pairs):
        pairs = check_pairs(pairs)
        sides = [content_tokens(p, self.stop_tags) for p in pairs]
        return [t for t, _ in sides], [h for _, h in sides]

    def _distances(self, premises, hypotheses, weights) -> np.ndarray:
        return normalized_distances(premises, hypotheses, *weights, workers=self.n_jobs)

    def fit(self, pairs, y):
        y = check_training_labels(y)
        unknown = set(y) - set(NLI2)
        if unknown:
            raise TrainingDataError(f"edit distance is two-class (entailment/not_entailment); got {sorted(unknown)}"
                                    " (use --two-class)")
        premises, hypotheses = self._tokens(pairs)
        entails = y == ENTAILMENT
        fixed = (self.delete, self.insert, self.substitute)
        if None in fixed:
            rng = np.random.default_rng(self.random_state)
            sample = np.arange(len(y))
            if len(sample) > self.tune_max_pairs:
                sample = np.sort(rng.choice(len(y), self.tune_max_pairs, replace=False))
            sp_, sh_ = [premises[i] for i in sample], [hypotheses[i] for i in sample]
            grid = [tuple(fixed[i] if fixed[i] is not None else w[i] for i in range(3))
                    for w in itertools.product(self.weight_grid, repeat=3)]
            scores = {}
            for weights in dict.fromkeys(grid):  # in grid order, duplicates once
                scores[weights] = best_threshold(self._distances(sp_, sh_, weights), entails[sample])[1]
            self.tuning_scores_ = scores
            weights = max(scores, key=lambda w: (scores[w], -sum(w)))  # ties: the lighter triple
        else:
            weights = tuple(float(w) for w in fixed)
        self.weights_ = dict(zip(("delete", "insert", "substitute"), weights))
        distances = self._distances(premises, hypotheses, weights)
        self.threshold_, self.train_accuracy_ = best_threshold(distances, entails)
        self.classes_ = np.array(NLI2, dtype=object)
        return self

    def distance(self, pairs) -> np.ndarray:
        check_is_fitted(self, "weights_")
        premises, hypotheses = self._tokens(pairs)
        w = self.weights_
        return self._distances(premises, hypotheses, (w["delete"], w["insert"], w["substitute"]))

    def decision_function(self, pairs) -> np.ndarray:
        """threshold - distance: positive means entailment."""
        return self.threshold_ - self.distance(pairs)

    def predict(self, pairs) -> np.ndarray:
        return np.where(self.decision_function(pairs) >= 0, ENTAILMENT, NOT_ENTAILMENT).astype(object)


SPEC = ModelSpec(
    name="edit_distance",
    factory=EditDistanceClassifier,
    title="edit distance (2-class)",
    input="pairs",
    two_class_only=True,
    describe=lambda model: {"weights": dict(model.weights_), "threshold": float(model.threshold_)},
)
