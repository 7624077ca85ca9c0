"""Corpora read through Hugging Face `datasets`: `--dataset hf:NAME[:CONFIG]`, and `--source hf` for
the corpora the suite knows (each registry entry names its hub copy: `registry.HubCopy`).

NAME is a local directory (data files in the hub's layout, `data/train-00000-of-00001.parquet`, ...,
or a folder written by `save_to_disk`) or a dataset on the hub (`stanfordnlp/snli`), which
`datasets` reads from its local cache when it has it, and with `HF_HUB_OFFLINE=1` only from there:
the network is not tried. A `hf:` dataset is read like a custom file: columns found by name (or
named, dotted paths reaching into structs), its `ClassLabel` integers as their names, -1 as no gold
label (`readers.arrow`).

Splits: `--train-split`, `--dev-split`, `--test-split` name the dataset's splits (`a+b` joins several);
else `assign_splits` finds them by name:
    train  `train`; else the one split named `train_*` or `train-*`
    dev    `validation`, `dev`, `valid` or `val`; else `validation_matched` or `dev_matched`
           (MultiNLI's in-genre set); else the one split named after one of those with `_`/`-` and more
    test   `test`; else `test_matched`; else the one split named `test_*` or `test-*`

Several candidates for train or dev are an error that names them (ANLI's rounds: `--train-split
train_r1+train_r2+train_r3`, or `--dataset anli`); several for test leave test unnamed. Every other
split keeps its own name (`--eval-split validation_mismatched`).

What was read is recorded exactly: per split the hub name, config, revision (the hub commit) or
fingerprint (a local dataset's), the dataset's split and its rows, and the files behind it (the
local data files, or the prepared Arrow files of the cache) with their sha256.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import sys
from collections import Counter, OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from nli_baselines.features.runtime.commands import install_command
from nli_baselines.features.runtime.shown import shown

from .corpus import READ_FROM, Corpus, HubCopy
from .readers import arrow
from .readers.common import (DataFormatError, SplitData, check_input, find_columns, gc_paused, open_input,
                             raise_too_many_rows, rows_past_bound)
from .targets import SCORES, TargetError, choose_target, task_for

PREFIX = "hf:"
ROLES = ("train", "dev", "test")
_EXACT = {"train": ("train",), "dev": ("validation", "dev", "valid", "val"), "test": ("test",)}
_MATCHED = {"train": (), "dev": ("validation_matched", "dev_matched"), "test": ("test_matched",)}
_SAVED_MARKERS = ("dataset_dict.json", "state.json")  # what `save_to_disk` writes at a folder's top
_OPENED_KEPT = 4  # datasets kept open in a process (a notebook's runs share them)
_SHA = re.compile(r"[0-9a-f]{40}")


class HubError(ValueError):
    """A Hugging Face dataset that cannot be read as asked: `datasets` is not installed, the dataset
    is not found (or not cached, offline), or its splits or labels are not what the run needs."""


# ------------------------------------------------------------------ names


def is_hub_dataset(dataset: str | None) -> bool:
    return isinstance(dataset, str) and dataset.startswith(PREFIX)


def parse_address(dataset: str) -> tuple[str, str | None]:
    """(NAME, CONFIG) of `hf:NAME[:CONFIG]`; NAME may be a local directory (`hf:./my_task`)."""
    if not is_hub_dataset(dataset):
        raise HubError(f"{dataset!r} is not a Hugging Face dataset; write hf:NAME[:CONFIG]")
    name, _, config = dataset[len(PREFIX):].strip().partition(":")
    if not name.strip():
        raise HubError(f"{dataset!r} names no dataset; write hf:NAME[:CONFIG] (a hub name such as stanfordnlp/snli, "
                       "or a local directory such as ./my_task)")
    return name.strip(), config.strip() or None


def _looks_local(name: str) -> bool:
    return name.startswith((".", "/", "~")) or os.sep != "/" and os.sep in name


# ------------------------------------------------------------------ opening (through `datasets`)


@dataclass
class Opened:
    """A dataset opened through `datasets`: its splits and what identifies them.

    kind: "hub" (read from the hub or its cache), "local directory" (data files in the hub's
        layout) or "saved dataset" (a `save_to_disk` folder).
    revision: the hub commit the copy comes from (hub datasets); fingerprint: the prepared copy's
        hash (`datasets`' builder hash), for local datasets.
    files: split -> the files behind it, checksummed in the run record.
    """

    address: str
    kind: str
    splits: dict[str, Any]
    files: dict[str, list[Path]]
    revision: str | None = None
    fingerprint: str | None = None
    notes: list[str] = field(default_factory=list)


_OPENED: OrderedDict = OrderedDict()


def _datasets(address: str):
    """The `datasets` package, imported past `experiments/datasets.py`: `python experiments/run.py` puts
    the script's folder first on sys.path, where that module would stand for the package."""
    scripts = Path(__file__).resolve().parents[1]
    shadow = sys.modules.get("datasets")
    if shadow is not None and Path(getattr(shadow, "__file__", "") or "").resolve().parent == scripts:
        del sys.modules["datasets"]
    saved = list(sys.path)
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != scripts]
    try:
        datasets = importlib.import_module("datasets")
    except ImportError:
        raise HubError(f"{address}: reading Hugging Face datasets needs the `datasets` package, which is not "
                       f"installed; install it with: {install_command('hf')}") from None
    finally:
        sys.path[:] = saved
    return datasets


