//===- Search.cpp - Evolutionary schedule search over a model's tasks -----===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Search.h"
#include "tcl/Runtime/Machine.h"
#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Transforms/DefaultSchedule.h"
#include "tcl/Tuning/SearchSpace.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <set>

using namespace mlir;
using namespace mlir::tcl;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// The task name inside workloads and stored schedules.
static constexpr llvm::StringLiteral kWorkloadTask = "task";
static constexpr llvm::StringLiteral kWorkloadEntry = "task";

//===----------------------------------------------------------------------===//
// Sampler
//===----------------------------------------------------------------------===//

Sampler::~Sampler() = default;

namespace {
class TopKEpsilonSampler : public Sampler {
public:
  explicit TopKEpsilonSampler(double epsilon) : epsilon(epsilon) {}
  llvm::StringRef getName() const override { return "top-k+epsilon"; }
  std::vector<SamplerPick> select(llvm::ArrayRef<double> scores, size_t count,
                                  std::mt19937_64 &rng) override {
    std::vector<size_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    std::vector<bool> taken(scores.size(), false);
    std::vector<SamplerPick> picks;
    std::bernoulli_distribution explore(epsilon);
    size_t nextBest = 0;
    while (picks.size() < std::min(count, scores.size())) {
      if (explore(rng)) {
        std::vector<size_t> rest;
        for (size_t i = 0; i < scores.size(); ++i)
          if (!taken[i])
            rest.push_back(i);
        size_t index = rest[std::uniform_int_distribution<size_t>(
            0, rest.size() - 1)(rng)];
        taken[index] = true;
        picks.push_back({index, true});
        continue;
      }
      while (taken[order[nextBest]])
        ++nextBest;
      taken[order[nextBest]] = true;
      picks.push_back({order[nextBest], false});
    }
    return picks;
  }

private:
  double epsilon;
};
} // namespace

std::unique_ptr<Sampler> mlir::tcl::createTopKEpsilonSampler(double epsilon) {
  return std::make_unique<TopKEpsilonSampler>(epsilon);
}

//===----------------------------------------------------------------------===//
// TaskScheduler
//===----------------------------------------------------------------------===//

TaskScheduler::TaskScheduler(std::vector<double> weights, double alpha,
                             unsigned window)
    : weights(std::move(weights)), alpha(alpha), window(window),
      history(this->weights.size()), retired(this->weights.size(), false) {}

void TaskScheduler::record(size_t task, unsigned trials, double bestSeconds) {
  history[task].push_back({trials, bestSeconds});
}

void TaskScheduler::retire(size_t task) { retired[task] = true; }

double TaskScheduler::priority(size_t task) const {
  if (retired[task])
    return -kInfinity;
  const auto &points = history[task];
  if (points.empty())
    return kInfinity;
  auto [trials, best] = points.back();
  if (!std::isfinite(best))
    return kInfinity;
  if (trials == 0)
    return kInfinity;
  // Best latency `window` trials ago (or at the first point after it).
  double before = points.front().second;
  unsigned since = trials - points.front().first;
  for (auto [t, b] : points)
    if (t + window >= trials) {
      before = b;
      since = trials - t;
      break;
    }
  double backward = 0;
  if (since > 0 && std::isfinite(before))
    backward = (before - best) / since;
  double optimistic = best / trials;
  return weights[task] * (alpha * backward + (1 - alpha) * optimistic);
}

size_t TaskScheduler::next() const {
  for (size_t task = 0; task < history.size(); ++task)
    if (history[task].empty() && !retired[task])
      return task;
  size_t best = 0;
  for (size_t task = 1; task < history.size(); ++task)
    if (priority(task) > priority(best))
      best = task;
  return best;
}

//===----------------------------------------------------------------------===//
// Tuner
//===----------------------------------------------------------------------===//

