"""One small reader module per corpus family; each returns `SplitData` of `features.pair.Pair`."""
from .common import DataFormatError, SplitData

__all__ = ["DataFormatError", "SplitData"]
