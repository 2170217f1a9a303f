#!/usr/bin/python3
"""Learned cost models side by side (issue: learned cost models).

0. Scoring speed: 4096 programs in one call, each model, median and range
   of 7 interleaved calls, at 1 and 2 threads (tcl-cost-model time-scoring).
1. Ranking quality and cost, one table per split, all models trained and
   evaluated in this run on the committed dataset (datasets/cpu):
   parameters, training time per epoch, time to score 4096 programs, and
   Tenset's top-1/top-5 scores, Spearman, NDCG@5 and pairwise accuracy on
   the held-out groups of each platform. Splits: held-out tasks, each
   held-out model, and a held-out platform.
2. Tuning efficiency on held-out models: each model is trained on the
   dataset without the model's workloads (records of the platform tuned
   for: this host's most capable one, 1 thread), then guides the search on
   it from the same starting point (default
   schedules, same seed, same trials); XGBoost learns from scratch during
   the search as in Ansor, random is the floor. For each: best estimated
   model latency against trials and against wall time, and the trials and
   seconds to reach 95% of the best latency any of them found; ratios vs
   Tenset-MLP and vs random. All runs resume from one database in which the
   default schedules were measured once, so they start from the same
   measurements. Plots: <out>/<model>-tuning.svg.

Usage: /usr/bin/python3 bench/cost_models.py [BUILD_DIR] [--data DIR]
       [--epochs N] [--trials N] [--held-out bert_encoder,resnet18]
       [--platform x86-avx2/1t] [--skip-scoring] [--skip-ranking]
       [--skip-tuning] [--out DIR]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

MODELS = ["mamba", "tlp", "mlp", "xgboost", "random"]
PROGRESS = re.compile(
    r"\[\s*(\d+)/\s*\d+\] (\S+)\s+best .* model\s+([0-9.]+) ms \|\s+"
    r"([0-9.]+) s")


def run(command, **kwargs):
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    return subprocess.run(command, check=True, capture_output=True, text=True,
                          **kwargs)


def ranking(build, data, epochs, splits, threads):
    tool = os.path.join(build, "bin", "tcl-cost-model")
    for split in splits:
        print(f"\n### Held out: {split}\n")
        try:
            result = run([tool, "compare", f"--data={data}",
                          f"--split={split}", f"--epochs={epochs}",
                          f"--num-threads={threads}"])
        except subprocess.CalledProcessError as error:
            # E.g. a platform the dataset does not have yet.
            print(f"(skipped: {error.stderr.strip()})", flush=True)
            continue
        print(result.stderr.strip().splitlines()[0])
        print()
        print(result.stdout.strip(), flush=True)


def scoring(build, data):
    """Time to score 4096 held-out programs in one call, every model trained
    for one epoch on one platform (the time does not depend on the weights),
    the models taking turns, at 1 and 2 threads."""
    tool = os.path.join(build, "bin", "tcl-cost-model")
    for threads in (1, 2):
        print(f"\n### Scoring 4096 programs, {threads} thread(s)\n")
        result = run([tool, "time-scoring", f"--data={data}", "--split=task",
                      "--platforms=x86-avx512/1t,x86-avx2/1t", "--epochs=1",
                      "--repeats=7", f"--num-threads={threads}"])
        print(result.stdout.strip(), flush=True)


def remove_database(database):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(database + suffix):
            os.remove(database + suffix)


def measure_defaults(build, graph, out, name, target):
    """One database with every task's default schedule measured: the common
    starting point of all runs (the same measurements, not a re-measuring
    with its own noise)."""
    listing = run([os.path.join(build, "bin", "tcl-compile"), graph,
                   "--dump-tasks"]).stdout
    tasks = int(re.search(r"(\d+) tasks,", listing).group(1))
    database = os.path.join(out, f"{name}-defaults.db")
    remove_database(database)
    run([os.path.join(build, "bin", "tcl-compile"), graph, "--tune",
         f"--target={target}", f"--trials={tasks}", "--cost-model=random",
         "--seed=1",
         f"--tuning-db={database}", "-o",
         os.path.join(out, f"{name}-defaults.so")])
    return database


def host_platform(build):
    """The platform tcl-compile targets by default: the most capable one
    this host runs (its --help names it)."""
    help_text = run([os.path.join(build, "bin", "tcl-compile"),
                     "--help"]).stdout
    return re.search(r"this host's, (x86-[a-z0-9]+)\)", help_text).group(1)


def tune(build, graph, target, model, checkpoint, trials, out, name,
         defaults):
    database = os.path.join(out, f"{name}-{model}.db")
    remove_database(database)
    shutil.copyfile(defaults, database)
    command = [os.path.join(build, "bin", "tcl-compile"), graph, "--tune",
               f"--target={target}", "--resume", f"--trials={trials}",
               f"--cost-model={model}",
               "--seed=1", f"--tuning-db={database}", "-o",
               os.path.join(out, f"{name}-{model}.so")]
    if checkpoint:
        command.append(f"--cost-model-file={checkpoint}")
    start = time.perf_counter()
    result = run(command)
    seconds = time.perf_counter() - start
    # Resumed from the defaults: every point sums all tasks.
    curve = [(int(m.group(1)), float(m.group(3)), float(m.group(4)))
             for m in PROGRESS.finditer(result.stderr)]
    return curve, seconds


def first_reaching(curve, target):
    for trials, latency, seconds in curve:
        if latency <= target:
            return trials, seconds
    return None, None


def write_svg(path, title, curves):
    width, height, margin = 720, 420, 60
    points = [p for curve in curves.values() for p in curve]
    max_x = max(p[0] for p in points)
    lows = [p[1] for p in points]
    min_y, max_y = min(lows), max(lows)
    span = max(max_y - min_y, 1e-9)
    colors = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#7f7f7f"]
    lines = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' "
             f"height='{height}' font-family='sans-serif' font-size='12'>",
             f"<text x='{margin}' y='20'>{title}</text>",
             f"<text x='{width // 2}' y='{height - 10}'>trials</text>",
             f"<text x='5' y='{margin - 10}'>model latency (ms), "
             f"{min_y:.2f}-{max_y:.2f}</text>"]
    for index, (model, curve) in enumerate(curves.items()):
        coords = " ".join(
            f"{margin + (width - 2 * margin) * t / max_x:.1f},"
            f"{height - margin - (height - 2 * margin) * (l - min_y) / span:.1f}"
            for t, l, _ in curve)
        color = colors[index % len(colors)]
        lines.append(f"<polyline fill='none' stroke='{color}' "
                     f"stroke-width='2' points='{coords}'/>")
        lines.append(f"<text x='{width - margin - 80}' y='{40 + 16 * index}' "
                     f"fill='{color}'>{model}</text>")
    lines.append("</svg>")
    with open(path, "w") as svg:
        svg.write("\n".join(lines) + "\n")


def tuning(build, data, epochs, trials, held_out, out, threads, platform):
    tool = os.path.join(build, "bin", "tcl-cost-model")
    for name in held_out:
        onnx = os.path.join(build, "models", name, "model.onnx")
        if not os.path.exists(onnx):
            run(["/usr/bin/python3", "models/generate.py",
                 os.path.join(build, "models"), name])
        curves, walls = {}, {}
        platform_target = platform.split("/")[0]
        defaults = measure_defaults(build, onnx, out, name, platform_target)
        for model in MODELS:
            checkpoint = None
            if model in ("mamba", "tlp", "mlp"):
                checkpoint = os.path.join(out, f"without-{name}.{model}")
                run([tool, "train", f"--data={data}", f"--model={model}",
                     f"--split=model:{name}", f"--platforms={platform}",
                     f"--epochs={epochs}", f"--num-threads={threads}",
                     "-o", checkpoint])
            curves[model], walls[model] = tune(build, onnx, platform_target,
                                               model, checkpoint, trials, out,
                                               name, defaults)
        best = min(curve[-1][1] for curve in curves.values() if curve)
        target = best / 0.95
        print(f"\n### Tuning {name} (held out of training), {trials} trials,"
              f" {platform}\n")
        print(f"Best estimated latency found by any model: {best:.3f} ms; "
              f"target (95%): {target:.3f} ms\n")
        print("| cost model | final (ms) | trials to 95% | seconds to 95% | "
              "total (s) | trials vs mlp | trials vs random | "
              "time vs mlp | time vs random |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        reach = {m: first_reaching(curves[m], target) for m in MODELS}

        def ratio(base, mine):
            return f"{base / mine:.2f}x" if base and mine else "-"
        for model in MODELS:
            t, s = reach[model]
            final = curves[model][-1][1] if curves[model] else float("nan")
            print(f"| {model} | {final:.3f} | {t if t else 'not reached'} | "
                  f"{f'{s:.0f}' if s else '-'} | {walls[model]:.0f} | "
                  f"{ratio(reach['mlp'][0], t)} | "
                  f"{ratio(reach['random'][0], t)} | "
                  f"{ratio(reach['mlp'][1], s)} | "
                  f"{ratio(reach['random'][1], s)} |")
        svg = os.path.join(out, f"{name}-tuning.svg")
        write_svg(svg, f"{name}: best estimated latency vs trials", curves)
        print(f"\nplot: {svg}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--data", default="datasets/cpu")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--trials", type=int, default=120)
    parser.add_argument("--held-out", default="bert_encoder")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--splits", default=None,
                        help="comma-separated (default: task, each model, "
                             "platform:x86-sse42/1t)")
    parser.add_argument("--platform", default=None,
                        help="tuning: <target>/1t, by default this host's")
    parser.add_argument("--skip-scoring", action="store_true")
    parser.add_argument("--skip-ranking", action="store_true")
    parser.add_argument("--skip-tuning", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    out = args.out or os.path.join(args.build, "bench-cost-models")
    os.makedirs(out, exist_ok=True)
    held_out = [m for m in args.held_out.split(",") if m]
    if not args.skip_scoring:
        scoring(args.build, args.data)
    if not args.skip_ranking:
        splits = ["task"] + [f"model:{m}" for m in
                             ("resnet18", "mobilenet_v2", "bert_encoder")]
        splits.append("platform:x86-sse42/1t")
        if args.splits:
            splits = args.splits.split(",")
        ranking(args.build, args.data, args.epochs, splits, args.threads)
    if not args.skip_tuning:
        platform = args.platform or host_platform(args.build) + "/1t"
        tuning(args.build, args.data, args.epochs, args.trials, held_out, out,
               args.threads, platform)


if __name__ == "__main__":
    main()
