"""Corpora: what a corpus is (`corpus`), the registry of named corpora (`registry`), one reader per
format (`readers/`), the Hugging Face hub (`hub`), downloads (`download/`), and the corpora the
suite generates itself (`generated/`: the `demo` task, `hans-mini`, the SNLI-shaped benchmark corpus).

Names are imported on first use (the command lines' `--help` needs none of the readers)."""
from nli_baselines.features.runtime.lazy import lazy_exports

_WHERE = {
    "DataFormatError": "readers.common", "SplitData": "readers.common", "load_pairs": "readers.custom",
    "CORPORA": "registry", "Corpus": "registry", "CorpusNotFoundError": "registry", "custom_corpus": "registry",
    "get_corpus": "registry", "register": "registry", "resolve_data_dir": "registry", "HubCopy": "registry",
    "HubCorpus": "hub", "HubError": "hub", "hub_corpus": "hub",
}

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = sorted(_WHERE)
