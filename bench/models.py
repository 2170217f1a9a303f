#!/usr/bin/python3
"""End-to-end model benchmark: tcl (untuned, default schedules) vs libtorch.

For models/generate.py's MODELS by default (ResNet-18, MobileNetV2, the
BERT-style encoder, RegNet-Y-400MF; same seeded weights as PyTorch's), with
1 and 2 threads: tcl's compile time (ONNX -> .so)
and batch-1 latency (tcl-run, median), PyTorch's latency on the same
module in this process (torch.set_num_threads, OpenBLAS), and the share of
tcl's run outside the tasks' loop nests (a --profile build: pads, copies,
layout transposes). tcl and PyTorch are timed in alternating rounds
(--rounds, 3 by default): the latencies are medians over the rounds, the
speed ratio is the median of the rounds' ratios with their range, since one
noisy minute on a shared host moves a single measurement by 2x. Prints a
table.

Usage: /usr/bin/python3 bench/models.py [BUILD_DIR] [--models a,b] [--rounds N]
  (e.g. --models gpt,transformer_encoder_layer,unet,tcn: the other models
  of the end-to-end tests, from the zoo)
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import generate  # noqa: E402

REPEATS = 20


def torch_latency(model, example, threads):
    torch.set_num_threads(threads)
    with torch.no_grad():
        for _ in range(3):
            model(*example)
        times = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            model(*example)
            times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def run_library(build, name, library, threads):
    """A model library's median latency (ms) over REPEATS runs with tcl-run,
    and whether its outputs match the model's test data."""
    directory = os.path.join(build, "models", name)
    out = subprocess.run(
        [os.path.join(build, "bin", "tcl-run"),
         os.path.join(directory, "model.onnx"), f"--library={library}",
         f"--num-threads={threads}",
         f"--test-data={directory}/test_data_set_0", f"--repeats={REPEATS}"],
        check=True, capture_output=True, text=True).stdout
    median = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    ok = "ok" in re.search(r"check: .*", out).group(0)
    return median, ok


def outside_tasks(build, name, threads, compile_args):
    """The share of a run (%) outside the tasks' loop nests: a library
    compiled with --profile (and `compile_args`, e.g. a tuning database),
    run by tcl-run --profile, which counts the time of every nest in the
    code (README, "Where a model's time goes")."""
    directory = os.path.join(build, "models", name)
    onnx_path = os.path.join(directory, "model.onnx")
    library = os.path.join(directory, f"model_{threads}t_profile.so")
    subprocess.run([os.path.join(build, "bin", "tcl-compile"), onnx_path,
                    f"--num-threads={threads}", "--profile", "-o", library]
                   + compile_args, check=True, capture_output=True)
    out = subprocess.run(
        [os.path.join(build, "bin", "tcl-run"), onnx_path,
         f"--library={library}", f"--num-threads={threads}",
         f"--test-data={directory}/test_data_set_0", f"--repeats={REPEATS}",
         "--profile"], check=True, capture_output=True, text=True).stdout
    return 100 - float(re.search(r"tasks' nests\s+([0-9.]+) %", out).group(1))


def median_range(ratios):
    """Ratios of alternating rounds as 'median [min, max]'."""
    return (f"{statistics.median(ratios):.2f} "
            f"[{min(ratios):.2f}, {max(ratios):.2f}]")


def compile_library(build, name, threads):
    """Compiles the model for `threads`: the library and the seconds it took."""
    directory = os.path.join(build, "models", name)
    onnx_path = os.path.join(directory, "model.onnx")
    library = os.path.join(directory, f"model_{threads}t.so")
    start = time.perf_counter()
    subprocess.run([os.path.join(build, "bin", "tcl-compile"), onnx_path,
                    f"--num-threads={threads}", "-o", library], check=True)
    return library, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--models", default=",".join(generate.MODELS),
                        help="comma-separated names of models/generate.py's "
                             "MODELS or ZOO (default: MODELS)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating rounds of tcl and PyTorch runs")
    args = parser.parse_args()
    build, names = args.build, args.models.split(",")
    for name in names:
        if name not in generate.MODELS and name not in generate.ZOO:
            sys.exit(f"unknown model '{name}'")
    for name in names:
        if not os.path.exists(os.path.join(build, "models", name, "model.onnx")):
            generate.export(name, os.path.join(build, "models"))
    blas = "OpenBLAS" if "openblas" in torch.__config__.show().lower() or \
        os.path.exists("/usr/lib/x86_64-linux-gnu/openblas-openmp") else "BLAS"
    print(f"End-to-end, batch 1, f32, median of {REPEATS} runs a round, "
          f"{args.rounds} alternating rounds; libtorch {torch.__version__} "
          f"({blas}); tcl untuned (default schedules)\n")
    print("| model | threads | tcl compile (s) | tcl latency (ms) | "
          "libtorch latency (ms) | tcl / libtorch speed [range] | "
          "outside tasks | tcl check |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for name in names:
        model, example, _ = generate.instantiate(name)
        for threads in (1, 2):
            library, compile_seconds = compile_library(build, name, threads)
            tcl_times, torch_times, ok = [], [], True
            for _ in range(args.rounds):
                tcl_ms, round_ok = run_library(build, name, library, threads)
                ok &= round_ok
                tcl_times.append(tcl_ms)
                torch_times.append(torch_latency(model, example, threads))
            ratios = [t / c for t, c in zip(torch_times, tcl_times)]
            outside = outside_tasks(build, name, threads, [])
            print(f"| {name} | {threads} | {compile_seconds:.1f} "
                  f"| {statistics.median(tcl_times):.2f} "
                  f"| {statistics.median(torch_times):.2f} "
                  f"| {median_range(ratios)} | "
                  f"{outside:.1f} % | {'ok' if ok else 'WRONG'} |", flush=True)


if __name__ == "__main__":
    main()
