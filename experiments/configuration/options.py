"""The options of a run, declared once: flag, kind, bounds, default, help, which commands take them.

In the spirit of scikit-learn's `_parameter_constraints`: `RunConfig` reads and checks every value
against this table, whether it comes from the command line or from Python
(`nb.run(dataset="sick", ablate=["cross_bigrams"])`); argparse for `run.py`,
`learning_curves/run.py` and `predict.py` is built from it (`commandline.arguments`); and a
resumable learning curve records every option that changes a point (`affects_results`). A
shared option is one entry here, read as `config.<name>`.

Values are parsed and checked here only: argparse hands over the text as typed. This module
imports nothing heavy, so `--help` stays fast.
"""
from __future__ import annotations

import difflib
import math
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable

from nli_baselines.features.options import OPTIONS

from ..corpora import CORPORA
from ..corpora.hub import PREFIX
from ..corpora.readers.common import ON_BAD_ROW_CHOICES
from ..corpora.readers.custom import QUOTING_CHOICES
from ..corpora.registry import SOURCES
from ..corpora.targets import TARGET_CHOICES
from ..outputs.formats import FORMATS
from .errors import UsageError

COMMANDS = ("run", "curve", "predict")
RUN, CURVE, PREDICT = ("run",), ("curve",), ("predict",)
RUN_CURVE = ("run", "curve")
ALL = COMMANDS
SEED_MAX = 2 ** 32 - 1  # numpy's seeds: 0 .. 2**32 - 1
# Options that size an allocation are bounded (a mistyped 10**9 must not exhaust memory).
MAX_CV_FOLDS = 100
MAX_RESAMPLES = 100_000
MAX_TOP_FEATURES = 10_000
DEFAULT_SIZES = "1,10,100,1000,10000,all"
DEFAULT_CONFIGS = "lexicalized,unlexicalized"


class OptionError(ValueError):
    """A value an option does not take; the message names the flag."""


# ------------------------------------------------------------------ kinds: text or Python value -> value


def _whole(value, what: str = "a whole number") -> int:
    if isinstance(value, bool):
        raise ValueError(f"expected {what}, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    try:
        return int(str(value).strip())
    except ValueError:
        raise ValueError(f"expected {what}, got {value!r}") from None


def count(minimum: int, maximum: int | None = None) -> Callable[[Any], int]:
    """A whole number in [minimum, maximum]."""
    def parse(value) -> int:
        number = _whole(value)
        if number < minimum:
            raise ValueError(f"expected a number of at least {minimum}, got {number}")
        if maximum is not None and number > maximum:
            raise ValueError(f"expected a number of at most {maximum:,}, got {number:,}")
        return number
    parse.kind = f"count>={minimum}"
    parse.accepts, parse.stores = "int", "int"
    return parse


def flag(value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"expected True or False, got {value!r}")


flag.accepts = flag.stores = "bool"


def text(value) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {value!r}")
    return value


text.accepts = text.stores = "str"


def feature_spec(value) -> str:
    """A feature group or type, a comma-separated text of them, or (from Python) a list of them."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return ",".join(value)
    raise ValueError(f"expected a feature group, a type, or a comma list of them, got {value!r}")


feature_spec.accepts, feature_spec.stores = "str | Sequence[str]", "str"


def path(value) -> str | None:
    """A file or directory name (pathlib paths welcome); empty means not given."""
    if value is None:
        return None
    if hasattr(value, "__fspath__"):
        value = str(value.__fspath__())
    if not isinstance(value, str):
        raise ValueError(f"expected a path, got {value!r}")
    return value or None


path.accepts, path.stores = "str | PathLike[str]", "str"


def names(value) -> tuple[str, ...]:
    """Names, from a list or a comma-separated text (`--ablate a --ablate b,c`)."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else list(value)
    out = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"expected names, got {item!r}")
        out += [part.strip() for part in item.split(",") if part.strip()]
    return tuple(out)


names.accepts, names.stores = "str | Sequence[str]", "tuple[str, ...]"


def grid(value) -> tuple[float, ...]:
    """Positive, finite numbers, from a list or `0.1,1,3`."""
    items = value.split(",") if isinstance(value, str) else ([value] if isinstance(value, (int, float)) else value)
    try:
        values = tuple(float(v) for v in items if not (isinstance(v, str) and not v.strip()))
    except (TypeError, ValueError):
        raise ValueError(f"takes a comma-separated list of numbers, not {value!r}") from None
    if not values or not all(math.isfinite(v) and v > 0 for v in values):
        raise ValueError(f"takes positive, finite numbers, not {value!r}")
    return values


