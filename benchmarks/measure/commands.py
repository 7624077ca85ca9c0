"""The guide's SNLI-scale commands as a user types them, each run as a process on the generated
corpus (train 550,152 pairs, dev 10,000) and timed from outside:

- the main job, `experiments/run.py --dataset snli --ablate cross_bigrams`: wall time, peak RSS,
  the stages its run record reports, the choice of C and whether every fit converged;
- the strongest group, `experiments/run.py --dataset snli --features strongest`, cold (an empty
  cache: every sentence lemmatized and parsed, every feature computed) and then warm (the same
  cache, which now holds the costly types' values), each with the stages of its record (reading
  and lemmas, the parse, featurizing by type, the C path) and what the value cache gave;
- the learning curve, `learning_curves/run.py --dataset snli --sizes 1,...,all --seeds 3
  --configs lexicalized,unlexicalized --jobs 2`: wall time, peak RSS (of the whole process
  tree, whose workers run side by side), and the figures of its curve.json.

The machine's load average is noted before and after each run, since it is shared.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from . import log

MAIN_JOB = ["--dataset", "snli", "--ablate", "cross_bigrams"]
STRONGEST = ["--dataset", "snli", "--features", "strongest"]
CURVE = ["--dataset", "snli", "--sizes", "1,10,100,1000,10000,100000,all", "--seeds", "3",
         "--configs", "lexicalized,unlexicalized", "--jobs", "2"]
REPO = Path(__file__).resolve().parents[2]


def write_corpus(data_dir: Path, n_pairs: int, seed: int, dev_pairs: int = 10_000) -> None:
    """The generated corpus as SNLI jsonl (one vocabulary for train and dev)."""
    from benchmarks.synthetic import generate_pairs, write_snli_jsonl
    pairs = generate_pairs(n_pairs + dev_pairs, seed=seed)
    data_dir.mkdir(parents=True, exist_ok=True)
    write_snli_jsonl(pairs[:n_pairs], data_dir / "snli_1.0_train.jsonl")
    write_snli_jsonl(pairs[n_pairs:], data_dir / "snli_1.0_dev.jsonl")


def run_process(command: list[str], logs: Path, env: dict | None = None) -> dict:
    """Run `command` from the repository; wall seconds, its peak RSS (the kernel's maximum for the
    child and the descendants it waited for), the peak of the whole tree's summed RSS (sampled
    every 0.1 s), the load average before and after, and the tail of its stderr."""
    load_before = os.getloadavg()
    tree_peak = [0]
    started = time.perf_counter()
    with open(logs.with_suffix(".stdout"), "w+") as stdout, open(logs.with_suffix(".stderr"), "w+") as stderr:
        child = subprocess.Popen(command, cwd=REPO, stdout=stdout, stderr=stderr, text=True,
                                 env=None if env is None else {**os.environ, **env})
        done = threading.Event()

        def sample():
            try:
                root = psutil.Process(child.pid)
                while not done.wait(0.1):
                    total = 0
                    for process in [root, *root.children(recursive=True)]:
                        try:
                            total += process.memory_info().rss
                        except psutil.Error:
                            pass
                    tree_peak[0] = max(tree_peak[0], total)
            except psutil.Error:
                pass

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        # wait4 reaps the child with its own resource usage (ru_maxrss: KiB on Linux, bytes on macOS).
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        done.set()
        sampler.join()
        child.returncode = os.waitstatus_to_exitcode(status)
        stderr.seek(0)
        errors = stderr.read()
    if child.returncode != 0:
        raise RuntimeError(f"failed (exit {child.returncode}): {' '.join(command)}\n{errors[-3000:]}")
    return {"wall_seconds": wall, "peak_rss_bytes": int(usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)),
            "peak_tree_rss_bytes": int(tree_peak[0]), "load_average_before": load_before,
            "load_average_after": os.getloadavg(), "stderr_tail": errors[-2000:]}


def main_job_once(data_dir: Path, out: Path, arguments: list[str] = MAIN_JOB, env: dict | None = None) -> dict:
    """One main job (or run.py with other `arguments`): the process figures and those of its run record."""
    command = [sys.executable, str(REPO / "experiments" / "run.py"), *arguments, "--data-dir", str(data_dir),
               "--out", str(out), "--overwrite"]
    figures = run_process(command, out, env)
    record = json.loads(out.read_text())
    row = record["rows"][0]
    selection = row.get("selection", {})
    fits = list(selection.get("fits", {}).values())
    timings = {k: v for k, v in record["timings"].items() if isinstance(v, (int, float))}
    return {
        "command": ["python", "experiments/run.py", *arguments, "--data-dir", "DIR", "--out", "FILE", "--overwrite"],
        **figures, "stages": timings, "featurize_by_type": record["timings"].get("featurize_by_type"),
        "fit_over_read_and_featurize": fit_over_read_and_featurize(timings),
        "outside_stages_seconds": figures["wall_seconds"] - sum(timings.values()),  # start-up, imports, the record
        "chosen": selection.get("chosen"), "scores": selection.get("scores"), "skipped": selection.get("skipped"),
        "stopped_early": selection.get("stopped_early"), "stopped": selection.get("stopped"), "refit": selection.get("refit"),
        "fits": selection.get("fits"), "fitted": row.get("fitted"),
        "every_fit_converged": all(f.get("converged", False) for f in fits) and bool(row.get("fitted", {}).get(
            "converged", False)),
        "dev_accuracy": record["metrics"]["dev"]["accuracy"], "train_accuracy": record["metrics"]["train"]["accuracy"],
        "n_columns": row.get("n_columns"),
        "value_cache": record.get("value_cache"),
    }


def fit_over_read_and_featurize(stages: dict) -> float | None:
    """A run's fit (choosing C and fitting) over its read and featurize stages, in the same run:
    a figure that compares the fit with parts of the job whose speed hardly depends on the BLAS
    kernel, so that it travels between machines better than seconds do."""
    read = stages.get("load_and_annotate", 0.0) + stages.get("parse", 0.0)
    featurize = stages.get("featurize", 0.0)
    fit = stages.get("fit_and_evaluate")
    return fit / (read + featurize) if fit is not None and read + featurize > 0 else None


def strongest_once(data_dir: Path, out: Path) -> dict:
    """The strongest group from an empty annotation cache, then again from the cache it filled."""
    cache = out.parent / f"{out.stem}-cache"
    cold = main_job_once(data_dir, out.with_name(f"{out.stem}-cold.json"), STRONGEST, {"NLI_CACHE_DIR": str(cache)})
    warm = main_job_once(data_dir, out.with_name(f"{out.stem}-warm.json"), STRONGEST, {"NLI_CACHE_DIR": str(cache)})
    kept = sum(f.stat().st_size for f in (cache / "values").rglob("*.values"))
    return {"cold": cold, "warm": warm, "wall_seconds": cold["wall_seconds"] + warm["wall_seconds"],
            "value_cache_bytes": kept}


def curve_once(data_dir: Path, out: Path) -> dict:
    """One learning curve from scratch: the process figures and those of its curve.json."""
    command = [sys.executable, str(REPO / "learning_curves" / "run.py"), *CURVE, "--data-dir", str(data_dir),
               "--out", str(out), "--quiet"]
    figures = run_process(command, out.parent / f"{out.name}-log")
    record = json.loads((out / "curve.json").read_text())
    return {
        "command": ["python", "learning_curves/run.py", *CURVE, "--data-dir", "DIR", "--out", "OUT", "--quiet"],
        **figures, "points": record["points_computed"], "featurize_seconds": record["featurize_seconds"],
        "curve_seconds": record["total_seconds"],  # featurizing and the points (curve.json's own clock)
        "dev_accuracy": {config: {str(p["size"]): p["eval_mean"] for p in points}
                         for config, points in record["curve"].items()},
        "fit_seconds_mean": {config: {str(p["size"]): p["fit_seconds_mean"] for p in points}
                             for config, points in record["curve"].items()},
    }


def bench_commands(which: str, data_dir: str | None, n_pairs: int, seed: int, repeats: int,
                   dev_pairs: int = 10_000) -> dict:
    """`repeats` runs of the main job (which="main_job") or of the learning curve ("curve"), on
    `data_dir` or on the generated corpus written to a temporary directory; medians of wall time
    and peak RSS, every run kept."""
    once = {"main_job": main_job_once, "curve": curve_once, "strongest": strongest_once}[which]
    source = data_dir or f"generated (benchmarks.synthetic, seed {seed})"
    with tempfile.TemporaryDirectory(prefix=f"nli-{which}-") as scratch:
        if data_dir is None:
            started = time.perf_counter()
            data_dir = Path(scratch) / "snli"
            write_corpus(data_dir, n_pairs, seed, dev_pairs)
            log(f"wrote the generated corpus ({n_pairs} + {dev_pairs} pairs) in {time.perf_counter() - started:.0f}s")
        runs = []
        for i in range(repeats):
            runs.append(once(Path(data_dir), Path(scratch) / f"{which}-{i}" if which == "curve"
                             else Path(scratch) / f"record-{i}.json"))
            if which == "strongest":
                for kind in ("cold", "warm"):
                    log(f"strongest run {i + 1}/{repeats}, {kind}: {_main_job_line(runs[-1][kind])}")
            elif which == "main_job":
                log(f"main_job run {i + 1}/{repeats}: {_main_job_line(runs[-1])}")
            else:
                r = runs[-1]
                log(f"{which} run {i + 1}/{repeats}: {r['wall_seconds']:.1f}s wall, peak RSS "
                    f"{r['peak_rss_bytes'] / 2 ** 30:.2f} GiB (process tree {r['peak_tree_rss_bytes'] / 2 ** 30:.2f} "
                    f"GiB); load {r['load_average_before'][0]:.2f} -> {r['load_average_after'][0]:.2f}")
    if which == "strongest":
        return {which: {"data_dir": source, "runs": runs,
                        **{kind: _summary([r[kind] for r in runs]) for kind in ("cold", "warm")}}}
    walls = [r["wall_seconds"] for r in runs]
    peaks = [r["peak_rss_bytes"] for r in runs]
    summary = {"data_dir": source, "runs": runs, "wall_seconds_median": statistics.median(walls), "wall_seconds_runs": walls,
               "peak_rss_bytes_median": int(statistics.median(peaks)), "peak_rss_bytes_max": max(peaks),
               "peak_tree_rss_bytes_max": max(r["peak_tree_rss_bytes"] for r in runs)}
    if which == "main_job":
        summary.update(_summary(runs))  # stages, convergence and the choice, as for --strongest
    return {which: summary}


def _main_job_line(r: dict) -> str:
    return (f"{r['wall_seconds']:.1f}s wall, peak RSS {r['peak_rss_bytes'] / 2 ** 30:.2f} GiB (process tree "
            f"{r['peak_tree_rss_bytes'] / 2 ** 30:.2f} GiB), C={r['chosen']}, dev {100 * r['dev_accuracy']:.2f}%, "
            f"stages {', '.join(f'{k} {v:.1f}' for k, v in r['stages'].items())}, fit / (read + featurize) "
            f"{r['fit_over_read_and_featurize'] or float('nan'):.2f}; "
            f"load {r['load_average_before'][0]:.2f} -> {r['load_average_after'][0]:.2f}")


def _summary(runs: list[dict]) -> dict:
    """Medians over runs of run.py (wall, peak RSS, each stage), and whether they agree."""
    ratios = [r["fit_over_read_and_featurize"] for r in runs if r.get("fit_over_read_and_featurize") is not None]
    return {"wall_seconds_median": statistics.median(r["wall_seconds"] for r in runs),
            "fit_over_read_and_featurize_median": statistics.median(ratios) if ratios else None,
            "fit_over_read_and_featurize_runs": ratios,
            "peak_rss_bytes_median": int(statistics.median(r["peak_rss_bytes"] for r in runs)),
            "peak_tree_rss_bytes_max": max(r["peak_tree_rss_bytes"] for r in runs),
            "stages_median": {k: statistics.median(r["stages"].get(k, 0.0) for r in runs) for k in runs[0]["stages"]},
            "every_fit_converged": all(r["every_fit_converged"] for r in runs),
            "same_choice_every_run": len({json.dumps(r["chosen"]) for r in runs}) == 1,
            "dev_accuracy": [r["dev_accuracy"] for r in runs]}
