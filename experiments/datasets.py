"""Inspect the corpora under a data directory: pairs, labels and skipped rows per split, as JSON.

    python experiments/datasets.py --data-dir DIR --stats [--dataset NAME]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from nli_baselines.experiments.commandline.arguments import add_option
from nli_baselines.experiments.commandline.exits import user_errors
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.configuration.options import options
from nli_baselines.experiments.corpora import CORPORA, Corpus, resolve_data_dir


def corpus_stats(corpus: Corpus, data_dir: Path, on_bad_row: str = "error") -> dict:
    """Per split: file, data rows, pairs kept, label counts (a score task: the scores' count, least,
    greatest and mean), skipped rows by reason."""
    splits = {}
    for split in corpus.available_splits(data_dir):
        data = corpus.load(split, data_dir, on_bad_row)
        if data.rows == 0 and corpus.generate is None:
            continue  # e.g. a SICK.txt without TEST rows simply has no test split
        splits[split] = {
            "path": str(data.paths[0]) if data.paths else None,
            "rows": data.rows,
            "pairs": len(data.pairs),
            "labeled": data.labeled,
            **({"scores": _scores(data)} if corpus.task.is_scores else {"labels": data.label_counts()}),
            "skipped": dict(data.skipped),
            **({"source": data.source} if data.source else {}),  # a Hugging Face dataset's name, split, ...
        }
    return {"description": corpus.description, "splits": splits}


def _scores(data) -> dict:
    values = [float(p.label) for p in data.pairs if p.label is not None]
    return {"count": len(values), "min": min(values), "max": max(values),
            "mean": round(sum(values) / len(values), 4)} if values else {"count": 0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     argument_default=argparse.SUPPRESS)
    table = options()
    group = parser.add_argument_group("data")
    for name in ("dataset", "data_dir", "source", "train_split", "dev_split", "test_split", "revision", "on_bad_row",
                 "train_file", "dev_file", "test_file", "premise_column", "hypothesis_column", "label_column",
                 "id_column", "target"):
        add_option(group, table[name])
    parser.add_argument("--stats", action="store_true", default=False, help="print per-split statistics as JSON")
    args = parser.parse_args(argv)
    if not args.stats:
        parser.print_help()
        return 0
    with user_errors():
        given = {k: v for k, v in vars(args).items() if k in table}
        config = RunConfig(**given)
        data_dir = resolve_data_dir(config.data_dir)
        if "data_dir" in given and not data_dir.is_dir():
            raise UsageError(f"--data-dir {data_dir} is not a directory" if data_dir.exists() else
                             f"--data-dir {data_dir}: no such directory")
        if "dataset" in given or config.dataset == "custom":
            corpora = [config.corpus()]
            if not corpora[0].available_splits(data_dir):
                corpora[0].load(corpora[0].splits[0], data_dir)  # raises CorpusNotFoundError: where we looked
        else:  # every corpus found; the generated ones (demo, hans-mini) only when asked for
            corpora = [c for c in CORPORA.values() if c.generate is None and c.available_splits(data_dir)]
        report = {"data_dir": str(data_dir),
                  "corpora": {c.name: corpus_stats(c, data_dir, config.on_bad_row) for c in corpora}}
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
