"""
An ablation table
=================

What each of the paper's six feature types adds to the lexicalized classifier: the full set,
then each type left out in turn, every row compared with the full set by McNemar's exact test on
the dev pairs (``run.py --ablation-table``). C is chosen on the dev split here (``tune_on="dev"``),
five times fewer fits than the cross-validation on train that ``run.py`` uses by default for a
corpus of this size, so that the example runs in seconds.
"""

import matplotlib.pyplot as plt

import nli_baselines as nb

result = nb.run(dataset="demo", ablation_table=True, tune_on="dev", quiet=True)
print(result.table())

# %%
# The same figures as a plot: dev accuracy of each row, read from the run's record (the JSON
# that ``run.py --out`` writes).

rows = result.record["rows"]
names = [row["name"] for row in rows]
accuracy = [100 * row["metrics"]["dev"]["accuracy"] for row in rows]
fig, ax = plt.subplots(figsize=(7, 3))
ax.barh(names[::-1], accuracy[::-1], color=["tab:blue"] * (len(rows) - 1) + ["tab:gray"])
ax.axvline(accuracy[0], color="black", linewidth=0.8, linestyle="--")
ax.set_xlim(min(accuracy) - 5, 100)
ax.set_xlabel("dev accuracy (%)")
ax.set_title("demo: the lexicalized set, and each type left out")
fig.tight_layout()
