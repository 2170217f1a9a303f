#!/usr/bin/python3
"""Tuning benchmark: the built-in search on whole models.

1. Tuning curves of the cost models (random search vs XGBoost-guided search
   by default) at equal trials (ResNet-18 by default): the model's
   estimated latency (sum over tasks of weight x best measured task
   latency) after each batch, same seed, same starting point (the default
   schedules). Plots: <out>/<model>-<cost>-<threads>t.svg.
2. Per run: the tuning time, the worst task's default / tuned latency (how
   far below what the search found the default schedule fell), and the
   share of the tuned model's run spent outside the tuned tasks' loop
   nests (a library compiled from the same database with --profile, run
   by tcl-run --profile: pads, copies, layout transposes, allocation).
3. End to end, batch 1: the tuned libraries vs the untuned one vs libtorch
   (OpenBLAS) at the same thread count, all timed in this run, in
   alternating rounds (--rounds, 8 by default): latencies are medians over
   the rounds, speed ratios the median of the rounds' ratios with their
   range (one noisy minute on a shared host moves a single timing by 2x;
   3 rounds gave tuned / untuned ranges like [0.81, 1.13] on a 2-vCPU Zen
   5, too wide to read a few per cent).

Usage: /usr/bin/python3 bench/tuning.py [BUILD_DIR] [--trials N]
       [--models resnet18,bert_encoder] [--cost-models random,xgboost]
       [--threads 1,2] [--rounds N] [--out DIR]
Without --trials, tcl-compile's default budget is used (its --help).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import models as e2e  # noqa: E402  (bench/models.py: libtorch timing)

PROGRESS = re.compile(
    r"\[\s*(\d+)/\s*\d+\] (\S+)\s+best .* model\s+([0-9.]+) ms")


TASK_ROW = re.compile(r"^\| (\S+) \| ([0-9.]+) \| (\d+) \| (\d+) \| ([0-9.]+) \| "
                      r"([0-9.]+) \| ([0-9.]+) \|")


def tune(build, name, cost_model, trials, threads, out):
    directory = os.path.join(build, "models", name)
    stem = f"{name}-{cost_model}-{threads}t"
    database = os.path.join(out, f"{stem}.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(database + suffix):
            os.remove(database + suffix)
    library = os.path.join(out, f"{stem}.so")
    command = [os.path.join(build, "bin", "tcl-compile"),
               os.path.join(directory, "model.onnx"), "--tune",
               f"--cost-model={cost_model}", "--seed=1",
               f"--num-threads={threads}", f"--tuning-db={database}",
               f"--tuning-curve={os.path.join(out, stem + '.svg')}",
               "-o", library]
    if trials:
        command.append(f"--trials={trials}")
    start = time.perf_counter()
    result = subprocess.run(command, check=True, capture_output=True,
                            text=True)
    seconds = time.perf_counter() - start
    progress = list(PROGRESS.finditer(result.stderr))
    curve = [(int(m.group(1)), float(m.group(3))) for m in progress]
    # Per task: (name, weight, default ms, tuned ms).
    tasks = [(m.group(1), float(m.group(2)), float(m.group(5)),
              float(m.group(6)))
             for m in map(TASK_ROW.match, result.stderr.splitlines()) if m]
    # tcl-compile shows the model's estimate only once every task has a
    # measured latency (its default schedule's): the first line with one.
    # (Waiting until every task had appeared in a line with an estimate left
    # it at the last trial: tasks whose defaults came before that line, and
    # which the search never picked again, never appeared.)
    complete = int(progress[0].group(1)) if progress else None
    return {"curve": curve, "seconds": seconds, "library": library,
            "database": database, "tasks": tasks, "complete": complete}


def at(curve, trials):
    """The model latency after `trials` trials (last point at or before)."""
    value = None
    for t, ms in curve:
        if t <= trials:
            value = ms
    return value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--trials", type=int, default=None,
                        help="trials per run (default: tcl-compile's)")
    parser.add_argument("--models", default="resnet18")
    parser.add_argument("--cost-models", default="random,xgboost")
    parser.add_argument("--threads", default="1")
    parser.add_argument("--rounds", type=int, default=8,
                        help="alternating rounds of the end-to-end timings")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = args.out or os.path.join(args.build, "bench-tuning")
    os.makedirs(out, exist_ok=True)
    names = args.models.split(",")
    cost_models = args.cost_models.split(",")
    thread_counts = [int(t) for t in args.threads.split(",")]
    for name in names:
        if not os.path.exists(os.path.join(args.build, "models", name,
                                           "model.onnx")):
            e2e.generate.export(name, os.path.join(args.build, "models"))

    budget = (f"{args.trials} trials" if args.trials
              else "tcl-compile's default budget")
    print(f"Tuning on this host's platform, {budget} per run (default "
          f"schedules included), seed 1\n")
    results = {}
    for name in names:
        for threads in thread_counts:
            for cost_model in cost_models:
                results[name, threads, cost_model] = tune(
                    args.build, name, cost_model, args.trials, threads, out)

    print("Estimated model latency (sum of weight x best task latency, ms) "
          "once every task's default schedule is measured, then after a "
          "third, two thirds and all of the remaining trials (trials in "
          "parentheses):\n")
    print("| model | threads | cost model | defaults | 1/3 | 2/3 | "
          "at the end | tuning time (s) |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for (name, threads, cost_model), run in results.items():
        last = run["curve"][-1][0] if run["curve"] else 0
        first = run["complete"] or last
        cells = []
        for k in (0, 1, 2, 3):
            trials = first + (last - first) * k // 3
            value = at(run["curve"], trials)
            cells.append(f"{value:.2f} ({trials})"
                         if value is not None else "-")
        print(f"| {name} | {threads} | {cost_model} | " + " | ".join(cells) +
              f" | {run['seconds']:.0f} |")

    print("\nEnd to end, batch 1, median of "
          f"{e2e.REPEATS} runs a round (tcl-run; libtorch in this process), "
          f"{args.rounds} alternating rounds of the untuned library, the "
          "tuned ones and libtorch: latencies are medians over the rounds, "
          "speed ratios the median of the rounds' ratios [range]. Worst "
          "task: the largest default / tuned latency of a task. Outside "
          "tasks: the share of the tuned model's run not in its tasks' loop "
          "nests (tcl-run --profile of a profiled build of the same "
          "schedules).\n")
    print("| model | threads | cost model | tuning (s) | untuned (ms) | "
          "tuned (ms) | libtorch (ms) | tuned / untuned speed | "
          "tuned / libtorch speed | worst task (default / tuned) | "
          "outside tasks | checks |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | "
          "--- | ---: | --- |")
    for name in names:
        model, example, _ = e2e.generate.instantiate(name)
        for threads in thread_counts:
            library, _ = e2e.compile_library(args.build, name, threads)
            untuned, torch_times, ok = [], [], True
            tuned = {cost_model: [] for cost_model in cost_models}
            for _ in range(args.rounds):
                ms, round_ok = e2e.run_library(args.build, name, library,
                                               threads)
                untuned.append(ms)
                ok &= round_ok
                for cost_model in cost_models:
                    ms, round_ok = e2e.run_library(
                        args.build, name,
                        results[name, threads, cost_model]["library"],
                        threads)
                    tuned[cost_model].append(ms)
                    ok &= round_ok
                torch_times.append(e2e.torch_latency(model, example, threads))
            for cost_model in cost_models:
                run = results[name, threads, cost_model]
                times = tuned[cost_model]
                # (A task the budget never measured has no tuned latency.)
                worst = max((t for t in run["tasks"] if t[3] > 0),
                            key=lambda t: t[2] / t[3], default=None)
                worst_text = (f"{worst[2] / worst[3]:.2f} ({worst[0]})"
                              if worst else "-")
                outside = e2e.outside_tasks(
                    args.build, name, threads,
                    [f"--tuning-db={run['database']}"])
                versus_untuned = [u / t for u, t in zip(untuned, times)]
                versus_torch = [c / t for c, t in zip(torch_times, times)]
                print(f"| {name} | {threads} | {cost_model} | "
                      f"{run['seconds']:.0f} | "
                      f"{statistics.median(untuned):.2f} | "
                      f"{statistics.median(times):.2f} | "
                      f"{statistics.median(torch_times):.2f} | "
                      f"{e2e.median_range(versus_untuned)} | "
                      f"{e2e.median_range(versus_torch)} | "
                      f"{worst_text} | {outside:.1f} % | "
                      f"{'ok' if ok else 'WRONG'} |", flush=True)
    print(f"\nPlots: {out}/<model>-<cost model>-<threads>t.svg")


if __name__ == "__main__":
    main()
