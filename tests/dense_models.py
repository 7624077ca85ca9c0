"""Users' own classes around scikit-learn estimators that need dense input, as model-file tests
register them: their specs declare the kind they save as (`ModelSpec.state`)."""
from __future__ import annotations

from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.naive_bayes import GaussianNB

from nli_baselines.models.sklearn_kinds import SKLEARN_KINDS
from nli_baselines.models.state import EstimatorKind


class DenseGaussian(GaussianNB):
    """Gaussian naive Bayes on the sparse matrix made dense."""

    def fit(self, X, y):
        return super().fit(X.toarray(), y)

    def predict(self, X):
        return super().predict(X.toarray())

    def predict_proba(self, X):
        return super().predict_proba(X.toarray())


class DenseBoosting(HistGradientBoostingClassifier):
    """Gradient boosting on the sparse matrix made dense."""

    def fit(self, X, y):
        return super().fit(X.toarray(), y)

    def predict(self, X):
        return super().predict(X.toarray())

    def decision_function(self, X):
        return super().decision_function(X.toarray())

    def predict_proba(self, X):
        return super().predict_proba(X.toarray())


def declared_as(cls, base) -> EstimatorKind:
    """The kind of a user's subclass: the base class's schema and restore, declared in its spec."""
    kind = SKLEARN_KINDS[base]
    return EstimatorKind(cls, kind.schema, kind.restore)
