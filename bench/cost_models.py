#!/usr/bin/python3
"""Learned cost models side by side (issue: learned cost models).

0. Scoring speed: 4096 programs in one call, each model, median and range
   of 7 interleaved calls, at 1 and 2 threads (tcl-cost-model time-scoring).
1. Ranking quality and cost, one table per split, all models trained and
   evaluated in this run on the committed datasets (--data, comma-separated
   directories; datasets/cpu by default) with the shipped checkpoint's
   recipe: parameters, training time per epoch, time to score 4096
   programs, and Tenset's top-1/top-5 scores, Spearman, NDCG@5 and pairwise
   accuracy on the held-out groups of each platform. Splits: held-out
   tasks, each model the data holds tasks of, and a held-out platform. With
   several --ranking-seeds, top-1 and top-5 per platform and model as the
   median and range over the seeds.
1b. Ablations: Mamba (LambdaRank + MSE) against LambdaRank alone (with
   sharpened and linear gains), MSE alone, without the task's features,
   with weight averaging, trained on each record's fastest run or without
   its noisiest records, and XGBoost with and without task features, on
   the held-out tasks of one platform; Mamba with and without hardware
   features on a held-out platform; median and range over seeds.
1c. Online learning without timing noise (tcl-cost-model online): for each
   held-out model (--held-out), a Mamba checkpoint trained without it; per
   seed, after k programs of each of the model's tasks are "measured" (a
   seeded order), the checkpoint frozen, fine-tuned and corrected
   (--online-learning), XGBoost on those programs alone (Ansor) and on the
   dataset and them, rank the tasks' other programs: top-1, median and
   range over seeds.
2. Tuning efficiency on held-out models: each learned model is trained on
   the dataset without the model's workloads (records of the platform tuned
   for: this host's most capable one, 1 thread), then guides the search on
   it; XGBoost learns from scratch during the search as in Ansor, random is
   the floor. Every cost model tunes once per seed (--seeds), the models
   taking turns within a seed, all resuming from one database in which the
   default schedules were measured once (the same starting measurements).
   For each: the final best estimated model latency, the trials and seconds
   to reach 90% of the best improvement over the default schedules that any
   run found (medians and ranges over the seeds), and the ratios to
   XGBoost, Tenset-MLP and random. Curves: <out>/<model>-curves.json. Plots:
   <out>/<model>-tuning.svg against trials and <model>-tuning-time.svg
   against wall time (each model's median run). A contender "MODEL+rdu"
   is that cost model with the RDU sampler (METHOD.md §3) choosing each
   round's measurements instead of top-k + epsilon: --models
   xgboost,xgboost+rdu,mamba,mamba+rdu compares the samplers. With
   --train-platforms naming others than the tuned platform, the learned
   models' checkpoints have not seen it and the search learns it in an
   active column beside them (METHOD.md §4); "MODEL+finetune" fine-tunes
   the same checkpoint instead. With --cold-start every run starts from an
   empty database without the default schedules (tcl-compile
   --from-defaults=false, as Ansor and Tenset are measured), and the
   improvement is counted from the runs' first complete point (every task
   measured once). Cold studies also list the tasks where the contenders
   differ most when the first reaches the target (each task's weighted best
   latency and the trials it got). Then each pretrained checkpoint's
   top-1/top-5 on the programs the random runs measured: the search's own
   candidates, uniform samples of its space, where the datasets' held-out
   groups are half evolutionary proposals. Last, the search's loop without
   its noise (tcl-cost-model online --closed-loop) on every run's programs
   pooled: how close to each task's fastest each checkpoint's own picks
   get, 4 a task a round, learning as the tuner does.

Usage: /usr/bin/python3 bench/cost_models.py [BUILD_DIR] [--data DIR]
       [--epochs N] [--trials N] [--held-out bert_encoder,resnet18]
       [--splits task,model:gpt] [--ranking-seeds 1,2,3]
       [--ranking-platforms P,Q] [--ranking-models mamba,xgboost]
       [--platform x86-avx2/1t] [--skip-scoring] [--skip-ranking]
       [--skip-ablations] [--seeds 1,2,3] [--ablation-platform P]
       [--skip-online] [--skip-tuning] [--models mamba,xgboost,random]
       [--cold-start] [--out DIR]
"""
import argparse
import json
import lzma
import os
import re
import shutil
import sqlite3
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