namespace {

std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// One candidate schedule of a task.
struct Candidate {
  Genome genome;
  std::string schedule;
  std::vector<float> features;
};

/// The state of one task during tuning.
struct TaskState {
  TaskReport report;
  OwningOpRef<ModuleOp> workload;
  std::string workloadText;
  std::unique_ptr<SearchSpace> space;
  TaskFeatures features;
  /// The workload's anchor, and whether it has an epilogue to fuse.
  linalg::LinalgOp anchor;
  bool hasEpilogue = false;
  /// Genomes (text) and schedules already measured.
  llvm::StringSet<> measured;
  /// Measured candidates that succeeded, with their time, best first.
  std::vector<std::pair<double, Genome>> good;
  /// Every measured sample's features and seconds (infinity: failed).
  std::vector<std::pair<std::vector<float>, double>> samples;
};

class TuningRun {
public:
  TuningRun(TuningDatabase &database, const TuningOptions &options,
            const MeasureFn &measure, MLIRContext *ctx)
      : database(database), options(options), measure(measure), ctx(ctx),
        rng(options.seed),
        platform(options.platform) {}

  llvm::Expected<TuningReport> run(ModuleOp module, llvm::raw_ostream *out);

private:
  llvm::Error prepareTask(ModuleOp module, const TaskSummary &summary);
  /// Builds, verifies and featurizes the schedule of `genome`.
  std::optional<Candidate> realize(TaskState &task, const Genome &genome);
  /// Up to `count` candidates never measured, and who proposed each.
  std::vector<Candidate> propose(TaskState &task, size_t count,
                                 std::vector<std::string> &proposers);
  /// The task's workload with `schedule` added: what the worker measures.
  std::string candidateModule(TaskState &task, llvm::StringRef schedule);
  /// A candidate to measure, its task and who proposed it.
  struct Trial {
    size_t task;
    Candidate candidate;
    std::string proposer;
  };
  /// Measures `trials` (of any tasks) as one batch and records them in one
  /// transaction.
  llvm::Error measureAndRecord(std::vector<Trial> trials);
  void addSample(TaskState &task, std::vector<float> features, double seconds,
                 const Genome *genome);
  llvm::Error refitModel();
  void progress(llvm::raw_ostream *out, size_t taskIndex);
  FailureOr<std::vector<float>> featuresOf(ScheduleOp schedule,
                                           const TaskFeatures &task) {
    return featurize(schedule, task, &platform.getFeatures(),
                     model->getFeatureKind());
  }
  /// The search loop of tuning: the task scheduler spends the budget.
  llvm::Error tuneTasks(llvm::raw_ostream *out);
  /// The loop of dataset collection: every task to its quota.
  llvm::Error collectTasks(llvm::raw_ostream *out);
  /// Proposes, measures and records one batch of `count` for `index`;
  /// false if the task has nothing new to measure.
  llvm::Expected<bool> step(size_t index, size_t count);

  TuningDatabase &database;
  const TuningOptions &options;
  const MeasureFn &measure;
  MLIRContext *ctx;
  std::mt19937_64 rng;
  /// The platform measured, with its hardware features once registered.
  Platform platform;
  std::unique_ptr<CostModel> model;
  std::unique_ptr<Sampler> sampler;
  std::vector<std::unique_ptr<TaskState>> tasks;
  TuningReport report;
  unsigned trialsDone = 0, trialsBudget = 0, round = 0;
  /// Trials the database had when this run started (resumed ones).
  unsigned trialsBefore = 0;
  std::chrono::steady_clock::time_point start;
  bool live = false;
};

llvm::Error TuningRun::prepareTask(ModuleOp module,
                                   const TaskSummary &summary) {
  auto workload =
      extractTaskWorkload(module, summary.name, kWorkloadEntry, kWorkloadTask);
  if (failed(workload))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "task '" + summary.name + "' not found");
  auto anchor = cast<linalg::LinalgOp>(findTaskAnchor(**workload));
  bool hasEpilogue = false;
  (*workload)->walk(
      [&](Operation *op) { hasEpilogue |= op->hasAttr(kEpilogueAttrName); });
  auto space =
      SearchSpace::create(anchor, platform, hasEpilogue);
  FailureOr<TaskFeatures> features = TaskFeatures::fromAnchor(anchor);
  if (!space || failed(features)) {
    report.skipped.push_back(summary.name + " (" + summary.anchorName +
                             ": no search space for it)");
    return llvm::Error::success();
  }
  auto task = std::make_unique<TaskState>();
  task->report.name = summary.name;
  task->report.key = summary.key;
  task->report.weight = summary.weight;
  task->report.flops = summary.flops;
  task->workloadText = printOp(**workload);
  task->workload = std::move(*workload);
  task->space = std::move(space);
  task->features = *features;
  task->anchor = anchor;
  task->hasEpilogue = hasEpilogue;
  if (llvm::Error error = database.addWorkload(
          {summary.key, summary.anchorName, summary.flops, task->workloadText}))
    return error;
  // What the database already knows: measured, never again; trains the
  // model; seeds the population.
  for (const TuningRecord &record :
       database.getRecords(summary.key, platform.getName())) {
    ++task->report.trials;
    if (record.proposer == "default" && record.isOk())
      task->report.defaultSeconds = record.medianSeconds;
    task->measured.insert(record.schedule);
    if (!record.genome.empty())
      task->measured.insert(record.genome);
    OwningOpRef<ModuleOp> holder;
    ScheduleOp schedule = parseStoredSchedule(record.schedule, ctx, holder);
    if (!schedule)
      continue;
    FailureOr<std::vector<float>> sample = featuresOf(schedule, task->features);
    if (failed(sample))
      continue;
    std::optional<Genome> genome = Genome::parse(record.genome);
    addSample(*task, *sample, record.isOk() ? record.medianSeconds : kInfinity,
              genome && task->space->isWellFormed(*genome) ? &*genome
                                                           : nullptr);
    task->report.failures += !record.isOk();
  }
  tasks.push_back(std::move(task));
  return llvm::Error::success();
}

