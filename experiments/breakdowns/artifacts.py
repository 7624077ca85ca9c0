"""What the artifact table says in plain words: is a model that reads only the hypothesis (or only
the premise) far above the majority class? If so, the corpus' hypotheses give the label away on
many pairs (Gururangan et al. 2018, "Annotation Artifacts in Natural Language Inference Data";
Poliak et al. 2018, "Hypothesis Only Baselines in Natural Language Inference": ~69% on SNLI and
~55% on MultiNLI against a third for the majority class, near the majority class on SICK and the
RTE-derived sets), and every other row should be read against hypothesis-only, not only against
the majority class."""
from __future__ import annotations

from nli_baselines.experiments.stats.significance import LEVEL, comparisons, corrected_level

# "Far above": at least this many points above the majority class, and beyond chance by McNemar's
# exact test at the table's Bonferroni bar (`corrected_level`, the bar its footer states). Below
# FAR_POINTS a significant gain is reported as small but real; a gain with p under LEVEL but not
# under the bar is suggestive, no more.
FAR_POINTS = 5.0
# row -> (what it reads, what a far-above reading means for the rest of the table)
ONE_SIDED = {
    "hypothesis_only": ("the hypotheses", "Read every model against hypothesis-only, not only against the majority "
                        "class; a hard subset (the pairs a hypothesis-only model gets wrong) shows what is left."),
    "premise_only": ("the premises", "Either labels are spread unevenly over the premises (some written or "
                     "chosen for one label), or the corpus puts the deciding words in the premise (CommitmentBank: "
                     "the embedding verb and its negation, around the clause the hypothesis restates)."),
}


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def read_artifacts(results: list[dict]) -> dict | None:
    """The reading of an artifact table's rows (their `versus` comparisons with the majority row):
    per one-sided row, its points above the majority class, McNemar's p, whether that is far above,
    and a sentence; None when the table has no one-sided row compared with the majority class.
    Significant means below the table's Bonferroni bar, as its footer says."""
    bar, tests = corrected_level(results), comparisons(results)
    out = {}
    for result in results:
        versus = result.get("versus", {}).get("majority")
        if result["name"] not in ONE_SIDED or versus is None:
            continue
        side, lesson = ONE_SIDED[result["name"]]
        points, p = 100 * versus["delta"], versus["mcnemar_p"]
        name = result["name"].replace("_", "-")
        pairs = len(result.get("predictions", {}).get("ids", ()))
        where = f" on {pairs} pairs" if pairs else ""
        significant = p < bar and points > 0
        far = significant and points >= FAR_POINTS
        if far:
            note = (f"{name} is {points:+.1f} points above the majority class{where} ({_p(p)}): {side} alone give the "
                    f"label away on many pairs (annotation artifacts). {lesson}")
        elif significant:
            note = (f"{name} is {points:+.1f} points above the majority class{where} ({_p(p)}): a small but real "
                    f"cue in {side} alone.")
        elif p < LEVEL and points > 0:
            note = (f"{name} is {points:+.1f} points above the majority class{where} ({_p(p)}): suggestive: not "
                    f"significant once the table's {tests} comparisons are counted (read p < {bar:.3f}, Bonferroni); "
                    f"{side} may carry cues, which more pairs would confirm or not.")
        else:
            note = (f"{name} is {points:+.1f} points from the majority class{where} ({_p(p)}): no sign that {side} "
                    f"alone give the label away.")
        out[result["name"]] = {"points_above_majority": points, "mcnemar_p": p, "significant": significant,
                               "far_above": far, "note": note}
    return ({"rows": out, "far_points": FAR_POINTS, "level": LEVEL, "comparisons": tests, "corrected_level": bar}
            if out else None)
