#!/usr/bin/python3
"""Active sampling offline (issue: RDU active sampling): which share of the
training programs a cost model needs, chosen by each strategy.

For each seed (the seeds interleaved: a whole seed's runs, then the next),
the model is trained on all training programs of the held-out-task split of
one platform, then on 5 %, 10 % and 20 % of them chosen by each strategy
(every strategy at --main-fraction, --other-strategies at the others;
tcl-cost-model compare --fraction F --strategy S: random, uncertainty,
diversity, representative and RDU; the choosing model is --select-model,
an ensemble of --ensemble for the strategies that read uncertainty), and
ranks the held-out tasks. The table: top-1, top-5 and NDCG@5, median and
range over the seeds, the top-1 as a share of the full data's (median over
seeds of the per-seed ratio), and the seconds each run took (choosing and
training). Raw rows: <out>/active-sampling.json.

Usage: /usr/bin/python3 bench/active_sampling.py [BUILD_DIR] [--data DIR]
       [--platform x86-avx512/1t] [--model mamba] [--epochs 20]
       [--seeds 1,2,3] [--fractions 0.05,0.1,0.2]
       [--strategies rdu,random,uncertainty,diversity,representative]
       [--main-fraction 0.1] [--other-strategies rdu,random]
       [--select-model mamba] [--ensemble 3] [--rounds 5] [--out DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import time

STRATEGIES = ["rdu", "random", "uncertainty", "diversity", "representative"]


def run_compare(tool, args, seed, extra):
    command = [tool, "compare", f"--data={args.data}", "--split=task",
               f"--platforms={args.platform}", f"--models={args.model}",
               f"--epochs={args.epochs}", f"--seed={seed}",
               f"--select-model={args.select_model}",
               f"--ensemble={args.ensemble}", f"--rounds={args.rounds}"]
    command += extra
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    start = time.monotonic()
    result = subprocess.run(command, check=True, capture_output=True,
                            text=True)
    seconds = time.monotonic() - start
    for line in result.stdout.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells and cells[0] == args.model:
            top1, top5, _, ndcg = (float(c) for c in cells[7:11])
            return {"top1": top1, "top5": top5, "ndcg5": ndcg,
                    "seconds": seconds}
    raise RuntimeError("no result row in:\n" + result.stdout)


def spread(values):
    values = sorted(values)
    return values[len(values) // 2], values[0], values[-1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--data", default="datasets/cpu")
    parser.add_argument("--platform", default="x86-avx512/1t")
    parser.add_argument("--model", default="mamba")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--fractions", default="0.05,0.1,0.2")
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--main-fraction", type=float, default=0.1,
                        help="the fraction every strategy runs at")
    parser.add_argument("--other-strategies", default="rdu,random",
                        help="the strategies at the other fractions")
    parser.add_argument("--select-model", default="mamba")
    parser.add_argument("--ensemble", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    tool = os.path.join(args.build, "bin", "tcl-cost-model")
    out = args.out or os.path.join(args.build, "bench-active-sampling")
    os.makedirs(out, exist_ok=True)
    seeds = [int(s) for s in args.seeds.split(",")]
    fractions = [float(f) for f in args.fractions.split(",")]
    strategies = [s for s in args.strategies.split(",") if s]

    rows = {}  # (strategy, fraction) -> {seed: result}
    for seed in seeds:
        rows.setdefault(("all", 1.0), {})[seed] = run_compare(
            tool, args, seed, [])
        for fraction in fractions:
            at_fraction = strategies if fraction == args.main_fraction else [
                s for s in args.other_strategies.split(",") if s]
            for strategy in at_fraction:
                rows.setdefault((strategy, fraction), {})[seed] = \
                    run_compare(tool, args, seed,
                                [f"--fraction={fraction}",
                                 f"--strategy={strategy}"])
        with open(os.path.join(out, "active-sampling.json"), "w") as f:
            json.dump([{"strategy": s, "fraction": fr, "seed": sd, **r}
                       for (s, fr), by_seed in rows.items()
                       for sd, r in by_seed.items()], f, indent=1)

    print(f"### Active sampling: {args.model} on held-out tasks of "
          f"{args.platform}, {args.epochs} epochs, chosen with "
          f"{args.select_model} (ensemble {args.ensemble}, {args.rounds} "
          f"rounds), seeds {args.seeds}\n")
    print("| strategy | fraction | top-1 median [min, max] | top-5 median "
          "[min, max] | NDCG@5 median | top-1 / all data | seconds |")
    print("| --- | ---: | --- | --- | ---: | ---: | ---: |")
    full = rows[("all", 1.0)]
    for (strategy, fraction), by_seed in rows.items():
        top1 = spread([r["top1"] for r in by_seed.values()])
        top5 = spread([r["top5"] for r in by_seed.values()])
        ndcg = spread([r["ndcg5"] for r in by_seed.values()])
        share = spread([r["top1"] / full[seed]["top1"]
                        for seed, r in by_seed.items() if full[seed]["top1"]])
        seconds = spread([r["seconds"] for r in by_seed.values()])
        print(f"| {strategy} | {fraction:g} | {top1[0]:.3f} [{top1[1]:.3f}, "
              f"{top1[2]:.3f}] | {top5[0]:.3f} [{top5[1]:.3f}, "
              f"{top5[2]:.3f}] | {ndcg[0]:.3f} | {share[0]:.3f} | "
              f"{seconds[0]:.0f} |", flush=True)


if __name__ == "__main__":
    main()