void TuningRun::addSample(TaskState &task, std::vector<float> features,
                          double seconds, const Genome *genome) {
  task.samples.push_back({std::move(features), seconds});
  if (!std::isfinite(seconds))
    return;
  if (genome) {
    task.good.push_back({seconds, *genome});
    std::stable_sort(
        task.good.begin(), task.good.end(),
        [](const auto &a, const auto &b) { return a.first < b.first; });
  }
  if (task.report.bestSeconds == 0 || seconds < task.report.bestSeconds)
    task.report.bestSeconds = seconds;
}

std::optional<Candidate> TuningRun::realize(TaskState &task,
                                            const Genome &genome) {
  if (!task.space->isWellFormed(genome))
    return std::nullopt;
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(ctx));
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  ScheduleOp schedule =
      task.space->build(builder, UnknownLoc::get(ctx), kWorkloadTask, genome);
  {
    // The verifier is the judge; its diagnostics are not the user's.
    ScopedDiagnosticHandler silence(ctx,
                                    [](Diagnostic &) { return success(); });
    if (failed(verify(schedule)))
      return std::nullopt;
  }
  FailureOr<std::vector<float>> featureVector =
      featuresOf(schedule, task.features);
  if (failed(featureVector))
    return std::nullopt;
  return Candidate{genome, printOp(schedule), std::move(*featureVector)};
}

