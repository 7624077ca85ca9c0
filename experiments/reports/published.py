"""Every published figure the suite prints or documents beside its own, each with its source:
paper, DOI or arXiv id and version, table (or figure), row, column, split.

One table, `FIGURES`; what prints a published figure reads it from here: the run table's
"published (test)" column (`published`), the learning curve's reference points
(`SNLI_LEARNING_CURVE`), the GLUE benchmark's paper columns (`glue_dev`). `read_in` says where
the project read each figure: in the source itself, or in DESIGN.md's reading of it (section 5,
which names the source), when the source's table could not be read here.

A figure is found for a run's row by what the row is (dataset, model, feature types, number of
classes), not by its name, so `--ablate cross_bigrams` finds the paper's "unigrams only" figure
too. The SNLI paper's Table 4 rows are systems of the Excitement Open Platform (EOP): its
"classifier-based" row is EOP's MaxEnt classifier, not the paper's own logistic regression
(Table 5, three classes), so a two-class logistic regression is shown next to EOP's figure under
EOP's name.

HANS (McCoy et al. 2019) and SuperGLUE are scored by the suite, but no figure of their papers is
printed or documented beside the suite's (the guide describes HANS's lesson in words: near 100%
on entailed pairs, near 0% on non-entailed ones), so none is here.
"""
from __future__ import annotations

from dataclasses import dataclass

from nli_baselines.features.registry import GROUPS


@dataclass(frozen=True)
class Paper:
    """A published source: who, what, and the identifier that finds the exact version."""

    key: str  # how this module names it
    short: str  # how a table's notes name it
    cite: str  # authors, year, title, venue
    identifier: str  # "DOI ...", "arXiv ID vN", or where a non-paper source lives


SNLI = Paper("snli", "SNLI paper", "Bowman, Angeli, Potts and Manning 2015, A large annotated corpus for learning natural language "
                     "inference, EMNLP 2015", "DOI 10.18653/v1/D15-1075")
EOP = Paper("eop", "EOP", "the Excitement Open Platform's EditDistanceEDA, its documented RTE-3 results (Padó et al. 2015, "
                   "Natural Language Engineering 21(2), describes the platform)",
            "github.com/hltfbk/Excitement-Open-Platform")
SEMEVAL = Paper("semeval2014", "SemEval-2014 Task 1", "Marelli, Bentivogli, Baroni, Bernardi, Menini and Zamparelli 2014, SemEval-2014 Task 1: "
                               "Evaluation of Compositional Distributional Semantic Models on Full Sentences through "
                               "Semantic Relatedness and Textual Entailment, SemEval 2014", "DOI 10.3115/v1/S14-2001")
SEMEVAL2017 = Paper("semeval2017", "SemEval-2017 Task 1", "Cer, Diab, Agirre, Lopez-Gazpio and Specia 2017, SemEval-2017 Task 1: "
                                   "Semantic Textual Similarity Multilingual and Cross-lingual Focused Evaluation, "
                                   "SemEval 2017", "arXiv 1708.00055v1")
GLUE = Paper("glue", "GLUE paper", "Wang, Singh, Michael, Hill, Levy and Bowman 2019, GLUE: A Multi-Task Benchmark and Analysis "
                     "Platform for Natural Language Understanding, ICLR 2019", "arXiv 1804.07461v3")

# Where the project read a figure (`Figure.read_in`).
DESIGN = "DESIGN.md section 5 (its reading of the source)"
SOURCE = "the source itself"
ISSUE_47 = "issue 47's reading of the source (its table could not be read here)"
EARLIER = "the suite's earlier GLUE table (not in DESIGN.md; its source not re-read here)"


@dataclass(frozen=True)
class Figure:
    """One published figure: `value` in percent (accuracy, F1, x 100 correlations) as the source prints it."""

    paper: Paper
    table: str  # "Table 5", "Figure 4", "Table 6"
    row: str  # the source's row (a system, a model)
    column: str  # the source's column (a corpus, a task and metric, a training size)
    split: str  # "test" or "dev"
    value: float
    read_in: str = DESIGN
    note: str = ""  # what the figure is, where the row's name does not say

    @property
    def source(self) -> str:
        """`GLUE: ... (arXiv 1804.07461v3), Table 6, row GenSen, column RTE (dev)`."""
        return (f"{self.paper.cite} ({self.paper.identifier}), {self.table}, row {self.row}, column {self.column} "
                f"({self.split})")


