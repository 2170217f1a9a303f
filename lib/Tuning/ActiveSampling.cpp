//===- ActiveSampling.cpp - Choosing which programs to measure ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/ActiveSampling.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>

using namespace mlir;
using namespace mlir::tcl;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static constexpr std::pair<SamplingStrategy, const char *> kStrategyNames[] = {
    {SamplingStrategy::Random, "random"},
    {SamplingStrategy::Uncertainty, "uncertainty"},
    {SamplingStrategy::Diversity, "diversity"},
    {SamplingStrategy::Representative, "representative"},
    {SamplingStrategy::RDU, "rdu"}};

llvm::StringRef mlir::tcl::getSamplingStrategyName(SamplingStrategy strategy) {
  for (auto [known, name] : kStrategyNames)
    if (known == strategy)
      return name;
  llvm_unreachable("unknown sampling strategy");
}

std::optional<SamplingStrategy>
mlir::tcl::parseSamplingStrategy(llvm::StringRef name) {
  for (auto [strategy, known] : kStrategyNames)
    if (name == known)
      return strategy;
  return std::nullopt;
}

std::string mlir::tcl::getSamplingStrategyNames() {
  std::vector<std::string> names;
  for (auto [strategy, name] : kStrategyNames)
    names.push_back(name);
  return llvm::join(names, ", ");
}

//===----------------------------------------------------------------------===//
// The criteria on plain numbers
//===----------------------------------------------------------------------===//

namespace {

/// Squared Euclidean distance of two embeddings of `width` floats.
float squaredDistance(const float *a, const float *b, unsigned width) {
  float sum = 0;
  for (unsigned i = 0; i < width; ++i) {
    float d = a[i] - b[i];
    sum += d * d;
  }
  return sum;
}

/// `values` divided by their maximum over the candidates (all zero if that
/// is not positive), so that criteria of different units add up.
void scaleToUnit(std::vector<float> &values, llvm::ArrayRef<size_t> over) {
  float top = 0;
  for (size_t i : over)
    top = std::max(top, values[i]);
  for (float &value : values)
    value = top > 0 ? value / top : 0.0f;
}

/// Representativeness: a Gaussian kernel density of each program over up to
/// 512 reference programs of the pool. The bandwidth is local: the median
/// over the reference programs of the distance to their k-th nearest other
/// one (k = sqrt of their number), so that a cluster's center stands out
/// from its edge even when clusters lie far apart.
std::vector<float> computeDensity(const CandidatePool &pool,
                                  std::mt19937_64 &rng) {
  const size_t n = pool.size();
  const unsigned width = pool.embeddingWidth;
  std::vector<size_t> reference(n);
  std::iota(reference.begin(), reference.end(), 0);
  std::shuffle(reference.begin(), reference.end(), rng);
  reference.resize(std::min<size_t>(n, 512));
  const size_t k = std::max<size_t>(
      1, size_t(std::lround(std::sqrt(double(reference.size())))));
  std::vector<float> kthDistances, distances;
  for (size_t a : reference) {
    distances.clear();
    for (size_t b : reference)
      if (b != a)
        distances.push_back(squaredDistance(
            &pool.embeddings[a * width], &pool.embeddings[b * width], width));
    if (distances.size() < k)
      continue;
    std::nth_element(distances.begin(), distances.begin() + (k - 1),
                     distances.end());
    kthDistances.push_back(distances[k - 1]);
  }
  float bandwidth2 = 1;
  if (!kthDistances.empty()) {
    auto middle = kthDistances.begin() + kthDistances.size() / 2;
    std::nth_element(kthDistances.begin(), middle, kthDistances.end());
    if (*middle > 0)
      bandwidth2 = *middle;
  }
  std::vector<float> density(n, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (size_t r : reference)
      sum += std::exp(-0.5 *
                      squaredDistance(&pool.embeddings[i * width],
                                      &pool.embeddings[r * width], width) /
                      bandwidth2);
    density[i] = float(sum / reference.size());
  }
  return density;
}

/// Each prediction's rank within its group, scaled to [0, 1] (1: the
/// fastest predicted of its group).
std::vector<float> rankWithinGroups(const CandidatePool &pool) {
  std::map<unsigned, std::vector<size_t>> members;
  for (size_t i = 0; i < pool.size(); ++i)
    members[pool.groups[i]].push_back(i);
  std::vector<float> ranks(pool.size(), 1.0f);
  for (auto &[group, indices] : members) {
    std::stable_sort(indices.begin(), indices.end(), [&](size_t a, size_t b) {
      return pool.predictions[a] < pool.predictions[b];
    });
    for (auto [position, index] : llvm::enumerate(indices))
      ranks[index] = indices.size() > 1
                         ? float(position) / float(indices.size() - 1)
                         : 1.0f;
  }
  return ranks;
}

/// How many more programs of each operator type a batch of `count` may take:
/// the types share labeled + count in proportion to their frequency in the
/// pool (largest remainders), less what each already has.
std::map<unsigned, size_t> typeQuotas(const CandidatePool &pool,
                                      const std::vector<bool> &labeled,
                                      size_t count) {
  std::map<unsigned, size_t> total, have;
  size_t labeledCount = 0;
  for (size_t i = 0; i < pool.size(); ++i) {
    ++total[pool.operatorTypes[i]];
    if (labeled[i]) {
      ++have[pool.operatorTypes[i]];
      ++labeledCount;
    }
  }
  const double budget = double(labeledCount + count);
  std::map<unsigned, size_t> quota;
  std::vector<std::pair<double, unsigned>> remainders;
  size_t given = 0;
  for (auto [type, number] : total) {
    double share = budget * double(number) / double(pool.size());
    size_t whole = size_t(share);
    quota[type] = whole;
    given += whole;
    remainders.push_back({share - double(whole), type});
  }
  std::sort(remainders.rbegin(), remainders.rend());
  for (auto [remainder, type] : remainders)
    if (given < size_t(budget)) {
      ++quota[type];
      ++given;
    }
  for (auto &[type, number] : quota)
    number = number > have[type] ? number - have[type] : 0;
  return quota;
}

} // namespace

