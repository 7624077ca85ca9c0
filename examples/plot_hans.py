"""
The HANS breakdown
==================

HANS (McCoy et al. 2019) asks whether a model has learned three shallow heuristics (lexical
overlap, subsequence, constituent): a model that follows one calls nearly every entailed pair
right and nearly every non-entailed one wrong. ``hans-mini`` is the suite's own small set of
HANS-style pairs, generated from templates, so this runs without the official file.
"""

import matplotlib.pyplot as plt

import nli_baselines as nb

result = nb.run(dataset="demo", quiet=True)
breakdown = nb.hans(result, "hans-mini")
print(breakdown.table())

# %%
# Accuracy per heuristic on the entailed and on the non-entailed pairs (``breakdown.scores`` is
# what ``diagnose.py --out`` writes).

heuristics = breakdown.scores["heuristics"]
names = list(heuristics)
fig, ax = plt.subplots(figsize=(6, 3))
for offset, kind in ((-0.2, "entailment"), (0.2, "non-entailment")):
    ax.bar([i + offset for i in range(len(names))], [100 * heuristics[h][kind] for h in names], width=0.4,
           label=kind)
ax.set_xticks(range(len(names)), names)
ax.set_ylabel("accuracy (%)")
ax.set_ylim(0, 100)
ax.legend()
ax.set_title("hans-mini: a model trained on demo")
fig.tight_layout()

# %%
# The pairs the model gets wrong, with the features that pushed it most toward its label:

pairs = breakdown.examples(k=2)
print(pairs[~pairs.correct][["subcase", "premise", "hypothesis", "top_features"]].head().to_string())