grid.accepts, grid.stores = "float | Sequence[float] | str", "tuple[float, ...]"


def label_map(value) -> dict[str, str]:
    """`yes=entailment,no=not_entailment`, or a dict."""
    if value is None:
        return {}
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, str):
        items = []
        for item in (s.strip() for s in value.split(",") if s.strip()):
            old, sep, new = item.partition("=")
            if not sep:
                raise ValueError(f"expected OLD=NEW pairs separated by commas, got {item!r}")
            items.append((old, new))
    else:
        raise ValueError(f"expected OLD=NEW pairs, got {value!r}")
    mapping: dict[str, str] = {}
    for old, new in items:
        if not isinstance(old, str) or not isinstance(new, str) or not old.strip() or not new.strip():
            raise ValueError(f"expected OLD=NEW pairs of labels, got {old!r}={new!r}")
        if old.strip() in mapping:
            raise ValueError(f"label {old.strip()!r} is mapped twice")
        mapping[old.strip()] = new.strip()
    return mapping


label_map.accepts, label_map.stores = "Mapping[str, str] | str", "dict[str, str]"


def resolve_jobs(jobs: int, note=lambda message: print(f"note: {message}", file=sys.stderr)) -> int:
    """Workers to start: -1 means one per core, and more than the cores is capped at the cores
    (`note` says so): extra local processes only add start-up time and memory."""
    cores = os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs == 0 or jobs < -1:
        raise UsageError(f"--jobs takes a positive number of workers, or -1 for one per core; got {jobs!r}")
    if jobs == -1:
        return cores
    if jobs > cores:
        note(f"--jobs {jobs} is more than the {cores} cores of this machine; using {cores}")
        return cores
    return jobs


def jobs(value) -> int:
    """A positive count of workers, or -1 for one per core (capped at the cores, with a note)."""
    try:
        number = _whole(value)
        return resolve_jobs(number)
    except UsageError as exc:
        raise ValueError(str(exc).replace("--jobs takes", "takes")) from None


jobs.accepts = jobs.stores = "int"


def sizes(value) -> tuple[str, ...]:
    """Training sizes: whole numbers of at least 1, or "all" (`1,10,100,all`)."""
    items = [s.strip() for s in value.split(",")] if isinstance(value, str) else [str(v).strip() for v in value]
    items = [s for s in items if s]
    if not items:
        raise ValueError("no sizes given (e.g. 1,10,100,all)")
    for item in items:
        if item != "all" and not item.isdigit():
            raise ValueError(f"{item!r} is not a size: give whole numbers or 'all'")
        if item != "all" and int(item) < 1:
            raise ValueError(f"sizes must be at least 1, got {item}")
    return tuple(items)


sizes.accepts, sizes.stores = "str | Sequence[int | str]", "tuple[str, ...]"


def configs(value) -> tuple[str, ...] | None:
    """Curves: `lexicalized,unlexicalized`, `lexicalized+negation`, `MODEL:FEATURES`, a pairs model."""
    if value is None:
        return None
    items = names(value)
    if not items:
        raise ValueError("no curve given")
    return items


configs.accepts, configs.stores = "str | Sequence[str]", "tuple[str, ...]"


def choice(values: Callable[[], tuple] | tuple) -> Callable[[Any], Any]:
    """One of `values` (a tuple, or a function giving them: registries are read when checking)."""
    def parse(value):
        allowed = tuple(values() if callable(values) else values)
        if value not in allowed:
            near = difflib.get_close_matches(str(value), [str(a) for a in allowed], n=3, cutoff=0.6)
            hint = f" (did you mean {' or '.join(near)}?)" if near else ""
            raise ValueError(f"must be one of {', '.join(map(str, allowed))}; got {value!r}{hint}")
        return value
    parse.choices = values
    parse.accepts = parse.stores = "str"
    return parse


# ------------------------------------------------------------------ the table


