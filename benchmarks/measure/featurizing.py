"""Featurization speed and memory at SNLI scale: the default types together and each built-in type
alone, the cost of the binned copies, against the straightforward dict build and scikit-learn's
HashingVectorizer measured in the same run."""
from __future__ import annotations

import gc
import statistics
import time
from itertools import cycle, islice
from typing import Callable

import numpy as np

from nli_baselines.features import BUILTIN, PairFeaturizer

from . import log
from .memory import PeakRSS


def corpus_shape(pairs) -> dict:
    p_len = np.fromiter((len(p.premise_tokens) for p in pairs), dtype=np.int64, count=len(pairs))
    h_len = np.fromiter((len(p.hypothesis_tokens) for p in pairs), dtype=np.int64, count=len(pairs))
    words = {w for p in pairs for w in p.hypothesis_tokens} | {w for p in pairs for w in p.premise_tokens}
    return {"premise_mean_tokens": float(p_len.mean()), "hypothesis_mean_tokens": float(h_len.mean()),
            "vocabulary_types": len(words), "distinct_premises": len({p.premise for p in pairs})}


def wordnet_pairs(data_dir: str | None, n_pairs: int):
    """SICK train+dev with spaCy tags and lemmas (cached), cycled to `n_pairs`; None without data.

    Real sentences matter for `wordnet`: its cost is WordNet lookups per distinct lemma pair,
    which generated words would not reproduce. Cycling reuses SICK's annotation tuples, as
    SNLI's readers share one premise among its hypotheses; every pair is still featurized on its
    own. NLTK's WordNet reader is loaded here, once per process, not as a cost of featurizing.
    """
    if not data_dir:
        return None
    from nli_baselines.features import annotate
    from nli_baselines.features.text.wordnet_data import load_wordnet

    from nli_baselines.experiments.corpora import get_corpus
    sick = get_corpus("sick")
    distinct = annotate([p for split in ("train", "dev") for p in sick.load(split, data_dir).pairs], lemmas=True)
    load_wordnet()
    return list(islice(cycle(distinct), n_pairs))


def sick_pairs(data_dir: str | None, n_pairs: int):
    """SICK train+dev with spaCy tags (cached), cycled to `n_pairs`; None without data. Real
    sentences matter for the types that read spelling (characters, TER's shifts, the longest
    common subsequence of characters): the generated corpus' words ("w207") have a ten-letter
    alphabet and no word order to speak of."""
    if not data_dir:
        return None
    from nli_baselines.experiments.corpora import get_corpus
    from nli_baselines.features import annotate
    sick = get_corpus("sick")
    distinct = annotate([p for split in ("train", "dev") for p in sick.load(split, data_dir).pairs])
    return list(islice(cycle(distinct), n_pairs))


def parsed_pairs(data_dir: str | None, n_pairs: int):
    """`wordnet_pairs`, with every sentence's dependency parse computed (or read from the cache)
    beforehand, as annotation is: the alignment types are measured after annotation."""
    pairs = wordnet_pairs(data_dir, n_pairs)
    if pairs is None:
        return None
    from nli_baselines.features.text.parsing import parse_sentences
    parse_sentences(list(dict.fromkeys(s for p in pairs for s in (p.premise_tokens, p.hypothesis_tokens))))
    return pairs


# The hook for built-in types that the generated corpus cannot exercise (it has no real words,
# no lemmas): type -> (function of --data-dir and the corpus size returning the real pairs to
# measure it on, what they are). A type listed here is measured on those pairs, or skipped with a note when they
# are not available; every other built-in type is measured on the generated corpus.
REAL_PAIRS: dict[str, tuple[Callable[[str | None, int], list | None], str]] = {
    **{name: (wordnet_pairs, "SICK train+dev with spaCy tags and lemmas, cycled to the corpus size")
       for name in ("wordnet", "wordnet_similarity")},
    **{name: (parsed_pairs, "SICK train+dev with spaCy tags, lemmas and parses, cycled to the corpus size")
       for name in ("alignment", "syntax", "quantifiers", "aligned_share")},
    **{name: (sick_pairs, "SICK train+dev with spaCy tags, cycled to the corpus size")
       for name in ("char_ngrams", "mt_metrics", "lcs")},
}


def _featurize(pairs, **params) -> tuple[float, dict, tuple]:
    featurizer = PairFeaturizer(**params)
    started = time.perf_counter()
    X = featurizer.fit_transform(pairs)
    return time.perf_counter() - started, dict(featurizer.timings_), (X.shape, X.nnz)


