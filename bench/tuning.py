#!/usr/bin/python3
"""Tuning benchmark: the built-in search on whole models, 1 thread.

1. Tuning curves of random search vs XGBoost-guided search at equal trials
   (ResNet-18 by default): the model's estimated latency (sum over tasks of
   weight x best measured task latency) after each batch, same seed, same
   starting point (the default schedules). Plots: <out>/<model>-<cost>.svg.
2. End to end, batch 1: the tuned library vs the untuned one vs libtorch
   (OpenBLAS), all timed in this run.

Usage: /usr/bin/python3 bench/tuning.py [BUILD_DIR] [--trials N]
       [--models resnet18,bert_encoder] [--out DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import models as e2e  # noqa: E402  (bench/models.py: libtorch timing)

PROGRESS = re.compile(r"\[\s*(\d+)/\s*\d+\] \S+\s+best .* model\s+([0-9.]+) ms")


def tune(build, name, cost_model, trials, out):
    directory = os.path.join(build, "models", name)
    database = os.path.join(out, f"{name}-{cost_model}.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(database + suffix):
            os.remove(database + suffix)
    library = os.path.join(out, f"{name}-{cost_model}.so")
    start = time.perf_counter()
    result = subprocess.run(
        [os.path.join(build, "bin", "tcl-compile"),
         os.path.join(directory, "model.onnx"), "--tune",
         f"--trials={trials}", f"--cost-model={cost_model}", "--seed=1",
         f"--tuning-db={database}",
         f"--tuning-curve={os.path.join(out, f'{name}-{cost_model}.svg')}",
         "-o", library], check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    curve = [(int(m.group(1)), float(m.group(2)))
             for m in PROGRESS.finditer(result.stderr)]
    table = [line for line in result.stderr.splitlines()
             if line.startswith("| all")]
    return curve, seconds, library, table


def latency(build, name, library):
    directory = os.path.join(build, "models", name)
    out = subprocess.run(
        [os.path.join(build, "bin", "tcl-run"),
         os.path.join(directory, "model.onnx"), f"--library={library}",
         f"--test-data={directory}/test_data_set_0",
         f"--repeats={e2e.REPEATS}"],
        check=True, capture_output=True, text=True).stdout
    ok = "ok" in re.search(r"check: .*", out).group(0)
    return float(re.search(r"median ([0-9.]+) ms", out).group(1)), ok


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
    parser.add_argument("--trials", type=int, default=300)
    parser.add_argument("--models", default="resnet18")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    out = args.out or os.path.join(args.build, "bench-tuning")
    os.makedirs(out, exist_ok=True)
    names = args.models.split(",")
    for name in names:
        if not os.path.exists(os.path.join(args.build, "models", name,
                                           "model.onnx")):
            e2e.generate.export(name, os.path.join(args.build, "models"))

    print(f"Tuning, 1 thread, this host's platform, {args.trials} trials per "
          f"run (default schedules included), seed 1\n")
    results = {}
    for name in names:
        for cost_model in ("random", "xgboost"):
            results[name, cost_model] = tune(args.build, name, cost_model,
                                             args.trials, out)

    print("Estimated model latency (sum of weight x best task latency, ms) "
          "after N trials:\n")
    checkpoints = [args.trials * k // 4 for k in (1, 2, 3, 4)]
    print("| model | cost model | " +
          " | ".join(f"{c} trials" for c in checkpoints) +
          " | tuning time (s) |")
    print("| --- | --- | " + " | ".join("---:" for _ in checkpoints) +
          " | ---: |")
    for (name, cost_model), (curve, seconds, _, _) in results.items():
        cells = []
        for c in checkpoints:
            value = at(curve, c)
            cells.append(f"{value:.2f}" if value is not None else "-")
        print(f"| {name} | {cost_model} | " + " | ".join(cells) +
              f" | {seconds:.0f} |")

    print("\nEnd to end, batch 1, median of "
          f"{e2e.REPEATS} runs (tcl-run; libtorch in this process):\n")
    print("| model | untuned (ms) | tuned random (ms) | tuned xgboost (ms) "
          "| libtorch (ms) | tuned xgboost / untuned speed | "
          "tuned xgboost / libtorch speed | checks |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for name in names:
        _, untuned_ms, ok0 = e2e.tcl(args.build, name, 1)
        random_ms, ok1 = latency(args.build, name, results[name, "random"][2])
        xgb_ms, ok2 = latency(args.build, name, results[name, "xgboost"][2])
        torch_ms = e2e.torch_latency(name, 1)
        checks = "ok" if ok0 and ok1 and ok2 else "WRONG"
        print(f"| {name} | {untuned_ms:.2f} | {random_ms:.2f} | {xgb_ms:.2f} "
              f"| {torch_ms:.2f} | {untuned_ms / xgb_ms:.2f} | "
              f"{torch_ms / xgb_ms:.2f} | {checks} |", flush=True)
    print(f"\nPlots: {out}/<model>-<cost model>.svg")


if __name__ == "__main__":
    main()
