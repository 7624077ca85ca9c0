"""Measuring the suite: peak memory, the straightforward reference featurizer, and the benchmarks
behind `benchmarks/benchmark.py`."""
import sys


def log(message: str) -> None:
    """Progress of a benchmark, on stderr (stdout carries the JSON)."""
    print(message, file=sys.stderr, flush=True)