std::vector<Candidate> TuningRun::propose(TaskState &task, size_t count,
                                          std::vector<std::string> &proposers) {
  std::vector<Candidate> population;
  // Genomes tried, and schedules in the population: two genomes can give
  // the same schedule (an unroll factor above the trip count), which must
  // be measured once.
  llvm::StringSet<> seen, schedules;
  auto add = [&](const Genome &genome) {
    if (!seen.insert(genome.str()).second)
      return;
    std::optional<Candidate> candidate = realize(task, genome);
    if (candidate && schedules.insert(candidate->schedule).second)
      population.push_back(std::move(*candidate));
  };
  // Seeds: the best measured genomes, then random samples.
  for (size_t i = 0; i < task.good.size() && i < options.population / 4; ++i)
    add(task.good[i].second);
  for (unsigned attempt = 0; population.size() < options.population &&
                             attempt < 4 * options.population;
       ++attempt)
    add(task.space->sample(rng));
  if (population.empty())
    return {};

  // Scores of population[from...].
  auto scoresFrom = [&](size_t from) {
    std::vector<std::vector<float>> features;
    for (size_t i = from; i < population.size(); ++i)
      features.push_back(population[i].features);
    return model->predict(features);
  };
  std::vector<double> scores = scoresFrom(0);
  std::bernoulli_distribution crossoverCoin(0.5), secondMutation(0.3);
  for (unsigned generation = 0; generation < options.generations;
       ++generation) {
    // Parents come from the scored population (children are appended
    // after it and scored with the survivors).
    size_t scored = scores.size();
    auto tournament = [&]() -> Genome {
      std::uniform_int_distribution<size_t> any(0, scored - 1);
      size_t best = any(rng);
      for (int i = 0; i < 3; ++i) {
        size_t other = any(rng);
        if (scores[other] > scores[best])
          best = other;
      }
      return population[best].genome;
    };
    size_t before = population.size();
    for (unsigned attempt = 0;
         population.size() < 2 * before && attempt < 4 * options.population;
         ++attempt) {
      Genome child = tournament();
      if (crossoverCoin(rng))
        child = task.space->crossover(child, tournament(), rng);
      child = task.space->mutate(child, rng);
      if (secondMutation(rng))
        child = task.space->mutate(child, rng);
      add(child);
    }
    // Survivors: the best by score (the seeds compete like the others).
    // Only the children are new to the model.
    std::vector<double> all = scores;
    llvm::append_range(all, scoresFrom(scored));
    std::vector<size_t> order(population.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return all[a] > all[b]; });
    std::vector<Candidate> survivors;
    scores.clear();
    for (size_t i = 0; i < order.size() && i < options.population; ++i) {
      survivors.push_back(std::move(population[order[i]]));
      scores.push_back(all[order[i]]);
    }
    population = std::move(survivors);
  }
  // Measure only what was never measured.
  std::vector<Candidate> fresh;
  std::vector<double> freshScores;
  for (size_t i = 0; i < population.size(); ++i)
    if (!task.measured.contains(population[i].genome.str()) &&
        !task.measured.contains(population[i].schedule)) {
      freshScores.push_back(scores[i]);
      fresh.push_back(std::move(population[i]));
    }
  std::vector<Candidate> picked;
  // Collection: a share of the batch is uniform samples of the space.
  size_t randomCount = static_cast<size_t>(
      std::lround(options.randomFraction * static_cast<double>(count)));
  for (SamplerPick pick :
       sampler->select(freshScores, count - randomCount, rng)) {
    picked.push_back(std::move(fresh[pick.index]));
    proposers.push_back(model->getName().str() +
                        (pick.exploratory ? "/epsilon" : "/top-k"));
  }
  llvm::StringSet<> inBatch;
  for (const Candidate &candidate : picked)
    inBatch.insert(candidate.schedule);
  for (unsigned attempt = 0;
       options.randomFraction > 0 && picked.size() < count &&
       attempt < 8 * std::max<size_t>(count, 1);
       ++attempt) {
    std::optional<Candidate> candidate = realize(task, task.space->sample(rng));
    if (!candidate || task.measured.contains(candidate->genome.str()) ||
        task.measured.contains(candidate->schedule) ||
        !inBatch.insert(candidate->schedule).second)
      continue;
    picked.push_back(std::move(*candidate));
    proposers.push_back("random/sample");
  }
  return picked;
}

std::string TuningRun::candidateModule(TaskState &task,
                                       llvm::StringRef schedule) {
  OwningOpRef<ModuleOp> module = task.workload->clone();
  OwningOpRef<ModuleOp> holder;
  if (ScheduleOp op = parseStoredSchedule(schedule, ctx, holder))
    OpBuilder::atBlockEnd(module->getBody()).clone(*op);
  return printOp(*module);
}

