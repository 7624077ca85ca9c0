"""The run's side of `features.storage.value_cache`: which splits' costly values are already on disk, the
lemmas only the others need, and the featurizer pointed at the entries.

A run whose training split has at least `value_cache.MIN_ROWS` pairs keeps the values of the
cacheable types (wordnet, alignment, syntax, quantifiers) of all its splits. When every type that
reads lemmas (or parses) finds its values for a split, that split is neither lemmatized nor parsed.
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field, replace

from nli_baselines.features.registry import FEATURE_TYPES, build
from nli_baselines.features.storage import value_cache
from nli_baselines.features.text.annotation import annotate

from .splits import Splits


@dataclass
class KeptValues:
    cache: value_cache.ValueCache | None
    types: list = field(default_factory=list)  # names of the run's types whose values are kept
    digests: dict = field(default_factory=dict)  # split name -> digest of its pairs
    covered: set = field(default_factory=set)  # split names whose every cacheable type was found

    def record(self) -> dict:
        if self.cache is None:
            return {"used": False}
        return {"used": True, "splits_found": sorted(self.covered), **self.cache.stats()}


def _split_lists(data: Splits) -> dict:
    lists = {"train": data.train, "selection": data.selection}
    if data.evaluation is not None and data.evaluation is not data.selection:
        lists["evaluation"] = data.evaluation
    return {name: pairs for name, pairs in lists.items() if pairs is not None}


def cacheable(types, options: dict) -> list:
    """Unfitted instances of the types among `types` whose values are kept on disk."""
    return [build(t, options) for t in types if getattr(FEATURE_TYPES.get(t), "cache_values", False)]


def find(data: Splits, types, options: dict) -> KeptValues:
    """Look up (and read ahead) the cached values of `types` for every split of `data`."""
    kept_types = cacheable(types, options)
    if not kept_types or len(data.train) < value_cache.MIN_ROWS or not value_cache.enabled():
        return KeptValues(None)
    kept = KeptValues(value_cache.ValueCache(value_cache.default_root()), [t.name for t in kept_types])
    for name, pairs in _split_lists(data).items():
        kept.digests[name] = digest = value_cache.pairs_digest(pairs)
        # all(), not a loop that reads every entry: one miss means this split is computed anyway.
        if all(kept.cache.prefetch(feature, digest, len(pairs)) for feature in kept_types):
            kept.covered.add(name)
    return kept


def needs(kept: KeptValues, data: Splits, names) -> list[str]:
    """The splits whose values of `names` (types reading lemmas or parses) must be computed."""
    if not names:
        return []
    return [name for name in _split_lists(data) if name not in kept.covered
            or not all(getattr(FEATURE_TYPES[t], "cache_values", False) for t in names)]


def with_lemmas(data: Splits, splits: list[str], progress: bool, jobs: int, log) -> Splits:
    """`data` with lemmas on the pairs of `splits` (the others keep theirs, or none)."""
    if not splits:
        return data
    lists = _split_lists(data)
    stats: dict = {}
    started = time.perf_counter()
    # One call for all splits: one lemmatizer load.
    lemmatized = iter(annotate([p for name in splits for p in lists[name]], lemmas=True, progress=progress,
                               jobs=jobs, stats=stats))
    done = {name: [next(lemmatized) for _ in lists[name]] for name in splits}
    log(f"lemmas: {stats.get('lemmatized', 0)} distinct sentences lemmatized in {time.perf_counter() - started:.1f}s")
    train, selection = done.get("train", data.train), done.get("selection", data.selection)
    evaluation = selection if data.evaluation is data.selection else done.get("evaluation", data.evaluation)
    return replace(data, train=train, selection=selection, evaluation=evaluation)


@contextlib.contextmanager
def pointed(kept: KeptValues, data: Splits):
    """Let the featurizer find the cache for the run's split lists while the block runs."""
    if kept.cache is None:
        yield
        return
    lists = _split_lists(data)
    with value_cache.use(kept.cache, [(lists[name], digest) for name, digest in kept.digests.items()]):
        yield

