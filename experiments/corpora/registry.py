"""The corpus registry: where each corpus lives, how it is read, its labels and splits.

Adding a corpus is one `register(Corpus(...))` entry. What a corpus is (`Corpus`, `HubCopy`)
and the lookup (`get_corpus`) are in `corpora.corpus`, re-exported here.
"""
from __future__ import annotations

from functools import partial
from pathlib import Path

from features.labels import BINARY01, CB3, NLI2, NLI3

from . import hub
from .corpus import CORPORA, SOURCES, Corpus, CorpusNotFoundError, HubCopy, get_corpus, register, resolve_data_dir
from .generated.demo import SIMILARITY_RANGE, read_demo, read_similarity
from .generated.hans_mini import read_hans_mini
from .readers.custom import read_custom
from .readers.glue import read_ax, read_qnli, read_rte, read_wnli
from .readers.hans import read_hans
from .readers.pascal import read_pascal
from .readers.sick import read_sick
from .readers.snli import read_nli
from .readers.superglue import read_superglue
from .task import Task


def _snli_files(split: str) -> tuple[str, ...]:
    stem = f"snli_1.0_{split}"
    return (f"snli_1.0/{stem}.jsonl", f"{stem}.jsonl", f"snli_1.0/{stem}.txt", f"{stem}.txt")


def _mnli_files(split: str) -> tuple[str, ...]:
    stem = f"multinli_1.0_{split}"
    return (f"multinli_1.0/{stem}.jsonl", f"{stem}.jsonl", f"multinli_1.0/{stem}.txt", f"glue/MNLI/{split}.tsv")


def _pascal_files(n: int, part: str) -> tuple[str, ...]:
    return tuple(f"{folder}/rte{n}_{part}.xml" for folder in (f"rte{n}", "pascal_rte_extra", "rte"))


_TRAIN_DEV_TEST = {"train": "train", "dev": "validation", "test": "test"}  # the hub's usual split names
_NO_PARSES = ("has no parse trees: tokens and tags come from the tagger, not from the parses of the official files, "
              "so figures can differ slightly from a run on those")


def _glue(config: str, labels: tuple[str, ...], **columns) -> HubCopy:
    return HubCopy("nyu-mll/glue", config, _TRAIN_DEV_TEST, labels, **columns)


def _superglue(config: str, labels: tuple[str, ...], splits=None, **columns) -> HubCopy:
    return HubCopy("aps/super_glue", config, splits or _TRAIN_DEV_TEST, labels, **columns)


# test_hard (Gururangan et al. 2018): the 3,261 test pairs a hypothesis-only classifier got wrong.
register(Corpus("snli", "SNLI 1.0 (Bowman et al. 2015), jsonl or txt; tags from its parses; test_hard: "
                "the test pairs a hypothesis-only model gets wrong", NLI3,
                {**{s: _snli_files(s) for s in ("train", "dev", "test")},
                 "test_hard": ("snli_hard/snli_1.0_test_hard.jsonl", "snli_1.0/snli_1.0_test_hard.jsonl",
                               "snli_1.0_test_hard.jsonl")},
                read_nli, download="snli", split_downloads={"test_hard": "snli-hard"},
                hub=HubCopy("stanfordnlp/snli", None, _TRAIN_DEV_TEST, NLI3, id_column=None, lacks=_NO_PARSES)))
register(Corpus("mnli", "MultiNLI 1.0 (jsonl/txt) or GLUE MNLI (tsv); tags from its parses", NLI3,
                {"train": _mnli_files("train"), "dev_matched": _mnli_files("dev_matched"),
                 "dev_mismatched": _mnli_files("dev_mismatched"),
                 "test_matched": ("glue/MNLI/test_matched.tsv",),
                 "test_mismatched": ("glue/MNLI/test_mismatched.tsv",),
                 # Gururangan et al. 2018's hard subsets of the test sets (gold labels held by Kaggle)
                 **{f"test_{m}_hard": tuple(f"{folder}multinli_0.9_test_{m}_unlabeled_hard.jsonl" for folder in
                                            (f"mnli_hard/{m}/", "multinli_hard/", "multinli_1.0/", ""))
                    for m in ("matched", "mismatched")}},
                read_nli, download="mnli", dev_split="dev_matched", test_split="test_matched",
                split_downloads={"test_matched_hard": "mnli-hard-matched",
                                 "test_mismatched_hard": "mnli-hard-mismatched"},
                hub=HubCopy("nyu-mll/glue", "mnli", {"train": "train", "dev_matched": "validation_matched",
                                                      "dev_mismatched": "validation_mismatched",
                                                      "test_matched": "test_matched",
                                                      "test_mismatched": "test_mismatched"}, NLI3, lacks=_NO_PARSES)))