llvm::Error TuningRun::measureAndRecord(std::vector<Trial> trials) {
  std::vector<MeasureInput> inputs;
  for (const Trial &trial : trials) {
    TaskState &task = *tasks[trial.task];
    MeasureInput input;
    input.workload = task.workloadText;
    input.candidate = candidateModule(task, trial.candidate.schedule);
    input.entry = kWorkloadEntry.str();
    input.platform = platform;
    inputs.push_back(std::move(input));
  }
  std::vector<MeasureResult> results = measure(inputs);

  std::vector<TuningRecord> records;
  for (auto [trial, result] : llvm::zip(trials, results)) {
    const Candidate &candidate = trial.candidate;
    TuningRecord record;
    record.workloadKey = tasks[trial.task]->report.key;
    record.platform = platform.getName();
    record.schedule = candidate.schedule;
    record.genome =
        candidate.genome.tiles.empty() ? "" : candidate.genome.str();
    record.status = result.status == MeasureStatus::Ok
                        ? "ok"
                        : llvm::StringRef(toString(result.status)).str();
    record.message = result.message;
    record.minSeconds = result.minSeconds;
    record.medianSeconds = result.medianSeconds;
    record.maxSeconds = result.maxSeconds;
    record.repeats = result.repeats;
    record.maxError = result.maxError;
    record.proposer = trial.proposer;
    record.round = round;
    records.push_back(record);
  }
  // One transaction per batch: a kill loses at most this batch.
  if (llvm::Error error = database.addRecords(records))
    return error;
  for (auto [trial, record] : llvm::zip(trials, records)) {
    TaskState &task = *tasks[trial.task];
    const Candidate &candidate = trial.candidate;
    task.measured.insert(record.schedule);
    if (!record.genome.empty())
      task.measured.insert(record.genome);
    ++task.report.trials;
    ++trialsDone;
    task.report.failures += !record.isOk();
    if (record.proposer == "default" && record.isOk())
      task.report.defaultSeconds = record.medianSeconds;
    addSample(task, candidate.features,
              record.isOk() ? record.medianSeconds : kInfinity,
              candidate.genome.tiles.empty() ? nullptr : &candidate.genome);
  }
  ++round;
  return llvm::Error::success();
}

llvm::Error TuningRun::refitModel() {
  std::vector<CostSample> samples;
  for (auto [group, task] : llvm::enumerate(tasks))
    for (const auto &[features, seconds] : task->samples)
      samples.push_back({features,
                         relativeThroughput(seconds, task->report.bestSeconds),
                         static_cast<unsigned>(group)});
  return model->update(samples);
}

void TuningRun::progress(llvm::raw_ostream *out, size_t taskIndex) {
  double modelSeconds = 0;
  for (const auto &task : tasks)
    modelSeconds += task->report.weight * task->report.bestSeconds;
  report.modelCurve.push_back({trialsDone, modelSeconds});
  TaskReport &task = tasks[taskIndex]->report;
  task.curve.push_back({task.trials, task.bestSeconds});
  if (!out)
    return;
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  double eta =
      trialsDone > trialsBefore
          ? elapsed / (trialsDone - trialsBefore) *
                (trialsBudget > trialsDone ? trialsBudget - trialsDone : 0)
          : 0;
  double gflops =
      task.bestSeconds > 0 ? task.flops / task.bestSeconds * 1e-9 : 0;
  std::string line;
  llvm::raw_string_ostream os(line);
  os << llvm::format("[%4u/%4u] %-28s best %9.4f ms %7.1f GFLOP/s | model "
                     "%8.3f ms | %5.0f s, ETA %4.0f s",
                     trialsDone, trialsBudget, task.name.c_str(),
                     task.bestSeconds * 1e3, gflops, modelSeconds * 1e3,
                     elapsed, eta);
  if (live)
    *out << "\r\x1b[2K" << line;
  else
    *out << line << "\n";
  out->flush();
}

