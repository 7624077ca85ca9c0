"""
Similarity scores: predicted against gold
=========================================

A score task: ``demo-similarity`` holds the demo's pairs with a similarity score from 0 to 5, as
STS-B and SICK relatedness do. Ridge regression on the lexicalized features predicts the
score; the task is judged by Pearson and Spearman correlation.
"""

import matplotlib.pyplot as plt

import nli_baselines as nb

result = nb.run(dataset="demo-similarity", quiet=True)
print(result.table())

# %%
# Every dev pair, its gold and predicted score (``result.examples()``, which also names the
# features that moved each score most):

examples = result.examples(k=1)
dev = result.row()["metrics"]["dev"]
fig, ax = plt.subplots(figsize=(4.5, 4.5))
ax.scatter(examples.gold, examples.predicted, s=6, alpha=0.4)
ax.plot([0, 5], [0, 5], color="black", linewidth=0.8)
ax.set_xlabel("gold score")
ax.set_ylabel("predicted score")
ax.set_title(f"demo-similarity dev: Pearson {dev['pearson']:.3f}, Spearman {dev['spearman']:.3f}")
fig.tight_layout()
print(examples.sort_values("error", ascending=False)[["premise", "hypothesis", "gold", "predicted"]].head()
      .to_string())
