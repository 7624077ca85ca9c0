"""The corpus registry: where each corpus lives, how it is read, its labels and splits.

Adding a corpus is one `register(Corpus(...))` entry.
"""
from __future__ import annotations

import contextlib
import gc
import os
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable, Mapping

from features.labels import BINARY01, CB3, NLI2, NLI3, is_two_class

from .generated.demo import read_demo
from .generated.hans_mini import read_hans_mini
from .readers.common import SplitData
from .readers.custom import read_custom
from .readers.glue import read_ax, read_qnli, read_rte, read_wnli
from .readers.hans import read_hans
from .readers.pascal import read_pascal
from .readers.sick import read_sick
from .readers.snli import read_nli
from .readers.superglue import read_superglue

DEFAULT_DATA_DIR = "data"


class CorpusNotFoundError(FileNotFoundError):
    """A corpus (or one split of it) is not under the data directory; says where we looked and what to do."""

    def __init__(self, corpus: str, split: str | None, searched: list[Path], data_dir: Path,
                 download: str | None):
        self.corpus, self.split, self.searched = corpus, split, searched
        from features.runtime.commands import command
        what = f"corpus {corpus!r}" + (f" (split {split!r})" if split else "")
        looked = "\n".join(f"  {p.absolute()}" for p in searched)
        fetch = (f"  1. download it:  {command('download')} {download} --data-dir {Path(data_dir).absolute()}"
                 if download else "  1. download it from its official site into the data directory")
        super().__init__(
            f"{what} not found. Looked for:\n{looked}\nWays out:\n{fetch}\n"
            f"  2. point at an existing copy:  --data-dir DIR  or  export NLI_DATA_DIR=DIR\n"
            f"  3. try the suite without any files:  --dataset demo")


@dataclass(frozen=True)
class HubCopy:
    """Where the Hugging Face hub keeps a corpus (`--source hf`), and how its copy maps onto the
    official release that the corpus' reader takes.

    name, config: the hub dataset (`stanfordnlp/snli`; `nyu-mll/glue` with config `rte`).
    splits: the corpus' split -> the hub's split; `a+b` joins several, in order (ANLI's rounds).
    label_names: the copy's `ClassLabel` names, in order: a copy with other names is refused, and
        integer labels that lost their names are read by these.
    premise, hypothesis, id_column: its columns (id_column None: ids are row numbers).
    label_map: hub label -> the corpus' label, where they differ (GLUE WNLI's 1/0).
    meta_columns: columns kept in each pair's meta where the copy has them (AX-g's pair_id).
    lacks: what the official files have and the copy does not; the run says it once.
    """

    name: str
    config: str | None
    splits: Mapping[str, str]
    label_names: tuple[str, ...]
    premise: str = "premise"
    hypothesis: str = "hypothesis"
    id_column: str | None = "idx"
    label_map: Mapping[str, str] = field(default_factory=dict)
    meta_columns: tuple[str, ...] = ()
    lacks: str | None = None

    @property
    def address(self) -> str:
        """`hf:NAME[:CONFIG]`, as `--dataset` takes it."""
        return f"hf:{self.name}" + (f":{self.config}" if self.config else "")


SOURCES = ("auto", "files", "hf")  # where a registered corpus is read from (--source)


