"""Corpora: the registry of named corpora, one reader per format, download sources, and the
corpora the suite generates itself (the `demo` task and the SNLI-shaped benchmark corpus)."""
from .readers.common import DataFormatError, SplitData
from .readers.custom import load_pairs
from .registry import CORPORA, Corpus, CorpusNotFoundError, custom_corpus, get_corpus, register, resolve_data_dir

__all__ = ["CORPORA", "Corpus", "CorpusNotFoundError", "DataFormatError", "SplitData", "custom_corpus", "get_corpus", "load_pairs",
           "register", "resolve_data_dir"]