register(Corpus("sick", "SICK (SemEval-2014 Task 1): TRAIN/TRIAL/TEST rows of SICK.txt", NLI3,
                {s: ("sick/SICK.txt", "SICK/SICK.txt") for s in ("train", "dev", "test")}, read_sick,
                download="sick"))
register(Corpus("rte", "GLUE RTE (tsv; test unlabeled)", NLI2,
                {s: (f"glue/RTE/{s}.tsv", f"RTE/{s}.tsv") for s in ("train", "dev", "test")}, read_rte,
                download="rte", hub=_glue("rte", NLI2, premise="sentence1", hypothesis="sentence2")))
register(Corpus("qnli", "GLUE QNLI (tsv; question as premise, sentence as hypothesis; test unlabeled)", NLI2,
                {s: (f"glue/QNLI/{s}.tsv", f"QNLI/{s}.tsv") for s in ("train", "dev", "test")}, read_qnli,
                hub=_glue("qnli", NLI2, premise="question", hypothesis="sentence")))
register(Corpus("wnli", "GLUE WNLI (tsv; labels 1 = entailment, 0; test unlabeled)", BINARY01,
                {s: (f"glue/WNLI/{s}.tsv", f"WNLI/{s}.tsv") for s in ("train", "dev", "test")}, read_wnli,
                hub=_glue("wnli", ("not_entailment", "entailment"), premise="sentence1", hypothesis="sentence2",
                          label_map={"not_entailment": "0", "entailment": "1"})))
for _n in (1, 2, 3):
    register(Corpus(f"rte{_n}", f"PASCAL RTE-{_n} XML (train = its dev file, test = its test file)", NLI2,
                    {"train": _pascal_files(_n, "dev"), "test": _pascal_files(_n, "test")}, read_pascal,
                    download="pascal-rte", dev_split=None))
register(Corpus("ax", "GLUE diagnostic (AX): diagnostic.tsv (unlabeled) and diagnostic-full.tsv (labeled)", NLI3,
                {"test": ("glue/AX/diagnostic.tsv", "AX/diagnostic.tsv"),
                 "test_labeled": ("glue/AX/diagnostic-full.tsv", "AX/diagnostic-full.tsv")}, read_ax,
                download="ax", dev_split=None,
                hub=HubCopy("nyu-mll/glue", "ax", {"test": "test"}, NLI3,
                            lacks="has no labeled copy (diagnostic-full.tsv): a written AX.tsv is scored only when "
                                  "that file is under the data directory")))
register(Corpus("cb", "SuperGLUE CommitmentBank (jsonl; val is dev, test unlabeled)",
                CB3,
                {"train": ("superglue/CB/train.jsonl",), "dev": ("superglue/CB/val.jsonl",),
                 "test": ("superglue/CB/test.jsonl",)},
                partial(read_superglue, labels=CB3),
                download="superglue-cb", hub=_superglue("cb", CB3)))
register(Corpus("superglue-rte", "SuperGLUE RTE (jsonl; val is dev, test unlabeled)", NLI2,
                {"train": ("superglue/RTE/train.jsonl",), "dev": ("superglue/RTE/val.jsonl",),
                 "test": ("superglue/RTE/test.jsonl",)}, read_superglue, download="superglue-rte",
                hub=_superglue("rte", NLI2)))
register(Corpus("ax-b", "SuperGLUE broad-coverage diagnostic AX-b (jsonl)", NLI2,
                {"test": ("superglue/AX-b/AX-b.jsonl",)}, read_superglue, download="superglue-ax-b",
                dev_split=None,
                hub=_superglue("axb", NLI2, {"test": "test"}, premise="sentence1", hypothesis="sentence2")))