llvm::Expected<std::vector<size_t>> mlir::tcl::selectCandidates(
    const CandidatePool &pool, const std::vector<bool> &labeled, size_t count,
    SamplingStrategy strategy, const RduWeights &weights, uint64_t seed) {
  const size_t n = pool.size();
  const unsigned width = pool.embeddingWidth;
  if (labeled.size() != n || pool.operatorTypes.size() != n)
    return makeError("candidate pool: groups, operator types and labeled "
                     "flags differ in length");
  const bool needsEmbeddings = strategy != SamplingStrategy::Random &&
                               strategy != SamplingStrategy::Uncertainty;
  const bool needsUncertainty = strategy == SamplingStrategy::Uncertainty ||
                                strategy == SamplingStrategy::RDU;
  if (needsEmbeddings && (width == 0 || pool.embeddings.size() != n * width))
    return makeError("candidate pool: the " +
                     getSamplingStrategyName(strategy) +
                     " strategy needs an embedding of every program");
  if (needsUncertainty && pool.uncertainty.size() != n)
    return makeError("candidate pool: the " +
                     getSamplingStrategyName(strategy) +
                     " strategy needs the uncertainty of every program");
  if (!pool.predictions.empty() && pool.predictions.size() != n)
    return makeError("candidate pool: predictions differ in length");

  std::mt19937_64 rng(seed);
  std::vector<size_t> candidates;
  for (size_t i = 0; i < n; ++i)
    if (!labeled[i])
      candidates.push_back(i);
  count = std::min(count, candidates.size());
  std::vector<size_t> chosen;
  if (strategy == SamplingStrategy::Random) {
    std::shuffle(candidates.begin(), candidates.end(), rng);
    chosen.assign(candidates.begin(), candidates.begin() + count);
    return chosen;
  }
  if (strategy == SamplingStrategy::Uncertainty) {
    // Ties (programs the ensemble agrees on alike) in random order.
    std::shuffle(candidates.begin(), candidates.end(), rng);
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](size_t a, size_t b) {
                       return pool.uncertainty[a] > pool.uncertainty[b];
                     });
    chosen.assign(candidates.begin(), candidates.begin() + count);
    return chosen;
  }

  // Diversity: the distance to the nearest labeled program, updated as
  // programs are taken, scaled by the largest such distance (set once some
  // program is labeled or taken; before that every program is as far).
  std::vector<float> nearest(n, std::numeric_limits<float>::infinity());
  auto approach = [&](size_t j) {
    for (size_t i : candidates)
      nearest[i] = std::min(
          nearest[i], squaredDistance(&pool.embeddings[i * width],
                                      &pool.embeddings[j * width], width));
  };
  float farthest = 0;
  auto scaleDistances = [&] {
    for (size_t i : candidates)
      if (std::isfinite(nearest[i]))
        farthest = std::max(farthest, std::sqrt(nearest[i]));
  };
  for (size_t j = 0; j < n; ++j)
    if (labeled[j])
      approach(j);
  scaleDistances();
  auto diversity = [&](size_t i) -> float {
    if (!std::isfinite(nearest[i]))
      return 1.0f;
    return farthest > 0 ? std::sqrt(nearest[i]) / farthest : 0.0f;
  };

  std::vector<float> density, uncertainty, tilt;
  if (strategy != SamplingStrategy::Diversity) {
    density = computeDensity(pool, rng);
    scaleToUnit(density, candidates);
  }
  if (strategy == SamplingStrategy::RDU) {
    uncertainty = pool.uncertainty;
    scaleToUnit(uncertainty, candidates);
    tilt = pool.predictions.empty() ? std::vector<float>(n, 1.0f)
                                    : rankWithinGroups(pool);
  }
  auto score = [&](size_t i) -> double {
    switch (strategy) {
    case SamplingStrategy::Diversity:
      return diversity(i);
    case SamplingStrategy::Representative:
      return density[i];
    default:
      return weights.uncertainty * uncertainty[i] +
             weights.diversity * tilt[i] * diversity(i) +
             weights.representativeness * density[i] +
             weights.performance * tilt[i];
    }
  };

  // Representativeness shares the batch among operator types (diversity
  // alone does not); once the quotas are spent (rounding), any type goes.
  bool useQuotas = strategy != SamplingStrategy::Diversity;
  std::map<unsigned, size_t> quota;
  if (useQuotas)
    quota = typeQuotas(pool, labeled, count);
  std::vector<bool> taken(n, false);
  // Ties in a fixed random order.
  std::shuffle(candidates.begin(), candidates.end(), rng);
  while (chosen.size() < count) {
    size_t best = n;
    double bestScore = -std::numeric_limits<double>::infinity();
    for (size_t i : candidates) {
      if (taken[i] || (useQuotas && quota[pool.operatorTypes[i]] == 0))
        continue;
      double value = score(i);
      if (value > bestScore) {
        bestScore = value;
        best = i;
      }
    }
    if (best == n) {
      if (!useQuotas)
        break;
      useQuotas = false;
      continue;
    }
    taken[best] = true;
    chosen.push_back(best);
    if (useQuotas)
      --quota[pool.operatorTypes[best]];
    if (strategy != SamplingStrategy::Representative) {
      approach(best);
      if (farthest == 0)
        scaleDistances();
    }
  }
  return chosen;
}

