"""User errors become one line on stderr and exit status 2; tracebacks are for the suite's bugs."""
from __future__ import annotations

import contextlib
import os
import sys

from features.custom import CustomFeatureError
from features.wordnet_data import WordNetMissingError
from models.common import TrainingDataError

from ..corpora import CorpusNotFoundError, DataFormatError
from ..engine.errors import UsageError
from ..outputs.model_files import ModelFileError
from ..outputs.records import RecordError
from ..outputs.submissions import SubmissionError

EXIT_USAGE = 2  # bad arguments, missing corpus, malformed input, unusable training data
USER_ERRORS = (CorpusNotFoundError, DataFormatError, UsageError, TrainingDataError, ModelFileError, SubmissionError,
               WordNetMissingError, RecordError, CustomFeatureError)


@contextlib.contextmanager
def user_errors():
    """Turn the errors a user can fix into `error: message` on stderr and exit status 2."""
    try:
        yield
    except USER_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


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
