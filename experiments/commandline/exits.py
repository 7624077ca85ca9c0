"""User errors become one line on stderr and exit status 2; tracebacks are for the suite's bugs."""
from __future__ import annotations

import contextlib
import sys

from models.common import TrainingDataError

from ..corpora import CorpusNotFoundError, DataFormatError
from ..engine.errors import UsageError
from ..outputs.model_files import ModelFileError
from ..outputs.submissions import SubmissionError

EXIT_USAGE = 2  # bad arguments, missing corpus, malformed input, unusable training data
USER_ERRORS = (CorpusNotFoundError, DataFormatError, UsageError, TrainingDataError, ModelFileError, SubmissionError)


@contextlib.contextmanager
def user_errors():
    """Turn the errors a user can fix into `error: message` on stderr and exit status 2."""
    try:
        yield
    except USER_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None
