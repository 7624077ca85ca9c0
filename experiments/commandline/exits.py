"""User errors become one line on stderr (a few where the error lists lines of its own: where WordNet was
looked for, the install command) and exit status 2; tracebacks are for the suite's bugs."""
from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import threading
import warnings

from nli_baselines.features.runtime.shown import shown

EXIT_USAGE = 2  # bad arguments, missing corpus, malformed input, unusable training data
# The errors a user can fix, by module and name: a module not imported yet has raised none of them,
# so none is imported just to be caught (the scripts' --help starts fast).
USER_ERRORS = tuple((f"nli_baselines.{module}", name) for module, name in (
    ("experiments.corpora.registry", "CorpusNotFoundError"),
    ("experiments.corpora.readers.common", "DataFormatError"),
    ("experiments.configuration.errors", "UsageError"),
    ("models.common", "TrainingDataError"),
    ("experiments.outputs.model_files", "ModelFileError"),
    ("experiments.submissions.files", "SubmissionError"),
    ("features.text.wordnet_data", "WordNetMissingError"),
    ("experiments.outputs.records", "RecordError"),
    ("features.custom", "CustomFeatureError"),
    ("experiments.outputs.formats", "PredictionFileError"),
    ("features.runtime.commands", "MissingDependencyError"),
    ("features.pair", "PairTooLongError"),
    ("experiments.corpora.hub", "HubError"),
))

# Writing an output failed for a reason the user can fix (space, permissions): one line, not a traceback.
WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EROFS, errno.EISDIR, errno.ENOTDIR,
                errno.EFBIG}


def is_user_error(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in WRITE_ERRNOS:
        return True
    return any(module in sys.modules and isinstance(exc, getattr(sys.modules[module], name))
               for module, name in USER_ERRORS)


# The longest error line printed: a message quoting a huge cell (a 200 MB label) is cut.
MAX_MESSAGE = 2000


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno in WRITE_ERRNOS:
        where = exc.filename or ""
        return f"cannot write {where}: {exc.strerror}" if where else f"cannot write: {exc.strerror}"
    return str(exc)


def error_line(message: str) -> str:
    """`error: message` as one printable line: a message quotes text from files (labels, column
    and module names, versions), whose line breaks and terminal escapes are shown escaped, never
    acted on (`features.runtime.shown`), and a very long one is cut."""
    return f"error: {shown(message, MAX_MESSAGE)}"


def error_text(exc: BaseException) -> str:
    """What a user error prints: `error_line` of its message; an error that composes its message
    of lines of its own (`exc.lines`: where WordNet was looked for, the install command) prints
    them as lines, each printable (`shown`) as `error_line` makes one."""
    lines = getattr(exc, "lines", None)
    if not (isinstance(lines, tuple) and lines and all(isinstance(line, str) for line in lines)):
        return error_line(_message(exc))
    return "\n".join([error_line(lines[0]), *(shown(line, MAX_MESSAGE) for line in lines[1:])])


@contextlib.contextmanager
def user_errors():
    """Turn the errors a user can fix into `error: message` on stderr and exit status 2."""
    try:
        yield
    except Exception as exc:
        if not is_user_error(exc):
            raise
        print(error_text(exc), file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


class Terminated(BaseException):
    """SIGTERM (or SIGINT), raised where the program is so that cleanup runs (a plain SIGTERM ends
    Python without it). `signum` is the signal's number."""

    def __init__(self, signum: int = signal.SIGTERM, late: bool = False):
        super().__init__(signum)
        self.signum, self.late = signum, late  # late: raised again after the block ended normally


UNWOUND = (signal.SIGTERM, signal.SIGINT)


@contextlib.contextmanager
def terminate_unwinds(signals=(signal.SIGTERM,)):
    """Within the block, each of `signals` raises Terminated (main thread only; the old handlers
    come back after). A signal is never lost: if the first Terminated was swallowed on its way up
    (by code that catches everything, or inside a finalizer), it is raised again when the block
    ends; a second signal while the first unwinds changes nothing. A signal the process was
    started ignoring stays ignored, as Python itself leaves it (`cmd &` in a script, where the
    shell ignores SIGINT so that a Ctrl-C meant for the foreground does not reach it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = tuple(signum for signum in signals if signal.getsignal(signum) is not signal.SIG_IGN)
    received: list[int] = []

    def raise_terminated(signum, frame):
        received.append(signum)
        if len(received) == 1:
            raise Terminated(signum)

    previous = {signum: signal.signal(signum, raise_terminated) for signum in signals}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if received:  # it arrived, and the block still ended normally: someone swallowed it
        raise Terminated(received[0], late=True)


@contextlib.contextmanager
def terminated_cleanly():
    """SIGTERM and SIGINT (Ctrl-C) unwind the command, so every atomic write in progress removes
    its temporary (a plot half drawn leaves no `.tmp` beside its target); then one line and exit
    status 128 + the signal's number (143, 130). Once the command has done its work, a signal that
    arrives while the process winds down (worker pools, libraries' exit handlers) ends it the same
    way, saying its outputs were written, rather than killing it by the raw signal."""
    try:
        with terminate_unwinds(UNWOUND):
            yield
    except (Terminated, KeyboardInterrupt) as exc:
        signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        what = "interrupted" if signum == signal.SIGINT else "terminated"
        done = getattr(exc, "late", False)  # the command finished all the same: its outputs are whole
        print(f"error: {what}{' after its outputs were written' if done else '; unfinished outputs removed'}",
              file=sys.stderr)
        raise SystemExit(128 + signum) from None
    _after_the_work()


def _ended_after_the_work(signum, frame):
    """A signal once the work is done: its one line and status, at once (the outputs are whole,
    and stdout was flushed when the command's block ended)."""
    what = "interrupted" if signum == signal.SIGINT else "terminated"
    try:
        sys.stderr.write(f"error: {what} after its outputs were written\n")
        sys.stderr.flush()
    finally:
        os._exit(128 + signum)


def _after_the_work() -> None:
    """Where the process still has Python's own handling of SIGTERM and SIGINT (nobody else set
    handlers: a command run as a process), keep them ending the process in one line until it exits."""
    if threading.current_thread() is not threading.main_thread():
        return
    defaults = {signal.SIGTERM: signal.SIG_DFL, signal.SIGINT: signal.default_int_handler}
    for signum, default in defaults.items():
        if signal.getsignal(signum) is default:
            signal.signal(signum, _ended_after_the_work)


@contextlib.contextmanager
def warnings_in_one_line():
    """Warnings raised by the libraries a command runs (scikit-learn's ConvergenceWarning, ...) as
    one printable line each on stderr, `warning: ConvergenceWarning: ...`, without the source file,
    line number and line of library code Python prints with them."""
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        # A library's deprecations are its own callers' business, not a user's: Python hides them
        # outside __main__, but a host that shows them (pytest, python -W) printed, e.g., Click's
        # from spaCy's import as a warning of the run.
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=PendingDeprecationWarning)
        yield


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    text = f"warning: {category.__name__}: {message}"
    try:
        print(shown(text, MAX_MESSAGE), file=file or sys.stderr)
    except OSError:
        pass  # stderr gone: a warning is not worth a traceback


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
