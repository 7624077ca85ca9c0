"""Corpora: the registry of named corpora, one reader per format, download sources, and the
corpora the suite generates itself (the `demo` task and the SNLI-shaped benchmark corpus).

Names are imported on first use (the command lines' `--help` needs none of the readers)."""
import importlib

_WHERE = {
    "DataFormatError": "readers.common", "SplitData": "readers.common", "load_pairs": "readers.custom",
    "CORPORA": "registry", "Corpus": "registry", "CorpusNotFoundError": "registry", "custom_corpus": "registry",
    "get_corpus": "registry", "register": "registry", "resolve_data_dir": "registry",
}


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'experiments.corpora' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_WHERE])


__all__ = sorted(_WHERE)
