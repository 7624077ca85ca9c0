"""Published figures that the suite's results are shown next to (test-set accuracy, %).

A figure is found by what a row is (dataset, model, feature types, number of classes), not by
the row's name, so `--ablate cross_bigrams` finds the paper's "unigrams only" figure too. The
SNLI paper's Table 4 rows are systems of the Excitement Open Platform (EOP): its
"classifier-based" row is EOP's MaxEnt classifier, not the paper's own logistic regression
(Table 5, three classes), so a two-class logistic regression is shown next to EOP's figure
under EOP's name.
"""
from __future__ import annotations

from dataclasses import dataclass

from nli_baselines.features.registry import GROUPS


@dataclass(frozen=True)
class Source:
    key: str
    text: str


TABLE5 = Source("T5", "SNLI paper Table 5: the paper's logistic regression, 3-class test")
TABLE4_CLASSIFIER = Source("T4c", "SNLI paper Table 4: EOP's MaxEnt classifier ('classifier-based'), 2-class test")
TABLE4_EDIT = Source("T4e", "SNLI paper Table 4: EOP's edit distance, 2-class test")
TABLE4_MAJORITY = Source("T4m", "SNLI paper Table 4: majority class, 2-class test")
TABLE4_LEXICAL = Source("T4l", "SNLI paper Table 4: EOP's classifier + lexical resources (WordNet), 2-class test")
EOP_WORDNET = Source("EOP", "EOP's own RTE-3 result: edit distance on lemmas with WordNet, 2-class test")
SEMEVAL_BEST = Source("S14", "SemEval-2014 Task 1's best system (Illinois-LH, feature-based), 3-class test")


@dataclass(frozen=True)
class Figure:
    value: float
    source: Source


def _types(group: str) -> frozenset:
    return frozenset(GROUPS[group])


# (dataset, model, feature types or None, classes) -> figure
FIGURES: dict[tuple, Figure] = {}
for _dataset, _values in {"snli": (78.2, 71.6, 50.4), "sick": (77.8, 77.0, 69.6)}.items():
    for _group, _value in zip(("lexicalized", "unigrams_only", "unlexicalized"), _values):
        FIGURES[(_dataset, "lr", _types(_group), 3)] = Figure(_value, TABLE5)
for _dataset, (_edit, _classifier) in {"snli": (71.9, 72.2), "sick": (65.4, 71.4), "rte3": (61.9, 61.5)}.items():
    FIGURES[(_dataset, "edit_distance", None, 2)] = Figure(_edit, TABLE4_EDIT)
    FIGURES[(_dataset, "lr", _types("lexicalized"), 2)] = Figure(_classifier, TABLE4_CLASSIFIER)
for _dataset, _value in {"snli": 66.0, "sick": 71.0}.items():
    FIGURES[(_dataset, "majority", None, 2)] = Figure(_value, TABLE4_MAJORITY)
for _dataset, _value in {"snli": 75.0, "sick": 78.8, "rte3": 63.6}.items():
    FIGURES[(_dataset, "lr", frozenset(GROUPS["lexicalized"]) | {"wordnet"}, 2)] = Figure(_value, TABLE4_LEXICAL)
# Beyond the paper: the strongest classical rows beside the best systems of their time.
for _model in ("lr", "stacked"):
    FIGURES[("sick", _model, _types("strongest"), 3)] = Figure(84.6, SEMEVAL_BEST)
    FIGURES[("rte3", _model, _types("strongest"), 2)] = Figure(64.375, EOP_WORDNET)
# Edit distance rows are told apart by whether they used WordNet (`row["fitted"]["wordnet"]`).
FIGURES[("rte3", "edit_distance+wordnet", None, 2)] = Figure(64.375, EOP_WORDNET)

# The SNLI paper's Figure 4 (SNLI test accuracy %); x = training pairs, 550,152 = all.
SNLI_LEARNING_CURVE = {
    "lexicalized": {1: 33.3, 10: 40.1, 100: 47.6, 1000: 57.7, 10000: 67.4, 50000: 71.9, 100000: 74.0,
                    250000: 76.8, 550152: 78.2},
    "unlexicalized": {1: 33.4, 10: 43.4, 100: 46.1, 1000: 48.5, 10000: 49.7, 50000: 49.9, 100000: 50.3,
                      250000: 50.5, 550152: 50.4},
}


def published(dataset: str, model: str, feature_types, n_classes: int, wordnet: bool = False) -> Figure | None:
    """The published figure for this kind of row, if there is one (`wordnet`: a model that used
    WordNet itself, as edit distance can)."""
    types = frozenset(feature_types) if feature_types else None
    return FIGURES.get((dataset, model + ("+wordnet" if wordnet else ""), types, n_classes))

# Published learning curves a plot can draw beside ours: name -> (points per config, legend text).
CURVE_REFERENCES = {"snli-paper": (SNLI_LEARNING_CURVE, "SNLI paper, Fig. 4 (SNLI test)")}
