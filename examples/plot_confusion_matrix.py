"""
A confusion matrix
==================

Which classes the lexicalized classifier confuses on the dev pairs, from the run's record, and
the pairs behind one cell of it with the features that pushed the model to its answer.
"""

import matplotlib.pyplot as plt

import nli_baselines as nb

result = nb.run(dataset="demo", quiet=True)
confusion = result.row()["metrics"]["dev"]["confusion"]
labels, matrix = confusion["labels"], confusion["matrix"]

fig, ax = plt.subplots(figsize=(4.5, 4))
ax.imshow(matrix, cmap="Blues")
for i, row in enumerate(matrix):
    for j, count in enumerate(row):
        ax.text(j, i, count, ha="center", va="center", color="white" if i == j else "black")
ax.set_xticks(range(len(labels)), labels, rotation=20)
ax.set_yticks(range(len(labels)), labels)
ax.set_xlabel("predicted")
ax.set_ylabel("gold")
ax.set_title(f"demo dev: {result.rows[0]}")
fig.tight_layout()

# %%
# Rows are gold labels, columns predictions. The pairs of one off-diagonal cell, with the
# features that pushed the model most toward its (wrong) label:

examples = result.examples(k=2)
wrong = examples[(examples.gold == "neutral") & (examples.predicted == "contradiction")]
print(wrong[["premise", "hypothesis", "confidence", "top_features"]].head().to_string())