//===----------------------------------------------------------------------===//
// Ensembles: the uncertainty of a model
//===----------------------------------------------------------------------===//

namespace {

/// Scores standardized within each group (mean 0, deviation 1; all zero in
/// a group without spread): the learned models' scores only rank the
/// programs of one task, so ensemble members agree or not on that scale.
std::vector<float> standardizeWithinGroups(llvm::ArrayRef<double> scores,
                                           llvm::ArrayRef<unsigned> groups) {
  std::map<unsigned, std::pair<double, double>> sums;
  std::map<unsigned, size_t> counts;
  for (auto [score, group] : llvm::zip(scores, groups)) {
    sums[group].first += score;
    sums[group].second += score * score;
    ++counts[group];
  }
  std::vector<float> result(scores.size(), 0.0f);
  for (auto [index, score] : llvm::enumerate(scores)) {
    unsigned group = groups[index];
    double mean = sums[group].first / counts[group];
    double var =
        std::max(0.0, sums[group].second / counts[group] - mean * mean);
    result[index] = var > 1e-12 ? float((score - mean) / std::sqrt(var)) : 0.0f;
  }
  return result;
}

} // namespace

EnsembleView
mlir::tcl::summarizeEnsemble(llvm::ArrayRef<std::vector<double>> memberScores,
                             llvm::ArrayRef<unsigned> groups) {
  const size_t n = groups.size();
  EnsembleView view;
  view.predictions.assign(n, 0.0f);
  view.uncertainty.assign(n, 0.0f);
  if (memberScores.empty())
    return view;
  std::vector<std::vector<float>> standardized;
  for (const std::vector<double> &scores : memberScores)
    standardized.push_back(standardizeWithinGroups(scores, groups));
  const double members = double(memberScores.size());
  for (size_t i = 0; i < n; ++i) {
    double sum = 0, sumSq = 0;
    for (const std::vector<float> &scores : standardized) {
      sum += scores[i];
      sumSq += double(scores[i]) * scores[i];
    }
    double mean = sum / members;
    view.predictions[i] = float(mean);
    view.uncertainty[i] =
        float(std::sqrt(std::max(0.0, sumSq / members - mean * mean)));
  }
  return view;
}

