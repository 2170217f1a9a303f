//===- Evolution.cpp - Evolutionary search over a task's space ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "Evolution.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::tcl;

EvolutionarySearch::EvolutionarySearch(EvolutionOptions options,
                                       MLIRContext *context, CostModel &model,
                                       const HardwareFeatures &hardware,
                                       std::unique_ptr<Sampler> sampler,
                                       ModelCommittee *committee,
                                       std::mt19937_64 &rng)
    : options(options), context(context), model(model), hardware(hardware),
      sampler(std::move(sampler)), committee(committee), rng(rng) {}

std::optional<Candidate> EvolutionarySearch::realize(const TaskState &task,
                                                     const Genome &genome) {
  if (!task.space->isWellFormed(genome))
    return std::nullopt;
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(context));
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  ScheduleOp schedule = task.space->build(builder, UnknownLoc::get(context),
                                          kWorkloadTask, genome);
  {
    // The verifier is the judge; its diagnostics are not the user's.
    ScopedDiagnosticHandler silence(context,
                                    [](Diagnostic &) { return success(); });
    if (failed(verify(schedule)))
      return std::nullopt;
  }
  FailureOr<std::vector<float>> featureVector =
      featurize(schedule, task.features, &hardware, model.getFeatureKind());
  if (failed(featureVector))
    return std::nullopt;
  return Candidate{genome, printOp(schedule), std::move(*featureVector)};
}

std::vector<Candidate> EvolutionarySearch::evolve(const TaskState &task,
                                                  std::vector<double> &scores) {
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
    return model.predict(features);
  };
  scores = scoresFrom(0);
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
  return population;
}

void EvolutionarySearch::viewPrograms(const TaskState &task,
                                      llvm::ArrayRef<Candidate> candidates,
                                      llvm::ArrayRef<double> scores,
                                      ProgramEmbeddings &embeddings,
                                      std::vector<float> &uncertainty) {
  // The candidates first, then the measured programs.
  std::vector<std::vector<float>> programs;
  programs.reserve(candidates.size() + task.samples.size());
  for (const Candidate &candidate : candidates)
    programs.push_back(candidate.features);
  for (const auto &[features, seconds] : task.samples)
    programs.push_back(features);
  // A model without an embedding (xgboost, random, a learned one before
  // its first training) is seen through its standardized features.
  llvm::Expected<ProgramEmbeddings> embedded = model.embed(programs);
  if (embedded) {
    embeddings = std::move(*embedded);
  } else {
    llvm::consumeError(embedded.takeError());
    embeddings = standardizeFeatures(programs);
  }
  llvm::ArrayRef<std::vector<float>> candidateFeatures(programs.data(),
                                                       candidates.size());
  uncertainty = committee ? committee->spread(candidateFeatures, scores)
                          : std::vector<float>(candidates.size(), 0.0f);
}

llvm::Expected<std::vector<Candidate>>
EvolutionarySearch::propose(const TaskState &task, size_t count,
                            std::vector<std::string> &proposers) {
  std::vector<double> scores;
  std::vector<Candidate> population = evolve(task, scores);
  if (population.empty())
    return std::vector<Candidate>();
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
  SamplerInput input;
  input.scores = freshScores;
  ProgramEmbeddings embeddings;
  std::vector<float> uncertainty;
  if (sampler->readsProgramViews() && !fresh.empty()) {
    viewPrograms(task, fresh, freshScores, embeddings, uncertainty);
    input.embeddingWidth = embeddings.width;
    input.embeddings = embeddings.values;
    input.uncertainty = uncertainty;
  }
  auto picks = sampler->select(input, count - randomCount, rng);
  if (!picks)
    return picks.takeError();
  for (SamplerPick pick : *picks) {
    picked.push_back(std::move(fresh[pick.index]));
    proposers.push_back((model.getName() + "/" + pick.reason).str());
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
  return std::move(picked);
}
