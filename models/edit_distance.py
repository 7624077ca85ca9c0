"""The edit-distance classifier of the Excitement Open Platform (EditDistanceEDA), two classes.

Token-level weighted Levenshtein distance from the premise (EOP's text T) to the hypothesis H,
case-insensitive, on words or lemmas, after removing stop words by POS class; normalized by the
cost of deleting all of T plus inserting all of H; entailment when the normalized distance is at
most a threshold found by sequential search over the training distances. With WordNet, a
premise lemma may be replaced free of charge by a hypothesis lemma of the same coarse POS that
is its synonym or hypernym (EOP's lemma + WordNet configuration).

Settings (EOP's choices and ours): `form` (word or lemma), `stop_list` ("basic": punctuation,
prepositions, articles, conjunctions, cardinals; "eop": also DKPro's class O, "other"), and
`weights`: "eop_config" (delete 0, insert 1, substitute 1: EOP's configuration file),
"eop_model" (the weights of EOP's shipped English model) or "tuned": the delete/insert/
substitute triple from `weight_grid` with the best k-fold CV accuracy on the training pairs.
Training accuracy would be the wrong yardstick: on a few hundred pairs every triple scores
within noise of the others. The normalized distance does not change when all three weights are
multiplied by one number, so the grid fixes insert at 1 and varies delete and substitute
relative to it: the directions EOP's search over [0, 5]^3 can reach, with delete 0 among them.
"""
from __future__ import annotations

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.validation import check_is_fitted

from nli_baselines.features.columns.encoding import check_pairs
from nli_baselines.features.labels import ENTAILMENT, NLI2, NOT_ENTAILMENT
from nli_baselines.features.storage.schema import Bool, Choice, Float, Mapping_, Schema, Texts, require, set_fitted
from nli_baselines.features.text.wordnet_relations import free_cells

from .common import TrainingDataError, check_training_labels
from .spec import ModelSpec, Tuning
from .state import EstimatorKind