def _snli_table5() -> list[Figure]:
    values = {"Lexicalized": (78.2, 77.8), "Unigrams Only": (71.6, 77.0), "Unlexicalized": (50.4, 69.6)}
    return [Figure(SNLI, "Table 5", row, f"{corpus} test", "test", value, note="the paper's logistic regression, "
                   "3-class accuracy")
            for row, pair in values.items() for corpus, value in zip(("SNLI", "SICK"), pair)]


def _snli_table4() -> list[Figure]:
    values = {"Edit Distance Based": (71.9, 65.4, 61.9), "Classifier Based": (72.2, 71.4, 61.5),
              "+ Lexical Resources": (75.0, 78.8, 63.6)}
    notes = {"Edit Distance Based": "EOP's edit distance, 2-class accuracy",
             "Classifier Based": "EOP's MaxEnt classifier ('classifier-based'), 2-class accuracy",
             "+ Lexical Resources": "EOP's classifier + lexical resources (WordNet), 2-class accuracy"}
    out = [Figure(SNLI, "Table 4", row, corpus, "test", value, note=notes[row])
           for row, triple in values.items() for corpus, value in zip(("SNLI", "SICK", "RTE-3"), triple)]
    # DESIGN.md gives the majority class with Table 4 ("majority class is 66% on SNLI, 71% on SICK").
    out += [Figure(SNLI, "Table 4", "majority class", corpus, "test", value, note="majority class, 2-class accuracy")
            for corpus, value in (("SNLI", 66.0), ("SICK", 71.0))]
    return out


# The SNLI paper's Figure 4 (SNLI test accuracy %); column = training pairs, 550,152 = all.
_CURVE_SIZES = (1, 10, 100, 1000, 10000, 50000, 100000, 250000, 550152)
_CURVE = {"Lexicalized": (33.3, 40.1, 47.6, 57.7, 67.4, 71.9, 74.0, 76.8, 78.2),
          "Unlexicalized": (33.4, 43.4, 46.1, 48.5, 49.7, 49.9, 50.3, 50.5, 50.4)}


def _snli_figure4() -> list[Figure]:
    return [Figure(SNLI, "Figure 4", row, f"{size} training pairs", "test", value,
                   note="the learning curve, SNLI test accuracy")
            for row, values in _CURVE.items() for size, value in zip(_CURVE_SIZES, values)]


# The GLUE paper's dev figures (Table 6) of the three baselines the GLUE table sets beside the
# suite's, by task: one figure, or (accuracy, F1) and (Pearson, Spearman) where a task has two.
# QNLI and RTE as DESIGN.md reads them, checked against the test table (Table 4): the PDF's text
# runs column by column and gives these two columns out of order, which an earlier reading took
# (CBoW's and GenSen's RTE as 71.9 and 78.4, their QNLI as 62.5).
_GLUE_DEV = {
    "CBoW": {"CoLA": 4.6, "SST-2": 79.5, "MRPC": (75.0, 83.7), "STS-B": (70.6, 71.1), "QQP": (75.0, 65.5),
             "MNLI": 57.1, "QNLI": 71.9, "RTE": 62.5, "WNLI": 56.3},
    "BiLSTM": {"CoLA": 17.6, "SST-2": 87.5, "MRPC": (77.9, 85.1), "STS-B": (71.6, 72.0), "QQP": (85.3, 82.0),
               "MNLI": 66.7, "QNLI": 77.0, "RTE": 58.5, "WNLI": 56.3},
    "GenSen": {"CoLA": 10.3, "SST-2": 87.2, "MRPC": (80.4, 86.2), "STS-B": (81.3, 81.8), "QQP": (82.6, 76.6),
               "MNLI": 71.4, "QNLI": 78.4, "RTE": 62.5, "WNLI": 56.3},
}
_GLUE_ROWS = {"CBoW": "CBoW", "BiLSTM": "BiLSTM (single-task)", "GenSen": "GenSen"}
_GLUE_METRICS = {"CoLA": ("MCC",), "SST-2": ("accuracy",), "MRPC": ("accuracy", "F1"), "STS-B": ("Pearson", "Spearman"),
                 "QQP": ("accuracy", "F1"), "MNLI": ("accuracy, matched and mismatched averaged",),
                 "QNLI": ("accuracy",), "RTE": ("accuracy",), "WNLI": ("accuracy",)}
# Not in DESIGN.md (its reading of Table 6 lost them): QQP's and MNLI's dev figures, and the
# single-task BiLSTM's but for QNLI and RTE.
_EARLIER = ({(task, model) for task in ("QQP", "MNLI") for model in _GLUE_DEV}
            | {(task, "BiLSTM") for task in _GLUE_DEV["BiLSTM"] if task not in ("QNLI", "RTE")})