# How the shipped checkpoint trains (checkpoints/mamba-cpu.json), beside
# --epochs: the ranking tables and the checkpoints of the online and tuning
# studies train every model so.
RECIPE = ["--average-weights=0.3", "--cosine-decay"]


def median(values):
    """The middle value (the upper one of an even count)."""
    return sorted(values)[len(values) // 2]


def median_range(values, digits=3):
    return (f"{median(values):.{digits}f} [{min(values):.{digits}f},"
            f" {max(values):.{digits}f}]")


def result_rows(output):
    """The cells of each result row of tcl-cost-model compare's table:
    model, parameters, train (s), s/epoch, score 4096 (ms), held-out
    platform, groups / programs, top-1, top-5, Spearman, NDCG@5, pairwise
    accuracy."""
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 12 and re.match(r"[0-9.]+$", cells[7]):
            yield cells


def dataset_models(data):
    """The models whose tasks the datasets in `data` (comma-separated
    directories) hold, as their workloads' sources name them ("random" and
    "deep" are the generator's draws, not models)."""
    models = set()
    for directory in data.split(","):
        with lzma.open(os.path.join(directory, "workloads.jsonl.xz"),
                       "rt") as lines:
            for line in lines:
                models.update(json.loads(line).get("sources", []))
    return sorted(models - {"random", "deep"})


def ranking(build, data, epochs, splits, threads, seeds, platforms, models):
    """One compare per split and seed. With one seed, its table; with
    several, top-1 and top-5 per held-out platform and model as median
    [min, max] over the seeds (a held-out model has a few dozen tasks, and
    one task's pick moves its top-1 by 0.01-0.04)."""
    tool = os.path.join(build, "bin", "tcl-cost-model")
    for split in splits:
        print(f"\n### Held out: {split}\n")
        scores = {}  # (model, platform) -> [(top-1, top-5) per seed]
        for seed in seeds:
            command = [tool, "compare", f"--data={data}", f"--split={split}",
                       f"--epochs={epochs}", f"--num-threads={threads}",
                       f"--seed={seed}"] + RECIPE
            if models:
                command.append(f"--models={models}")
            if platforms:
                command.append(f"--platforms={platforms}")
            try:
                result = run(command)
            except subprocess.CalledProcessError as error:
                # E.g. a platform the dataset does not have yet.
                print(f"(skipped: {error.stderr.strip()})", flush=True)
                break
            if len(seeds) == 1:
                print(result.stderr.strip().splitlines()[0])
                print()
                print(result.stdout.strip(), flush=True)
            for cells in result_rows(result.stdout):
                scores.setdefault((cells[0], cells[5], cells[6]), []).append(
                    (float(cells[7]), float(cells[8])))
        if len(seeds) < 2 or not scores:
            continue
        print(f"Seeds {','.join(map(str, seeds))}: median [min, max].\n")
        print("| held-out platform | groups / programs | model | top-1 | "
              "top-5 |")
        print("| --- | ---: | --- | --- | --- |")
        for (model, platform, size), values in sorted(
                scores.items(), key=lambda item: (item[0][1], item[0][0])):
            print(f"| {platform} | {size} | {model} | "
                  f"{median_range([v[0] for v in values])} | "
                  f"{median_range([v[1] for v in values])} |", flush=True)


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


# (label, flags, held-out split, platforms; None: the task split on the
# ablation platform). The hardware columns are constant on one platform
# (normalized to zero), so that ablation holds a platform out instead.
ABLATIONS = [
    ("mamba", [], None, None),  # LambdaRank (sharpened gains) + MSE
    ("mamba, LambdaRank only", ["--loss=lambdarank"], None, None),
    ("mamba, LambdaRank only, linear gains",
     ["--loss=lambdarank", "--gain-sharpness=0"], None, None),
    ("mamba, MSE only", ["--loss=mse"], None, None),
    ("mamba, no task features", ["--drop-features=task"], None, None),
    ("mamba, weights averaged", ["--average-weights=0.3"], None, None),
    # Label noise: labels from each record's fastest run instead of its
    # median, or training without the records whose runs spread > 20 %
    # (the held-out groups are ranked by their medians either way).
    ("mamba, trained on min timings", ["--train-timing=min"], None, None),
    ("mamba, trained without spread > 0.2", ["--train-max-spread=0.2"], None,
     None),
    ("xgboost", [], None, None),
    ("xgboost, no task features", ["--drop-features=task"], None, None),
    ("xgboost, trained on min timings", ["--train-timing=min"], None, None),
    ("xgboost, trained without spread > 0.2", ["--train-max-spread=0.2"],
     None, None),
    ("mamba, held-out platform x86-sse42/1t", [], "platform:x86-sse42/1t",
     ""),
    ("mamba, held-out platform x86-sse42/1t, no hardware features",
     ["--drop-features=hardware"], "platform:x86-sse42/1t", ""),
]


def ablations(build, data, epochs, seeds, platform, threads):
    """Mamba and its ablations on held-out tasks of one platform (the
    hardware ablation: on a held-out platform), several seeds each (top-1
    on ~95 held-out tasks moves by several points from seed to seed):
    median and range of each metric."""
    tool = os.path.join(build, "bin", "tcl-cost-model")
    print(f"\n### Ablations: held-out tasks of {platform}, {epochs} epochs, "
          f"seeds {','.join(map(str, seeds))}\n")
    print("| variant | top-1 median [min, max] | top-5 median [min, max] | "
          "NDCG@5 median | Spearman median |")
    print("| --- | --- | --- | ---: | ---: |")
    for label, flags, split, platforms in ABLATIONS:
        model = label.split(",")[0]
        rows = []
        for seed in seeds:
            command = [tool, "compare", f"--data={data}",
                       f"--split={split or 'task'}", f"--models={model}",
                       f"--epochs={epochs}", f"--seed={seed}",
                       f"--num-threads={threads}"] + flags
            if platforms is None:
                command.append(f"--platforms={platform}")
            result = run(command)
            for cells in result_rows(result.stdout):
                if cells[0] == model:
                    rows.append([float(c) for c in cells[7:12]])
        if not rows:
            continue

        def summary(column):
            values = sorted(row[column] for row in rows)
            return values[len(values) // 2], values[0], values[-1]

        top1, top5 = summary(0), summary(1)
        print(f"| {label} | {top1[0]:.3f} [{top1[1]:.3f}, {top1[2]:.3f}] | "
              f"{top5[0]:.3f} [{top5[1]:.3f}, {top5[2]:.3f}] | "
              f"{summary(3)[0]:.3f} | {summary(2)[0]:.3f} |", flush=True)


def online(build, data, epochs, held_out, out, threads, platform, seeds):
    tool = os.path.join(build, "bin", "tcl-cost-model")
    row = re.compile(r"^\| (\d+) \| ([^|]+) \| [^|]+ \| ([0-9.]+) \|")
    for name in held_out:
        checkpoint = os.path.join(out, f"online-without-{name}.mamba")
        run([tool, "train", f"--data={data}", "--model=mamba",
             f"--split=model:{name}", f"--platforms={platform}",
             f"--epochs={epochs}", f"--num-threads={threads}", "-o",
             checkpoint] + RECIPE)
        top1 = {}  # (k, contender) -> [top-1 per seed]
        for seed in seeds:
            result = run([tool, "online", f"--data={data}", "--model=mamba",
                          f"--split=model:{name}", f"--platforms={platform}",
                          f"--model-file={checkpoint}", f"--seed={seed}",
                          "--measured=0,4,8,16,32",
                          f"--num-threads={threads}"])
            for line in result.stdout.splitlines():
                match = row.match(line)
                if match:
                    key = (int(match.group(1)), match.group(2).strip())
                    top1.setdefault(key, []).append(float(match.group(3)))
        print(f"\n### Online learning: {name} held out, {platform}, seeds "
              f"{','.join(map(str, seeds))}\n")
        print("Top-1 on each task's programs not yet measured, median "
              "[min, max] over seeds.\n")
        counts = sorted({k for k, _ in top1})
        contenders = list(dict.fromkeys(c for _, c in top1))
        print("| model | " + " | ".join(f"{k} measured" for k in counts) +
              " |")
        print("| --- |" + " ---: |" * len(counts))
        for contender in contenders:
            cells = []
            for k in counts:
                values = sorted(top1.get((k, contender), []))
                cells.append(f"{values[len(values) // 2]:.3f} "
                             f"[{values[0]:.3f}, {values[-1]:.3f}]"
                             if values else "-")
            print(f"| {contender} | " + " | ".join(cells) + " |", flush=True)


def remove_database(database):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(database + suffix):
            os.remove(database + suffix)


def measure_defaults(build, graph, out, name, target, tasks):
    """One database with every task's default schedule measured (`tasks`
    of them): the common starting point of all runs (the same
    measurements, not a re-measuring with its own noise)."""
    database = os.path.join(out, f"{name}-defaults.db")
    remove_database(database)
    result = run([os.path.join(build, "bin", "tcl-compile"), graph, "--tune",
                  f"--target={target}", f"--trials={tasks}",
                  "--cost-model=random", "--seed=1",
                  f"--tuning-db={database}", "-o",
                  os.path.join(out, f"{name}-defaults.so")])
    # The model's latency with every default schedule: where all runs start.
    latencies = [float(m.group(3)) for m in PROGRESS.finditer(result.stderr)]
    return database, latencies[-1]


def host_platform(build):
    """The platform tcl-compile targets by default: the most capable one
    this host runs (its --help names it)."""
    help_text = run([os.path.join(build, "bin", "tcl-compile"),
                     "--help"]).stdout
    return re.search(r"this host's, (x86-[a-z0-9]+)\)", help_text).group(1)


def split_contender(contender):
    """'mamba', 'mamba+rdu', 'mamba+rdu+finetune', 'mamba+correct': the
    cost model, the sampler (top-k unless +rdu), whether its checkpoint is
    fine-tuned even on a platform it did not learn (+finetune: the same
    weights without the header line naming its platforms, so the search
    does not start an active column) and how it learns from the run
    (+correct: --online-learning=correct, else finetune)."""
    model, *flags = contender.split("+")
    unknown = set(flags) - {"rdu", "finetune", "correct"}
    if unknown:
        sys.exit(f"unknown contender flag(s) {sorted(unknown)} in {contender}")
    return (model, "rdu" if "rdu" in flags else "topk", "finetune" in flags,
            "correct" if "correct" in flags else "finetune")


def without_platforms(checkpoint):
    """A copy of `checkpoint` without its 'platforms' header line (the
    weights' checksum does not cover the header)."""
    copy = checkpoint + ".unnamed"
    with open(checkpoint, "rb") as source:
        data = source.read()
    start = data.find(b"\nplatforms ")
    if start >= 0:
        end = data.index(b"\n", start + 1)
        data = data[:start] + data[end:]
    with open(copy, "wb") as target:
        target.write(data)
    return copy


def tune(build, graph, target, contender, checkpoint, trials, out, name,
         defaults, seed, cold_start=False):
    """One tuning run: from the database of measured defaults, or with
    cold_start from an empty one without the defaults (--from-defaults=false)."""
    model, sampler, finetune, online = split_contender(contender)
    if checkpoint and finetune:
        checkpoint = without_platforms(checkpoint)
    database = os.path.join(out, f"{name}-{contender}-{seed}.db")
    remove_database(database)
    if not cold_start:
        shutil.copyfile(defaults, database)
    command = [os.path.join(build, "bin", "tcl-compile"), graph, "--tune",
               f"--from-defaults={'false' if cold_start else 'true'}",
               f"--target={target}", "--resume", f"--trials={trials}",
               f"--cost-model={model}", f"--sampler={sampler}",
               f"--online-learning={online}",
               f"--seed={seed}", f"--tuning-db={database}", "-o",
               os.path.join(out, f"{name}-{contender}-{seed}.so"),
               f"--cost-model-file={checkpoint or 'none'}"]
    start = time.perf_counter()
    result = run(command)
    seconds = time.perf_counter() - start
    # Every point sums all tasks (tcl-compile prints no model latency
    # before each task has one).
    curve = [(int(m.group(1)), float(m.group(3)), float(m.group(4)))
             for m in PROGRESS.finditer(result.stderr)]
    return curve, seconds


def first_reaching(curve, target):
    for trials, latency, seconds in curve:
        if latency <= target:
            return trials, seconds
    return None, None


def write_svg(path, title, curves, x_index=0, x_label="trials"):
    """Curves of (trials, latency, seconds) points, latency against the
    point's x_index-th value (0: trials, 2: seconds)."""
    width, height, margin = 720, 420, 60
    points = [p for curve in curves.values() for p in curve]
    max_x = max(max(p[x_index] for p in points), 1e-9)
    lows = [p[1] for p in points]
    min_y, max_y = min(lows), max(lows)
    span = max(max_y - min_y, 1e-9)
    colors = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#7f7f7f"]
    lines = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' "
             f"height='{height}' font-family='sans-serif' font-size='12'>",
             f"<text x='{margin}' y='20'>{title}</text>",
             f"<text x='{width // 2}' y='{height - 10}'>{x_label}</text>",
             f"<text x='5' y='{margin - 10}'>model latency (ms), "
             f"{min_y:.2f}-{max_y:.2f}</text>"]
    for index, (model, curve) in enumerate(curves.items()):
        coords = " ".join(
            f"{margin + (width - 2 * margin) * p[x_index] / max_x:.1f},"
            f"{height - margin - (height - 2 * margin) * (p[1] - min_y) / span:.1f}"
            for p in curve)
        color = colors[index % len(colors)]
        lines.append(f"<polyline fill='none' stroke='{color}' "
                     f"stroke-width='2' points='{coords}'/>")
        lines.append(f"<text x='{width - margin - 80}' y='{40 + 16 * index}' "
                     f"fill='{color}'>{model}</text>")
    lines.append("</svg>")
    with open(path, "w") as svg:
        svg.write("\n".join(lines) + "\n")


def tuning(build, data, epochs, trials, held_out, out, threads, platform,
           seeds, models, train_platforms=None, cold_start=False):
    """Each cost model tunes each held-out model once per seed, the models
    taking turns within a seed (so that the host's load changes hit them
    alike), all from one database with the default schedules measured, or
    with cold_start each from an empty one without the defaults (the
    defaults are measured all the same, for reference). The learned
    models' checkpoints train on `train_platforms` (default: the platform
    tuned); on others the search learns in an active column."""
    tool = os.path.join(build, "bin", "tcl-cost-model")
    for name in held_out:
        onnx = os.path.join(build, "models", name, "model.onnx")
        if not os.path.exists(onnx):
            run(["/usr/bin/python3", "models/generate.py",
                 os.path.join(build, "models"), name])
        platform_target = platform.split("/")[0]
        weights = task_weights(build, onnx)
        defaults, start = measure_defaults(build, onnx, out, name,
                                           platform_target, len(weights))
        checkpoints = {}
        for contender in models:
            model = split_contender(contender)[0]
            if model in ("mamba", "tlp", "mlp") and model not in checkpoints:
                checkpoints[model] = os.path.join(out,
                                                  f"without-{name}.{model}")
                run([tool, "train", f"--data={data}", f"--model={model}",
                     f"--split=model:{name}",
                     f"--platforms={train_platforms or platform}",
                     f"--epochs={epochs}", f"--num-threads={threads}",
                     "-o", checkpoints[model]] + RECIPE)
        runs = {model: [] for model in models}  # (curve, wall) per seed
        if train_platforms:
            print(f"\nLearned models trained on {train_platforms}; tuning "
                  f"{platform}.", flush=True)
        for seed in seeds:
            for model in models:
                runs[model].append(tune(
                    build, onnx, platform_target, model,
                    checkpoints.get(split_contender(model)[0]), trials, out,
                    name, defaults, seed, cold_start))
        with open(os.path.join(out, f"{name}-curves.json"), "w") as saved:
            json.dump({"start": start, "runs": runs}, saved)
        finals = [curve[-1][1] for model in models
                  for curve, _ in runs[model] if curve]
        best = min(finals)
        defaults_latency = start
        if cold_start:
            # Where the runs start: the median model latency once every
            # task first had a measurement.
            start = median([curve[0][1] for model in models
                            for curve, _ in runs[model] if curve])
        # Reaching 95% of the best latency is no test at a small budget (the
        # first batch gets there); 90% of the best improvement over the
        # start (the default schedules, or the runs' first complete point)
        # is.
        target = start - 0.9 * (start - best)
        print(f"\n### Tuning {name} (held out of training), {trials} trials,"
              f" {platform}, seeds {','.join(map(str, seeds))}"
              f"{', without the defaults' if cold_start else ''}\n")
        if cold_start:
            print(f"Default schedules (not in the runs): "
                  f"{defaults_latency:.3f} ms. The runs' first complete "
                  f"point (median): {start:.3f} ms; ", end="")
        else:
            print(f"Default schedules: {start:.3f} ms; ", end="")
        print(f"best found by any run: "
              f"{best:.3f} ms; target (90% of that improvement): "
              f"{target:.3f} ms. Medians over seeds, [min, max]; a run that "
              f"does not reach the target counts as {trials + 1} trials and "
              "its whole time.\n")
        print("| cost model [+ sampler] | final (ms) | trials to target | "
              "seconds to target | "
              "total (s) | trials: xgboost / this | mlp / this | "
              "random / this | time: xgboost / this | mlp / this |")
        print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | "
              "---: |")

        stats = {}
        for model in models:
            finals, reach_trials, reach_seconds, walls = [], [], [], []
            for curve, wall in runs[model]:
                if not curve:
                    continue
                finals.append(curve[-1][1])
                t, sec = first_reaching(curve, target)
                reach_trials.append(t if t else trials + 1)
                reach_seconds.append(sec if sec else wall)
                walls.append(wall)
            stats[model] = (finals, reach_trials, reach_seconds, walls)

        def ratio(base, model, column):
            if base not in stats:
                return "-"
            mine = stats[model][column]
            theirs = stats[base][column]
            if not mine or not theirs:
                return "-"
            return f"{median(theirs) / median(mine):.2f}x"
        for model in models:
            finals, reach_trials, reach_seconds, walls = stats[model]
            if not finals:
                continue
            print(f"| {model} | {median_range(finals, 3)} | "
                  f"{median_range(reach_trials, 0)} | "
                  f"{median_range(reach_seconds, 0)} | "
                  f"{median(walls):.0f} | {ratio('xgboost', model, 1)} | "
                  f"{ratio('mlp', model, 1)} | {ratio('random', model, 1)} | "
                  f"{ratio('xgboost', model, 2)} | {ratio('mlp', model, 2)} |")
        # The plot: each model's run with the median final latency.
        curves = {}
        for model in models:
            done = sorted((curve[-1][1], curve) for curve, _ in runs[model]
                          if curve)
            if done:
                curves[model] = done[len(done) // 2][1]
        svg = os.path.join(out, f"{name}-tuning.svg")
        write_svg(svg, f"{name}: best estimated latency vs trials "
                       "(median run of each model)", curves)
        wall_svg = os.path.join(out, f"{name}-tuning-time.svg")
        write_svg(wall_svg, f"{name}: best estimated latency vs seconds "
                            "(median run of each model)", curves, 2,
                  "seconds (scoring, training and measuring)")
        print(f"\nplots: {svg}, {wall_svg}", flush=True)
        if cold_start:
            # Where the first contender to reach the target got there.
            reached = [median(stats[model][1]) for model in models
                       if stats[model][1]]
            where_trials_went(weights, out, name, models, seeds,
                              min(min(reached), trials) if reached else trials)
        search_candidates(build, checkpoints, runs, out, name, seeds)
        closed_loop(build, checkpoints, models, out, name, seeds)


def task_weights(build, graph):
    """{workload key: (task name, weight)} from tcl-compile --dump-tasks."""
    listing = run([os.path.join(build, "bin", "tcl-compile"), graph,
                   "--dump-tasks"]).stdout
    weights = {}
    for line in listing.splitlines():
        # The key's own " | " separates the anchor from its epilogue.
        cells = [cell.strip() for cell in line.strip()[1:-1].split("|", 5)]
        if len(cells) == 6 and cells[2].isdigit():
            weights[cells[5]] = (cells[0], int(cells[2]))
    return weights


def where_trials_went(weights, out, name, models, seeds, at_trials,
                      shown=8):
    """Which tasks separate the contenders after `at_trials` trials: per
    task, each contender's weight x best latency (ms) and the trials it got,
    medians over seeds, from the runs' databases (a record per trial, in
    trial order; `weights` from task_weights). The rows whose medians
    differ most; they say where one cost model kept measuring slow
    programs."""
    # (contender, task) -> per seed (weighted best ms, trials).
    cells = {}
    for model in models:
        for seed in seeds:
            database = os.path.join(out, f"{name}-{model}-{seed}.db")
            if not os.path.exists(database):
                continue
            with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
                records = db.execute(
                    "SELECT w.key, r.status, r.median_s FROM records r "
                    "JOIN workloads w ON r.workload = w.id ORDER BY r.id "
                    "LIMIT ?", (at_trials,)).fetchall()
            best, count = {}, {}
            for key, status, seconds in records:
                count[key] = count.get(key, 0) + 1
                if status == "ok" and seconds is not None:
                    best[key] = min(best.get(key, seconds), seconds)
            for key, (_, weight) in weights.items():
                if key in best:
                    cells.setdefault((model, key), []).append(
                        (weight * best[key] * 1e3, count[key]))
    rows = []
    for key, (task, weight) in weights.items():
        medians = [median([ms for ms, _ in cells.get((model, key), [])])
                   if cells.get((model, key)) else None for model in models]
        if None in medians:
            continue
        # The floor (random) is far from everything; the rows are ordered
        # by how far the cost models are from each other.
        guided = [value for model, value in zip(models, medians)
                  if model != "random"]
        known = guided if len(guided) > 1 else medians
        rows.append((max(known) - min(known), task, weight, key))
    rows.sort(reverse=True)
    print(f"\nWhere the contenders differ after {at_trials} trials (each "
          "task's weight x best latency in ms, the trials it got; medians "
          f"over seeds; the {shown} tasks whose medians differ most, random "
          "aside):\n")
    print("| task | weight | " + " | ".join(models) + " |")
    print("| --- | ---: | " + " | ".join("---" for _ in models) + " |")
    for _, task, weight, key in rows[:shown]:
        values = []
        for model in models:
            seeds_cells = cells[(model, key)]
            values.append(f"{median([ms for ms, _ in seeds_cells]):.3f} "
                          f"({median([n for _, n in seeds_cells])})")
        print(f"| {task} | {weight} | " + " | ".join(values) + " |")


def search_candidates(build, checkpoints, runs, out, name, seeds):
    """How each pretrained checkpoint ranks the programs the search itself
    proposes: the random contender's runs measured a uniform sample of the
    search space of every task of the held-out model (no cost model chose
    them), so their databases hold the search's candidates with labels:
    what a cold search's first batches pick from. (The datasets' held-out
    groups are half evolutionary proposals, many near each task's best.)"""
    if "random" not in runs or not checkpoints:
        return
    tool = os.path.join(build, "bin", "tcl-cost-model")
    scores = {}  # model -> [(top-1, top-5) per seed]
    for seed in seeds:
        database = os.path.join(out, f"{name}-random-{seed}.db")
        if not os.path.exists(database):
            continue
        for model, checkpoint in checkpoints.items():
            result = run([tool, "evaluate", f"--db={database}",
                          f"--model={model}", f"--model-file={checkpoint}",
                          "--split=none"])
            for cells in result_rows(result.stdout):
                scores.setdefault(model, []).append(
                    (float(cells[7]), float(cells[8])))
    if not scores:
        return
    print(f"\nRanking the search's own candidates: each pretrained "
          f"checkpoint on the programs the random runs measured ({name}'s "
          f"tasks, uniform samples of the search space), median [min, max] "
          f"over the random runs' seeds.\n")
    print("| checkpoint | top-1 | top-5 |")
    print("| --- | --- | --- |")
    for model, values in scores.items():
        print(f"| {model} | {median_range([v[0] for v in values])} | "
              f"{median_range([v[1] for v in values])} |", flush=True)


def closed_loop(build, checkpoints, models, out, name, seeds, rounds=6,
                batch=4):
    """The search's loop without its noise (tcl-cost-model online
    --closed-loop): the programs every run of this study measured, pooled
    (the candidates searches proposed, with their measured latencies), are
    what each checkpoint picks from, `batch` a task a round, learning from
    its picks as the tuner's model does (frozen, fine-tuned, corrected;
    fine-tuned also with LambdaRank alone, LearnedModelOptions::
    fineTuneLoss);
    XGBoost from scratch and random picks beside them. A cell: the mean
    over tasks of the task's fastest pooled latency over the fastest
    picked, median [min, max] over seeds (which break ties and seed the
    updates)."""
    learned = {model: checkpoint for model, checkpoint in checkpoints.items()
               if model in ("mamba", "tlp", "mlp")}
    if not learned:
        return
    database_tool = os.path.join(build, "bin", "tcl-tuning-db")
    tool = os.path.join(build, "bin", "tcl-cost-model")
    pool = os.path.join(out, f"{name}-pool.db")
    remove_database(pool)
    exported = os.path.join(out, f"{name}-pool.jsonl")
    for model in models:
        for seed in seeds:
            database = os.path.join(out, f"{name}-{model}-{seed}.db")
            if os.path.exists(database):
                run([database_tool, database, "export", "-o", exported])
                run([database_tool, pool, "import", exported])
    os.remove(exported)
    found = {}  # (measured, row name) -> [found per seed]
    for model, checkpoint in learned.items():
        for loss in (None, "lambdarank"):
            for seed in seeds:
                result = run([tool, "online", "--closed-loop", f"--db={pool}",
                              "--split=none", f"--model={model}",
                              f"--model-file={checkpoint}",
                              f"--rounds={rounds}", f"--batch={batch}",
                              f"--seed={seed}"] +
                             ([f"--loss={loss}"] if loss else []))
                for line in result.stdout.splitlines():
                    cells = [c.strip() for c in line.strip("|").split("|")]
                    if len(cells) != 5 or not cells[0].isdigit():
                        continue
                    row = cells[1]
                    if loss:
                        if "fine-tuned" not in row:
                            continue
                        row = row.replace(")", ", LambdaRank alone)")
                    elif model != next(iter(learned)) and \
                            not row.startswith(model):
                        continue  # XGBoost and random: once
                    found.setdefault((int(cells[0]), row), []).append(
                        float(cells[2]))
    counts = sorted({measured for measured, _ in found})
    rows = list(dict.fromkeys(row for _, row in found))
    print(f"\nThe search's loop without its noise: {name}'s pooled "
          f"programs ({pool}), {batch} picked a task a round; fastest / "
          "found, mean over tasks, median [min, max] over seeds "
          f"{','.join(map(str, seeds))}.\n")
    print("| picked by | " + " | ".join(f"{k} a task" for k in counts) + " |")
    print("| --- | " + " | ".join("---" for _ in counts) + " |")
    for row in rows:
        print(f"| {row} | " + " | ".join(
            median_range(found[(k, row)]) if (k, row) in found else "-"
            for k in counts) + " |", flush=True)


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
    parser.add_argument("--ranking-seeds", default="1",
                        help="ranking: seeds of each split (several: median "
                        "and range per platform and model)")
    parser.add_argument("--ranking-platforms", default=None,
                        help="ranking: only these platforms' groups "
                        "(comma-separated; default all)")
    parser.add_argument("--ranking-models", default=None,
                        help="ranking: the models compared (default all)")
    parser.add_argument("--platform", default=None,
                        help="tuning: <target>/1t, by default this host's")
    parser.add_argument("--skip-scoring", action="store_true")
    parser.add_argument("--skip-ranking", action="store_true")
    parser.add_argument("--skip-ablations", action="store_true")
    parser.add_argument("--seeds", default="1,2,3",
                        help="ablations and tuning: the seeds")
    parser.add_argument("--ablation-platform", default="x86-avx512/1t")
    parser.add_argument("--skip-online", action="store_true")
    parser.add_argument("--skip-tuning", action="store_true")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="tuning: the cost models to compare; "
                        "MODEL+rdu tunes with the RDU sampler instead of "
                        "top-k + epsilon (e.g. xgboost,xgboost+rdu)")
    parser.add_argument("--train-platforms", default=None,
                        help="tuning: the platforms the learned models' "
                        "checkpoints train on (default: the one tuned); "
                        "without it the search learns in an active column "
                        "unless the contender says +finetune")
    parser.add_argument("--cold-start", action="store_true",
                        help="tuning: every run starts from an empty "
                        "database, without the default schedules "
                        "(tcl-compile --from-defaults=false)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    out = args.out or os.path.join(args.build, "bench-cost-models")
    os.makedirs(out, exist_ok=True)
    held_out = [m for m in args.held_out.split(",") if m]
    if not args.skip_scoring:
        scoring(args.build, args.data)
    if not args.skip_ranking:
        splits = ["task"] + [f"model:{m}" for m in dataset_models(args.data)]
        splits.append("platform:x86-sse42/1t")
        if args.splits:
            splits = args.splits.split(",")
        ranking(args.build, args.data, args.epochs, splits, args.threads,
                [int(x) for x in args.ranking_seeds.split(",")],
                args.ranking_platforms, args.ranking_models)
    if not args.skip_ablations:
        ablations(args.build, args.data, args.epochs,
                  [int(x) for x in args.seeds.split(",")],
                  args.ablation_platform, args.threads)
    platform = args.platform or host_platform(args.build) + "/1t"
    if not args.skip_online:
        online(args.build, args.data, args.epochs, held_out, out,
               args.threads, platform,
               [int(x) for x in args.seeds.split(",")])
    if not args.skip_tuning:
        tuning(args.build, args.data, args.epochs, args.trials, held_out, out,
               args.threads, platform,
               [int(x) for x in args.seeds.split(",")],
               [m for m in args.models.split(",") if m],
               args.train_platforms, args.cold_start)


if __name__ == "__main__":
    main()
