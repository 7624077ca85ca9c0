"""Dependency parses read off a corpus' constituency trees (`features.text.tree_dependencies`) against
spaCy's parser, on the same sentences: attachment agreement, the share of identical values in
the feature types that read parses, and the accuracy of the strongest group with each (10-fold
CV on the same pairs, paired: McNemar's exact test on the pairs only one of them gets right)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from . import log


def bench_tree_parses(path: Path, Cs=(0.03, 0.1, 0.3), folds: int = 10) -> dict:
    """path: an SNLI or MultiNLI file (jsonl or txt) with trees and gold labels."""
    import os

    from scipy.stats import binomtest
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    from nli_baselines.features import PairFeaturizer, annotate
    from nli_baselines.features.text import parsing
    from nli_baselines.features.text.parsing import LABELS, SpacyParser
    from nli_baselines.models.logistic import LogisticClassifier

    from nli_baselines.experiments.corpora.readers.snli import read_nli
    previous = os.environ.get("NLI_CACHE_DIR")
    os.environ["NLI_CACHE_DIR"] = tempfile.mkdtemp(prefix="nli-tree-parses-")  # no parse from an earlier run
    try:
        pairs = annotate(read_nli(path, "snli", "dev").pairs, lemmas=True)
        sides = {}
        for p in pairs:
            sides.setdefault(p.premise_tokens, p.premise_tree)
            sides.setdefault(p.hypothesis_tokens, p.hypothesis_tree)
        sentences = [s for s, tree in sides.items() if tree is not None]
        from_trees = [parsing._from_tree(sides[s], s) for s in sentences]
        kept = [i for i, parse in enumerate(from_trees) if parse is not None]
        spacy = SpacyParser().parse([sentences[i] for i in kept])
        heads = labeled = tokens = 0
        for i, (p_heads, p_labels) in zip(kept, spacy):
            t_heads, t_labels = from_trees[i]
            same = t_heads == np.array([int(h) for h in p_heads])
            heads += int(same.sum())
            labeled += int(sum(s and LABELS[t] == p for s, t, p in zip(same, t_labels, p_labels)))
            tokens += len(same)
        record = {"file": str(path), "pairs": len(pairs), "sentences": len(sentences), "read_off_trees": len(kept),
                  "tokens": tokens, "uas": heads / tokens, "las": labeled / tokens}
        log(f"{len(kept)} of {len(sentences)} distinct sentences read off their trees; against spaCy's parser "
            f"UAS {100 * record['uas']:.1f}%, LAS {100 * record['las']:.1f}% ({tokens} tokens)")
        y = np.array([p.label for p in pairs])
        matrices, raw = {}, {}
        real = parsing._from_tree
        for source in ("trees", "parser"):
            parsing.forget_parses()
            if source == "parser":
                parsing._from_tree = lambda tree, tokens: None
            try:
                matrices[source] = PairFeaturizer(features="strongest").fit_transform(pairs).tocsr()
                alone = PairFeaturizer(features=["alignment", "syntax", "quantifiers"], scale="none", bins=0)
                raw[source] = (alone.fit_transform(pairs).toarray(), list(alone.get_feature_names_out()))
            finally:
                parsing._from_tree = real
        parsing.forget_parses()
        (A, names), (B, _) = raw["trees"], raw["parser"]
        same = np.isclose(A, B)
        record.update(columns=len(names), identical_cells=float(same.mean()),
                      identical_rows=float(same.all(axis=1).mean()),
                      identical_by_column={n: float(v) for n, v in zip(names, same.mean(axis=0))})
        log(f"alignment, syntax, quantifiers ({len(names)} columns): identical cells {100 * same.mean():.1f}%, "
            f"rows identical in every column {100 * same.all(axis=1).mean():.1f}%")
        split = StratifiedKFold(folds, shuffle=True, random_state=0)
        record["cv"] = {}
        for C in Cs:
            right = {s: cross_val_predict(LogisticClassifier(C=C), X, y, cv=split) == y for s, X in matrices.items()}
            only_trees = int(np.sum(right["trees"] & ~right["parser"]))
            only_parser = int(np.sum(~right["trees"] & right["parser"]))
            p = binomtest(only_trees, only_trees + only_parser).pvalue if only_trees + only_parser else 1.0
            record["cv"][str(C)] = {"accuracy_trees": float(right["trees"].mean()),
                                    "accuracy_parser": float(right["parser"].mean()),
                                    "right_with_trees_only": only_trees, "right_with_parser_only": only_parser,
                                    "mcnemar_p": float(p)}
            log(f"strongest, C={C}, {folds}-fold CV: trees {100 * right['trees'].mean():.2f}%, parser "
                f"{100 * right['parser'].mean():.2f}% (right only with trees {only_trees}, only with the parser "
                f"{only_parser}, McNemar p={p:.3f})")
        return {"tree_parses": record}
    finally:
        if previous is None:
            os.environ.pop("NLI_CACHE_DIR", None)
        else:
            os.environ["NLI_CACHE_DIR"] = previous