llvm::Expected<TuningReport> TuningRun::run(ModuleOp module,
                                            llvm::raw_ostream *out) {
  start = std::chrono::steady_clock::now();
  ctx->loadDialect<TclDialect>();
  live = out && llvm::sys::Process::StandardErrIsDisplayed() &&
         out == &llvm::errs();
  model = createCostModel(options.costModel, options.seed);
  if (!model)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown cost model '" + options.costModel +
                                       "'");
  sampler = createTopKEpsilonSampler(options.epsilon);
  llvm::Expected<Platform> known =
      registerPlatform(database, options.platform, options.probeHardware);
  if (!known)
    return known.takeError();
  platform = *known;
  if (!options.costModelFile.empty())
    if (llvm::Error error = model->load(options.costModelFile))
      return std::move(error);
  for (const TaskSummary &summary : summarizeTasks(module))
    if (llvm::Error error = prepareTask(module, summary))
      return std::move(error);
  unsigned already = 0;
  for (const auto &task : tasks)
    already += task->report.trials;
  // With resume, the trials in the database count toward the budget.
  trialsDone = trialsBefore = already;
  trialsBudget = options.resume ? options.trials : already + options.trials;
  if (options.trialsPerTask) {
    trialsBudget = 0;
    for (const auto &task : tasks)
      trialsBudget += std::max(task->report.trials, options.trialsPerTask);
  }
  if (llvm::Error error = refitModel())
    return std::move(error);

  // Default schedules first: the untuned baseline of each task, measured
  // batchSize tasks at a time (so they build in parallel).
  std::vector<Trial> defaults;
  auto measureDefaults = [&]() -> llvm::Error {
    if (defaults.empty())
      return llvm::Error::success();
    std::vector<size_t> measured;
    for (const Trial &trial : defaults)
      measured.push_back(trial.task);
    if (llvm::Error error = measureAndRecord(std::move(defaults)))
      return error;
    defaults.clear();
    for (size_t index : measured)
      progress(out, index);
    return llvm::Error::success();
  };
  for (auto [index, task] : llvm::enumerate(tasks)) {
    if (trialsDone + defaults.size() >= trialsBudget)
      break;
    if (task->report.defaultSeconds > 0 || task->report.trials > 0)
      continue;
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(ctx));
    OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
    ScheduleOp schedule = buildDefaultSchedule(
        builder, task->anchor, kWorkloadTask, platform, task->hasEpilogue);
    FailureOr<std::vector<float>> featureVector =
        featuresOf(schedule, task->features);
    if (failed(featureVector))
      continue;
    defaults.push_back(
        {index,
         Candidate{Genome(), printOp(schedule), std::move(*featureVector)},
         "default"});
    if (defaults.size() >= std::max(1u, options.batchSize))
      if (llvm::Error error = measureDefaults())
        return std::move(error);
  }
  if (llvm::Error error = measureDefaults())
    return std::move(error);
  if (llvm::Error error = refitModel())
    return std::move(error);

  if (llvm::Error error =
          options.trialsPerTask ? collectTasks(out) : tuneTasks(out))
    return std::move(error);
  if (live && out)
    *out << "\n";
  for (const auto &task : tasks)
    report.tasks.push_back(task->report);
  return std::move(report);
}

llvm::Expected<bool> TuningRun::step(size_t index, size_t count) {
  TaskState &task = *tasks[index];
  std::vector<std::string> proposers;
  std::vector<Candidate> batch = propose(task, count, proposers);
  if (batch.empty())
    return false;
  std::vector<Trial> trials;
  for (auto [candidate, proposer] : llvm::zip(batch, proposers))
    trials.push_back({index, std::move(candidate), proposer});
  if (llvm::Error error = measureAndRecord(std::move(trials)))
    return std::move(error);
  if (llvm::Error error = refitModel())
    return std::move(error);
  return true;
}

llvm::Error TuningRun::tuneTasks(llvm::raw_ostream *out) {
  std::vector<double> weights;
  for (const auto &task : tasks)
    weights.push_back(task->report.weight);
  TaskScheduler scheduler(weights);
  auto record = [&](size_t index) {
    const TaskReport &task = tasks[index]->report;
    scheduler.record(index, task.trials,
                     task.bestSeconds > 0 ? task.bestSeconds : kInfinity);
  };
  for (size_t index = 0; index < tasks.size(); ++index)
    if (tasks[index]->report.trials > 0)
      record(index);
  unsigned stalls = 0;
  while (trialsDone < trialsBudget && stalls < tasks.size()) {
    size_t index = scheduler.next();
    size_t count =
        std::min<size_t>(options.batchSize, trialsBudget - trialsDone);
    llvm::Expected<bool> measured = step(index, count);
    if (!measured)
      return measured.takeError();
    if (!*measured) {
      // Nothing new to measure: the task gets no more turns.
      scheduler.retire(index);
      ++stalls;
      continue;
    }
    stalls = 0;
    record(index);
    progress(out, index);
  }
  return llvm::Error::success();
}

