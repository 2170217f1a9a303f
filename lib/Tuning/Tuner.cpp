//===- Tuner.cpp - Schedule search over a model's tasks -------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Tuner.h"
#include "Evolution.h"
#include "TuningState.h"
#include "tcl/Transforms/DefaultSchedule.h"
#include "tcl/Transforms/Pipelines.h"
#include "tcl/Transforms/TaskExtraction.h"
#include "tcl/Tuning/CostModel.h"
#include "tcl/Tuning/Sampler.h"
#include "tcl/Tuning/TaskScheduler.h"
#include "tcl/Tuning/TunedSchedules.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::tcl;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Without the default schedules (TuningOptions::startFromDefaults), a
/// task's first batch: small, so that every task has a baseline early (the
/// whole model's latency is unknown until each has one), as a default's
/// one measurement gives it; MobileNetV2's 32 tasks in batches of 16 would
/// take 512 trials.
static constexpr unsigned kFirstBatchWithoutDefaults = 4;

namespace {

/// One tuning (or collection) run: the tasks' state, the cost model, the
/// search and the budget.
class TuningRun {
public:
  TuningRun(TuningDatabase &database, const TuningOptions &options,
            const MeasureFn &measure, MLIRContext *ctx)
      : database(database), options(options), measure(measure), ctx(ctx),
        rng(options.seed), platform(options.platform) {}

  llvm::Expected<TuningReport> run(ModuleOp module, llvm::raw_ostream *out);

private:
  llvm::Error prepareTask(ModuleOp module, const TaskSummary &summary);
  /// A candidate to measure, its task and who proposed it.
  struct Trial {
    size_t task;
    Candidate candidate;
    std::string proposer;
  };
  /// Measures `trials` (of any tasks) as one batch and records them in one
  /// transaction.
  llvm::Error measureAndRecord(std::vector<Trial> trials);
  llvm::Error refitModel();
  /// Adds a point to the curves after a batch of `taskIndex` and prints the
  /// progress line.
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
  /// The uncertainty of the model's scores, for a sampler that reads it.
  std::optional<ModelCommittee> committee;
  std::optional<EvolutionarySearch> search;
  std::vector<std::unique_ptr<TaskState>> tasks;
  TuningReport report;
  unsigned trialsDone = 0, trialsBudget = 0, round = 0;
  /// Trials the database had when this run started (resumed ones).
  unsigned trialsBefore = 0;
  std::chrono::steady_clock::time_point start;
  bool live = false;
};

} // namespace

/// Whether a checkpoint that learned `learned` (platform names) knows
/// `platform`: its name, or, for a name recorded without a machine (data
/// older than machine identities), the same target and threads.
static bool learnedPlatform(llvm::ArrayRef<std::string> learned,
                            const Platform &platform) {
  return llvm::is_contained(learned, platform.getName()) ||
         llvm::is_contained(learned, platform.getNameWithoutMachine());
}

