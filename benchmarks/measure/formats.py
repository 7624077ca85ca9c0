"""Reading SNLI-sized pairs from JSON lines and from parquet and Arrow copies of the same file.

The jsonl file (SNLI's official layout: sentence1, sentence2, gold_label, pairID, the parse strings
and the rest) is converted once, every column kept, with pyarrow. Each format is then read as a
user's file of pairs is (`--train-file FILE --label-column gold_label`: `Corpus.load`, the
collector paused), `repeats` times, in turn, in one process, so that the medians are comparable on
a shared machine. The pairs read from each format must be the same, or the measurement stops.
"""
from __future__ import annotations

import statistics
import time
from pathlib import Path

from . import log


def convert(jsonl: Path, folder: Path) -> dict[str, Path]:
    """Parquet and Arrow (IPC file) copies of `jsonl` in `folder`, every column kept."""
    import pyarrow as pa
    import pyarrow.json
    import pyarrow.parquet as pq
    table = pyarrow.json.read_json(jsonl, read_options=pyarrow.json.ReadOptions(block_size=1 << 26))
    folder.mkdir(parents=True, exist_ok=True)
    out = {"parquet": folder / f"{jsonl.stem}.parquet", "arrow": folder / f"{jsonl.stem}.arrow"}
    pq.write_table(table, out["parquet"])
    with pa.OSFile(str(out["arrow"]), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return out


def bench_formats(jsonl: Path, folder: Path, repeats: int = 3) -> dict:
    """Seconds to read `jsonl` and its parquet and Arrow copies (written into `folder`) as custom
    files: each read `repeats` times, in turn; the medians, their ratios to jsonl, and the sizes."""
    from nli_baselines.experiments.corpora import custom_corpus
    started = time.perf_counter()
    files = {"jsonl": jsonl, **convert(jsonl, folder)}
    converted = time.perf_counter() - started
    log(f"converted {jsonl} to parquet and Arrow in {converted:.1f}s")
    seconds: dict[str, list[float]] = {name: [] for name in files}
    reference = None
    for round_ in range(repeats):
        for name, path in files.items():
            corpus = custom_corpus(train=str(path), label="gold_label")
            began = time.perf_counter()
            data = corpus.load("train")
            seconds[name].append(time.perf_counter() - began)
            if reference is None:
                reference = data.pairs
            elif data.pairs != reference:
                raise AssertionError(f"{path}: the pairs read differ from those of {jsonl}")
            log(f"round {round_ + 1}: {name} {seconds[name][-1]:.2f}s ({len(data.pairs):,} pairs)")
            del data
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    return {"formats": {
        "pairs": len(reference or ()), "repeats": repeats, "conversion_seconds": converted,
        "files": {name: {"path": str(path), "bytes": path.stat().st_size} for name, path in files.items()},
        "seconds": seconds, "median_seconds": medians,
        "ratio_to_jsonl": {name: medians[name] / medians["jsonl"] for name in files},
    }}