llvm::Error TuningRun::collectTasks(llvm::raw_ostream *out) {
  // Round-robin: each pass gives every task below its quota one batch.
  std::vector<bool> exhausted(tasks.size(), false);
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (size_t index = 0; index < tasks.size(); ++index) {
      unsigned trials = tasks[index]->report.trials;
      if (exhausted[index] || trials >= options.trialsPerTask)
        continue;
      llvm::Expected<bool> measured = step(
          index, std::min(options.batchSize, options.trialsPerTask - trials));
      if (!measured)
        return measured.takeError();
      exhausted[index] = !*measured;
      progressed |= *measured;
      if (*measured)
        progress(out, index);
    }
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Platform> mlir::tcl::registerPlatform(TuningDatabase &database,
                                                    const Platform &platform,
                                                    bool probe) {
  // Measuring code the host cannot execute would only record crashes.
  if (probe)
    if (llvm::Error error = checkHostSupports(platform.getTarget()))
      return std::move(error);
  std::optional<Platform> stored = database.getPlatform(platform.getName());
  if (!stored)
    if (llvm::Error error = database.addPlatform(platform))
      return std::move(error);
  if (stored && (stored->getFeatures().isProbed() || !probe))
    return *stored;
  Platform known(platform.getTarget(), platform.getThreads());
  if (probe) {
    llvm::Expected<HardwareFeatures> probed = probeHardware(platform);
    if (!probed)
      return probed.takeError();
    known.setFeatures(*probed);
  }
  if (llvm::Error error = database.setPlatformFeatures(known))
    return std::move(error);
  return known;
}

Tuner::Tuner(TuningDatabase &database, TuningOptions options, MeasureFn measure)
    : database(database), options(std::move(options)),
      measure(std::move(measure)) {}

llvm::Expected<TuningReport> Tuner::tune(ModuleOp module,
                                         llvm::raw_ostream *progress) {
  TuningRun run(database, options, measure, module.getContext());
  return run.run(module, progress);
}

ScheduleOp mlir::tcl::parseStoredSchedule(llvm::StringRef text,
                                          MLIRContext *context,
                                          OwningOpRef<ModuleOp> &holder) {
  holder = parseSourceString<ModuleOp>(text, context);
  ScheduleOp schedule;
  if (holder)
    holder->walk([&](ScheduleOp op) { schedule = op; });
  return schedule;
}

llvm::Expected<unsigned>
mlir::tcl::applyTunedSchedules(ModuleOp module, TuningDatabase &database,
                               const Platform &platform) {
  module.getContext()->loadDialect<TclDialect>();
  llvm::StringSet<> scheduled;
  module.walk([&](ScheduleOp op) { scheduled.insert(op.getTask()); });
  unsigned applied = 0;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  for (const TaskSummary &summary : summarizeTasks(module)) {
    if (scheduled.contains(summary.name))
      continue;
    std::optional<TuningRecord> best =
        database.getBest(summary.key, platform.getName());
    if (!best)
      continue;
    OwningOpRef<ModuleOp> holder;
    ScheduleOp schedule =
        parseStoredSchedule(best->schedule, module.getContext(), holder);
    if (!schedule)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the tuning database's schedule for task '" + summary.name +
              "' does not parse");
    Operation *copy = builder.clone(*schedule);
    cast<ScheduleOp>(copy).setTask(summary.name);
    ++applied;
  }
  return applied;
}

void mlir::tcl::printTuningTable(const TuningReport &report,
                                 llvm::raw_ostream &os) {
  os << "| task | weight | trials | failed | default (ms) | tuned (ms) | "
        "speed-up | tuned GFLOP/s |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  double before = 0, after = 0;
  for (const TaskReport &task : report.tasks) {
    double speedup = task.bestSeconds > 0 && task.defaultSeconds > 0
                         ? task.defaultSeconds / task.bestSeconds
                         : 0;
    os << "| " << task.name << " | " << task.weight << " | " << task.trials
       << " | " << task.failures << " | "
       << llvm::format("%.4f", task.defaultSeconds * 1e3) << " | "
       << llvm::format("%.4f", task.bestSeconds * 1e3) << " | "
       << llvm::format("%.2f", speedup) << " | "
       << llvm::format("%.1f", task.bestSeconds > 0
                                   ? task.flops / task.bestSeconds * 1e-9
                                   : 0.0)
       << " |\n";
    before += task.weight * task.defaultSeconds;
    after += task.weight * task.bestSeconds;
  }
  os << "| all (sum of weight x latency) | | | | "
     << llvm::format("%.3f", before * 1e3) << " | "
     << llvm::format("%.3f", after * 1e3) << " | "
     << llvm::format("%.2f", after > 0 ? before / after : 0.0) << " | |\n";
  for (const std::string &skipped : report.skipped)
    os << "not tuned: " << skipped << "\n";
}

