"""What a corpus is: its name, label set, files per split and reader, its hub copy, and the
registry that names corpora (`CORPORA`; the entries themselves are in `corpora.registry`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from nli_baselines.features.labels import is_two_class
from nli_baselines.features.runtime.commands import command

from .readers.common import DataFormatError, SplitData, check_input, gc_paused
from .task import Task

DEFAULT_DATA_DIR = "data"


class CorpusNotFoundError(FileNotFoundError):
    """A corpus (or one split of it) is not under the data directory; says where we looked and what to do."""

    def __init__(self, corpus: str, split: str | None, searched: list[Path], data_dir: Path,
                 download: str | None):
        self.corpus, self.split, self.searched = corpus, split, searched
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
        integer labels that lost their names are read by these; None for scores (STS-B's floats).
    premise, hypothesis, id_column: its columns (premise None: single sentences, the hypothesis
        column holding them; id_column None: ids are row numbers).
    label: its gold column (SICK's relatedness: `relatedness_score`).
    label_map: hub label -> the corpus' label, where they differ (GLUE WNLI's 1/0).
    meta_columns: columns kept in each pair's meta where the copy has them (AX-g's pair_id).
    lacks: what the official files have and the copy does not; the run says it once.
    """

    name: str
    config: str | None
    splits: Mapping[str, str]
    label_names: tuple[str, ...] | None
    premise: str | None = "premise"
    hypothesis: str = "hypothesis"
    id_column: str | None = "idx"
    label: str = "label"
    label_map: Mapping[str, str] = field(default_factory=dict)
    meta_columns: tuple[str, ...] = ()
    lacks: str | None = None

    @property
    def address(self) -> str:
        """`hf:NAME[:CONFIG]`, as `--dataset` takes it."""
        return f"hf:{self.name}" + (f":{self.config}" if self.config else "")


SOURCES = ("auto", "files", "hf")  # where a registered corpus is read from (--source)
# source -> (corpus, splits, revision, progress) -> the corpus as that source reads it; "files" is
# the corpus itself, "hf" is registered by `corpora.hub`, which the registry imports.
READ_FROM: dict[str, Callable[..., Corpus]] = {}


@dataclass(frozen=True)
class Corpus:
    """A named corpus.

    task: what it asks of a model (`corpora.task.Task`: labels or scores, and the metrics); a
        label set (or None: learned from the training split) stands for a task judged by accuracy.
    files: split -> candidate paths relative to the data directory (first found wins).
    reader: (path, dataset, split, on_bad_row) -> SplitData.
    dev_split: the split used for model selection, or None (e.g. RTE-3, which has no dev file).
    hub: its copy on the Hugging Face hub, read with `via("hf")` (`--source hf`), or None.
    choose_among: the baselines (feature group, model) chosen among by CV on train (`--choose`).
    """

    name: str
    description: str
    task: Task | tuple[str, ...] | None
    files: Mapping[str, tuple[str, ...]]
    reader: Callable[..., SplitData] | None = None
    generate: Callable[[str], SplitData] | None = None
    download: str | None = None
    dev_split: str | None = "dev"
    test_split: str | None = "test"
    # split -> the download source of a split that comes from a file of its own (SNLI's test_hard)
    split_downloads: Mapping[str, str] | None = None
    hub: HubCopy | None = None
    # (features, model) baselines a run chooses among by CV on train when it names neither
    # (`experiments.engine.choice`); a model as the task's counterpart takes it (lr -> ridge).
    choose_among: tuple[tuple[str, str], ...] = ()

    def __post_init__(self):
        if not isinstance(self.task, Task):
            object.__setattr__(self, "task", Task.classification(self.task))

    @property
    def labels(self) -> tuple[str, ...] | None:
        """The label set (None for a score task, or where it is learned from the training split)."""
        return self.task.labels

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
        source = self.source_for(source)
        if source == "files":
            return self
        return READ_FROM[source](self, splits=splits, revision=revision, progress=progress)

    @property
    def read_from_hub_copy(self) -> bool:
        """Whether this is a registered corpus read from its hub copy (`--source hf`), not its files."""
        return False

    def sibling(self, name: str) -> Corpus:
        """Corpus `name` read the way this one is (its files; a hub copy's from the hub): the
        diagnostic that rides along with a model's prediction files (GLUE AX with MultiNLI)."""
        other = get_corpus(name)
        return other.via("hf", revision=None) if self.read_from_hub_copy and other.hub is not None else other

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

    def unreadable(self, split: str, data_dir: Path) -> DataFormatError | None:
        """Why the split's file, where one of its names is taken by something that is not a
        regular file (a FIFO, a link to a device, a directory, a dangling link, a loop of links),
        cannot be read; None when a regular file is there, or nothing is."""
        if self.generate is not None or self.locate(split, data_dir) is not None:
            return None
        for path in self.candidates(split, data_dir):
            if os.path.lexists(path):
                try:
                    check_input(path, what="data file")
                except DataFormatError as exc:
                    return exc
        return None

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
        if path is None and self.unreadable(split, data_dir) is not None:
            raise self.unreadable(split, data_dir)  # there, but no file: say what it is, not "not found"
        if path is None:
            raise CorpusNotFoundError(self.name, split, self.candidates(split, data_dir), data_dir,
                                      (self.split_downloads or {}).get(split, self.download))
        with gc_paused():
            return self.reader(path, self.name, split, on_bad_row)


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
