"""User errors become one line on stderr and exit status 2; tracebacks are for the suite's bugs."""
from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading

EXIT_USAGE = 2  # bad arguments, missing corpus, malformed input, unusable training data
# The errors a user can fix, by module and name: a module not imported yet has raised none of them,
# so none is imported just to be caught (the scripts' --help starts fast).
USER_ERRORS = (
    ("experiments.corpora.registry", "CorpusNotFoundError"), ("experiments.corpora.readers.common", "DataFormatError"),
    ("experiments.engine.errors", "UsageError"), ("models.common", "TrainingDataError"),
    ("experiments.outputs.model_files", "ModelFileError"), ("experiments.outputs.submissions", "SubmissionError"),
    ("features.text.wordnet_data", "WordNetMissingError"), ("experiments.outputs.records", "RecordError"),
    ("features.custom", "CustomFeatureError"), ("experiments.outputs.formats", "PredictionFileError"),
    ("features.runtime.commands", "MissingDependencyError"), ("features.pair", "PairTooLongError"),
    ("experiments.corpora.hub", "HubError"),
)


# Writing an output failed for a reason the user can fix (space, permissions): one line, not a traceback.
WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS, errno.EISDIR, errno.ENOTDIR,
                errno.EFBIG}


def is_user_error(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in WRITE_ERRNOS:
        return True
    return any(module in sys.modules and isinstance(exc, getattr(sys.modules[module], name))
               for module, name in USER_ERRORS)


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno in WRITE_ERRNOS:
        where = exc.filename or ""
        return f"cannot write {where}: {exc.strerror}" if where else f"cannot write: {exc.strerror}"
    return str(exc)


@contextlib.contextmanager
def user_errors():
    """Turn the errors a user can fix into `error: message` on stderr and exit status 2."""
    try:
        yield
    except Exception as exc:
        if not is_user_error(exc):
            raise
        print(f"error: {_message(exc)}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


class Terminated(BaseException):
    """SIGTERM, raised where the program is so that cleanup runs (a plain SIGTERM ends Python without it)."""


@contextlib.contextmanager
def terminate_unwinds():
    """Within the block, SIGTERM raises Terminated (main thread only; the old handler comes back after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum, frame):
        raise Terminated

    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def terminated_cleanly():
    """SIGTERM unwinds the command, so every atomic write in progress removes its temporary (a plot
    half drawn leaves no `.tmp` beside its target); then one line and exit status 143."""
    try:
        with terminate_unwinds():
            yield
    except Terminated:
        print("error: terminated; unfinished outputs removed", file=sys.stderr)
        raise SystemExit(128 + signal.SIGTERM) from None


@contextlib.contextmanager
def closed_pipe_ends_quietly():
    """`run.py ... | head`: when the reader of stdout goes away, stop printing and exit 0 quietly
    (whatever the run writes to files is written before its report is printed)."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would report the closed pipe again when it flushes stdout at exit: point it at devnull.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(0) from None