PUNCTUATION = frozenset({".", ",", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP", "#", "$"})
# DKPro's coarse classes that EOP's English configuration removes, in PTB tags: PUNC, PP (IN, TO),
# ART (DT), CONJ (CC), CARD (CD); "eop" adds O, "other", which in PTB covers these tags.
OTHER = frozenset({"EX", "PDT", "WDT", "RP", "POS", "FW", "LS", "SYM", "UH", "AFX", "ADD", "XX"})
STOP_LISTS = {
    "basic": PUNCTUATION | {"IN", "TO", "DT", "CC", "CD"},
    "eop": PUNCTUATION | {"IN", "TO", "DT", "CC", "CD"} | OTHER,
}
FORMS = ("word", "lemma")
WEIGHT_SCHEMES = {
    "eop_config": {"delete": 0.0, "insert": 1.0, "substitute": 1.0},
    "eop_model": {"delete": 0.495, "insert": 2.665, "substitute": 2.483},
    "tuned": None,
}
# (delete, insert, substitute) triples tried by "tuned": ratios to insert (see the module docstring).
WEIGHT_GRID = tuple((d, 1.0, s) for d in (0.0, 0.1, 0.2, 0.35, 0.5, 1.0, 2.0)
                    for s in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0))
_SCALE = 1000  # rapidfuzz takes integer weights: weights are in thousandths


def content_tokens(pair, stop_tags=STOP_LISTS["basic"], form: str = "word") -> tuple[list[str], list[str]]:
    """Lowercased premise and hypothesis words (or lemmas) without stop words (by POS class)."""
    if form == "lemma" and (pair.premise_lemmas is None or pair.hypothesis_lemmas is None):
        raise ValueError(f"pair {pair.id!r} has no lemmas; annotate it with features.annotate(pairs, lemmas=True)")

    def keep(tokens, tags, lemmas):
        base = lemmas if form == "lemma" else tokens
        return [t.lower() for t, g in zip(base, tags) if g not in stop_tags]
    return (keep(pair.premise_tokens, pair.premise_tags, pair.premise_lemmas),
            keep(pair.hypothesis_tokens, pair.hypothesis_tags, pair.hypothesis_lemmas))


def normalized_distances(premises, hypotheses, delete: float, insert: float, substitute: float,
                         workers: int = 1) -> np.ndarray:
    """Weighted Levenshtein distance T -> H divided by (delete * |T| + insert * |H|); 0 when that is 0."""
    weights = tuple(int(round(w * _SCALE)) for w in (insert, delete, substitute))  # rapidfuzz's order
    raw = process.cpdist(premises, hypotheses, scorer=Levenshtein.distance, scorer_kwargs={"weights": weights},
                         workers=workers, dtype=np.int64)
    t_len = np.fromiter(map(len, premises), dtype=np.float64, count=len(premises))
    h_len = np.fromiter(map(len, hypotheses), dtype=np.float64, count=len(hypotheses))
    norm = weights[1] * t_len + weights[0] * h_len
    return np.divide(raw, norm, out=np.zeros(len(raw)), where=norm > 0)


class Alignments:
    """Token sequences whose alignment counts some substitutions as matches (WordNet's synonyms and
    hypernyms): the match matrices do not depend on the weights, so they are built once and the
    weighted distances are computed for any weights by `distances`."""

    def __init__(self, premises, hypotheses, free, chunk: int = 4096):
        self.t_len = np.fromiter(map(len, premises), dtype=np.int64, count=len(premises))
        self.h_len = np.fromiter(map(len, hypotheses), dtype=np.int64, count=len(hypotheses))
        vocabulary: dict[str, int] = {}
        self.chunks = []  # (start, stop, matches: bool (pairs, longest premise, longest hypothesis))
        for start in range(0, len(premises), chunk):
            stop = min(start + chunk, len(premises))
            matches = np.zeros((stop - start, int(self.t_len[start:stop].max(initial=0)),
                                int(self.h_len[start:stop].max(initial=0))), dtype=bool)
            for k in range(start, stop):
                t_ids = np.fromiter((vocabulary.setdefault(w, len(vocabulary)) for w in premises[k]), dtype=np.int64)
                h_ids = np.fromiter((vocabulary.setdefault(w, len(vocabulary)) for w in hypotheses[k]), dtype=np.int64)
                matches[k - start, :len(t_ids), :len(h_ids)] = t_ids[:, None] == h_ids[None, :]
                for i, j in free[k]:
                    matches[k - start, i, j] = True
            self.chunks.append((start, stop, matches))

    def __len__(self) -> int:
        return len(self.t_len)

    def distances(self, delete: float, insert: float, substitute: float) -> np.ndarray:
        """Weighted edit distances T -> H normalized like `normalized_distances`.

        The dynamic programme runs for many pairs at once, one premise position at a time: a row
        D[i][j] = min(D[i-1][j-1] + cost, D[i-1][j] + delete, D[i][j-1] + insert) is, after its
        first two terms, a prefix minimum: D[i][j] = min over k <= j of (R[k] + (j - k) * insert).
        """
        raw = np.zeros(len(self))
        for start, stop, matches in self.chunks:
            t_len, h_len = self.t_len[start:stop], self.h_len[start:stop]
            steps = np.arange(matches.shape[2] + 1) * insert
            row = np.tile(steps, (stop - start, 1))  # D[0][j] = j inserts
            out = np.where(t_len == 0, steps[h_len], 0.0)
            for i in range(1, matches.shape[1] + 1):
                cost = np.where(matches[:, i - 1, :], 0.0, substitute)
                through = np.minimum(row[:, :-1] + cost, row[:, 1:] + delete)
                row = np.minimum.accumulate(np.column_stack([row[:, 0] + delete, through]) - steps, axis=1) + steps
                ends = t_len == i
                out[ends] = row[ends, h_len[ends]]
            raw[start:stop] = out
        norm = delete * self.t_len + insert * self.h_len
        return np.divide(raw, norm, out=np.zeros(len(raw)), where=norm > 0)

    def take(self, idx) -> "Alignments":
        """The alignments of pairs `idx` (a tuning sample)."""
        out = object.__new__(Alignments)
        out.t_len, out.h_len = self.t_len[idx], self.h_len[idx]
        whole = np.zeros((len(idx), int(out.t_len.max(initial=0)), int(out.h_len.max(initial=0))), dtype=bool)
        for n, k in enumerate(idx):
            start, _, matches = next(c for c in self.chunks if c[0] <= k < c[1])
            whole[n, :out.t_len[n], :out.h_len[n]] = matches[k - start, :out.t_len[n], :out.h_len[n]]
        out.chunks = [(0, len(idx), whole)]
        return out


def exact_distances(premises, hypotheses, free, delete: float, insert: float, substitute: float,
                    chunk: int = 4096) -> np.ndarray:
    """Like `normalized_distances`, where `free` (per pair, the (premise, hypothesis) positions that
    may be substituted at no cost) also count as matches: the exact alignment (`Alignments`)."""
    return Alignments(premises, hypotheses, free, chunk).distances(delete, insert, substitute)


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


def cv_threshold_accuracy(distances: np.ndarray, entails: np.ndarray, folds) -> float:
    """Accuracy of the threshold rule on held-out folds, each threshold searched on the other folds."""
    correct = 0
    for train, test in folds:
        threshold, _ = best_threshold(distances[train], entails[train])
        correct += int(np.sum((distances[test] <= threshold) == entails[test]))
    return correct / len(distances)


# A grid search fits the same fold's pairs once per weight scheme: their tokens (and WordNet
# alignments) are kept for the most recent pair lists, up to _RECENT_PAIRS pairs in all (a
# search over SICK cycles through ~80 lists of 900-3,600 pairs). Keys hold object ids, so each
# entry also holds its pairs, which keeps the ids from being reused while the entry lives.
_RECENT: dict = {}
_RECENT_PAIRS = 300_000


class EditDistanceClassifier(ClassifierMixin, BaseEstimator):
    """Entailment iff the normalized weighted edit distance T -> H is at most `threshold_`.

    form: "word" or "lemma" (lemmas need `features.annotate(pairs, lemmas=True)`).
    stop_list: a name in `STOP_LISTS` ("basic" or "eop").
    weights: a name in `WEIGHT_SCHEMES`; "tuned" picks the (delete, insert, substitute) triple of
        `weight_grid` with the best `cv_folds`-fold CV accuracy on the training pairs (ties: the
        lighter triple).
    delete, insert, substitute: fixed weights, overriding the scheme for the ones given.
    wordnet: substitution from a premise lemma to a hypothesis lemma that is its WordNet synonym
        or hypernym (same coarse POS) costs nothing; needs WordNet (`experiments/download.py wordnet`).
    tune_max_pairs: tune weights on a seeded sample of at most this many training pairs (SNLI
        scale); the threshold is then searched on all training pairs.
    Input: annotated pairs. Labels: entailment / not_entailment.
    """

    def __init__(self, *, form: str = "word", stop_list: str = "eop", weights: str = "tuned",
                 delete: float | None = None, insert: float | None = None, substitute: float | None = None,
                 weight_grid=WEIGHT_GRID, wordnet: bool = False, cv_folds: int = 5, tune_max_pairs: int = 20_000,
                 random_state: int = 0, n_jobs: int = 1):
        self.form = form
        self.stop_list = stop_list
        self.weights = weights
        self.delete = delete
        self.insert = insert
        self.substitute = substitute
        self.weight_grid = weight_grid
        self.wordnet = wordnet
        self.cv_folds = cv_folds
        self.tune_max_pairs = tune_max_pairs
        self.random_state = random_state
        self.n_jobs = n_jobs

    @property
    def needs_lemmas(self) -> bool:
        """Whether its input pairs must carry lemmas (`features.annotate(..., lemmas=True)`)."""
        return self.form == "lemma" or bool(self.wordnet)

    def _check_params(self) -> None:
        for name, value, allowed in (("form", self.form, FORMS), ("stop_list", self.stop_list, tuple(STOP_LISTS)),
                                     ("weights", self.weights, tuple(WEIGHT_SCHEMES))):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")

    def _tokens(self, pairs):
        """(premises, hypotheses): kept tokens per pair; with WordNet, (Alignments, None): the
        exact alignment with free substitutions, built once for every weight tried."""
        pairs = check_pairs(pairs)
        key = (self.form, self.stop_list, bool(self.wordnet), tuple(map(id, pairs)))
        cached = _RECENT.pop(key, None)
        if cached is not None:
            _RECENT[key] = cached  # most recently used last
            return cached[1]
        sides = [content_tokens(p, STOP_LISTS[self.stop_list], self.form) for p in pairs]
        premises, hypotheses = [t for t, _ in sides], [h for _, h in sides]
        if self.wordnet:
            result = Alignments(premises, hypotheses, free_cells(pairs, STOP_LISTS[self.stop_list])), None
        else:
            result = premises, hypotheses
        # Kept with the pairs themselves, whose ids in the key therefore stay theirs.
        _RECENT[key] = (pairs, result)
        while sum(len(entry[0]) for entry in _RECENT.values()) > _RECENT_PAIRS and len(_RECENT) > 1:
            _RECENT.pop(next(iter(_RECENT)))
        return result

    def _distances(self, premises, hypotheses, weights) -> np.ndarray:
        if isinstance(premises, Alignments):
            return premises.distances(*weights)
        return normalized_distances(premises, hypotheses, *weights, workers=self.n_jobs)

    def fit(self, pairs, y):
        self._check_params()
        y = check_training_labels(y)
        unknown = set(y) - set(NLI2)
        if unknown:
            raise TrainingDataError(f"edit distance is two-class (entailment/not_entailment); got {sorted(unknown)}"
                                    " (use --two-class)")
        premises, hypotheses = self._tokens(pairs)
        entails = y == ENTAILMENT
        scheme = WEIGHT_SCHEMES[self.weights] or {}
        fixed = [given if given is not None else scheme.get(name)
                 for name, given in zip(("delete", "insert", "substitute"), (self.delete, self.insert, self.substitute))]
        self.tuning_scores_ = {}
        if None in fixed:
            weights = self._tune(premises, hypotheses, entails, fixed)
        else:
            weights = tuple(float(w) for w in fixed)
        self.weights_ = dict(zip(("delete", "insert", "substitute"), weights))
        distances = self._distances(premises, hypotheses, weights)
        self.threshold_, self.train_accuracy_ = best_threshold(distances, entails)
        self.classes_ = np.array(NLI2, dtype=object)
        return self

    def _tune(self, premises, hypotheses, entails, fixed) -> tuple[float, float, float]:
        """The weight triple with the best CV accuracy of the threshold rule (ties: the lighter)."""
        rng = np.random.default_rng(self.random_state)
        sample = np.arange(len(entails))
        if len(sample) > self.tune_max_pairs:
            sample = np.sort(rng.choice(len(entails), self.tune_max_pairs, replace=False))
        se = entails[sample]
        if isinstance(premises, Alignments):
            sp_, sh_ = (premises if len(sample) == len(entails) else premises.take(sample)), None
        else:
            sp_, sh_ = [premises[i] for i in sample], [hypotheses[i] for i in sample]
        counts = np.bincount(se.astype(int), minlength=2)
        k = max(2, min(self.cv_folds, int(counts.min())))
        folds = list(StratifiedKFold(k, shuffle=True, random_state=self.random_state).split(np.zeros(len(se)), se)) \
            if counts.min() >= 2 else [(np.arange(len(se)), np.arange(len(se)))]
        grid = [tuple(fixed[i] if fixed[i] is not None else float(w[i]) for i in range(3)) for w in self.weight_grid]
        scores = {}
        for weights in dict.fromkeys(grid):  # in grid order, duplicates once
            if weights[0] == weights[1] == 0:
                continue  # nothing to normalize by: every distance is 0
            scores[weights] = cv_threshold_accuracy(self._distances(sp_, sh_, weights), se, folds)
        self.tuning_scores_ = scores
        return max(scores, key=lambda w: (scores[w], -sum(w)))

    def distance(self, pairs) -> np.ndarray:
        check_is_fitted(self, "weights_")
        premises, hypotheses = self._tokens(pairs)
        w = self.weights_
        return self._distances(premises, hypotheses, (w["delete"], w["insert"], w["substitute"]))

    def explain(self, pairs) -> list[str]:
        """Per pair, the distance against the threshold that decided it."""
        distances = self.distance(pairs)
        return [f"distance {d:.3f} {'<=' if d <= self.threshold_ else '>'} threshold {self.threshold_:.3f}"
                for d in distances]

    def decision_function(self, pairs) -> np.ndarray:
        """threshold - distance: positive means entailment."""
        return self.threshold_ - self.distance(pairs)

    def predict(self, pairs) -> np.ndarray:
        return np.where(self.decision_function(pairs) >= 0, ENTAILMENT, NOT_ENTAILMENT).astype(object)


def _describe(model) -> dict:
    return {"form": model.form, "stop_list": model.stop_list, "weights": model.weights, "wordnet": model.wordnet,
            "weight_values": dict(model.weights_), "threshold": float(model.threshold_)}


def _check_state(values, sizes) -> None:
    weights = values["weights_"]
    require(set(weights) == {"delete", "insert", "substitute"}, "the weights must be delete, insert and substitute")
    require(weights["delete"] + weights["insert"] > 0, "delete and insert both weigh 0: no distance can be normalized")
    require(values["classes_"] == list(NLI2), f"the classes must be {', '.join(NLI2)}")


def _restore(estimator, values, sizes):
    return set_fitted(estimator, {**values, "classes_": np.array(NLI2, dtype=object)})


# Weights as EOP's search range allows ([0, 5]); the threshold is a normalized distance.
STATE = EstimatorKind(EditDistanceClassifier, Schema("EditDistanceClassifier", {
    "weights_": Mapping_(Float(lo=0.0, hi=5.0), keys=("delete", "insert", "substitute")),
    "threshold_": Float(lo=-1.0, hi=1e6),
    "train_accuracy_": Float(lo=0.0, hi=1.0),
    "classes_": Texts(),
}, check=_check_state), restore=_restore)

SPEC = ModelSpec(
    name="edit_distance",
    factory=EditDistanceClassifier,
    title="edit distance (2-class)",
    input="pairs",
    two_class_only=True,
    needs_lemmas=True,
    # Chosen by CV on train even where there is a dev split: EOP tunes on its training data only.
    tuning=Tuning(grid={"form": FORMS, "stop_list": ("basic", "eop"), "weights": ("tuned", "eop_model", "eop_config")},
                  on="cv"),
    hyperparameters={"form": Choice(FORMS), "stop_list": Choice(tuple(STOP_LISTS)),
                     "weights": Choice(tuple(WEIGHT_SCHEMES)), "wordnet": Bool()},
    state=STATE,
    explain=EditDistanceClassifier.explain,
    describe=_describe,
)