@dataclass(frozen=True)
class RunOption:
    """One option of the suite's commands.

    parse: text (from argparse) or a Python value -> the checked value; ValueError says why not.
    group: where `--help` lists it: data, custom data, model and features, selection,
        evaluation, outputs, execution, learning curve, prediction.
    commands: which of run, curve (learning curves) and predict take it.
    config: a field of `RunConfig` (False: an output of the command, handled by the script).
    affects_results: changes the numbers of a run (so a resumed learning curve must match it).
    action: "store", "flag" (a switch), "toggle" (--name / --no-name), "append" (repeatable).
    flag: the command-line spelling, when not `--name-with-dashes`.
    """

    name: str
    default: Any
    parse: Callable[[Any], Any]
    help: str
    group: str
    commands: tuple[str, ...]
    config: bool = True
    affects_results: bool = True
    action: str = "store"
    flag: str | None = None
    metavar: str | None = None
    list_choices: bool = False  # --help lists the choices (where reading them is light)

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    def check(self, value):
        """The value as the option takes it; OptionError naming the flag otherwise."""
        if value is None and self.default is None:
            return None
        try:
            return self.parse(value)
        except ValueError as exc:
            raise OptionError(f"{self.cli_flag}: {exc}") from None

    @property
    def choices(self):
        values = getattr(self.parse, "choices", None)
        return tuple(values() if callable(values) else values) if values is not None else None

    @property
    def accepts(self) -> str:
        """The type a Python caller may pass, as an annotation (API signatures are generated from it)."""
        return self.parse.accepts + (" | None" if self.default is None else "")

    @property
    def stores(self) -> str:
        """The type `RunConfig` keeps, as an annotation."""
        return self.parse.stores + (" | None" if self.default is None else "")


def _corpus_names() -> tuple[str, ...]:
    return tuple(sorted(CORPORA)) + ("custom",)


def _targets() -> tuple[str, ...]:
    return TARGET_CHOICES


def dataset_name(value) -> str:
    """A corpus' name, `custom`, or `hf:NAME[:CONFIG]`: a Hugging Face dataset (on the hub, in its
    cache, or a local directory; `corpora.hub` reads it)."""
    if isinstance(value, str) and value.startswith(PREFIX):
        if not value[len(PREFIX):].strip(" :"):
            raise ValueError(f"{value!r} names no dataset; write hf:NAME[:CONFIG] (a hub name such as "
                             "stanfordnlp/snli, or a local directory such as ./my_task)")
        return value
    try:
        return _known_corpus(value)
    except ValueError as exc:
        raise ValueError(f"{exc}; or hf:NAME[:CONFIG], a Hugging Face dataset") from None


_known_corpus = choice(_corpus_names)
dataset_name.choices = _corpus_names
dataset_name.accepts = dataset_name.stores = "str"


def _sources() -> tuple[str, ...]:
    return SOURCES


def _model_names() -> tuple[str, ...]:
    # lazy: the models import scikit-learn, seconds of every command's start; --help lists no models
    from nli_baselines.models import MODELS
    return tuple(MODELS)


def _featurizer_options() -> list[RunOption]:
    """The featurizer's options (`features.options`: choices, defaults, help), as run options."""
    out = []
    for option in OPTIONS.values():
        if option.kind is bool:
            parse, action = flag, "toggle"
        elif option.choices is not None:
            parse, action = choice(option.choices), "store"
        else:
            parse, action = count(option.minimum or 0, option.maximum), "store"
        out.append(RunOption(option.name, option.default, parse, option.help, "model and features", RUN_CURVE,
                             action=action, metavar=None if option.choices or option.kind is bool else "N"))
    return out


