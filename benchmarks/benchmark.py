"""Speed and memory of the suite at SNLI scale, on a generated corpus of SNLI's size and shape.

    python benchmarks/benchmark.py --json results/features.json            # the default feature types
    python benchmarks/benchmark.py --tagging --data-dir ../shared/data     # spaCy tagging, cold vs warm cache
    python benchmarks/benchmark.py --pairs 550152 --end-to-end --json results/e2e.json   # read..predict
    python benchmarks/benchmark.py --end-to-end --scaling 55000,550152 --C 0.03 --json results/scaling.json
    python benchmarks/benchmark.py --main-job --repeats 3 --json results/main-job.json   # run.py as a process
    python benchmarks/benchmark.py --main-job --sizes 10000,50000,150000,550152 --json docs/records/main-job.json
    python benchmarks/benchmark.py --strongest --repeats 1 --json results/strongest.json   # strongest, cold, warm
    python benchmarks/benchmark.py --curve --repeats 3 --json results/curve.json         # the SNLI learning curve
    python benchmarks/benchmark.py --formats /tmp/formats --data-dir DIR   # jsonl vs parquet vs Arrow reading
    python benchmarks/benchmark.py --types similarity --data-dir DIR --json results/similarity.json  # types alone
    python benchmarks/benchmark.py --write-qqp DIR          # a QQP-sized corpus in QQP's layout, for speed

Every record holds the machine it was measured on (`machine`: the CPU, the cores this process
may use, numpy's SIMD groups, the kernel each OpenBLAS picked and the settings that chose them,
such as OPENBLAS_CORETYPE; benchmarks/measure/machine.py): speed, and a fit's last bits, depend
on all of them. Featurization is measured `--repeats` times and the median is reported (the machine is shared
and noisy); the straightforward per-pair dict + DictVectorizer build and scikit-learn's
HashingVectorizer are measured in the same run (HashingVectorizer's runs alternating with ours),
so their ratios are comparable. Each built-in feature type is also measured alone (on real SICK
pairs for those that need real words, when --data-dir is given).

End to end, C is chosen as experiments/run.py chooses it (the default grid, on the 10,000 dev
pairs, fitted as a path) unless --C is given; the chosen candidate's fit is the model. Every
candidate of the grid is also fitted cold at a tight tolerance (`candidates`: the dev accuracy
of each against its reference, and the choice the cold search makes) unless --no-reference.
At 100,000 pairs or more the record also compares the default fit with scikit-learn's
newton-cg run to 1e-8 on 100,000 of the pairs (`objective_gap`, `accuracy_gap_vs_reference`).

--main-job times the main job, `experiments/run.py --dataset snli --ablate
cross_bigrams`, as a process on the generated corpus (or on --data-dir), --repeats times:
wall time, peak RSS, the stages of its record, the choice of C and convergence of every fit,
and its fit over its read + featurize in the same run (`fit_over_read_and_featurize`: a ratio
travels between machines better than seconds do). With --sizes it does so on a generated corpus
of each training size (the dev split stays 10,000 pairs), smallest first: time and memory against
corpus size (`by_size`), the largest size's figures as `main_job`.
--strongest times `experiments/run.py --dataset snli --features strongest` the same way, from an
empty cache (every sentence lemmatized and parsed, every feature computed) and then again from
the cache that run filled (the costly types' values: `features.storage.value_cache`), with each run's
stages (the parse among them), each feature type's time and what the value cache gave.
--tree-parses FILE measures how far the dependency parses read off a corpus' own trees (SNLI,
MultiNLI) stand from spaCy's parser on the same sentences, and what that does to the features
that read them and to the strongest group's accuracy.
--curve does the same for the guide's SNLI-scale learning curve (7 sizes x 3 seeds x 2
configs, --jobs 2), from an empty output directory each time.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# benchmarks/ is a folder of the checkout, not of the installed package: its root goes on the path
# (last, so that an installed nli_baselines still comes first).
sys.path.append(str(Path(__file__).resolve().parents[1]))

# SNLI's training split, in pairs (benchmarks.synthetic.SNLI_TRAIN_PAIRS; not imported
# here so that --help answers without loading numpy and scikit-learn).
SNLI_TRAIN_PAIRS = 550_152


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=SNLI_TRAIN_PAIRS)
    parser.add_argument("--repeats", type=int, default=3,
                        help="featurization runs, or runs of --main-job or --curve; the median is reported")
    parser.add_argument("--dict-pairs", type=int, default=50_000,
                        help="subset for the slow dict + DictVectorizer reference (default 50,000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--tagging", action="store_true", help="measure spaCy tagging and the tag cache instead")
    parser.add_argument("--end-to-end", action="store_true",
                        help="read SNLI jsonl, extract parse tags, featurize, fit LR, predict 10,000 pairs")
    parser.add_argument("--scaling", metavar="SIZES", help="with --end-to-end: several corpus sizes, one process each")
    parser.add_argument("--C", type=float, default=None,
                        help="logistic regression C for --end-to-end (default: chosen on the dev pairs as "
                             "experiments/run.py chooses it)")
    parser.add_argument("--no-reference", action="store_true",
                        help="with --end-to-end: skip the comparison with a tight reference fit")
    parser.add_argument("--main-job", action="store_true",
                        help="time `experiments/run.py --dataset snli --ablate cross_bigrams` as a process, "
                             "--repeats times, on the generated corpus (or on --data-dir)")
    parser.add_argument("--strongest", action="store_true",
                        help="time `experiments/run.py --dataset snli --features strongest` as a process, cold (an "
                             "empty annotation cache) then warm, --repeats times, on the generated corpus (or on "
                             "--data-dir)")
    parser.add_argument("--tree-parses", metavar="FILE",
                        help="compare dependency parses read off an SNLI/MultiNLI file's trees with spaCy's "
                             "parser on its sentences: agreement, identical feature values, and the strongest "
                             "group's 10-fold CV accuracy with each (e.g. ../shared/data/snli_1.0_sample/"
                             "snli_1.0_dev.jsonl)")
    parser.add_argument("--sizes", metavar="N,N,...",
                        help="with --main-job: the training sizes of the generated corpora to run it on, one "
                             "after the other (time and memory against corpus size); default: --pairs")
    parser.add_argument("--curve", action="store_true",
                        help="time the guide's SNLI-scale learning curve as a process, --repeats times, on the "
                             "generated corpus (or on --data-dir)")
    parser.add_argument("--formats", metavar="DIR",
                        help="time reading SNLI-sized pairs as a file of your own, from jsonl and from parquet and "
                             "Arrow copies written into DIR, --repeats times: --data-dir's snli_1.0_train.jsonl, "
                             "else the generated corpus (written into DIR)")
    parser.add_argument("--write-snli", metavar="DIR",
                        help="only write the generated corpus (train: --pairs, dev: 10,000) as SNLI jsonl into DIR")
    parser.add_argument("--write-qqp", metavar="DIR",
                        help="only write a generated QQP-sized corpus (363,846 train and 40,430 dev pairs) in GLUE "
                             "QQP's layout into DIR/QQP (then --dataset qqp --data-dir DIR)")
    parser.add_argument("--types", metavar="NAMES",
                        help="measure only these built-in types alone (a group or a comma list), the per-type rows "
                             "of the featurize measurement, e.g. --types similarity")
    parser.add_argument("--tag-sentences", type=int, default=20_000)
    parser.add_argument("--data-dir", help="corpora for the tagging benchmark (SICK cold/warm) and for the feature "
                                           "types measured on real pairs (wordnet: SICK); with --main-job or "
                                           "--curve, a directory holding SNLI jsonl to run on instead of writing one")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="OUT", help="write the figures as JSON")
    args = parser.parse_args(argv)
    from benchmarks.measure import log
    from benchmarks.measure.commands import bench_commands
    from benchmarks.measure.end_to_end import bench_end_to_end
    from benchmarks.measure.featurizing import bench_features, bench_types, corpus_shape
    from benchmarks.measure.machine import describe, machine
    from benchmarks.measure.tagging import bench_tagging
    from benchmarks.synthetic import generate_pairs, write_snli_jsonl
    from nli_baselines.experiments.outputs.records import peak_rss_bytes, versions, write_json_atomic
    began = time.perf_counter()
    # The machine beside every figure: speed (and a fit's last bits) depend on the CPU, numpy's SIMD
    # groups and OpenBLAS's kernel (docs/performance.md).
    record: dict = {"versions": versions(), "cpus": os.cpu_count(), "machine": machine()}
    log(f"machine: {describe(record['machine'])}")
    if args.write_qqp:
        from benchmarks.qqp import write_qqp
        print("wrote " + " and ".join(map(str, write_qqp(Path(args.write_qqp), seed=args.seed))))
        return 0
    if args.write_snli:
        pairs = generate_pairs(args.pairs + 10_000, seed=args.seed)
        out = Path(args.write_snli)
        out.mkdir(parents=True, exist_ok=True)
        write_snli_jsonl(pairs[:args.pairs], out / "snli_1.0_train.jsonl")
        write_snli_jsonl(pairs[args.pairs:], out / "snli_1.0_dev.jsonl")
        print(f"wrote {args.pairs} train and 10000 dev pairs to {out}")
        return 0
    if args.formats:
        from benchmarks.measure.formats import bench_formats
        jsonl = Path(args.data_dir or args.formats) / "snli_1.0_train.jsonl"
        if not args.data_dir:
            Path(args.formats).mkdir(parents=True, exist_ok=True)  # a new directory, as --write-snli takes
            write_snli_jsonl(generate_pairs(args.pairs, seed=args.seed), Path(args.formats) / jsonl.name)
        record.update(bench_formats(jsonl, Path(args.formats), args.repeats))
    elif args.tree_parses:
        from benchmarks.measure.tree_parses import bench_tree_parses
        record.update(bench_tree_parses(Path(args.tree_parses)))
    elif args.main_job and args.sizes:
        sizes = sorted(int(size) for size in args.sizes.split(","))
        by_size = {str(n): bench_commands("main_job", None, n, args.seed, args.repeats)["main_job"] for n in sizes}
        record.update({"main_job": by_size[str(sizes[-1])], "by_size": by_size})
    elif args.main_job or args.curve or args.strongest:
        which = "main_job" if args.main_job else "strongest" if args.strongest else "curve"
        record.update(bench_commands(which, args.data_dir, args.pairs, args.seed, args.repeats))
    elif args.tagging:
        record["tagging"] = bench_tagging(args.data_dir, args.tag_sentences)
    elif args.end_to_end:
        sizes = [int(x) for x in args.scaling.split(",")] if args.scaling else [args.pairs]
        runs = [bench_end_to_end(n, args.seed, args.C, reference=not args.no_reference) for n in sizes]
        record.update(runs[-1])
        if len(runs) > 1:
            per_pair = {r["pairs"]: r["total_seconds"] / r["pairs"] for r in runs}
            record["scaling"] = {"runs": runs, "seconds_per_pair": per_pair,
                                 "ratio_largest_to_smallest": per_pair[max(per_pair)] / per_pair[min(per_pair)]}
        record["tagging"] = bench_tagging(args.data_dir, args.tag_sentences)
    else:
        started = time.perf_counter()
        pairs = generate_pairs(args.pairs, seed=args.seed)
        record["corpus"] = {"generator": "benchmarks.synthetic.generate_pairs", "seed": args.seed,
                            "seconds": time.perf_counter() - started, **corpus_shape(pairs)}
        record["corpus_rss_bytes"] = peak_rss_bytes()
        log(f"generated {len(pairs)} pairs in {record['corpus']['seconds']:.1f}s: {record['corpus']}")
        if args.types:
            from nli_baselines.features import resolve
            record.update(bench_types(pairs, resolve(args.types), args.data_dir))
        else:
            record.update(bench_features(pairs, args.repeats, args.dict_pairs, args.jobs, args.data_dir))
        record["total_seconds"] = time.perf_counter() - began  # the whole benchmark, every measurement
    record["process_peak_rss_bytes"] = peak_rss_bytes()
    if args.json:
        write_json_atomic(args.json, record)
    import json
    print(json.dumps({k: v for k, v in record.items() if k != "versions"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
