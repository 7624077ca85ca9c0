"""Peak resident memory of a block of code, sampled from a background thread."""
from __future__ import annotations

import threading
import time

import psutil


class PeakRSS:
    """`with PeakRSS() as peak: ...`; then `peak.bytes` is the largest RSS seen (every `interval` s)."""

    def __init__(self, interval: float = 0.005):
        self.interval = interval
        self.bytes = 0
        self._stop = threading.Event()
        self._process = psutil.Process()

    def _sample(self):
        while not self._stop.is_set():
            self.bytes = max(self.bytes, self._process.memory_info().rss)
            time.sleep(self.interval)

    def __enter__(self):
        self.bytes = self._process.memory_info().rss
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.bytes = max(self.bytes, self._process.memory_info().rss)
        return False