# The other sentence encoders of Table 6 and Table 4 (QNLI, RTE), which settle which column is which.
_ENCODERS = ("CBoW", "Skip-Thought", "InferSent", "DisSent", "GenSen")
_ENCODER_DEV = {"QNLI": (71.9, 73.4, 71.5, 73.9, 78.4), "RTE": (62.5, 58.5, 63.5, 59.9, 62.5)}
_ENCODER_TEST = {"QNLI": {"CBoW": 72.1, "GenSen": 78.6},
                 "RTE": dict(zip(_ENCODERS, (54.1, 53.1, 58.0, 56.4, 59.2)))}


def _glue() -> list[Figure]:
    out = []
    for model, tasks in _GLUE_DEV.items():
        for task, values in tasks.items():
            values = values if isinstance(values, tuple) else (values,)
            read = EARLIER if (task, model) in _EARLIER else DESIGN
            out += [Figure(GLUE, "Table 6", _GLUE_ROWS[model], f"{task} {metric}", "dev", value, read)
                    for metric, value in zip(_GLUE_METRICS[task], values)]
    for task, values in _ENCODER_DEV.items():
        out += [Figure(GLUE, "Table 6", model, f"{task} accuracy", "dev", value)
                for model, value in zip(_ENCODERS, values) if model not in _GLUE_ROWS]
    for task, values in _ENCODER_TEST.items():
        out += [Figure(GLUE, "Table 4", model, f"{task} accuracy", "test", value) for model, value in values.items()]
    return out


FIGURES: tuple[Figure, ...] = (
    *_snli_table5(), *_snli_table4(), *_snli_figure4(),
    Figure(EOP, "RTE-3 results", "EditDistanceEDA, lemmas + WordNet", "RTE-3 accuracy", "test", 64.375,
           note="EOP's own edit distance on lemmas with WordNet, 2-class accuracy"),
    Figure(SEMEVAL, "entailment subtask, primary runs", "Illinois-LH", "accuracy", "test", 84.6,
           note="the task's best system (feature-based), 3-class accuracy on SICK"),
    *_glue(),
    # The similarity tasks' best systems at their SemEval (test), as issue 47 reads them.
    # Read in the paper: Table 7, "Primary run results for the relatedness subtask" (r 0.828,
    # rho 0.769, MSE 0.325; StanfordNLP_run5 0.827 next).
    Figure(SEMEVAL, "relatedness subtask, primary runs", "ECNU_run1", "Pearson", "test", 82.8, read_in=SOURCE,
           note="the relatedness subtask's best system (feature-based), Pearson x 100 on SICK"),
    Figure(SEMEVAL2017, "STS Benchmark results", "ECNU", "STS Benchmark test", "test", 81.0, read_in=ISSUE_47,
           note="the best system on the STS Benchmark (features and ensembles), Pearson x 100"),
)


def figure(paper: Paper, table: str, row: str, column: str) -> Figure:
    """The one figure of `FIGURES` at this place of its source; KeyError when there is none."""
    found = [f for f in FIGURES if (f.paper, f.table, f.row, f.column) == (paper, table, row, column)]
    if len(found) != 1:
        raise KeyError(f"{len(found)} figures at {paper.key} {table}, row {row!r}, column {column!r}")
    return found[0]


@dataclass(frozen=True)
class Shown:
    """A published figure as a run table shows it: its mark (`[T5]`) and the line under the table."""

    mark: str
    figure: Figure

    @property
    def value(self) -> float:
        return self.figure.value

    @property
    def text(self) -> str:
        """`SNLI paper Table 5 (DOI 10.18653/v1/D15-1075): the paper's logistic regression, 3-class accuracy, test`."""
        f = self.figure
        return f"{f.paper.short} {f.table} ({f.paper.identifier}): {f.note}, {f.split}"


# A run table's marks: one per kind of figure (a source table, or a row of it where rows differ in kind).
_MARKS = {(SNLI, "Table 5", None): "T5", (SNLI, "Table 4", "Edit Distance Based"): "T4e",
          (SNLI, "Table 4", "Classifier Based"): "T4c", (SNLI, "Table 4", "+ Lexical Resources"): "T4l",
          (SNLI, "Table 4", "majority class"): "T4m", (EOP, "RTE-3 results", None): "EOP",
          (SEMEVAL, "entailment subtask, primary runs", None): "S14",
          (SEMEVAL, "relatedness subtask, primary runs", None): "S14r",
          (SEMEVAL2017, "STS Benchmark results", None): "S17"}


def _shown(table: str, row: str, column: str, paper: Paper = SNLI) -> Shown:
    mark = _MARKS.get((paper, table, row)) or _MARKS[(paper, table, None)]
    return Shown(mark, figure(paper, table, row, column))


