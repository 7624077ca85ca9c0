"""Ridge regression, the stacked regressor and the mean score: scikit-learn's objective, warm
paths that land where cold fits do, clipping, and model files."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import Ridge

from nli_baselines.experiments.corpora.task import Task
from nli_baselines.models import MeanRegressor, RidgeRegressor, StackedRegressor, TrainingDataError


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = sp.random(400, 60, density=0.15, random_state=1, format="csr", dtype=np.float64)
    y = np.clip(X @ rng.normal(size=60) + 2.5 + 0.3 * rng.normal(size=400), 0, 5)
    return X, y


@pytest.mark.parametrize("alpha", [0.3, 3.0, 30.0])
def test_ridge_solves_scikit_learns_objective(data, alpha):
    X, y = data
    ours = RidgeRegressor(alpha=alpha, tol=1e-12).fit(X, y)
    theirs = Ridge(alpha=alpha).fit(X.toarray(), y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-8)
    assert ours.intercept_ == pytest.approx(theirs.intercept_, abs=1e-8) and ours.converged_


def test_a_warm_path_lands_where_cold_fits_do_in_fewer_steps(data):
    X, y = data
    alphas = [0.3, 1.0, 3.0, 10.0]
    path = list(RidgeRegressor().fit_path(X, y, alphas))
    cold = [RidgeRegressor(alpha=a).fit(X, y) for a in alphas]
    for warm, fresh in zip(path, cold):
        assert warm.alpha == fresh.alpha
        np.testing.assert_allclose(warm.predict(X), fresh.predict(X), atol=1e-3)
    assert sum(m.n_iter_ for m in path[1:]) < sum(m.n_iter_ for m in cold[1:])


def test_predictions_are_clipped_to_the_score_range(data):
    X, y = data
    model = RidgeRegressor(alpha=0.001, score_range=(1.0, 4.0)).fit(X, y)
    assert model.predict(X).min() >= 1.0 and model.predict(X).max() <= 4.0
    with pytest.raises(ValueError, match="two finite numbers, the lower first"):
        RidgeRegressor(score_range=(4, 1)).fit(X, y)
    stacked = StackedRegressor(score_range=(0.0, 5.0), max_iter=20).fit(X, y)
    assert stacked.predict(X).min() >= 0 and stacked.predict(X).max() <= 5 and stacked.alpha_ in stacked.ridge_errors_


def test_the_mean_predicts_the_training_mean(data):
    X, y = data
    assert MeanRegressor().fit(X, y).predict(X[:3]).tolist() == [pytest.approx(y.mean())] * 3


def test_regressors_save_and_load_as_declared_data(tmp_path, data):
    from nli_baselines.experiments.outputs.model_files import _estimator, kind_for
    from nli_baselines.features.storage.schema import Writer
    from nli_baselines.models import get_model
    X, y = data
    for name, model in (("ridge", RidgeRegressor(alpha=2.0, score_range=(0.0, 5.0)).fit(X, y)),
                        ("stacked_ridge", StackedRegressor(max_iter=10, score_range=(0.0, 5.0)).fit(X, y))):
        kind = kind_for(get_model(name))
        writer = Writer()
        state = kind.schema.dump(model, writer, "estimator")
        from nli_baselines.features.storage.schema import Reader
        hyper = {"alpha": 2.0} if name == "ridge" else {}
        restored, _ = _estimator({"kind": kind.name, "state": state}, get_model(name), hyper, Reader(writer.arrays),
                                 [], X.shape[1])
        np.testing.assert_array_equal(restored.predict(X), model.predict(X))


@pytest.mark.parametrize("model", [RidgeRegressor(), StackedRegressor(max_iter=5), MeanRegressor()],
                         ids=["ridge", "stacked_ridge", "mean"])
@pytest.mark.parametrize("score", [1e300, -1e13, 1e-320, 1e-13, np.nan])
def test_scores_no_fit_can_take_are_refused_in_one_line(data, model, score):
    X, y = data
    y = y.copy()
    y[7] = score
    why = "not a finite number" if np.isnan(score) else "beyond what a fit" if abs(score) > 1 else "too near 0"
    with pytest.raises(TrainingDataError, match=why):
        model.fit(X, y)


def test_scores_at_the_bounds_fit_as_scores_of_one_unit_do(data):
    # Ridge's fit is linear in the scores: scaled up to 1e12 or down to 1e-12 (the bounds), the
    # same weights scaled, and every figure finite; the stacked model's trees (float32 gradients)
    # and the mean alike.
    X, y = data
    task = Task.regression(None)
    base = RidgeRegressor(alpha=3.0, tol=1e-10).fit(X, y)
    size = np.abs(y[y != 0])
    for scale in (1e12 / size.max(), 1e-12 / size.min()):
        fitted = RidgeRegressor(alpha=3.0, tol=1e-10).fit(X, y * scale)
        np.testing.assert_allclose(fitted.coef_ / scale, base.coef_, rtol=1e-6, atol=1e-9)
        figures = task.score(y * scale, fitted.predict(X))
        assert figures == pytest.approx(task.score(y, base.predict(X)), rel=1e-6)
        stacked = StackedRegressor(max_iter=5).fit(X, y * scale)
        assert np.isfinite(stacked.predict(X)).all() and np.isfinite(list(stacked.ridge_errors_.values())).all()
        assert MeanRegressor().fit(X, y * scale).mean_ == pytest.approx(y.mean() * scale)
