"""Declared fitted state of the scikit-learn classifiers this suite saves: one `EstimatorKind` each.

A model file used to rebuild scikit-learn objects from whatever the file named; a crafted file
could run code, and even a file of plain arrays could crash or hang the process, because
scikit-learn's compiled prediction loops trust their fitted arrays (a tree's child links, a
feature index, a sparse matrix's row pointers) without checking them. Here each kind lists the
few fitted numbers and arrays its predictions read, with their dtypes, shapes and ranges, and
its schema's `check` ties them together (a tree's nodes form one tree over the input's columns,
a network's layers chain from the input width to the class count) before any estimator method
runs. Everything else a fitted estimator holds is made by `restore` in this file: losses, label
binarizers, bin mappers and metric settings are built the way scikit-learn's own `fit` builds
them, from the estimator the caller's factory made; worker counts, random states, callables and
method names never come from a file.

Loads bind two sizes before an estimator is read: "n_features" (the width of the input the model
reads) and "labels" (the model's label texts; `CLASSES` checks `classes_` against them and binds
"n_classes"). After `restore`, predict, predict_proba and decision_function on any finite input
of that width index only inside the kept arrays and allocate in proportion to them and to the
input. Tree models cannot produce NaN or infinity for any input (their leaves are fractions, or
boosting sums checked to stay finite). A model that multiplies inputs by weights (linear, naive
Bayes, network, distances) overflows for inputs of astronomical size however it was fitted, so
its check bounds the weights such that inputs up to INPUT_SCALE in magnitude keep every score
finite: a fitted model is never near that bound, a forged one with weights of 1e308 is refused.

Restored estimators predict; they are not set up to continue a warm-started fit (HGB keeps no
bin thresholds, MLP no optimizer state). A fresh `fit` rebuilds everything as usual.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble import (ExtraTreesClassifier, HistGradientBoostingClassifier, HistGradientBoostingRegressor,
                              RandomForestClassifier)
from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper
from sklearn.ensemble._hist_gradient_boosting.common import PREDICTOR_RECORD_DTYPE, X_BITSET_INNER_DTYPE
from sklearn.ensemble._hist_gradient_boosting.predictor import TreePredictor
from sklearn.linear_model import LogisticRegression, Perceptron, RidgeClassifier, SGDClassifier
from sklearn.naive_bayes import BernoulliNB, ComplementNB, GaussianNB, MultinomialNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import LabelBinarizer, LabelEncoder
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier
from sklearn.tree._tree import NODE_DTYPE, TREE_LEAF, TREE_UNDEFINED, Tree
from sklearn.utils.validation import check_is_fitted

from nli_baselines.features.storage.schema import (INPUT_BOUND, MAX_ELEMENTS, Array, Field, Float, Int, Many, Part,
                                                   Schema, Sizes, StateError, require, set_fitted)
from nli_baselines.models.state import CLASSES, SKLEARN_TESTED, EstimatorKind

FLOAT = ("float64", "float32")  # scikit-learn keeps float32 weights for float32 inputs
INDEX = ("int32", "int64")
# Kinds with no array as wide as the input (trees read columns by index) declare their width, so
# that nested with its own width (Part(..., free=("n_features",))) such a model still has one.
WIDTH = Int(lo=1, hi=MAX_ELEMENTS, size="n_features")
# Inputs up to this magnitude get finite scores from any accepted state: the range the featurizer
# clips every column to (`features.storage.schema.INPUT_BOUND`).
INPUT_SCALE = INPUT_BOUND


# ------------------------------------------------------------------ a field kind of this module


@dataclass(frozen=True)
class OneOf(Field):
    """A value kept in exactly one of several declared forms, written {form: state}; `pick(value)`
    names the form of a value being dumped. (An intercept is an array, or the plain 0.0 of a fit
    without one; a KNN's training rows are sparse or dense.)"""

    forms: Mapping[str, Field]
    pick: Callable[[Any], str]

    def dump(self, value, writer, path):
        form = self.pick(value)
        return {form: self.forms[form].dump(value, writer, f"{path}/{form}")}

    def load(self, raw, reader, path, sizes):
        if not isinstance(raw, dict) or len(raw) != 1 or next(iter(raw)) not in self.forms:
            raise StateError(f"{path}: not one of the forms {', '.join(map(repr, self.forms))}")
        (form, inner), = raw.items()
        return self.forms[form].load(inner, reader, f"{path}/{form}", sizes)


# ------------------------------------------------------------------ shared pieces


def _output_width(n_classes: int) -> int:
    """Score columns of a model: one for two classes (the second class's score), else one each."""
    return 1 if n_classes == 2 else n_classes


def _require_classes(sizes: Sizes) -> None:
    require(sizes["n_classes"] >= 2, f"{sizes['n_classes']} class(es); a classifier has at least 2")


def _require_finite_scores(bound, dtype) -> None:
    """`bound`: the largest score magnitude (per class or unit) inputs up to INPUT_SCALE can
    reach, computed in float64; it must stay clear of overflow in the dtype scores are made in."""
    with np.errstate(over="ignore", invalid="ignore"):
        fits = bool(np.all(np.asarray(bound) <= np.finfo(dtype).max / 4))
    require(fits, f"the weights are so large that scores of inputs up to {INPUT_SCALE:g} in size overflow")


def _row_sums(weights: np.ndarray, axis: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.abs(weights).sum(axis=axis, dtype=np.float64)


def _refuse(condition, reason: str) -> None:
    if condition:
        raise ValueError(reason)


def _ready_classifier(estimator) -> None:
    """What every kind needs: fitted, one output of two or more text labels, plain columns."""
    check_is_fitted(estimator)
    classes = getattr(estimator, "classes_", None)
    _refuse(not isinstance(classes, np.ndarray) or classes.ndim != 1,
            "its classes_ is not one list of labels (a multi-output or multilabel fit)")
    _refuse(not all(isinstance(label, str) for label in classes), "its labels are not texts")
    _refuse(len(classes) < 2, "it was fitted on fewer than two classes")
    _refuse(hasattr(estimator, "feature_names_in_"),
            "it was fitted on named columns (a DataFrame); the kept state has no column names")


def _start(estimator, cls: type, values: dict, sizes: Sizes) -> dict:
    """The attributes every restore sets; refuses an estimator of another class, whose methods
    would read these attributes differently. (A subclass is accepted here: a spec that declares
    a kind for its own subclass says it predicts from these attributes; `kind_of` never picks a
    kind for a subclass by itself.)"""
    if not isinstance(estimator, cls):
        raise ValueError(f"a {cls.__name__} state cannot be restored into a {type(estimator).__name__}")
    return {"classes_": values["classes_"], "n_features_in_": sizes["n_features"]}


def _label_binarizer(classes: np.ndarray, **signs) -> LabelBinarizer:
    """A LabelBinarizer as fit(classes) leaves it: what predict's inverse_transform reads."""
    binarizer = LabelBinarizer(**signs)
    binarizer.classes_ = classes
    binarizer.y_type_ = "binary" if len(classes) == 2 else "multiclass"
    binarizer.sparse_input_ = False
    return binarizer


def _kind(cls: type, fields: dict, restore, *, check=None, get=None, ready=_ready_classifier,
          sklearn=SKLEARN_TESTED) -> EstimatorKind:
    """A kind whose schema's build restores into `cls()`, so the schema nests as a Part."""
    extra = {} if get is None else {"get": get}
    schema = Schema(cls.__name__, fields, build=lambda values, sizes: restore(cls(), values, sizes),
                    check=check, **extra)
    return EstimatorKind(cls, schema, restore, ready, sklearn)


# ------------------------------------------------------------------ linear models


def _linear(cls: type, *, n_iter: Field | None = None, scalar_intercept=False, ridge=False) -> EstimatorKind:
    """The five linear kinds: decision = X @ coef_.T + intercept_, classes_ picked from it.

    n_iter: how the kind keeps n_iter_ (informative only); scalar_intercept: fits without an
    intercept keep a plain 0.0 (LinearSVC, RidgeClassifier); ridge: RidgeClassifier's binary
    coef_ is 1-d and its predict reads a LabelBinarizer."""
    intercept: Field = Array(FLOAT, ("n_coef_rows",))
    if scalar_intercept:
        intercept = OneOf({"array": intercept, "number": Float()},
                          pick=lambda value: "number" if np.ndim(value) == 0 else "array")
    fields = {"classes_": CLASSES, "coef_": Array(FLOAT, ("n_coef_rows", "n_features")), "intercept_": intercept}
    if n_iter is not None:
        fields["n_iter_"] = n_iter

    def check(values, sizes):
        _require_classes(sizes)
        rows, want = sizes["n_coef_rows"], _output_width(sizes["n_classes"])
        require(rows == want, f"coef_ has {rows} rows for {sizes['n_classes']} classes (want {want})")
        coef = values["coef_"]
        with np.errstate(over="ignore"):
            reach = INPUT_SCALE * _row_sums(coef, 1) + np.abs(np.asarray(values["intercept_"], dtype=np.float64))
        _require_finite_scores(reach, coef.dtype)

    def restore(estimator, values, sizes):
        fitted = _start(estimator, cls, values, sizes)
        coef = values["coef_"]
        if ridge and coef.shape[0] == 1:
            coef = coef.reshape(-1)
        settable = not (ridge and isinstance(getattr(cls, "classes_", None), property)
                        and cls.classes_.fset is None)  # before scikit-learn 1.8, read from the binarizer
        if not settable:
            fitted.pop("classes_")
        set_fitted(estimator, {**{k: v for k, v in values.items() if settable or k != "classes_"}, **fitted,
                               "coef_": coef})
        if ridge:
            estimator._label_binarizer = _label_binarizer(values["classes_"], pos_label=1, neg_label=-1)
        return estimator

    def ready(estimator):
        _ready_classifier(estimator)
        _refuse(sp.issparse(estimator.coef_), "its coef_ is sparse (sparsify()); call densify() before saving")
        _refuse(np.ndim(estimator.coef_) != 2 and not (ridge and np.ndim(estimator.coef_) == 1),
                f"its coef_ has {np.ndim(estimator.coef_)} dimensions")
        if ridge:
            _refuse(estimator._label_binarizer.y_type_ not in ("binary", "multiclass"), "it is a multilabel fit")

    def get(estimator, name):
        return np.atleast_2d(estimator.coef_) if name == "coef_" else getattr(estimator, name)

    return _kind(cls, fields, restore, check=check, get=get, ready=ready)


# ------------------------------------------------------------------ naive Bayes


def _discrete_nb(cls: type, scores=None) -> EstimatorKind:
    """Multinomial, Bernoulli, Complement NB: scores are X @ W.T plus a term per class; W is
    feature_log_prob_ and the term class_log_prior_ unless `scores(values)` gives others.
    class_count_ is informative (the training class sizes)."""
    fields = {"classes_": CLASSES, "class_count_": Array("float64", ("n_classes",), lo=0),
              "class_log_prior_": Array("float64", ("n_classes",)),
              "feature_log_prob_": Array("float64", ("n_classes", "n_features"))}

    def check(values, sizes):
        _require_classes(sizes)
        weights, offsets = (values["feature_log_prob_"], values["class_log_prior_"]) if scores is None \
            else scores(values)
        with np.errstate(over="ignore"):
            _require_finite_scores(INPUT_SCALE * _row_sums(weights, 1) + np.abs(offsets), np.float64)

    def restore(estimator, values, sizes):
        return set_fitted(estimator, {**values, **_start(estimator, cls, values, sizes)})

    return _kind(cls, fields, restore, check=check)


def _bernoulli_scores(values) -> tuple:
    """BernoulliNB's weights and per-class terms, computed as its _joint_log_likelihood does: a
    log probability of 0 (or one rounding to it) makes log(1 - exp(p)) -inf and scores NaN."""
    log_prob = values["feature_log_prob_"]
    with np.errstate(all="ignore"):
        negative = np.log(1 - np.exp(log_prob))
    require(np.isfinite(negative).all(), "feature_log_prob_ holds a probability of 1 (log 0 for absent features)")
    with np.errstate(over="ignore"):
        return log_prob - negative, np.abs(values["class_log_prior_"]) + _row_sums(negative, 1)


def _gaussian_nb() -> EstimatorKind:
    fields = {"classes_": CLASSES, "class_count_": Array(FLOAT, ("n_classes",), lo=0),
              "class_prior_": Array(FLOAT, ("n_classes",), lo=0, hi=1),
              "theta_": Array(FLOAT, ("n_classes", "n_features")),
              "var_": Array(FLOAT, ("n_classes", "n_features"))}

    def check(values, sizes):
        _require_classes(sizes)
        # Scores divide by var_ and take its log.
        require(values["var_"].size == 0 or values["var_"].min() > 0, "var_ holds a variance that is not positive")
        require(np.isclose(values["class_prior_"].sum(), 1.0), "class_prior_ does not sum to 1")
        # Score of class i: log prior - sum(log(2 pi var)) / 2 - sum((x - theta)^2 / var) / 2. A
        # class of prior 0 scores -inf whatever the rest is, harmlessly; the others must stay finite.
        theta, var = values["theta_"].astype(np.float64), values["var_"].astype(np.float64)
        present = values["class_prior_"] > 0
        with np.errstate(over="ignore", divide="ignore"):
            spread = (INPUT_SCALE + np.abs(theta)) ** 2
            reach = (np.abs(np.log(values["class_prior_"].astype(np.float64)))
                     + 0.5 * np.abs(np.log(2 * np.pi * var)).sum(axis=1) + 0.5 * (spread / var).sum(axis=1))
        _require_finite_scores(spread[present], values["theta_"].dtype)
        _require_finite_scores(reach[present], values["theta_"].dtype)

    def restore(estimator, values, sizes):
        return set_fitted(estimator, {**values, **_start(estimator, GaussianNB, values, sizes)})

    return _kind(GaussianNB, fields, restore, check=check)


# ------------------------------------------------------------------ tree structure


def _check_links(left: np.ndarray, right: np.ndarray, inner: np.ndarray) -> None:
    """The inner nodes' child links make the nodes one tree rooted at node 0: every child is a
    later node (so a walk ends), and every node but the root is the child of exactly one node."""
    n = len(left)
    index = np.flatnonzero(inner)
    lefts, rights = left[inner], right[inner]
    require(((lefts > index) & (lefts < n) & (rights > index) & (rights < n)).all(),
            "a node's child is not a later node of the tree")
    parents = np.bincount(np.concatenate([lefts, rights]).astype(np.intp), minlength=n)
    require(parents[0] == 0 and (parents[1:] == 1).all(), "the nodes are not one tree (a node has no parent or two)")


def _require_thresholds(threshold: np.ndarray) -> None:
    # Both tree kinds use +inf for "only missing values go right"; nothing uses NaN or -inf.
    require(not np.isnan(threshold).any() and not (threshold == -np.inf).any(), "a threshold is NaN or -inf")


def _depths(left: np.ndarray, right: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """Each node's depth, by pointer jumping (log of the depth in numpy steps, where walking
    parent links one level at a time would take one step per level)."""
    n = len(left)
    up = np.zeros(n, dtype=np.intp)
    index = np.flatnonzero(inner)
    up[left[inner].astype(np.intp)] = index
    up[right[inner].astype(np.intp)] = index
    depth = np.ones(n, dtype=np.intp)
    depth[0] = 0
    while up.any():  # depth[i] is the distance from i up to up[i]; the root is its own up
        depth, up = depth + depth[up], up[up]
    return depth


# scikit-learn's Tree: the node columns it pickles, as declared arrays. impurity and the sample
# counts are not read by predict but by feature_importances_, export_text and plot_tree.
TREE = Schema("decision tree", fields={
    "children_left": Array("int64", ("n_nodes",), lo=TREE_LEAF),
    "children_right": Array("int64", ("n_nodes",), lo=TREE_LEAF),
    "feature": Array("int64", ("n_nodes",), lo=TREE_UNDEFINED),
    # +inf: the split that sends only missing values right (as in boosting trees).
    "threshold": Array("float64", ("n_nodes",), finite=False),
    "missing_go_to_left": Array("uint8", ("n_nodes",), hi=1),
    # Classifier trees keep class fractions; predict_proba returns these rows as they are.
    "value": Array("float64", ("n_nodes", 1, "n_classes"), lo=0, hi=1),
    "impurity": Array("float64", ("n_nodes",)),
    "n_node_samples": Array("int64", ("n_nodes",), lo=0),
    "weighted_n_node_samples": Array("float64", ("n_nodes",)),
}, build=lambda values, sizes: _build_tree(values, sizes), check=lambda values, sizes: _check_tree(values, sizes))


def _check_tree(values, sizes):
    left, right, feature = values["children_left"], values["children_right"], values["feature"]
    require(len(left) >= 1, "a tree without nodes")
    # Tree.apply walks while left_child != TREE_LEAF, reading X[:, feature] at each such node.
    leaf = left == TREE_LEAF
    require(np.array_equal(leaf, right == TREE_LEAF), "a node has one child")
    _check_links(left, right, ~leaf)
    inner_features = feature[~leaf]
    require(((inner_features >= 0) & (inner_features < sizes["n_features"])).all(),
            f"a split reads a column outside [0, {sizes['n_features']:,})")
    require((feature[leaf] == TREE_UNDEFINED).all(), f"a leaf has a feature other than {TREE_UNDEFINED}")
    _require_thresholds(values["threshold"])


def _build_tree(values, sizes) -> Tree:
    nodes = np.zeros(len(values["children_left"]), dtype=NODE_DTYPE)
    for name, column in (("left_child", "children_left"), ("right_child", "children_right"), ("feature", "feature"),
                         ("threshold", "threshold"), ("impurity", "impurity"), ("n_node_samples", "n_node_samples"),
                         ("weighted_n_node_samples", "weighted_n_node_samples"),
                         ("missing_go_to_left", "missing_go_to_left")):
        nodes[name] = values[column]
    left = values["children_left"]
    inner = left != TREE_LEAF
    tree = Tree(sizes["n_features"], np.array([sizes["n_classes"]], dtype=np.intp), 1)
    # max_depth sizes decision_path's output per sample: derived from the nodes, never trusted.
    tree.__setstate__({"max_depth": int(_depths(left, values["children_right"], inner).max()),
                       "node_count": len(nodes), "nodes": nodes,
                       "values": np.ascontiguousarray(values["value"], dtype=np.float64)})
    return tree


def _set_tree(estimator, tree: Tree, classes, n_classes: int, n_features: int):
    """What a fitted single-output classifier tree holds besides its Tree."""
    return set_fitted(estimator, {"tree_": tree, "classes_": classes, "n_classes_": np.intp(n_classes),
                                  "n_outputs_": 1, "n_features_in_": n_features})


def _ready_tree(estimator) -> None:
    _ready_classifier(estimator)
    _refuse(estimator.n_outputs_ != 1 or estimator.tree_.n_outputs != 1, "it is a multi-output tree")


def _decision_tree() -> EstimatorKind:
    def check(values, sizes):
        _require_classes(sizes)

    def restore(estimator, values, sizes):
        fitted = _start(estimator, DecisionTreeClassifier, values, sizes)
        return _set_tree(estimator, values["tree_"], fitted["classes_"], sizes["n_classes"], sizes["n_features"])

    return _kind(DecisionTreeClassifier, {"n_features_in_": WIDTH, "classes_": CLASSES, "tree_": Part(TREE)}, restore,
                 check=check, ready=_ready_tree)


def _forest(cls: type, member: type) -> EstimatorKind:
    """A forest keeps its members' Trees only; the members themselves are made by the forest's
    own _make_estimator from its parameters, as fit makes them."""

    def check(values, sizes):
        _require_classes(sizes)
        require(len(values["trees"]) >= 1, "a forest without trees")

    def restore(estimator, values, sizes):
        fitted = _start(estimator, cls, values, sizes)
        n_classes, n_features = sizes["n_classes"], sizes["n_features"]
        estimator._validate_estimator()
        # Members are fitted on class codes 0..n-1 as floats; the forest maps codes to labels.
        codes = np.arange(n_classes, dtype=np.float64)
        # Without a random_state, _make_estimator makes every member alike (a clone of the forest's
        # estimator_ with its estimator_params): made once and copied, as a clone per member took
        # most of the load of a large forest (0.7 ms a member, 35 s for 50,000 trees).
        member = estimator._make_estimator(append=False)
        members = [_set_tree(copy.copy(member), tree, codes, n_classes, n_features) for tree in values["trees"]]
        return set_fitted(estimator, {**fitted, "estimators_": members, "n_classes_": n_classes, "n_outputs_": 1})

    def ready(estimator):
        _ready_classifier(estimator)
        _refuse(estimator.n_outputs_ != 1, "it is a multi-output forest")
        for tree in estimator.estimators_:
            _refuse(type(tree) is not member, f"a member is a {type(tree).__name__}, not a {member.__name__}")
            _refuse(tree.tree_.n_outputs != 1, "a member is a multi-output tree")

    def get(estimator, name):
        return [tree.tree_ for tree in estimator.estimators_] if name == "trees" else getattr(estimator, name)

    fields = {"n_features_in_": WIDTH, "classes_": CLASSES, "trees": Many(Part(TREE))}
    return _kind(cls, fields, restore, check=check, get=get, ready=ready)


# ------------------------------------------------------------------ histogram gradient boosting


# One boosting tree (a TreePredictor's node record), numerical splits only. Not kept: the
# categorical bitsets and bitset_idx (refused), bin_threshold (read only on binned training data,
# inside fit), gain (unused); depth is derived from the links.
PREDICTOR = Schema("boosting tree", fields={
    "value": Array("float64", ("n_nodes",)),
    "count": Array("uint32", ("n_nodes",), lo=1),  # partial_dependence divides by it
    "feature_idx": Array("int64", ("n_nodes",), lo=0),
    # +inf: the split that sends only missing values right.
    "num_threshold": Array("float64", ("n_nodes",), finite=False),
    "missing_go_to_left": Array("uint8", ("n_nodes",), hi=1),
    "left": Array("uint32", ("n_nodes",)),
    "right": Array("uint32", ("n_nodes",)),
    "is_leaf": Array("uint8", ("n_nodes",), hi=1),
    "is_categorical": Array("uint8", ("n_nodes",), hi=1),
}, build=lambda values, sizes: _build_predictor(values), check=lambda values, sizes: _check_predictor(values, sizes),
    get=lambda predictor, name: predictor.nodes[name])


def _check_predictor(values, sizes):
    left, right, feature = values["left"], values["right"], values["feature_idx"]
    require(len(left) >= 1, "a tree without nodes")
    # A categorical split reads bitsets, which are not kept.
    require(not values["is_categorical"].any(), "a categorical split (categorical models are not kept)")
    leaf = values["is_leaf"] == 1
    _check_links(left, right, ~leaf)
    require(((left[leaf] == 0) & (right[leaf] == 0) & (feature[leaf] == 0)).all(), "a leaf has links or a feature")
    require((feature[~leaf] < sizes["n_features"]).all(), f"a split reads a column outside [0, {sizes['n_features']:,})")
    _require_thresholds(values["num_threshold"])


def _build_predictor(values) -> TreePredictor:
    nodes = np.zeros(len(values["left"]), dtype=PREDICTOR_RECORD_DTYPE)
    for name in PREDICTOR.fields:
        nodes[name] = values[name]
    leaf = values["is_leaf"] == 1
    nodes["depth"] = _depths(values["left"], values["right"], ~leaf)
    no_bitsets = np.zeros((0, 8), dtype=X_BITSET_INNER_DTYPE)
    return TreePredictor(nodes, no_bitsets, no_bitsets.copy())


def _hist_gradient_boosting() -> EstimatorKind:
    fields = {"n_features_in_": WIDTH, "classes_": CLASSES,
              "_baseline_prediction": Array("float64", (1, "n_trees_per_iteration")),
              "_predictors": Many(Many(Part(PREDICTOR), size="n_trees_per_iteration"))}

    def check(values, sizes):
        _require_classes(sizes)
        per_iteration, want = sizes["n_trees_per_iteration"], _output_width(sizes["n_classes"])
        require(per_iteration == want, f"{per_iteration} trees per iteration for {sizes['n_classes']} classes (want {want})")
        # A score is the baseline plus one leaf per tree: bounding the sum of the largest leaves
        # keeps every score finite, so probabilities cannot become NaN.
        reach = np.abs(values["_baseline_prediction"][0])
        with np.errstate(over="ignore"):
            for iteration in values["_predictors"]:
                for k, predictor in enumerate(iteration):
                    nodes = predictor.nodes
                    reach[k] += np.abs(nodes["value"][nodes["is_leaf"] == 1]).max()
        require(np.isfinite(reach).all(), "the leaf values can add up to infinity")

    def restore(estimator, values, sizes):
        fitted = _start(estimator, HistGradientBoostingClassifier, values, sizes)
        _refuse(not isinstance(estimator.loss, str), "the estimator's loss is not 'log_loss'")
        encoder = LabelEncoder()
        encoder.classes_ = values["classes_"]
        # fit's own choice of loss: binomial for two classes, multinomial over n otherwise.
        return _set_boosting(estimator, values, sizes, {**fitted, "_label_encoder": encoder})

    def ready(estimator):
        _ready_classifier(estimator)
        _ready_boosting(estimator)
        _refuse(any(predictor.nodes["is_categorical"].any() for iteration in estimator._predictors
                    for predictor in iteration), "it has categorical splits")
        _refuse(not isinstance(estimator.loss, str), "its loss is a loss object, not 'log_loss'")

    return _kind(HistGradientBoostingClassifier, fields, restore, check=check, ready=ready)


def _hist_gradient_boosting_regressor() -> EstimatorKind:
    """HistGradientBoostingRegressor with the squared error: one tree per iteration, a scalar
    baseline, numerical splits only (kept as part of the suite's stacked regressor)."""
    fields = {"n_features_in_": WIDTH,
              "_baseline_prediction": Array("float64", (1, 1)),
              "_predictors": Many(Many(Part(PREDICTOR), size="n_trees_per_iteration"))}

    def check(values, sizes):
        require(sizes["n_trees_per_iteration"] == 1, "a regressor has one tree per iteration")
        reach = abs(float(values["_baseline_prediction"][0, 0]))
        with np.errstate(over="ignore"):
            for (predictor,) in values["_predictors"]:
                nodes = predictor.nodes
                reach += np.abs(nodes["value"][nodes["is_leaf"] == 1]).max()
        require(np.isfinite(reach), "the leaf values can add up to infinity")

    def restore(estimator, values, sizes):
        if not isinstance(estimator, HistGradientBoostingRegressor):
            raise ValueError(f"a HistGradientBoostingRegressor state cannot be restored into a {type(estimator).__name__}")
        _refuse(estimator.loss != "squared_error", "the estimator's loss is not 'squared_error'")
        return _set_boosting(estimator, values, sizes, {"n_features_in_": sizes["n_features"]})

    def ready(estimator):
        check_is_fitted(estimator)
        _ready_boosting(estimator)
        _refuse(estimator.loss != "squared_error", "its loss is not 'squared_error'")

    schema = Schema(HistGradientBoostingRegressor.__name__, fields, check=check,
                    build=lambda values, sizes: restore(HistGradientBoostingRegressor(), values, sizes))
    return EstimatorKind(HistGradientBoostingRegressor, schema, restore, ready)


HIST_GRADIENT_BOOSTING_REGRESSOR = _hist_gradient_boosting_regressor().schema


def _set_boosting(estimator, values, sizes, fitted: dict):
    """Set a boosted model's checked trees and what its predict reads besides (numerical features
    only), then the loss its fit would choose."""
    n_features = sizes["n_features"]
    set_fitted(estimator, {
        **fitted, "n_trees_per_iteration_": sizes["n_trees_per_iteration"],
        "_baseline_prediction": values["_baseline_prediction"], "_predictors": values["_predictors"],
        "_n_features": n_features, "is_categorical_": None, "_preprocessor": None,
        "_is_categorical_remapped": None, "_bin_mapper": _numerical_bin_mapper(estimator, n_features)})
    estimator._loss = estimator._get_loss(sample_weight=None)
    return estimator


def _ready_boosting(estimator) -> None:
    categorical = estimator.is_categorical_
    _refuse(estimator._preprocessor is not None or (categorical is not None and np.any(categorical)),
            "it has categorical features (their category bitsets are not kept)")


def _numerical_bin_mapper(estimator, n_features: int) -> _BinMapper:
    """A bin mapper for numerical features only: predict reads just is_categorical_ (all 0) and
    the thresholds of categorical features (none). Thresholds of numerical features serve binning
    training data, in fit, which makes a mapper of its own; none are kept, so any other use of
    this mapper's thresholds fails (IndexError) rather than binning wrongly."""
    mapper = _BinMapper(n_bins=estimator.max_bins + 1)
    mapper.is_categorical_ = np.zeros(n_features, dtype=np.uint8)
    mapper.missing_values_bin_idx_ = mapper.n_bins - 1
    mapper.bin_thresholds_ = []
    return mapper


# ------------------------------------------------------------------ multi-layer perceptron


# One layer: coef (in, out) and intercept (out,), in a scope of their own so that each layer
# binds its own widths.
LAYER = Schema("layer", fields={"coef": Array(FLOAT, ("n_in", "n_out")), "intercept": Array(FLOAT, ("n_out",))},
               build=lambda values, sizes: (values["coef"], values["intercept"]),
               get=lambda layer, name: layer[0] if name == "coef" else layer[1])


def _mlp() -> EstimatorKind:
    fields = {"classes_": CLASSES, "layers": Many(Part(LAYER)), "n_iter_": Int()}

    def check(values, sizes):
        _require_classes(sizes)
        layers = values["layers"]
        require(len(layers) >= 1, "a network without layers")
        widths = [sizes["n_features"]] + [coef.shape[1] for coef, _ in layers]
        for i, (coef, _) in enumerate(layers):
            require(coef.shape[0] == widths[i], f"layer {i} reads {coef.shape[0]:,} values where {widths[i]:,} come in")
        want = _output_width(sizes["n_classes"])
        require(widths[-1] == want, f"the last layer gives {widths[-1]:,} outputs for {sizes['n_classes']} classes (want {want})")
        # Bounded as if every hidden activation were unbounded (relu, identity): the factory's
        # activation is not known here, and a fitted network is far from this bound anyway.
        reach = INPUT_SCALE
        for coef, intercept in layers:
            with np.errstate(over="ignore"):
                reach = reach * _row_sums(coef, 0).max(initial=0) + np.abs(intercept).max(initial=0)
            _require_finite_scores(reach, coef.dtype)

    def restore(estimator, values, sizes):
        fitted = _start(estimator, MLPClassifier, values, sizes)
        layers, n_classes = values["layers"], sizes["n_classes"]
        return set_fitted(estimator, {
            **fitted, "coefs_": [coef for coef, _ in layers], "intercepts_": [b for _, b in layers],
            "n_layers_": len(layers) + 1, "n_outputs_": _output_width(n_classes), "n_iter_": values["n_iter_"],
            # As fit chooses: softmax over several classes, a logistic unit for two.
            "out_activation_": "logistic" if n_classes == 2 else "softmax",
            "_label_binarizer": _label_binarizer(values["classes_"])})

    def ready(estimator):
        _ready_classifier(estimator)
        _refuse(estimator._label_binarizer.y_type_ not in ("binary", "multiclass"), "it is a multilabel fit")

    def get(estimator, name):
        return list(zip(estimator.coefs_, estimator.intercepts_)) if name == "layers" else getattr(estimator, name)

    return _kind(MLPClassifier, fields, restore, check=check, get=get, ready=ready)


# ------------------------------------------------------------------ nearest neighbours


# The training rows of a sparse brute-force KNN, in canonical form (sorted, distinct columns per
# row): the compiled distance loops walk indptr and index the query by indices. Rows: the
# enclosing object's n_samples. Index dtypes stay as fitted (both int32 or both int64), since
# scikit-learn picks its distance routine by them.
CSR = Schema("sparse rows", fields={
    "data": Array(FLOAT, ("nnz",)),
    "indices": Array(INDEX, ("nnz",), lo=0),
    "indptr": Array(INDEX, ("n_indptr",), lo=0),
}, build=lambda values, sizes: _build_csr(values, sizes), check=lambda values, sizes: _check_csr(values, sizes))


def _check_csr(values, sizes):
    data, indices, indptr = values["data"], values["indices"], values["indptr"]
    require(indices.dtype == indptr.dtype, "indices and indptr differ in dtype")
    require(len(indptr) == sizes["n_samples"] + 1, f"indptr has {len(indptr):,} entries for {sizes['n_samples']:,} rows")
    require(indptr[0] == 0 and indptr[-1] == len(data), "indptr does not run from 0 to the number of values")
    require((np.diff(indptr) >= 0).all(), "indptr decreases")
    require(len(indices) == 0 or indices.max() < sizes["n_features"], f"a column index is not below {sizes['n_features']:,}")
    starts = np.zeros(len(indices), dtype=bool)
    starts[indptr[:-1][indptr[:-1] < len(indices)]] = True
    require(((np.diff(indices) > 0) | starts[1:]).all(), "a row's column indices are not sorted and distinct")


def _build_csr(values, sizes) -> sp.csr_matrix:
    matrix = sp.csr_matrix((values["data"], values["indices"], values["indptr"]),
                           shape=(sizes["n_samples"], sizes["n_features"]))
    # scipy narrows int64 indices that fit in int32; keep the fitted dtype.
    matrix.indices, matrix.indptr = values["indices"], values["indptr"]
    return matrix


def _knn() -> EstimatorKind:
    fields = {"classes_": CLASSES,
              "_y": Array("int64", ("n_samples",), lo=0),  # class codes of the training rows
              "_fit_X": OneOf({"csr": Part(CSR), "dense": Array(FLOAT, ("n_samples", "n_features"))},
                              pick=lambda X: "csr" if sp.issparse(X) else "dense")}

    def check(values, sizes):
        _require_classes(sizes)
        require(sizes["n_samples"] >= 1, "no training rows")
        require(values["_y"].max() < sizes["n_classes"], "a training row's class code is not below the class count")
        # Squared distances (summed in float64) to inputs up to INPUT_SCALE stay finite: the
        # euclidean expansion |x|^2 + |y|^2 - 2xy would make inf - inf = NaN.
        fit_X = values["_fit_X"]
        stored = fit_X.data if sp.issparse(fit_X) else fit_X
        largest = np.abs(stored).max(initial=0).astype(np.float64)  # numpy: overflow gives inf, not an error
        with np.errstate(over="ignore"):
            _require_finite_scores(sizes["n_features"] * (INPUT_SCALE + largest) ** 2, np.float64)

    def restore(estimator, values, sizes):
        fitted = _start(estimator, KNeighborsClassifier, values, sizes)
        n_samples = sizes["n_samples"]
        require(estimator.n_neighbors is None or estimator.n_neighbors <= n_samples,
                f"the estimator asks for {estimator.n_neighbors} neighbours of {n_samples:,} training rows")
        _refuse(estimator.metric == "precomputed", "a precomputed metric reads no training rows")
        estimator._check_algorithm_metric()
        metric, metric_params = _effective_metric(estimator)
        return set_fitted(estimator, {
            **fitted, "_y": values["_y"].astype(np.intp, copy=False), "_fit_X": values["_fit_X"],
            "_fit_method": "brute", "_tree": None, "n_samples_fit_": n_samples, "outputs_2d_": False,
            "effective_metric_": metric, "effective_metric_params_": metric_params})

    def ready(estimator):
        _ready_classifier(estimator)
        _refuse(estimator._fit_method != "brute", f"it searches with a {estimator._fit_method} index "
                "(only brute-force search is kept: fit with algorithm='brute' or on sparse rows)")
        _refuse(estimator.outputs_2d_, "it is a multi-output fit")
        _refuse(estimator.metric == "precomputed", "it was fitted on precomputed distances")
        fit_X = estimator._fit_X
        _refuse(fit_X.dtype not in (np.float32, np.float64), f"its training rows are {fit_X.dtype}, not float")
        if sp.issparse(fit_X):
            _refuse(fit_X.format != "csr" or not fit_X.has_canonical_format,
                    "its sparse training rows are not canonical CSR (call sum_duplicates() before fitting)")
        else:
            _refuse(not np.isfinite(fit_X).all(), "its training rows hold NaN or infinity")

    # Before scikit-learn 1.9 its predict could not map string labels back with uniform weights
    # ("invalid literal for int()"): the kind starts at 1.9.
    return _kind(KNeighborsClassifier, fields, restore, check=check, ready=ready, sklearn=("1.9", SKLEARN_TESTED[1]))


def _effective_metric(estimator) -> tuple:
    """effective_metric_ and effective_metric_params_ from the estimator's metric, p and
    metric_params, as KNeighborsClassifier.fit derives them."""
    params = {} if estimator.metric_params is None else dict(estimator.metric_params)
    if estimator.metric != "minkowski":
        return estimator.metric, params
    p = params.pop("p", estimator.p)
    w = params.pop("w", None)
    if w is None and p in (1, 2, np.inf):
        return {1: "manhattan", 2: "euclidean", np.inf: "chebyshev"}[p], params
    return "minkowski", {**params, "p": p, "w": w}


# ------------------------------------------------------------------ the kinds


SKLEARN_KINDS: dict[type, EstimatorKind] = {kind.cls: kind for kind in (
    _linear(LogisticRegression, n_iter=Array(INDEX, (1,), lo=0)),
    _linear(LinearSVC, n_iter=Int(), scalar_intercept=True),
    _linear(SGDClassifier, n_iter=Int()),
    _linear(RidgeClassifier, scalar_intercept=True, ridge=True),
    _linear(Perceptron, n_iter=Int()),
    _discrete_nb(MultinomialNB),
    _discrete_nb(BernoulliNB, scores=_bernoulli_scores),
    _discrete_nb(ComplementNB),
    _gaussian_nb(),
    _decision_tree(),
    _forest(RandomForestClassifier, DecisionTreeClassifier),
    _forest(ExtraTreesClassifier, ExtraTreeClassifier),
    _hist_gradient_boosting(),
    _mlp(),
    _knn(),
)}

# The schemas other models nest as Parts (a suite model holding one of these inside).
LOGISTIC_REGRESSION = SKLEARN_KINDS[LogisticRegression].schema
HIST_GRADIENT_BOOSTING = SKLEARN_KINDS[HistGradientBoostingClassifier].schema


def kind_of(estimator) -> EstimatorKind | None:
    """The kind that keeps this exact class (a subclass may predict differently: none)."""
    return SKLEARN_KINDS.get(type(estimator))