def _types(group: str) -> frozenset:
    return frozenset(GROUPS[group])


_CORPUS_COLUMN = {"snli": "SNLI", "sick": "SICK", "rte3": "RTE-3"}

# (dataset, model, feature types or None, classes) -> the figure a run's row is shown beside
ROWS: dict[tuple, Shown] = {}
for _dataset in ("snli", "sick"):
    for _group, _row in (("lexicalized", "Lexicalized"), ("unigrams_only", "Unigrams Only"),
                         ("unlexicalized", "Unlexicalized")):
        ROWS[(_dataset, "lr", _types(_group), 3)] = _shown("Table 5", _row, f"{_CORPUS_COLUMN[_dataset]} test")
    ROWS[(_dataset, "majority", None, 2)] = _shown("Table 4", "majority class", _CORPUS_COLUMN[_dataset])
for _dataset, _column in _CORPUS_COLUMN.items():
    ROWS[(_dataset, "edit_distance", None, 2)] = _shown("Table 4", "Edit Distance Based", _column)
    ROWS[(_dataset, "lr", _types("lexicalized"), 2)] = _shown("Table 4", "Classifier Based", _column)
    ROWS[(_dataset, "lr", _types("lexicalized") | {"wordnet"}, 2)] = _shown("Table 4", "+ Lexical Resources", _column)
# Beyond the paper: the strongest classical rows beside the best systems of their time.
_EOP_WORDNET = _shown("RTE-3 results", "EditDistanceEDA, lemmas + WordNet", "RTE-3 accuracy", EOP)
for _model in ("lr", "stacked"):
    ROWS[("sick", _model, _types("strongest"), 3)] = _shown("entailment subtask, primary runs", "Illinois-LH",
                                                             "accuracy", SEMEVAL)
    ROWS[("rte3", _model, _types("strongest"), 2)] = _EOP_WORDNET
# Edit distance rows are told apart by whether they used WordNet (`row["fitted"]["wordnet"]`).
ROWS[("rte3", "edit_distance+wordnet", None, 2)] = _EOP_WORDNET


def published(dataset: str, model: str, feature_types, n_classes: int, wordnet: bool = False) -> Shown | None:
    """The published figure for this kind of row, if there is one (`wordnet`: a model that used
    WordNet itself, as edit distance can)."""
    types = frozenset(feature_types) if feature_types else None
    return ROWS.get((dataset, model + ("+wordnet" if wordnet else ""), types, n_classes))


# The best system of a similarity corpus' SemEval task (test), shown beside its dev and CV figures.
SEMEVAL_BEST = {"sick-relatedness": _shown("relatedness subtask, primary runs", "ECNU_run1", "Pearson", SEMEVAL),
                "stsb": _shown("STS Benchmark results", "ECNU", "STS Benchmark test", SEMEVAL2017)}


def semeval_best(dataset: str) -> Shown | None:
    """The best published system of the dataset's SemEval similarity task, or None."""
    return SEMEVAL_BEST.get(dataset)


# The learning curve's reference points: config -> {training pairs: SNLI test accuracy}.
SNLI_LEARNING_CURVE = {config: {int(f.column.split()[0]): f.value for f in FIGURES
                                if (f.paper, f.table, f.row) == (SNLI, "Figure 4", row)}
                       for config, row in (("lexicalized", "Lexicalized"), ("unlexicalized", "Unlexicalized"))}

# Published learning curves a plot can draw beside ours: name -> (points per config, legend text).
CURVE_REFERENCES = {"snli-paper": (SNLI_LEARNING_CURVE, "SNLI paper, Fig. 4 (SNLI test)")}

# The GLUE table's paper columns: its names, in order, and the row of Table 6 each reads.
GLUE_BASELINES = _GLUE_ROWS
GLUE_SOURCE = (f"the GLUE paper's dev figures ({GLUE.identifier}, Table 6): CBoW, the single-task BiLSTM, GenSen; "
               "a task's figure is the mean of its two metrics, as GLUE averages them")


def glue_dev(baseline: str, task: str) -> float:
    """A baseline's GLUE figure for a task on dev (Table 6), as GLUE scores it: the mean of the
    task's two metrics where it has two."""
    row = GLUE_BASELINES[baseline]
    values = [f.value for f in FIGURES
              if (f.paper, f.table, f.row, f.split) == (GLUE, "Table 6", row, "dev") and f.column.split(" ", 1)[0] == task]
    if not values:
        raise KeyError(f"no Table 6 figure of {baseline} on {task}")
    return sum(values) / len(values)