def bench_features(pairs, repeats: int, dict_pairs: int, jobs: int, data_dir: str | None = None) -> dict:
    n = len(pairs)
    out: dict = {"pairs": n}
    runs, stages, peaks, hashing = [], [], [], []
    # Our runs alternate with HashingVectorizer's, the speed reference: on a shared machine the
    # two of a round see the same neighbours, where five of one then five of the other did not.
    for i in range(repeats):
        gc.collect()
        with PeakRSS() as peak:  # the process's RSS (corpus included) while this run featurizes
            seconds, timings, (shape, nnz) = _featurize(pairs, n_jobs=jobs)
        runs.append(seconds)
        peaks.append(peak.bytes)
        stages.append(timings)
        hashing.append(_hashing_seconds(pairs))
        log(f"featurize run {i + 1}/{repeats}: {runs[-1]:.2f}s, peak RSS {peaks[-1] / 2 ** 30:.2f} GiB "
            f"({', '.join(f'{k} {v:.2f}' for k, v in timings.items())}); HashingVectorizer(1,2) {hashing[-1]:.2f}s")
    median = statistics.median(runs)
    median_run = min(range(len(runs)), key=lambda i: abs(runs[i] - median))
    # peak_rss_bytes is the first run: featurizing once in a fresh process. Later runs inherit the
    # allocator's fragmentation and peak higher; every run's own peak is kept in peak_rss_runs.
    out.update(featurize_seconds=median, featurize_runs=runs, pairs_per_second=n / median,
               threads=jobs, n_columns=shape[1], nnz=nnz, peak_rss_bytes=peaks[0],
               peak_rss_runs=peaks, peak_rss_first_run=peaks[0], peak_rss_max=max(peaks),
               stages=stages[median_run], stages_of_median_run=stages[median_run],
               encode_seconds=statistics.median(s["encode"] for s in stages))

    out.update(_binned_copies(pairs, repeats, jobs))
    out.update(_per_type(pairs, data_dir))

    # The straightforward build, on a stated subset (it runs at a few thousand pairs/s).
    subset = pairs[:dict_pairs]
    from .dict_reference import dict_featurize
    gc.collect()
    started = time.perf_counter()
    dict_featurize(subset)
    dict_seconds = time.perf_counter() - started
    ours_seconds = statistics.median(_featurize(subset, n_jobs=jobs)[0] for _ in range(repeats))
    out["dict_baseline"] = {"pairs": len(subset), "dict_seconds": dict_seconds, "ours_seconds": ours_seconds,
                            "dict_pairs_per_second": len(subset) / dict_seconds,
                            "ours_pairs_per_second": len(subset) / ours_seconds}
    out["speedup_vs_dict"] = dict_seconds / ours_seconds
    log(f"dict + DictVectorizer on {len(subset)} pairs: {dict_seconds:.2f}s; ours {ours_seconds:.2f}s "
        f"({out['speedup_vs_dict']:.1f}x)")

    hashing_seconds = statistics.median(hashing)
    out["hashing_ngrams"] = {"seconds": hashing_seconds, "runs": hashing, "pairs_per_second": n / hashing_seconds,
                             "interleaved": True}
    out["ratio_vs_hashing_ngrams"] = out["pairs_per_second"] / (n / hashing_seconds)
    out["ratio_vs_hashing_ngrams_by_round"] = [h / ours for h, ours in zip(hashing, runs)]
    log(f"HashingVectorizer(1,2): {hashing_seconds:.2f}s (median, its runs alternating with ours); ours/hashing "
        f"speed ratio {out['ratio_vs_hashing_ngrams']:.2f}")
    return out


def _hashing_seconds(pairs) -> float:
    """Seconds scikit-learn's HashingVectorizer(1, 2) takes over `premise ||| hypothesis` of every
    pair: a plain bag of uni- and bigrams, the speed reference. The texts are built outside the
    timing and dropped after it, so that they weigh on none of our runs' peaks."""
    from sklearn.feature_extraction.text import HashingVectorizer
    texts = [f"{p.premise} ||| {p.hypothesis}" for p in pairs]
    gc.collect()
    started = time.perf_counter()
    HashingVectorizer(ngram_range=(1, 2)).transform(texts)
    return time.perf_counter() - started


def _binned_copies(pairs, repeats: int, jobs: int) -> dict:
    """What the binned copies of the real-valued columns cost: the real-valued types with the
    default bins against bins=0, alternating, medians."""
    times: dict[int, list[float]] = {0: [], 5: []}
    for _ in range(repeats):
        for bins in times:
            gc.collect()
            times[bins].append(_featurize(pairs, features="unlexicalized", bins=bins, n_jobs=jobs)[0])
    with_bins, without = statistics.median(times[5]), statistics.median(times[0])
    log(f"real-valued types: bins=5 {with_bins:.2f}s, bins=0 {without:.2f}s: binned copies cost "
        f"{with_bins - without:.2f}s")
    return {"binned_copies": {"types": "unlexicalized", "bins_5_seconds": with_bins, "bins_0_seconds": without,
                              "runs": {str(k): v for k, v in times.items()}, "seconds": with_bins - without}}


def bench_types(pairs, names, data_dir: str | None = None) -> dict:
    """Only the per-type rows of `bench_features`, for the built-in types `names`: each alone,
    single-threaded, its time and peak memory (`benchmark.py --types`)."""
    return {"pairs": len(pairs), **_per_type(pairs, data_dir, names)}


def _per_type(pairs, data_dir: str | None, names=BUILTIN) -> dict:
    """Each built-in registered type alone, single-threaded: its own time and peak memory."""
    per_type, per_type_rss, per_type_pairs, notes = {}, {}, {}, {}
    for name in names:
        measured_on = pairs
        if name in REAL_PAIRS:
            load, what = REAL_PAIRS[name]
            measured_on = load(data_dir, len(pairs))
            if measured_on is None:
                notes[name] = f"not measured: needs real pairs ({what}); give --data-dir"
                log(f"  {name}: {notes[name]}")
                continue
            notes[name] = f"measured on {len(measured_on)} pairs: {what}"
        gc.collect()
        with PeakRSS() as type_peak:
            seconds, timings, _ = _featurize(measured_on, features=name, n_jobs=1)
        per_type[name] = seconds - timings["encode"]
        per_type_rss[name] = type_peak.bytes
        per_type_pairs[name] = len(measured_on)
        log(f"  {name}: {per_type[name]:.2f}s alone (after encoding) on {len(measured_on)} pairs")
    return {"per_type": per_type,
            "per_type_pairs_per_second": {k: per_type_pairs[k] / v for k, v in per_type.items()},
            "per_type_pairs": per_type_pairs, "per_type_peak_rss_bytes": per_type_rss, "per_type_notes": notes}
