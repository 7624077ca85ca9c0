"""Readers, runners and writers of the NLI baseline suite."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("nli-baselines")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.2.0"