namespace {
/// A minimal SVG line chart.
void writeChart(
    llvm::raw_ostream &os, double x0, double y0, double width, double height,
    llvm::StringRef title, llvm::StringRef xLabel, llvm::StringRef yLabel,
    llvm::ArrayRef<
        std::pair<std::string, std::vector<std::pair<double, double>>>>
        series) {
  double maxX = 1, maxY = 0, minY = kInfinity;
  for (const auto &[name, points] : series)
    for (auto [x, y] : points) {
      if (!std::isfinite(y))
        continue;
      maxX = std::max(maxX, x);
      maxY = std::max(maxY, y);
      minY = std::min(minY, y);
    }
  if (!std::isfinite(minY))
    minY = 0;
  minY = std::min(minY, 0.0);
  if (maxY <= minY)
    maxY = minY + 1;
  double left = x0 + 60, bottom = y0 + height - 40, plotW = width - 80,
         plotH = height - 70;
  auto px = [&](double x) { return left + x / maxX * plotW; };
  auto py = [&](double y) {
    return bottom - (y - minY) / (maxY - minY) * plotH;
  };
  os << llvm::format("<text x='%.0f' y='%.0f' font-size='14'>", x0 + 60,
                     y0 + 18)
     << title << "</text>\n";
  os << llvm::format("<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                     "stroke='black'/>\n",
                     left, bottom, left + plotW, bottom);
  os << llvm::format("<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                     "stroke='black'/>\n",
                     left, bottom, left, bottom - plotH);
  for (int tick = 0; tick <= 4; ++tick) {
    double xv = maxX * tick / 4, yv = minY + (maxY - minY) * tick / 4;
    os << llvm::format("<text x='%.1f' y='%.1f' font-size='10' "
                       "text-anchor='middle'>%.0f</text>\n",
                       px(xv), bottom + 14, xv);
    os << llvm::format("<text x='%.1f' y='%.1f' font-size='10' "
                       "text-anchor='end'>%.3g</text>\n",
                       left - 4, py(yv) + 3, yv);
  }
  os << llvm::format("<text x='%.1f' y='%.1f' font-size='11' "
                     "text-anchor='middle'>",
                     left + plotW / 2, bottom + 30)
     << xLabel << "</text>\n";
  os << llvm::format("<text x='%.1f' y='%.1f' font-size='11' "
                     "transform='rotate(-90 %.1f %.1f)' "
                     "text-anchor='middle'>",
                     x0 + 14, bottom - plotH / 2, x0 + 14, bottom - plotH / 2)
     << yLabel << "</text>\n";
  static const char *colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                 "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                 "#bcbd22", "#17becf"};
  for (auto [index, entry] : llvm::enumerate(series)) {
    const auto &[name, points] = entry;
    const char *color = colors[index % 10];
    os << "<polyline fill='none' stroke='" << color << "' points='";
    for (auto [x, y] : points)
      if (std::isfinite(y))
        os << llvm::format("%.1f,%.1f ", px(x), py(y));
    os << "'/>\n";
    os << llvm::format("<text x='%.1f' y='%.1f' font-size='10' fill='%s'>",
                       left + plotW - 150, bottom - plotH + 12 * index, color)
       << name << "</text>\n";
  }
}
} // namespace

void mlir::tcl::writeTuningCurveSvg(const TuningReport &report,
                                    llvm::raw_ostream &os) {
  double width = 720, height = 320;
  os << llvm::format("<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' "
                     "height='%.0f' font-family='sans-serif'>\n",
                     width, 2 * height);
  os << "<rect width='100%' height='100%' fill='white'/>\n";
  std::vector<std::pair<double, double>> model;
  for (auto [trials, seconds] : report.modelCurve)
    model.push_back({static_cast<double>(trials), seconds * 1e3});
  writeChart(os, 0, 0, width, height,
             "Whole model: sum of weight x best latency", "trials", "ms",
             {{"model", model}});
  std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>>
      tasks;
  for (const TaskReport &task : report.tasks) {
    std::vector<std::pair<double, double>> points;
    for (auto [trials, seconds] : task.curve)
      if (seconds > 0 && task.defaultSeconds > 0)
        points.push_back(
            {static_cast<double>(trials), task.defaultSeconds / seconds});
    tasks.push_back({task.name, points});
  }
  writeChart(os, 0, height, width, height,
             "Per task: speed-up of the best schedule over the default",
             "trials of the task", "speed-up", tasks);
  os << "</svg>\n";
}
