"""
A GLUE run on the demo data
===========================

``glue.py`` trains every GLUE task's baseline, scores it on dev, writes GLUE's prediction files
and the submission zip. Here it runs on three tasks whose files are written from the generated
demo pairs in GLUE's own layout (RTE: two classes; STS-B: scores; CoLA: single sentences), so
it needs no download. With the real GLUE files: ``python experiments/glue.py --data-dir DIR
--out sub/``.
"""

import json
import shutil
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from nli_baselines.experiments import glue
from nli_baselines.experiments.corpora.generated.demo import generate_demo, generate_similarity

root = Path(tempfile.mkdtemp(prefix="glue-demo-"))
for task in ("RTE", "STS-B", "CoLA"):
    (root / "glue" / task).mkdir(parents=True)
sts_head = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2"
for split, size in (("train", 600), ("dev", 200), ("test", 100)):
    labelled = split != "test"
    pairs = generate_demo(split, size)
    rte = ["index\tsentence1\tsentence2" + ("\tlabel" if labelled else "")]
    for i, p in enumerate(pairs):
        label = "entailment" if p.label == "entailment" else "not_entailment"
        rte.append(f"{i}\t{p.premise}\t{p.hypothesis}" + (f"\t{label}" if labelled else ""))
    (root / "glue" / "RTE" / f"{split}.tsv").write_text("\n".join(rte) + "\n", encoding="utf-8")
    # CoLA's train and dev files have no header: source, label, the original label, the sentence.
    cola = [f"demo\t{int(p.label == 'entailment')}\t\t{p.hypothesis}" for p in pairs] if labelled else \
        ["index\tsentence"] + [f"{i}\t{p.hypothesis}" for i, p in enumerate(pairs)]
    (root / "glue" / "CoLA" / f"{split}.tsv").write_text("\n".join(cola) + "\n", encoding="utf-8")
    scored = generate_similarity(split, size)
    sts = [sts_head + ("\tscore" if labelled else "")]
    for i, p in enumerate(scored):
        sts.append(f"{i}\tmain\tdemo\t2024\t{i}\tnone\tnone\t{p.premise}\t{p.hypothesis}"
                   + (f"\t{p.label}" if labelled else ""))
    (root / "glue" / "STS-B" / f"{split}.tsv").write_text("\n".join(sts) + "\n", encoding="utf-8")

# %%
# The command, in process (``python experiments/glue.py`` with these arguments prints the same):
# one line per task with its dev figures and GLUE score beside the GLUE paper's baselines, the
# tasks it could not run (no files here) listed as such, and the average over those that ran.

out = root / "sub"
glue.main(["--data-dir", str(root), "--out", str(out), "--tasks", "RTE,STS-B,CoLA", "--quiet"])
print(sorted(path.name for path in out.iterdir()))

# %%
# Every task's record is written beside its prediction file; ``glue.json`` holds the whole run.

whole = json.loads((out / "glue.json").read_text(encoding="utf-8"))
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(list(whole["scores"]), list(whole["scores"].values()))
ax.set_ylabel("GLUE score on dev (x 100)")
ax.set_title("demo data in GLUE's layout")
fig.tight_layout()
print((out / "RTE.tsv").read_text(encoding="utf-8").splitlines()[:4])
shutil.rmtree(root)  # the files of this example
