"""Why a model says what it says: its strongest features per class, and per pair the features that
pushed it to its prediction (for error analysis), as readable names with their weights."""
from __future__ import annotations

import numpy as np

# How a regressor's single row of weights is read: the columns that raise the predicted score,
# and (the row negated) those that lower it.
RAISING, LOWERING = "higher scores", "lower scores"


def classes_of(model, task) -> list:
    """The names `top_features` gives a model's rows of weights: its classes, or for a score task
    the two directions of its one row."""
    return [RAISING, LOWERING] if task.is_scores else list(model.classes_)


def top_features(weights: np.ndarray, classes, featurizer, cols: np.ndarray | None, k: int) -> dict:
    """Per class, the k highest-weighted columns as (readable name, weight).

    weights: (n_classes, n_columns), as the model's spec gives them (`ModelSpec.weights`); a
        regressor's one row with `classes` (RAISING, LOWERING) is read both ways."""
    weights = np.asarray(weights)
    if len(weights) == 1 and list(classes) == [RAISING, LOWERING]:
        weights = np.vstack([weights[0], -weights[0]])
    out = {}
    for label, row in zip(classes, weights):
        best = np.argsort(-row, kind="stable")[:k]
        out[str(label)] = [[featurizer.feature_name(int(cols[i] if cols is not None else i)), float(row[i])]
                           for i in best]
    return out


def explain_examples(spec, model, featurizer, cols: np.ndarray | None, X, gold, predicted, pairs,
                     k: int = 3, task=None) -> dict:
    """Per scored pair: id, texts, gold and predicted label, whether it is correct, the model's
    confidence (the probability of its prediction, where it has probabilities) and the k features
    that pushed it most toward its prediction, each with its value and contribution
    (`hyp_ngrams:not=1 (+1.21); overlap:pct_content=0.00 (+0.54)`), or the model's own account
    (`explain`). `spec`: the model's ModelSpec, which says how it explains itself.

    X: the scored inputs, or None when the predictions are out of fold (a model fitted on all of
    train would explain pairs it was trained on, so confidence and features stay empty).
    task: a score task's pairs get `error` (the absolute error) in place of correct and
        confidence, and the k features that moved the score most, either way, each with its sign.
    """
    if task is not None and task.is_scores:
        return _explain_scores(spec, model, featurizer, cols, X, gold, predicted, pairs, k)
    n = len(pairs)
    confidence, reasons = [None] * n, [""] * n
    if X is not None and hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        column = {c: i for i, c in enumerate(model.classes_)}
        confidence = [float(proba[i, column[label]]) for i, label in enumerate(predicted)]
    if X is not None and spec.explain is not None:
        reasons = list(spec.explain(model, X))
    elif X is not None and spec.weights is not None and featurizer is not None:
        reasons = _pushing_features(spec.weights(model), model.classes_, featurizer, cols, X, predicted, k)
    gold = [str(g) for g in gold]
    predicted = [str(x) for x in predicted]
    return {"id": [p.id for p in pairs], "premise": [p.premise for p in pairs],
            "hypothesis": [p.hypothesis for p in pairs], "gold": gold, "predicted": predicted,
            "correct": [g == x for g, x in zip(gold, predicted)], "confidence": confidence, "top_features": reasons}


def _explain_scores(spec, model, featurizer, cols, X, gold, predicted, pairs, k: int) -> dict:
    gold, predicted = np.asarray(gold, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    reasons = [""] * len(pairs)
    if X is not None and spec.explain is not None:
        reasons = list(spec.explain(model, X))
    elif X is not None and spec.weights is not None and featurizer is not None:
        reasons = _moving_features(np.asarray(spec.weights(model))[0], featurizer, cols, X, k)
    return {"id": [p.id for p in pairs], "premise": [p.premise for p in pairs],
            "hypothesis": [p.hypothesis for p in pairs], "gold": gold.tolist(), "predicted": predicted.tolist(),
            "error": np.abs(predicted - gold).tolist(), "top_features": reasons}


def _moving_features(weights, featurizer, cols, X, k: int) -> list[str]:
    """Per row, the k features whose value x weight moved the predicted score most, either way."""
    X = X.tocsr()
    out = []
    for i in range(X.shape[0]):
        idx, values = X.indices[X.indptr[i]:X.indptr[i + 1]], X.data[X.indptr[i]:X.indptr[i + 1]]
        contribution = values * weights[idx]
        best = np.argsort(-np.abs(contribution), kind="stable")[:k]
        out.append(_shown(featurizer, cols, idx, values, contribution, [j for j in best if contribution[j] != 0]))
    return out


def _shown(featurizer, cols, idx, values, contribution, chosen) -> str:
    """`hyp_ngrams:not (+1.21); overlap:pct_content=0 (+0.54)`: the chosen entries of one row,
    each with its value as the feature computed it (none for an indicator) and its contribution."""
    parts = []
    for j in chosen:
        feature = int(cols[idx[j]] if cols is not None else idx[j])
        value = featurizer.raw_value(feature, float(values[j]))
        shown = "" if value is None else f"={_value(value)}"
        parts.append(f"{featurizer.feature_name(feature)}{shown} ({contribution[j]:+.2f})")
    return "; ".join(parts)


def _pushing_features(weights, classes, featurizer, cols, X, predicted, k: int) -> list[str]:
    # A softmax prediction moves with a feature's weight for the class relative to the other
    # classes: centre each column's weights across classes before multiplying by the value.
    # A scaled real value enters as (value - training mean) / spread, so it pushes even at 0:
    # the name shows the value itself, the contribution what the model made of it.
    centred = weights - weights.mean(axis=0, keepdims=True)
    column = {c: i for i, c in enumerate(classes)}
    X = X.tocsr()
    out = []
    for i, label in enumerate(predicted):
        idx, values = X.indices[X.indptr[i]:X.indptr[i + 1]], X.data[X.indptr[i]:X.indptr[i + 1]]
        contribution = values * centred[column[label], idx]
        best = np.argsort(-contribution, kind="stable")[:k]
        out.append(_shown(featurizer, cols, idx, values, contribution, [j for j in best if contribution[j] > 0]))
    return out


def _value(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"