@dataclass(frozen=True)
class Corpus:
    """A named corpus.

    files: split -> candidate paths relative to the data directory (first found wins).
    reader: (path, dataset, split, on_bad_row) -> SplitData.
    labels: the label set, or None when it is learned from the training split (custom).
    dev_split: the split used for model selection, or None (e.g. RTE-3, which has no dev file).
    hub: its copy on the Hugging Face hub, read with `via("hf")` (`--source hf`), or None.
    """

    name: str
    description: str
    labels: tuple[str, ...] | None
    files: Mapping[str, tuple[str, ...]]
    reader: Callable[..., SplitData] | None = None
    generate: Callable[[str], SplitData] | None = None
    download: str | None = None
    dev_split: str | None = "dev"
    test_split: str | None = "test"
    # split -> the download source of a split that comes from a file of its own (SNLI's test_hard)
    split_downloads: Mapping[str, str] | None = None
    hub: HubCopy | None = None

    @property
    def stem(self) -> str:
        """The corpus' name as a file name takes it (a prediction table's `<stem>-test.tsv`)."""
        return self.name

    def via(self, source: str = "auto", *, splits: Mapping[str, str | None] | None = None,
            revision: str | None = None, progress: bool = False) -> Corpus:
        """This corpus as `source` reads it: "files" (its official files under the data directory),
        "hf" (its hub copy, through `datasets`: the same name, labels and split names), or "auto"
        (the files, for a corpus whose files the suite reads; else the hub: ANLI).

        splits: role ("train", "dev", "test") -> the hub split(s) to read instead (`a+b` joins);
        revision: the hub dataset's revision (branch, tag or commit). Both are for the hub only;
        progress: `datasets`' progress bars while it downloads or prepares the copy.
        """
        if self.source_for(source) == "files":
            return self
        from .hub import hub_copy_corpus
        return hub_copy_corpus(self, splits=splits, revision=revision, progress=progress)

    def sibling(self, name: str) -> Corpus:
        """Corpus `name` read the way this one is (its files; a hub copy's from the hub): the
        diagnostic that rides along with a model's prediction files (GLUE AX with MultiNLI)."""
        return get_corpus(name)

    def source_for(self, source: str = "auto") -> str:
        """"files" or "hf": where `source` ("auto", "files", "hf") reads this corpus from; a ValueError
        says why a source cannot (a corpus without files, or without a hub copy)."""
        if source not in SOURCES:
            raise ValueError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
        has_files = self.reader is not None or self.generate is not None
        if source == "auto":
            return "files" if has_files or self.hub is None else "hf"
        if source == "files" and not has_files:
            raise ValueError(f"{self.name} has no official files the suite reads; it is read from the Hugging Face "
                             f"hub ({self.hub.address if self.hub else '-'}): --source hf")
        if source == "hf" and self.hub is None:
            known = ", ".join(sorted(name for name, c in CORPORA.items() if c.hub is not None))
            raise ValueError(f"{self.name} has no Hugging Face hub copy the suite knows (those with one: {known}); "
                             "for another hub dataset, --dataset hf:NAME[:CONFIG]")
        return source

    @property
    def splits(self) -> tuple[str, ...]:
        return tuple(self.files)

    @property
    def is_two_class(self) -> bool:
        return is_two_class(self.labels)

    def candidates(self, split: str, data_dir: Path) -> list[Path]:
        return [Path(rel) if Path(rel).is_absolute() else data_dir / rel for rel in self.files.get(split, ())]

    def locate(self, split: str, data_dir: Path) -> Path | None:
        return next((p for p in self.candidates(split, data_dir) if p.is_file()), None)

    def locate_or_generated(self, split: str, data_dir: Path) -> bool:
        return split in self.files and (self.generate is not None or self.locate(split, data_dir) is not None)

    def available_splits(self, data_dir: Path) -> list[str]:
        return [s for s in self.files if self.locate_or_generated(s, data_dir)]

    def load(self, split: str, data_dir: Path | str | None = None, on_bad_row: str = "error") -> SplitData:
        """Read one split; raises CorpusNotFoundError or readers.DataFormatError."""
        if split not in self.files:
            raise ValueError(f"corpus {self.name!r} has splits {', '.join(self.files)}, not {split!r}")
        if self.generate is not None:
            return self.generate(split)
        if self.reader is None:  # a corpus only the hub has (ANLI)
            return self.via("hf").load(split, data_dir, on_bad_row)
        data_dir = resolve_data_dir(data_dir)
        path = self.locate(split, data_dir)
        if path is None:
            raise CorpusNotFoundError(self.name, split, self.candidates(split, data_dir), data_dir,
                                      (self.split_downloads or {}).get(split, self.download))
        with gc_paused():
            return self.reader(path, self.name, split, on_bad_row)


# Tracked objects built during a pause past which they are frozen (`gc_paused`): an SNLI-sized
# training split builds ~10 million.
FREEZE_FROM = 1_000_000


@contextlib.contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector while millions of acyclic objects are built.

    Each collection of the oldest generation scans every live object, so building a large corpus
    with it on costs more per pair the larger the corpus. Pairs hold no reference cycles, so
    nothing is left uncollected. Where the pause built more than FREEZE_FROM tracked objects,
    everything tracked is then frozen (`gc.freeze`): the collections after the pause would each
    walk all of them once more as they aged through the generations (~3 s of the SNLI-scale main
    job). Frozen objects are still freed when no longer referenced; only a reference cycle that
    is garbage at that moment stays uncollected.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_count()[0] > FREEZE_FROM:
            gc.freeze()
        if enabled:
            gc.enable()


def resolve_data_dir(data_dir: Path | str | None = None) -> Path:
    """`--data-dir`, else `$NLI_DATA_DIR`, else `./data`."""
    if data_dir:
        return Path(data_dir)
    return Path(os.environ.get("NLI_DATA_DIR") or DEFAULT_DATA_DIR)


CORPORA: dict[str, Corpus] = {}


def register(corpus: Corpus) -> Corpus:
    if corpus.name in CORPORA:
        raise ValueError(f"corpus {corpus.name!r} is already registered")
    CORPORA[corpus.name] = corpus
    return corpus


def get_corpus(name: str) -> Corpus:
    try:
        return CORPORA[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; choose from {', '.join(sorted(CORPORA))}") from None


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
