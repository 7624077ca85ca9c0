"""Progress on stderr, decided in one place: `bar` draws a bar where stderr redraws lines (a
terminal, a notebook) and writes nothing elsewhere (a file, a pipe, CI), where the commands' stage
lines say how far a run got; --quiet silences both.

Process-wide switches (`ProgressSwitch`) carry whether a run is quiet to bars that run deep below
the command that knows it: reading a corpus, the dependency parse, featurizing. Process-wide
rather than per call, as the stages run on threads and several layers below the command."""
from __future__ import annotations

import contextlib
import sys
from typing import Iterable, Iterator

# not tqdm.auto: in a notebook it wants ipywidgets, and warns without them; a text bar redraws there too
from tqdm import tqdm


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


def redraws(stream=None) -> bool:
    """Whether `stream` (default: stderr) redraws a line on `\\r`, so that a bar can move in place: a
    terminal, or a notebook's stderr (ipykernel's stream, whose front end redraws it). A file, a
    pipe or a CI log does not: there every frame of a bar would stay, one after another."""
    stream = sys.stderr if stream is None else stream
    if stream is None:
        return False
    if type(stream).__module__.split(".")[0] == "ipykernel":
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # a stream without isatty, or a closed one
        return False


def bar(iterable: Iterable | None = None, *, desc: str, total: int | None = None, unit: str = "it",
        enabled: bool = True, leave: bool = False, **options) -> tqdm:
    """The suite's one kind of progress bar, on stderr: drawn where stderr redraws (`redraws`) and
    `enabled` (not --quiet); elsewhere a silent bar, which counts and writes nothing, so a log or a
    CI run gets the stage lines the commands print and no carriage-return frames. Every progress
    bar of the suite is made here. options: tqdm's (unit_scale, ...)."""
    return tqdm(iterable, desc=desc, total=total, unit=unit, leave=leave, file=sys.stderr,
                disable=not (enabled and redraws()), **options)
