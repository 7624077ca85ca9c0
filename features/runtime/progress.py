"""Process-wide switches for progress bars that run deep below the command that knows whether the
run is quiet: reading a corpus, the dependency parse, featurizing. Process-wide rather than
per call, as the stages run on threads and several layers below the command."""
from __future__ import annotations

import contextlib
from typing import Iterator


class ProgressSwitch:
    """Whether one stage shows its bar on stderr; `with switch(shown):` sets it for a block."""

    def __init__(self, doc: str):
        self.shown = False
        self.__doc__ = doc

    @contextlib.contextmanager
    def __call__(self, shown: bool) -> Iterator[None]:
        previous, self.shown = self.shown, bool(shown)
        try:
            yield
        finally:
            self.shown = previous
