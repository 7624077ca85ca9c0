"""
A learning curve
================

Dev accuracy against the number of training pairs, for the lexicalized and the unlexicalized
feature sets (``learning_curves/run.py``). Each point is one of ``run.py``'s rows fitted on a
seeded sample of the training split, with C chosen on the dev split (``tune_on="dev"``: fewer
fits than cross-validation on each sample); the table of points comes first, the plot is drawn
from it.
"""

import matplotlib.pyplot as plt

import nli_baselines as nb

curve = nb.learning_curve(dataset="demo", sizes="10,30,100,300,1000,all", seeds=3,
                          configs="lexicalized,unlexicalized", tune_on="dev", quiet=True)
print(curve.table())

# %%
# ``curve.summary`` holds the mean and standard deviation over the seeds of every (config,
# size); ``curve.points`` every point. ``curve.plot(directory)`` writes the suite's own plot
# (curve.png and curve.svg); here it is drawn by hand from the table.

fig, ax = plt.subplots(figsize=(6, 3.5))
for config, points in curve.summary.groupby("config"):
    ax.errorbar(points["size"], 100 * points["eval_mean"], yerr=100 * points["eval_std"], marker="o",
                capsize=3, label=config)
ax.set_xscale("log")
ax.set_xlabel("training pairs")
ax.set_ylabel("dev accuracy (%)")
ax.legend()
ax.set_title("demo: learning curves (mean and standard deviation of 3 seeds)")
fig.tight_layout()