ProgramEmbeddings
mlir::tcl::standardizeFeatures(llvm::ArrayRef<std::vector<float>> features) {
  ProgramEmbeddings result;
  if (features.empty())
    return result;
  const size_t width = features.front().size();
  result.width = unsigned(width);
  result.values.assign(features.size() * width, 0.0f);
  // A shorter program reads as zeros past its end.
  auto value = [&](size_t program, size_t column) -> double {
    return column < features[program].size() ? features[program][column] : 0;
  };
  const double count = double(features.size());
  for (size_t column = 0; column < width; ++column) {
    // Two passes: a one-pass variance leaves a residue on constant columns.
    double mean = 0, variance = 0;
    for (size_t program = 0; program < features.size(); ++program)
      mean += value(program, column) / count;
    for (size_t program = 0; program < features.size(); ++program)
      variance += std::pow(value(program, column) - mean, 2) / count;
    double deviation = std::sqrt(variance);
    if (deviation < 1e-9)
      continue;
    for (size_t program = 0; program < features.size(); ++program)
      result.values[program * width + column] =
          float((value(program, column) - mean) / deviation);
  }
  return result;
}

llvm::Error ModelCommittee::update(llvm::ArrayRef<CostSample> samples) {
  if (members.empty())
    for (unsigned member = 0; member < size; ++member) {
      auto made = makeMember(seed + 7919 * (member + 1));
      if (!made)
        return made.takeError();
      members.push_back(std::move(*made));
    }
  std::map<unsigned, std::vector<size_t>> byGroup;
  for (auto [index, sample] : llvm::enumerate(samples))
    byGroup[sample.group].push_back(index);
  for (auto [member, model] : llvm::enumerate(members)) {
    std::mt19937_64 rng(seed + 104729 * (member + 1) + updates);
    std::vector<CostSample> resample;
    resample.reserve(samples.size());
    for (auto &[group, indices] : byGroup) {
      std::uniform_int_distribution<size_t> pick(0, indices.size() - 1);
      for (size_t i = 0; i < indices.size(); ++i)
        resample.push_back(samples[indices[pick(rng)]]);
    }
    if (llvm::Error error = model->update(resample))
      return error;
  }
  ++updates;
  return llvm::Error::success();
}

std::vector<float>
ModelCommittee::spread(llvm::ArrayRef<std::vector<float>> features,
                       llvm::ArrayRef<double> modelScores) {
  std::vector<std::vector<double>> scores;
  scores.push_back(modelScores.vec());
  if (updates > 0)
    for (const auto &model : members)
      scores.push_back(model->predict(features));
  return summarizeEnsemble(scores, std::vector<unsigned>(features.size(), 0))
      .uncertainty;
}