def _build() -> dict[str, RunOption]:
    data = "data"
    custom = "custom data (your pairs: .tsv, .csv, .jsonl, .parquet or .arrow files, or --dataset hf:NAME)"
    model, selection, evaluation = "model and features", "selection", "evaluation"
    outputs, execution = "outputs", "execution"
    entries = [
        # data
        RunOption("dataset", "snli", dataset_name, "corpus name (custom: given --train-file), or hf:NAME[:CONFIG] "
                  "for a Hugging Face dataset: a hub name (stanfordnlp/snli; read from the local cache when it has "
                  "it, and only from there with HF_HUB_OFFLINE=1) or a local directory (data files in the hub's "
                  "layout, or a save_to_disk folder); names", data, RUN_CURVE, metavar="NAME", list_choices=True),
        RunOption("source", "auto", choice(_sources), "where a corpus the suite knows is read from: its official "
                  "files (files), or its Hugging Face hub copy (hf; same labels, splits and prediction files); auto: "
                  "the files, except for a corpus only the hub has (anli)", data, RUN_CURVE),
        RunOption("train_split", None, text, "the Hugging Face dataset's split to train on (default: found by name: "
                  "train, else the one train_*); a+b joins several", data, RUN_CURVE, metavar="SPLIT"),
        RunOption("dev_split", None, text, "its dev split (default: validation, dev, valid or val, else "
                  "validation_matched or dev_matched, else the one validation_*, dev_*, ...)", data, RUN_CURVE,
                  metavar="SPLIT"),
        RunOption("test_split", None, text, "its test split (default: test, else test_matched, else the one test_*); "
                  "predict.py: the split of --input hf:NAME to label", data, ALL, metavar="SPLIT"),
        RunOption("revision", None, text, "the hub dataset's revision: a branch, tag or commit (default: the latest; "
                  "offline, the cached copy, which must be the commit given)", data, RUN_CURVE, metavar="REV"),
        RunOption("data_dir", None, path, "where corpora live (default: $NLI_DATA_DIR, else ./data)", data,
                  RUN_CURVE, affects_results=False, metavar="DIR"),
        RunOption("on_bad_row", "error", choice(ON_BAD_ROW_CHOICES),
                  "stop at the first malformed row, or skip and count it", data, ALL),
        RunOption("label_map", {}, label_map, "rename gold labels, e.g. yes=entailment,no=not_entailment "
                  "(two-class models such as edit distance read entailment/not_entailment)", data, ALL,
                  metavar="OLD=NEW,..."),
        RunOption("allow_unseen_labels", False, flag,
                  "warn instead of stopping when dev or test has labels that training never shows", data, RUN_CURVE,
                  action="flag"),
        RunOption("train_file", None, path, "training pairs (.tsv, .csv, .jsonl, .parquet or .arrow with named "
                  "columns)", custom,
                  RUN_CURVE, metavar="FILE"),
        RunOption("dev_file", None, path, "dev pairs, which choose settings and are scored", custom, RUN_CURVE,
                  metavar="FILE"),
        RunOption("test_file", None, path, "test pairs (--eval-split test, or predictions)", custom, RUN_CURVE,
                  metavar="FILE"),
        RunOption("quoting", "auto", choice(QUOTING_CHOICES), "how the quotes of a .tsv or .csv file are read: "
                  "csv (a cell in quotes may hold tabs, commas, line breaks), none (quotes are text, as in GLUE's "
                  "TSV files), or auto: CSV for .csv; for .tsv, what the file shows (said in a note)", custom, ALL),
        RunOption("premise_column", None, text, "default: found among premise/hypothesis, sentence1/sentence2, "
                  "sentence_A/sentence_B, text_a/text_b, question/sentence, ...; a dotted path names a nested JSON "
                  "field or struct field (input.premise)", custom, ALL, metavar="NAME"),
        RunOption("hypothesis_column", None, text, "see --premise-column", custom, ALL, metavar="NAME"),
        RunOption("label_column", "label", text, "the gold label's column", custom, ALL, metavar="NAME"),
        RunOption("target", "auto", choice(_targets), "what the label column holds: classes, or "
                  "scores to regress on; auto: scores when every value is a number and one is not whole or more than "
                  "10 are distinct (said in one line)", custom, RUN_CURVE),
        RunOption("id_column", None, text, "default: found among id, idx, pairID, pair_id, uid, else the data "
                  "rows' indices from 0, as GLUE's index column (row numbers in parquet, Arrow and Hugging Face data)",
                  custom, ALL, metavar="NAME"),
        # model and features
        RunOption("model", "lr", choice(_model_names), "the classifier", model, RUN_CURVE,
                  metavar="NAME"),
        RunOption("features", "lexicalized", feature_spec, "a feature group or a comma list of groups and types",
                  model, RUN_CURVE, metavar="GROUP_OR_LIST"),
        RunOption("ablate", (), names, "remove a feature type or group (repeatable)", model, RUN_CURVE,
                  action="append", metavar="NAME"),
        RunOption("two_class", False, flag, "entailment vs not_entailment", model, RUN_CURVE, action="flag"),
        RunOption("paper_table", False, flag, "the paper's rows in one run: lexicalized, unigrams only, "
                  "unlexicalized, edit distance, two-class LR (and majority)", model, RUN, action="flag"),
        RunOption("ablation_table", False, flag, "the full set and each feature type ablated once", model, RUN,
                  action="flag"),
        RunOption("artifact_table", False, flag, "annotation artifacts: majority, hypothesis-only, premise-only, "
                  "unlexicalized, lexicalized and strongest, each against the majority class and hypothesis-only "
                  "(McNemar's p)", model, RUN, action="flag"),
        RunOption("wordnet", False, flag, "edit distance: let CV choose whether substituting a WordNet synonym "
                  "or hypernym (on lemmas) is free, as EOP's lemma + WordNet configuration does", model, RUN_CURVE,
                  action="flag"),
        *_featurizer_options(),
        # selection
        RunOption("C", None, grid, "candidate inverse regularization strengths of logistic regression "
                  "(default: the model's grid)", selection, RUN_CURVE, flag="--C", metavar="LIST"),
        RunOption("tune_on", "auto", choice(("auto", "dev", "cv")), "what chooses C and the other settings: the "
                  "dev split, or k-fold CV on train; auto: CV when the training split is larger than dev and below "
                  "50,000 pairs (the steadier judge there), else dev; edit distance tunes on train", selection,
                  RUN_CURVE),
        RunOption("choose", "auto", choice(("auto", "cv", "off")), "how the baseline itself is chosen: cv: its "
                  "feature group, model and setting (alpha, C) among the corpus' candidates (the setting alone of "
                  "the baseline --features and --model name, where given) by k-fold CV on train "
                  "(stratified by genre where the pairs have one, as STS-B's), dev scored once to confirm; auto: cv "
                  "for a corpus that declares candidates (stsb, sick-relatedness, mrpc) when neither --features nor "
                  "--model is given; off: --features and --model as given", selection, RUN),
        RunOption("cv_folds", 5, count(2, MAX_CV_FOLDS), "folds of cross-validation (settings by --tune-on cv; "
                  "scores where a corpus has no dev split)", selection, RUN_CURVE, metavar="K"),
        RunOption("seed", 0, count(0, SEED_MAX), "seeds sampling, folds and resamples", selection, RUN_CURVE,
                  metavar="N"),
        RunOption("train_size", None, count(1), "train on a seeded random sample of N pairs", selection, RUN_CURVE,
                  metavar="N"),
        RunOption("eval_split", "dev", text, "split to score: dev (a corpus without dev is cross-validated), "
                  "test, or a split's name", selection, RUN_CURVE, metavar="SPLIT"),
        # evaluation (run.py)
        RunOption("bootstrap", 0, count(0, MAX_RESAMPLES), "refit on N resamples of the training set and report "
                  "the spread of the score", evaluation, RUN, metavar="N"),
        RunOption("top_features", 0, count(0, MAX_TOP_FEATURES), "print the K highest-weighted features per "
                  "class, as words", evaluation, RUN, affects_results=False, metavar="K"),
        # learning curves
        RunOption("sizes", DEFAULT_SIZES, sizes, "training sizes; 'all' = the whole split", "learning curve",
                  CURVE, affects_results=False, metavar="LIST"),
        RunOption("seeds", 3, count(1, 1000), "random samples per size", "learning curve", CURVE,
                  affects_results=False, metavar="N"),
        RunOption("configs", None, configs, "comma list of curves: a feature group or type (--model reads it), "
                  "several joined by '+' (lexicalized+negation), MODEL:FEATURES, or a model that reads pairs; "
                  f"default: --features when given, else {DEFAULT_CONFIGS}", "learning curve", CURVE,
                  affects_results=False, metavar="LIST"),
        RunOption("reference", None, choice(("snli-paper",)), "draw published points for comparison",
                  "learning curve", CURVE, affects_results=False),
        # execution
        RunOption("jobs", 1, jobs, "parallel workers for grids and tagging; -1: one per core", execution, ALL,
                  affects_results=False, metavar="N"),
        RunOption("backend", "local", choice(("local", "dask")),
                  "where grids run: local joblib workers, or a Dask cluster (needs --scheduler)", execution,
                  RUN_CURVE, affects_results=False),
        RunOption("scheduler", None, text, "Dask scheduler address, e.g. tcp://host:8786", execution, RUN_CURVE,
                  affects_results=False, metavar="ADDRESS"),
        RunOption("quiet", False, flag, "no progress output; print the result table only", execution, ALL,
                  affects_results=False, action="flag"),
        # outputs: handled by the commands, not part of a run's configuration
        RunOption("out", None, path, "write the run record here (run.py: FILE.json; learning curves: a "
                  "directory for curve.csv/json/png/svg)", outputs, RUN_CURVE, config=False, metavar="PATH"),
        RunOption("overwrite", False, flag, "replace existing output files (never an input)", outputs, ALL,
                  config=False, action="flag"),
        RunOption("errors", None, path, "write every scored pair with gold and predicted label, confidence and "
                  "the features that pushed the prediction (.tsv, .csv or .jsonl); a score task's pairs with their "
                  "absolute error, the largest first", outputs, RUN, config=False,
                  metavar="FILE"),
        RunOption("errors_only", False, flag, "--errors holds only the wrong pairs, most confident first",
                  outputs, RUN, config=False, action="flag"),
        RunOption("plots", None, path, "draw the confusion matrix and the strongest feature weights per class "
                  "as PNG files here", outputs, RUN, config=False, metavar="DIR"),
        RunOption("save_model", None, path, "save the fitted model (one file) for predict.py", outputs, RUN,
                  config=False, metavar="FILE"),
        RunOption("predict", None, choice(("test",)), "predict the test split(s) of the benchmark task(s) "
                  "(implied by a prediction directory such as --glue-out)", outputs, RUN, config=False,
                  metavar="SPLIT"),
        RunOption("with_hans", False, flag, "also score HANS (data dir hans/heuristics_evaluation_set.txt) with this "
                  "NLI model: accuracy per heuristic on entailed and non-entailed pairs, per subcase", outputs, RUN,
                  config=False, action="flag"),
        RunOption("hans_predictions", None, path, "write the HANS predictions as HANS's pairID,gold_label file "
                  "(implies --with-hans)", outputs, RUN, config=False, metavar="FILE"),
        RunOption("with_ax", False, flag, "also predict the GLUE diagnostic (AX.tsv) with this three-class model",
                  outputs, RUN, config=False, action="flag"),
        RunOption("glue_zip", None, path, "bundle the written prediction files into one flat zip", outputs, RUN,
                  config=False, metavar="FILE"),
        # predict.py
        RunOption("model_file", None, path, "a model file written by run.py --save-model", "prediction", PREDICT,
                  config=False, flag="--model", metavar="FILE"),
        RunOption("input", None, path, "pairs to label: .tsv, .csv, .jsonl, .parquet or .arrow, or hf:NAME[:CONFIG] "
                  "(its test split, or --test-split)", "prediction", PREDICT,
                  config=False, metavar="FILE"),
        RunOption("predictions", None, path, "where the predictions go (.tsv, .csv or .jsonl)", "prediction",
                  PREDICT, config=False, flag="--out", metavar="FILE"),
        RunOption("proba", False, flag, "add class probabilities (models that have them)", "prediction", PREDICT,
                  config=False, action="flag"),
    ]
    entries += [RunOption(fmt.option, None, path, f"write {fmt.title} prediction files ({fmt.suffix}) of the test "
                          "set(s) here", outputs, RUN, config=False, metavar="DIR") for fmt in FORMATS.values()]
    table = {}
    for entry in entries:
        if entry.name in table:
            raise AssertionError(f"option {entry.name!r} is declared twice")
        table[entry.name] = entry
    return table


_TABLE: dict[str, RunOption] | None = None


def options() -> dict[str, RunOption]:
    """The table, name -> RunOption (built on first use: the featurizer's options join it)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _build()
    return _TABLE


def for_command(command: str, *, config_only: bool = False) -> list[RunOption]:
    if command not in COMMANDS:
        raise ValueError(f"unknown command {command!r}")
    return [o for o in options().values() if command in o.commands and (o.config or not config_only)]


def unknown_option(name: str, command: str) -> str:
    """The message for a name the command does not take, with the nearest names."""
    valid = [o.name for o in for_command(command, config_only=True)]
    near = difflib.get_close_matches(name, valid, n=3, cutoff=0.6)
    elsewhere = [c for c in COMMANDS if c != command and name in {o.name for o in for_command(c)}]
    hint = (f"; did you mean {' or '.join(near)}?" if near else
            f"; it is an option of {' and '.join(elsewhere)}" if elsewhere else
            f"; valid: {', '.join(valid)}")
    return f"unknown option {name!r} for {command}{hint}"
