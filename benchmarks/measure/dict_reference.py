"""The six feature types built the straightforward way: per-pair dicts of feature-name strings
fed to DictVectorizer. A reference for the benchmark (speed) and the tests (same features)."""
from __future__ import annotations

from collections import Counter

from nli_baselines.features.columns.encoding import CONTENT_TAG_PREFIXES


def pair_dict(pair, bleu_metric, tag_match: str = "first_letter") -> dict[str, float]:
    def tag(t):
        return t if tag_match == "exact" else t[:1]
    p = [t.lower() for t in pair.premise_tokens]
    h = [t.lower() for t in pair.hypothesis_tokens]
    pt, ht = list(pair.premise_tags), list(pair.hypothesis_tags)
    f: dict[str, float] = {}
    f["bleu:score"] = min(bleu_metric.sentence_score(" ".join(h), [" ".join(p)]).score / 100, 1.0)
    f["length_diff:hyp_minus_premise"] = len(h) - len(p)
    premise_content = [w for w, t in zip(p, pt) if t.startswith(CONTENT_TAG_PREFIXES)]
    content = [w for w, t in zip(h, ht) if t.startswith(CONTENT_TAG_PREFIXES)]
    count_all = sum((Counter(h) & Counter(p)).values())  # clipped: each premise token covers one
    count_content = sum((Counter(content) & Counter(premise_content)).values())
    f["overlap:count_all"] = count_all
    f["overlap:pct_all"] = count_all / len(h) if h else 1.0
    f["overlap:count_content"] = count_content
    f["overlap:pct_content"] = count_content / len(content) if content else 1.0
    for w in h:
        f[f"hyp_ngrams:{w}"] = 1.0
    for a, b in zip(h, h[1:]):
        f[f"hyp_ngrams:{a} {b}"] = 1.0
    for pw, ptag in zip(p, pt):
        for hw, htag in zip(h, ht):
            if tag(ptag) == tag(htag):
                f[f"cross_unigrams:{pw}|{hw}"] = 1.0
    for i in range(len(p) - 1):
        for j in range(len(h) - 1):
            if tag(pt[i + 1]) == tag(ht[j + 1]):
                f[f"cross_bigrams:{p[i]} {p[i + 1]}|{h[j]} {h[j + 1]}"] = 1.0
    return f


def dict_featurize(pairs, tag_match: str = "first_letter"):
    """(matrix, vectorizer): the straightforward build of all six types (unscaled values)."""
    import sacrebleu
    from sklearn.feature_extraction import DictVectorizer
    metric = sacrebleu.metrics.BLEU(tokenize="none", effective_order=True, lowercase=False)
    vectorizer = DictVectorizer(dtype=float)
    return vectorizer.fit_transform([pair_dict(p, metric, tag_match) for p in pairs]), vectorizer


__all__ = ["dict_featurize", "pair_dict"]