//===----------------------------------------------------------------------===//
// The offline loop
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<FeaturizedGroup>>
mlir::tcl::selectTrainingPrograms(llvm::ArrayRef<FeaturizedGroup> pool,
                                  const ProgramSelectionOptions &options) {
  if (!(options.fraction > 0 && options.fraction <= 1))
    return makeError(llvm::formatv("the fraction of programs to choose must "
                                   "be in (0, 1], not {0}",
                                   options.fraction));
  if (options.rounds == 0 || options.ensemble == 0)
    return makeError("active sampling needs at least one round and one model");
  const SamplingStrategy strategy = options.strategy;
  if (strategy != SamplingStrategy::Random && !options.makeModel)
    return makeError("the " + getSamplingStrategyName(strategy) +
                     " strategy needs a model to choose with");

  // Every program of the pool, flattened.
  CandidatePool candidates;
  std::vector<std::pair<unsigned, unsigned>> where;
  for (auto [groupIndex, group] : llvm::enumerate(pool))
    for (size_t program = 0; program < group.features.size(); ++program) {
      where.push_back({unsigned(groupIndex), unsigned(program)});
      candidates.groups.push_back(unsigned(groupIndex));
      candidates.operatorTypes.push_back(group.anchorClass);
    }
  const size_t n = where.size();
  if (n == 0)
    return makeError("no programs to choose from");
  const size_t budget = std::clamp<size_t>(
      size_t(std::llround(options.fraction * double(n))), 1, n);
  std::vector<bool> labeled(n, false);
  size_t chosenCount = 0;

  auto chosenGroups = [&] {
    std::vector<std::vector<size_t>> programs(pool.size());
    for (size_t i = 0; i < n; ++i)
      if (labeled[i])
        programs[where[i].first].push_back(where[i].second);
    std::vector<FeaturizedGroup> result;
    for (auto [group, chosen] : llvm::zip(pool, programs))
      if (!chosen.empty())
        result.push_back(pickPrograms(group, chosen));
    return result;
  };

  const unsigned rounds =
      strategy == SamplingStrategy::Random ? 1 : options.rounds;
  const size_t perRound = (budget + rounds - 1) / rounds;
  const bool needsUncertainty = strategy == SamplingStrategy::Uncertainty ||
                                strategy == SamplingStrategy::RDU;
  for (unsigned round = 0; round < rounds && chosenCount < budget; ++round) {
    auto start = std::chrono::steady_clock::now();
    const size_t batch = round + 1 == rounds
                             ? budget - chosenCount
                             : std::min(perRound, budget - chosenCount);
    SamplingStrategy now = round == 0 ? SamplingStrategy::Random : strategy;
    if (now != SamplingStrategy::Random) {
      // Train the ensemble on what is chosen, then see the pool with it.
      std::vector<CostSample> samples = makeSamples(chosenGroups());
      const unsigned members = needsUncertainty ? options.ensemble : 1;
      std::vector<std::vector<double>> memberScores;
      candidates.embeddings.clear();
      for (unsigned member = 0; member < members; ++member) {
        std::unique_ptr<CostModel> model =
            options.makeModel(options.seed + 7919 * member + round);
        if (!model)
          return makeError("could not make a model to choose with");
        if (llvm::Error error = model->update(samples))
          return std::move(error);
        std::vector<double> &scores = memberScores.emplace_back();
        scores.reserve(n);
        for (const FeaturizedGroup &group : pool) {
          std::vector<double> groupScores = model->predict(group.features);
          scores.insert(scores.end(), groupScores.begin(), groupScores.end());
          if (member != 0)
            continue;
          auto embedded = model->embed(group.features);
          if (!embedded)
            return embedded.takeError();
          candidates.embeddingWidth = embedded->width;
          candidates.embeddings.insert(candidates.embeddings.end(),
                                       embedded->values.begin(),
                                       embedded->values.end());
        }
      }
      EnsembleView view = summarizeEnsemble(memberScores, candidates.groups);
      candidates.predictions = std::move(view.predictions);
      candidates.uncertainty = std::move(view.uncertainty);
    }
    auto picked = selectCandidates(candidates, labeled, batch, now,
                                   options.weights, options.seed + round);
    if (!picked)
      return picked.takeError();
    for (size_t index : *picked)
      labeled[index] = true;
    chosenCount += picked->size();
    if (options.onRound)
      options.onRound(round, chosenCount,
                      std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
  }
  return chosenGroups();
}
