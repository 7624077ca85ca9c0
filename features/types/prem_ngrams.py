"""`prem_ngrams`: an indicator for every unigram and bigram of the premise, the premise-only
counterpart of `hyp_ngrams` (not one of the SNLI paper's features).

A model that reads only the premise cannot know what is claimed about it, so on a well-built NLI
corpus it should score near the majority class; how far above it lands measures cues in the
premises alone (Poliak et al. 2018, "Hypothesis Only Baselines in Natural Language Inference",
ran both one-sided baselines). `--artifact-table` fits it beside the hypothesis-only model.
"""
from __future__ import annotations

from .hyp_ngrams import HypNgrams


class PremNgrams(HypNgrams):
    """Names: `prem_ngrams:man` (unigram) and `prem_ngrams:a man` (bigram)."""

    name = "prem_ngrams"
    side = "premise"
    reads_premise = True
