"""The suite's version, as installed (or the source tree's, never installed)."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("nli-baselines")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.3.0"