@contextlib.contextmanager
def _quiet(datasets, progress: bool = False):
    """`datasets` without its warnings (the run says what it read, in its notes and record) and,
    unless `progress`, without its progress bars (`--quiet` means quiet; a first download or
    preparation shows them otherwise)."""
    bars_off = datasets.are_progress_bars_disabled()
    verbosity = datasets.logging.get_verbosity()
    if not progress:
        datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()
    try:
        yield
    finally:
        datasets.logging.set_verbosity(verbosity)
        if not bars_off:
            datasets.enable_progress_bars()


def _offline(datasets) -> bool:
    return bool(getattr(datasets.config, "HF_HUB_OFFLINE", False))


def _signature(folder: Path) -> tuple:
    """What a local dataset's files are now (names, sizes, modification times): a copy opened
    earlier in this process is reused only while they are unchanged."""
    entries = []
    for parent, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(parent, name)
            with contextlib.suppress(OSError):
                stat = os.stat(path)
                entries.append((path, stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(entries))


def open_dataset(name: str, config: str | None = None, revision: str | None = None,
                 progress: bool = False) -> Opened:
    """Open `name` (a hub dataset or a local directory) through `datasets`, once per process while
    its files are unchanged; any failure is one HubError line. progress: `datasets`' progress bars
    while it downloads or prepares."""
    address = PREFIX + name + (f":{config}" if config else "")
    local = Path(name).expanduser()
    datasets = _datasets(address)
    key = ((str(local.resolve()), config, _signature(local)) if local.is_dir() else
           (name, config, revision, str(datasets.config.HF_DATASETS_CACHE), _offline(datasets)))
    if key in _OPENED:
        _OPENED.move_to_end(key)
        return _OPENED[key]
    with _quiet(datasets, progress):
        if local.is_dir():
            if revision:
                raise HubError(f"{address}: --revision names a version of a dataset on the hub; {name} is a local "
                               "directory")
            opened = _open_local(datasets, address, local, config)
        elif _looks_local(name):
            raise HubError(f"{address}: no such directory {local}")
        else:
            opened = _open_hub(datasets, address, name, config, revision)
    _OPENED[key] = opened
    while len(_OPENED) > _OPENED_KEPT:
        _OPENED.popitem(last=False)
    return opened


# Set to 1, a local dataset folder may name files outside itself (its README's data_files, a
# save_to_disk folder's state.json and dataset_dict.json); unset, such a folder is refused.
OUTSIDE_ENV = "NLI_HF_FOLLOW_OUTSIDE"


def _inside(folder: Path, path: Path | str) -> bool:
    """Whether `path` (relative to `folder`; links followed) lies inside `folder`."""
    root = folder.resolve()
    target = (folder / path).resolve()
    return target == root or root in target.parents


def _check_inside(address: str, folder: Path, paths, what: str) -> None:
    """Refuse a local dataset whose `what` names a file outside its folder (an absolute path, `..`,
    a link out), unless OUTSIDE_ENV says to follow it: a folder given to read is all that is read."""
    if os.environ.get(OUTSIDE_ENV) == "1":
        return
    for path in paths:
        if not _inside(folder, path):
            raise HubError(f"{address}: its {what} names {shown(path, 300)}, outside {folder}; a local dataset is "
                           f"read only inside its folder (set {OUTSIDE_ENV}=1 to follow such names)")


def _saved_files(address: str, folder: Path) -> None:
    """Check a save_to_disk folder's own lists before `datasets` follows them: the splits of
    dataset_dict.json and the Arrow files of each state.json must be names inside the folder."""

    def read(path: Path):
        try:
            with open_input(path, "predictions", "dataset file") as handle:
                return json.loads(handle.read())
        except (ValueError, RecursionError, OSError) as exc:
            raise HubError(f"{address}: {path.name} is not readable JSON ({type(exc).__name__})") from None

    splits = [None]
    if (folder / "dataset_dict.json").is_file():
        listed = read(folder / "dataset_dict.json")
        splits = listed.get("splits") if isinstance(listed, dict) else None
        if not isinstance(splits, list) or not all(isinstance(s, str) for s in splits):
            raise HubError(f"{address}: dataset_dict.json does not list its splits")
        _check_inside(address, folder, splits, "dataset_dict.json")
    for split in splits:
        state_path = folder / "state.json" if split is None else folder / split / "state.json"
        if not state_path.is_file():
            continue
        state = read(state_path)
        files = state.get("_data_files") if isinstance(state, dict) else None
        names = [f.get("filename") for f in files] if isinstance(files, list) and all(
            isinstance(f, dict) for f in files) else None
        if names is None or not all(isinstance(n, str) for n in names):
            raise HubError(f"{address}: {state_path.relative_to(folder)} does not list its data files")
        _check_inside(address, state_path.parent, names, str(state_path.relative_to(folder)))
        _check_inside(address, folder, [state_path.parent / n for n in names], str(state_path.relative_to(folder)))
        _check_data_files(state_path.parent / n for n in names)


def _check_data_files(paths) -> None:
    """The read bounds that hold before `datasets` reads a dataset's files: each a regular file of at
    most `bytes`, and a text file of lines (JSON lines; CSV and TSV up to their first quote, which
    may join lines) of at most `rows` (docs/data.md, "Bounds"). The rows of every table are bounded
    again before a value is read (`readers.arrow.read_table`)."""
    for path in map(Path, paths):
        check_input(path)
        suffix = path.suffix.lower()
        if suffix in (".jsonl", ".csv", ".tsv"):
            past = rows_past_bound(path, header=0 if suffix == ".jsonl" else 1)
            if past is not None and (suffix == ".jsonl" or not past[1]):
                raise_too_many_rows(path, past[0])


def _open_local(datasets, address: str, folder: Path, config: str | None) -> Opened:
    if any((folder / marker).is_file() for marker in _SAVED_MARKERS):
        if config:
            raise HubError(f"{address}: {folder} is a save_to_disk folder, which has no configs; drop :{config}")
        _saved_files(address, folder)
        try:
            loaded = datasets.load_from_disk(str(folder))
        except Exception as exc:  # noqa: BLE001 - whatever `datasets` raises about the folder is one line
            raise HubError(f"{address}: cannot read the save_to_disk folder {folder} ({_reason(exc)})") from None
        notes = []
        if isinstance(loaded, datasets.Dataset):  # one split saved alone: the split it says it is
            split = str(loaded.split) if loaded.split else "train"
            notes.append(f"{address} holds one saved split, read as {split!r}")
            loaded = {split: loaded}
        splits = {str(s): d for s, d in loaded.items()}
        files = {s: [Path(f["filename"]) for f in d.cache_files] for s, d in splits.items()}
        return Opened(address, "saved dataset", splits, files, notes=notes)
    builder = _prepared(datasets, address, str(folder), config, None, inside=folder)
    data_files = builder.config.data_files or {}
    files = {str(s): [Path(str(f)) for f in data_files.get(s, [])] for s in data_files}
    splits = _as_splits(datasets, builder, address)
    return Opened(address, "local directory", splits, {s: files.get(s, []) for s in splits},
                  fingerprint=builder.hash)


def _open_hub(datasets, address: str, name: str, config: str | None, revision: str | None) -> Opened:
    offline = _offline(datasets)
    builder = _prepared(datasets, address, name, config, revision)
    splits = _as_splits(datasets, builder, address)
    files = {s: [Path(f["filename"]) for f in d.cache_files] for s, d in splits.items()}
    _check_data_files(f for split_files in files.values() for f in split_files)  # the prepared Arrow files
    commit = builder.hash if isinstance(builder.hash, str) and _SHA.fullmatch(builder.hash) else None
    notes = []
    if offline:
        notes.append(f"{address}: read from the local Hugging Face cache (HF_HUB_OFFLINE=1: the network was not "
                     "tried)" + (f", revision {commit}" if commit else ""))
        if revision and commit and revision != commit:
            if _SHA.fullmatch(revision):
                raise HubError(f"{address}: the cached copy is revision {commit}, not {revision}; offline, only a "
                               "cached revision can be read")
            notes.append(f"{address}: offline, --revision {revision} cannot be checked against the cache; the "
                         f"cached revision {commit} was read")
    return Opened(address, "hub", splits, files, revision=commit, fingerprint=None if commit else builder.hash,
                  notes=notes)


def _prepared(datasets, address: str, path: str, config: str | None, revision: str | None,
              inside: Path | None = None):
    """The dataset's builder, its data prepared (converted once into `datasets`' Arrow cache).
    inside: a local folder whose data files (its README's `data_files`) must lie inside it,
    checked before any is read."""
    try:
        builder = datasets.load_dataset_builder(path, config, revision=revision)
    except Exception as exc:  # noqa: BLE001 - `datasets` raises many kinds; each becomes one line
        raise HubError(f"{address}: {_reason(exc, datasets, path)}") from None
    if inside is not None:
        data_files = builder.config.data_files or {}
        _check_inside(address, inside, [str(f) for split in data_files for f in data_files[split]],
                      "README's data_files")
        _check_data_files(str(f) for split in data_files for f in data_files[split])
    try:
        builder.download_and_prepare()
    except Exception as exc:  # noqa: BLE001 - `datasets` raises many kinds; each becomes one line
        raise HubError(f"{address}: {_reason(exc, datasets, path)}") from None
    return builder


def _as_splits(datasets, builder, address: str) -> dict:
    try:
        loaded = builder.as_dataset()
    except Exception as exc:  # noqa: BLE001 - a broken cache, say: one line
        raise HubError(f"{address}: cannot read the prepared copy ({_reason(exc)})") from None
    return {str(split): dataset for split, dataset in loaded.items()}


def _reason(exc: BaseException, datasets=None, path: str | None = None) -> str:
    """`datasets`' error in one line, with what to do for the usual cases."""
    text = " ".join(str(exc).split())
    offline = datasets is not None and _offline(datasets)
    if isinstance(exc, ConnectionError) or "Couldn't reach" in text or "offline" in text.lower():
        return ("not in the local Hugging Face cache" + (", and HF_HUB_OFFLINE=1 forbids the network (run once "
                                                         "online, or unset it)" if offline else
                                                         ", and the hub cannot be reached"))
    if type(exc).__name__ == "DatasetNotFoundError":
        return "no such dataset on the Hugging Face hub (or no access to it)"
    if type(exc).__name__ in ("DataFilesNotFoundError", "EmptyDatasetError") or isinstance(exc, FileNotFoundError):
        where = f" in {path}" if path and Path(path).is_dir() else ""
        return (f"no data files found{where} (the hub's layout: data/train-00000-of-00001.parquet, "
                "data/validation-..., data/test-...; or a folder written by save_to_disk)")
    return f"{type(exc).__name__}: {text[:300]}"


# ------------------------------------------------------------------ splits


def assign_splits(names: Sequence[str], given: Mapping[str, str | None] | None = None,
                  address: str = "the dataset", needed: Sequence[str] = ("train", "dev")) -> tuple[dict, dict]:
    """(the suite's split -> the dataset's split(s), ambiguous role -> candidates): `given` names
    (`--train-split` ...; `a+b` joins several), else the rules of this module's docstring.

    A role in `needed` with several candidates is a HubError naming them; another is left out.
    """
    given = {role: value for role, value in (given or {}).items() if value}
    chosen: dict[str, tuple[str, ...]] = {}
    ambiguous: dict[str, tuple[str, ...]] = {}
    for role in ROLES:
        if role in given:
            chosen[role] = named_parts(given[role], names, role, address)
            continue
        found = _candidates(role, names)
        if len(found) == 1:
            chosen[role] = found
        elif found:
            ambiguous[role] = found
            if role in needed:
                raise HubError(f"{address}: which split is {role}? {', '.join(found)} could each be; choose with "
                               f"--{role}-split NAME (NAME+NAME joins several)")
    return chosen, ambiguous


def named_parts(value: str, names: Sequence[str], role: str, address: str) -> tuple[str, ...]:
    """The dataset's splits `--{role}-split` names (`a+b`: both, in order); HubError for one it lacks."""
    parts = tuple(part.strip() for part in value.split("+"))
    for part in parts:
        if part not in names:
            raise HubError(f"{address}: --{role}-split {value}: no split {part!r}; its splits: {', '.join(names)}")
    return parts


def _candidates(role: str, names: Sequence[str]) -> tuple[str, ...]:
    for pool in (_EXACT[role], _MATCHED[role]):
        found = tuple(n for n in names if n.lower() in pool)
        if found:
            return found
    return tuple(n for n in names if any(n.lower().startswith(f"{base}{sep}") for base in _EXACT[role]
                                         for sep in "_-"))


# ------------------------------------------------------------------ the corpus


@dataclass(frozen=True)
class HubCorpus(Corpus):
    """A corpus read through `datasets`: its `files` name the suite's splits (no candidates), and
    `load` reads the dataset's split(s) behind each column-wise (`readers.arrow.read_table`).

    parts: the suite's split -> the dataset's split(s), joined in order.
    columns: premise, hypothesis, label, id (None: found by name, or row numbers for ids).
    label_names: the ClassLabel names the copy must have (a registered corpus' `HubCopy`), or None.
    split_files: the suite's split -> the files behind it (for the record and for output checks).
    target_note: what the label column of a `hf:` dataset was found to hold (`corpora.targets`),
        said with the training split.
    """

    address: str = ""
    hub_name: str = ""
    hub_config: str | None = None
    revision: str | None = None
    parts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    columns: Mapping[str, str | None] = field(default_factory=dict)
    label_names: tuple[str, ...] | None = None
    label_map: Mapping[str, str] = field(default_factory=dict)
    meta_columns: tuple[str, ...] = ()
    split_files: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    target_note: str | None = None

    @property
    def stem(self) -> str:
        base = Path(self.hub_name.rstrip("/\\")).name or "dataset"
        return re.sub(r"[^A-Za-z0-9._-]+", "_", base + (f"-{self.hub_config}" if self.hub_config else ""))

    def candidates(self, split: str, data_dir: Path | None = None) -> list[Path]:
        return [Path(p) for p in self.split_files.get(split, ())]

    def locate(self, split: str, data_dir: Path | None = None) -> Path | None:
        return next(iter(self.candidates(split)), None)

    def locate_or_generated(self, split: str, data_dir: Path | None = None) -> bool:
        return split in self.files

    def available_splits(self, data_dir: Path | None = None) -> list[str]:
        return list(self.files)

    @property
    def read_from_hub_copy(self) -> bool:
        return self.hub is not None

    def has_column(self, name: str, split: str | None = None) -> bool:
        """Whether the dataset's `split` (default: the first) has a column (or dotted struct field) `name`."""
        opened = self._open()
        part = self.parts[split or next(iter(self.parts))][0]
        return arrow.has_field(opened.splits[part].data.schema, name)

    def _open(self) -> Opened:
        return open_dataset(self.hub_name, self.hub_config, self.revision)

    def load(self, split: str, data_dir: Path | str | None = None, on_bad_row: str = "error") -> SplitData:
        """Read one split from the dataset (data_dir is not used); raises HubError or DataFormatError."""
        if split not in self.parts:
            raise ValueError(f"corpus {self.name!r} has splits {', '.join(self.files)}, not {split!r}")
        opened = self._open()
        with gc_paused():
            read = [(part, self._read_part(opened, part, split, on_bad_row)) for part in self.parts[split]]
            data = read[0][1] if len(read) == 1 else _joined(read, split)
        data.paths = [p for part in self.parts[split] for p in opened.files.get(part, [])]
        data.source = {"hf": self.hub_name, "config": self.hub_config, "kind": opened.kind,
                       "revision": opened.revision, "fingerprint": opened.fingerprint,
                       "split": "+".join(self.parts[split]),
                       "split_fingerprint": "+".join(str(getattr(opened.splits[p], "_fingerprint", ""))
                                                     for p in self.parts[split]),
                       "rows": data.rows}
        if split == "train" or "train" not in self.parts:  # said once a run: with the training split
            data.notes = opened.notes + ([self.target_note] if self.target_note else []) + data.notes
        return data

    def _read_part(self, opened: Opened, part: str, split: str, on_bad_row: str) -> SplitData:
        dataset = opened.splits[part]
        table = _table(dataset)
        where = f"{self.address}[{part}]"
        columns = self.columns
        if self.task.single_sentence and columns.get("premise") is None:
            premise, hypothesis, id_column, notes = None, columns.get("hypothesis"), columns.get("id"), []
            for name in (hypothesis, id_column):
                if name is not None and not arrow.has_field(table.schema, name):
                    raise DataFormatError(where, None, f"no column {name!r}; the columns are "
                                                       f"{', '.join(table.column_names)}")
        else:
            premise, hypothesis, id_column, notes = find_columns(
                where, None, lambda name: arrow.has_field(table.schema, name), list(table.column_names),
                columns.get("premise"), columns.get("hypothesis"), columns.get("id"), shown=where)
        label = columns.get("label") or "label"
        names = self._label_names(dataset, label, where)
        if self.task.is_scores and names is not None:
            raise HubError(f"{where}: its label column {label!r} is a ClassLabel ({', '.join(names)}): classes, not "
                           f"the scores {self.name} has")
        data = arrow.read_table(table, where, self.name, split, on_bad_row, premise=premise, hypothesis=hypothesis,
                                label=label, id_column=id_column, labels=self.labels, label_names=names,
                                label_map=self.label_map, meta_columns=self.meta_columns,
                                scores=self.task.is_scores, score_range=self.task.score_range)
        data.notes = notes + data.notes
        missing = [c for c in self.meta_columns if not arrow.has_field(table.schema, c)]
        if missing:
            data.notes.append(f"{where} has no {', '.join(missing)} column: the official files' "
                              f"{', '.join(missing)} is not available from it")
        return data

    def _label_names(self, dataset, label: str, where: str) -> tuple[str, ...] | None:
        """The label column's ClassLabel names from the dataset's features, checked against the names
        the registered copy must have; a registered copy whose labels lost their names gets those."""
        feature = _feature(dataset.features, label)
        names = None
        if type(feature).__name__ == "ClassLabel":
            names = arrow.checked_label_names(list(getattr(feature, "names", None) or []), where)
        if self.label_names is not None:
            if names is not None and names != self.label_names:
                raise HubError(f"{where}: its labels are {', '.join(names)}, not {', '.join(self.label_names)} as "
                               f"{self.name}'s hub copy has them: is {self.address} the right dataset?")
            return self.label_names
        return names


def _table(dataset):
    """The dataset's rows as one pyarrow Table (its Arrow data as it is: no decoding, no copy)."""
    return dataset.with_format("arrow")[:]


def _feature(features, name: str):
    if name in features:
        return features[name]
    node = features
    for part in name.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _joined(read: list[tuple[str, SplitData]], split: str) -> SplitData:
    """Several of the dataset's splits as one (ANLI's rounds), in order; ids that are row numbers
    get their split's name (`train_r2:17`), so that they stay unique."""
    first = read[0][1]
    renumber = not first.fields.get("id")
    pairs, skipped, notes = [], Counter(), []
    for part, data in read:
        pairs += [replace(p, id=f"{part}:{p.id}") for p in data.pairs] if renumber else data.pairs
        skipped.update(data.skipped)
        notes += data.notes
    return SplitData(first.dataset, split, [], pairs, sum(d.rows for _, d in read), skipped, first.columns,
                     first.fields, notes)


# ------------------------------------------------------------------ building corpora


def hub_corpus(dataset: str, *, premise: str | None = None, hypothesis: str | None = None, label: str = "label",
               id_column: str | None = None, splits: Mapping[str, str | None] | None = None,
               revision: str | None = None, needed: Sequence[str] = ("train", "dev"),
               progress: bool = False, target: str = "auto") -> HubCorpus:
    """The corpus of `hf:NAME[:CONFIG]`: its splits found by name (or `splits` overrides: role ->
    the dataset's split), columns found or named as for custom files, labels from its ClassLabel.
    needed: the roles whose split must be unambiguous; progress: `datasets`' progress bars.
    target: "labels", "scores" or "auto" (`corpora.targets`: what its training split's label column
        holds; a ClassLabel column holds classes)."""
    name, config = parse_address(dataset)
    opened = open_dataset(name, config, revision, progress)
    chosen, _ = assign_splits(list(opened.splits), splits, opened.address, needed)
    parts = {role: chosen[role] for role in ROLES if role in chosen}
    _add_other_splits(parts, opened)
    columns = {"premise": premise, "hypothesis": hypothesis, "label": label or "label", "id": id_column}
    labels = _class_names(opened, parts, columns["label"])
    task, note = _task(opened, parts, columns["label"], labels, target)
    description = {"hub": "a Hugging Face hub dataset", "local directory": "a local dataset in the hub's layout",
                   "saved dataset": "a dataset saved with save_to_disk"}[opened.kind]
    return HubCorpus(dataset, f"{name} ({description})", task, {s: () for s in parts}, target_note=note,
                     dev_split="dev" if "dev" in parts else None, test_split="test" if "test" in parts else None,
                     address=opened.address, hub_name=name, hub_config=config, revision=revision, parts=parts,
                     columns=columns, split_files=_split_files(parts, opened))


def hub_copy_corpus(corpus: Corpus, *, splits: Mapping[str, str | None] | None = None,
                    revision: str | None = None, progress: bool = False) -> HubCorpus:
    """`corpus` (a registered one) read from its hub copy: the same name, labels and split names, so
    its published figures and prediction files are the same as from its official files."""
    copy: HubCopy = corpus.hub
    opened = open_dataset(copy.name, copy.config, revision, progress)
    parts = {}
    for ours, theirs in copy.splits.items():
        wanted = tuple(theirs.split("+"))
        if all(p in opened.splits for p in wanted):  # a split the copy lacks is left out, as a missing file is
            parts[ours] = wanted
    ours_for = {"train": "train", "dev": corpus.dev_split or "dev", "test": corpus.test_split or "test"}
    for role, value in (splits or {}).items():
        if value:
            parts[ours_for[role]] = named_parts(value, list(opened.splits), role, opened.address)
    _add_other_splits(parts, opened)
    return HubCorpus(corpus.name, f"{corpus.description}; read from the Hugging Face hub ({copy.address})",
                     corpus.task, {s: () for s in parts}, dev_split=ours_for["dev"] if ours_for["dev"] in parts
                     else None, test_split=ours_for["test"] if ours_for["test"] in parts else None,
                     hub=copy, address=opened.address, hub_name=copy.name, hub_config=copy.config, revision=revision,
                     parts=parts, columns={"premise": copy.premise, "hypothesis": copy.hypothesis, "label": copy.label,
                                           "id": copy.id_column},
                     label_names=copy.label_names, label_map=dict(copy.label_map), meta_columns=copy.meta_columns,
                     split_files=_split_files(parts, opened))


def _add_other_splits(parts: dict, opened: Opened) -> None:
    """The dataset's other splits, under their own names (`--eval-split validation_mismatched`; ANLI's
    dev_r2 beside its joined dev): every one not already a split of ours by another name."""
    alone = {ps[0] for ps in parts.values() if len(ps) == 1}
    for part in opened.splits:
        if part not in parts and part not in alone:
            parts[part] = (part,)


def _split_files(parts: Mapping[str, tuple[str, ...]], opened: Opened) -> dict[str, tuple[str, ...]]:
    return {split: tuple(str(f) for part in theirs for f in opened.files.get(part, []))
            for split, theirs in parts.items()}


def _task(opened: Opened, parts: Mapping[str, tuple], label: str, class_names, target: str):
    """(the task, the line saying what the label column holds, or None) of a `hf:` dataset, from its
    training split (else its first)."""
    if class_names is not None:
        if target == SCORES:
            raise TargetError(f"--target scores: {opened.address}'s label column {label!r} is a ClassLabel "
                              f"({', '.join(class_names)}): classes, not scores")
        return task_for("labels", class_names), None
    first = (parts.get("train") or next(iter(parts.values()), ()))[:1]
    table = _table(opened.splits[first[0]]) if first and target != SCORES else None
    values = arrow.distinct_texts(table, label, f"{opened.address}[{first[0]}]") \
        if table is not None and arrow.has_field(table.schema, label) else []
    chosen, note = choose_target(values, target, f"{opened.address}[{first[0]}]" if first else opened.address)
    return task_for(chosen), note


def _class_names(opened: Opened, parts: Mapping[str, tuple], label: str) -> tuple[str, ...] | None:
    """The label set of a `hf:` corpus: its training split's ClassLabel names (None: learned from
    the training labels, as for custom files)."""
    first = (parts.get("train") or next(iter(parts.values()), ()))[:1]
    if not first:
        return None
    feature = _feature(opened.splits[first[0]].features, label)
    if type(feature).__name__ != "ClassLabel":
        return None
    return arrow.checked_label_names(list(getattr(feature, "names", None) or []), f"{opened.address}[{first[0]}]")


READ_FROM["hf"] = hub_copy_corpus