register(Corpus("ax-g", "SuperGLUE Winogender diagnostic AX-g (jsonl; pairs of sentences differing in gender)", NLI2,
                {"test": ("superglue/AX-g/AX-g.jsonl",)}, read_superglue, download="superglue-ax-g",
                dev_split=None, hub=_superglue("axg", NLI2, {"test": "test"}, meta_columns=("pair_id",))))
# ANLI (Nie et al. 2020) is read from the hub only. Its rounds are joined, as the paper trains on them
# together; each round's own splits keep their hub names (--eval-split test_r3).
register(Corpus("anli", "Adversarial NLI, rounds 1-3 joined (dev_r1, test_r3, ...: one round); from the Hugging Face "
                "hub", NLI3, {"train": (), "dev": (), "test": ()},
                hub=HubCopy("facebook/anli", None, {role: "+".join(f"{role}_r{n}" for n in (1, 2, 3))
                                                    for role in ("train", "dev", "test")}, NLI3, id_column="uid")))
register(Corpus("demo", "synthetic 3-class corpus generated by the suite (no files, no tagger)", NLI3,
                {"train": (), "dev": (), "test": ()}, generate=read_demo))
register(Corpus("demo-similarity", "the demo's pairs with similarity scores 0..5 (generated: no files, no tagger)",
                Task.regression(SIMILARITY_RANGE), {"train": (), "dev": (), "test": ()}, generate=read_similarity))
# HANS (McCoy et al. 2019): train is the authors' augmentation set, test the 30,000-pair evaluation set.
register(Corpus("hans", "HANS: lexical overlap, subsequence and constituent heuristics (tsv; tags from its parses)",
                NLI2, {"train": ("hans/heuristics_train_set.txt",), "test": ("hans/heuristics_evaluation_set.txt",)},
                read_hans, download="hans", dev_split=None))
register(Corpus("hans-mini", "a small HANS-style set generated by the suite: HANS's 30 subcases, 20 pairs each "
                "(no files, no tagger)", NLI2, {"test": ()}, generate=read_hans_mini, dev_split=None))


def custom_corpus(train: str | None = None, dev: str | None = None, test: str | None = None, *,
                  premise: str | None = None, hypothesis: str | None = None, label: str = "label",
                  id_column: str | None = None, labels: tuple[str, ...] | None = None,
                  name: str = "custom") -> Corpus:
    """A corpus from user files (.tsv/.csv/.jsonl/.parquet/.arrow) with named columns: the quick path for a
    new pair task."""
    files = {split: (str(Path(path).resolve()),) for split, path in
             (("train", train), ("dev", dev), ("test", test)) if path}
    if not files:
        raise ValueError("a custom dataset needs at least one of --train-file, --dev-file, --test-file")
    for split, path in (("train", train), ("dev", dev), ("test", test)):
        if path and not Path(path).is_file():  # the user's own file: no corpus to download
            raise ValueError(f"--{split}-file {path}: " + ("a directory, not a file" if Path(path).is_dir()
                                                            else "no such file"))
    reader = partial(read_custom, premise=premise, hypothesis=hypothesis, label=label, id_column=id_column,
                     labels=labels)
    return Corpus(name, "user-supplied pair task", labels, files, reader,
                  dev_split="dev" if dev else None, test_split="test" if test else None)


def registered_copy(dataset: str) -> str | None:
    """The registered corpus whose hub copy `hf:NAME[:CONFIG]` is, if any (`hf:nyu-mll/glue:rte` is rte)."""
    try:
        name, config = hub.parse_address(dataset)
    except hub.HubError:
        return None
    return next((c.name for c in CORPORA.values() if c.hub is not None and c.hub.name == name
                 and (c.hub.config or None) == config), None)


# What callers look corpora up with: from here, so that the entries above are registered.
__all__ = ["CORPORA", "SOURCES", "Corpus", "CorpusNotFoundError", "HubCopy", "custom_corpus", "get_corpus", "register",
           "registered_copy", "resolve_data_dir"]