/// Records a measured sample of `task` (`genome` null for a default
/// schedule or a record without a well-formed genome).
static void addSample(TaskState &task, std::vector<float> features,
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
  auto space = SearchSpace::create(anchor, platform, hasEpilogue);
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
  // model; seeds the population. Records of another code generation time
  // other code: they are measured again, not mixed in.
  for (const TuningRecord &record :
       database.getRecords(summary.key, platform.getName())) {
    if (record.codegen != kCodegenVersion)
      continue;
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

llvm::Error TuningRun::measureAndRecord(std::vector<Trial> trials) {
  std::vector<MeasureInput> inputs;
  for (const Trial &trial : trials) {
    inputs.push_back(makeMeasureInput(*tasks[trial.task],
                                      trial.candidate.schedule, platform));
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
    setMeasurement(record, result);
    record.proposer = trial.proposer;
    record.round = round;
    record.codegen = kCodegenVersion;
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
  if (committee)
    if (llvm::Error error = committee->update(samples))
      return error;
  return model->update(samples);
}

void TuningRun::progress(llvm::raw_ostream *out, size_t taskIndex) {
  // The model's latency once every task has one (else 0: unknown).
  double modelSeconds = 0;
  if (llvm::all_of(tasks, [](const auto &task) {
        return task->report.bestSeconds > 0;
      })) {
    for (const auto &task : tasks)
      modelSeconds += task->report.weight * task->report.bestSeconds;
    report.modelCurve.push_back({trialsDone, modelSeconds});
  }
  TaskReport &task = tasks[taskIndex]->report;
  task.curve.push_back({task.trials, task.bestSeconds});
  if (!out)
    return;
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  printTuningProgress(
      task, {trialsDone, trialsBudget, trialsBefore, elapsed, modelSeconds},
      live, *out);
}

llvm::Expected<TuningReport> TuningRun::run(ModuleOp module,
                                            llvm::raw_ostream *out) {
  start = std::chrono::steady_clock::now();
  ctx->loadDialect<TclDialect>();
  live = out && llvm::sys::Process::StandardErrIsDisplayed() &&
         out == &llvm::errs();
  std::optional<LearnedModelOptions::OnlineLearning> online =
      parseOnlineLearning(options.onlineLearning);
  if (!online)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown online learning '" +
                                       options.onlineLearning +
                                       "' (finetune, correct)");
  LearnedModelOptions learnedOptions;
  learnedOptions.online = *online;
  if (isLearnedCostModel(options.costModel))
    if (llvm::Error error = openLearnedCostModels())
      return error;
  model = createCostModel(options.costModel, options.seed, learnedOptions);
  if (!model)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown cost model '" + options.costModel +
                                       "'");
  llvm::Expected<Platform> known =
      registerPlatform(database, options.platform, options.probeHardware);
  if (!known)
    return known.takeError();
  platform = *known;
  bool fromFile = false;
  if (!options.costModelFile.empty()) {
    // A missing file is a mistake in the command; a checkpoint this build
    // cannot use (another token layout or format, a corrupt file) must not
    // stop the tuning: the search goes on with the model that needs none.
    if (!llvm::sys::fs::exists(options.costModelFile))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot load cost model '" +
                                         options.costModelFile +
                                         "': No such file or directory");
    if (llvm::Error error = model->load(options.costModelFile)) {
      (out ? *out : llvm::errs())
          << "warning: " << llvm::toString(std::move(error))
          << "; tuning with xgboost instead\n";
      model = createCostModel("xgboost", options.seed);
    } else {
      fromFile = true;
    }
  }
  // A checkpoint that names the platforms it learned, none of them this
  // one: it stays as it is (the knowledge base) and an active column
  // learns this platform from the run's measurements.
  bool activeColumn = false;
  if (fromFile) {
    std::vector<std::string> learned = model->getLearnedPlatforms();
    if (!learned.empty() && !learnedPlatform(learned, platform)) {
      if (llvm::Error error = model->startActiveColumn())
        return std::move(error);
      activeColumn = true;
      (out ? *out : llvm::errs())
          << "tuning: the cost model learned " << llvm::join(learned, ", ")
          << ", not " << platform.getName()
          << ": an active column learns it online\n";
    }
  }
  auto sampler = createSampler(options.sampler.empty()
                                   ? getDefaultSampler(model->getName())
                                   : llvm::StringRef(options.sampler),
                               options.epsilon);
  if (!sampler)
    return sampler.takeError();
  if ((*sampler)->readsProgramViews() && model->getName() == "random")
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the " + (*sampler)->getName() +
            " sampler reads a cost model's scores and uncertainty, which the "
            "random cost model does not have: use xgboost, mamba, tlp or mlp");
  if ((*sampler)->readsProgramViews() && options.committeeMembers > 0) {
    // Members of the search model's kind, from the same checkpoint, with
    // active columns of their own where the search model has one.
    std::string kind = model->getName().str();
    std::string file = fromFile ? options.costModelFile : "";
    committee.emplace(
        [kind, file, activeColumn, learnedOptions](
            uint64_t seed) -> llvm::Expected<std::unique_ptr<CostModel>> {
          std::unique_ptr<CostModel> member =
              createCostModel(kind, seed, learnedOptions);
          if (!file.empty())
            if (llvm::Error error = member->load(file))
              return std::move(error);
          if (activeColumn)
            if (llvm::Error error = member->startActiveColumn())
              return std::move(error);
          return std::move(member);
        },
        options.committeeMembers, options.seed);
  }
  search.emplace(EvolutionOptions{options.population, options.generations,
                                  options.randomFraction},
                 ctx, *model, platform.getFeatures(), std::move(*sampler),
                 committee ? &*committee : nullptr, rng);
  for (const TaskSummary &summary : summarizeTasks(module))
    if (llvm::Error error = prepareTask(module, summary))
      return std::move(error);
  unsigned already = 0;
  for (const auto &task : tasks)
    already += task->report.trials;
  // With resume, the trials in the database count toward the budget.
  trialsDone = trialsBefore = already;
  unsigned trials =
      options.trials ? options.trials : getDefaultTrials(tasks.size());
  trialsBudget = options.resume ? trials : already + trials;
  if (options.trialsPerTask) {
    trialsBudget = 0;
    for (const auto &task : tasks)
      trialsBudget += std::max(task->report.trials, options.trialsPerTask);
  }
  if (llvm::Error error = refitModel())
    return std::move(error);

  // Default schedules first (unless startFromDefaults is off): the untuned
  // baseline of each task, measured batchSize tasks at a time (so they
  // build in parallel).
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
    if (!options.startFromDefaults ||
        trialsDone + defaults.size() >= trialsBudget)
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
    // With its genome, where the space has it, the default is a parent of
    // the search's populations like any measured genome.
    std::optional<Genome> genome =
        task->space ? task->space->findGenome(schedule) : std::nullopt;
    defaults.push_back({index,
                        Candidate{genome.value_or(Genome()), printOp(schedule),
                                  std::move(*featureVector)},
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
  if (!options.trialsPerTask)
    if (llvm::Error error =
            confirmFastest(database, platform, tasks, measure,
                           options.confirmationRounds, report, out, live))
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
  auto proposed = search->propose(task, count, proposers);
  if (!proposed)
    return proposed.takeError();
  std::vector<Candidate> &batch = *proposed;
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
    if (tasks[index]->report.trials == 0 && !options.startFromDefaults)
      count = std::min<size_t>(count, kFirstBatchWithoutDefaults);
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

unsigned mlir::tcl::getDefaultTrials(size_t tasks) {
  return std::max<size_t>(kMinDefaultTrials, kDefaultTrialsPerTask * tasks);
}

Tuner::Tuner(TuningDatabase &database, TuningOptions options, MeasureFn measure)
    : database(database), options(std::move(options)),
      measure(std::move(measure)) {}

llvm::Expected<TuningReport> Tuner::tune(ModuleOp module,
                                         llvm::raw_ostream *progress) {
  TuningRun run(database, options, measure, module.getContext());
  return run.run(module, progress);
}
