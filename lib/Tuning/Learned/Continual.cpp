//===- Continual.cpp - Continual learning across platforms ----------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The knowledge base and active column of ContinualModel.h, each a
// ModelImpl (network and input normalization of its own), the lateral
// connection between them, and the two phases per platform on the shared
// training loop (Training.h).
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Learned/ContinualModel.h"

#include "Dense.h"
#include "ElasticWeights.h"
#include "ModelImpl.h"
#include "PlatformPrograms.h"
#include "Training.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <random>

using namespace mlir::tcl::learned;
using ColumnStart = ContinualOptions::ColumnStart;

namespace {

/// α ⊙ U σ(V e_KB): what the active column adds to its pooled
/// representation from the knowledge base's.
class LateralImpl : public torch::nn::Module {
public:
  LateralImpl(int64_t width, float gateInit)
      : v(register_module("v", Dense(width, width))),
        u(register_module("u", Dense(width, width))),
        gate(register_parameter("gate", torch::full({width}, gateInit))) {}

  torch::Tensor forward(const torch::Tensor &knowledge) {
    return gate * u(torch::silu(v(knowledge)));
  }

  torch::Tensor getGate() const { return gate; }

private:
  Dense v, u;
  torch::Tensor gate;
};
TORCH_MODULE(Lateral);

/// `to` takes `from`'s weights and input normalization (one architecture).
void copyWeights(const ModelImpl &from, ModelImpl &to) {
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> source = from.net->parameters();
  std::vector<torch::Tensor> target = to.net->parameters();
  for (size_t i = 0; i < target.size(); ++i)
    target[i].copy_(source[i]);
  if (from.normalized)
    to.setNormalization(from.mean, from.stddev);
}

/// A model of `model`'s architecture with its weights and normalization.
llvm::Expected<std::unique_ptr<ModelImpl>> copyOf(const ModelImpl &model) {
  auto copy = ModelImpl::make(model.config);
  if (copy)
    copyWeights(model, **copy);
  return copy;
}

} // namespace

struct ContinualModel::Impl {
  ModelConfig config;
  ContinualOptions options;
  std::unique_ptr<ModelImpl> knowledge, active;
  /// The KB as the active column learned to read it: a frozen copy made
  /// with the column. The KD phase moves the KB; reading it, the teacher's
  /// scores would move with the student they teach, and the column would
  /// afterwards read a KB it was not trained with.
  std::unique_ptr<ModelImpl> columnKnowledge;
  Lateral lateral{nullptr};
  std::unique_ptr<ElasticWeights> elastic;
  unsigned platforms = 0;
  ColumnChoice lastChoice;
  /// The hardware columns of each platform learned here, in order
  /// (ContinualOptions::rehearsalWeight; empty for one without any).
  std::vector<std::vector<float>> platformHardware;
  /// What this platform's KD rehearses: rehearsedHardware, once, not a batch.
  std::vector<std::vector<float>> rehearsing;

  bool rehearses() const {
    return options.rehearsalWeight > 0 &&
           options.hardwareBegin < options.hardwareEnd;
  }

  /// The hardware columns the KD phase of the platform being learned (the
  /// last of platformHardware) rehearses: every earlier platform's that
  /// differ from its own, once each.
  std::vector<std::vector<float>> rehearsedHardware() const {
    std::vector<std::vector<float>> earlier;
    if (!rehearses() || platformHardware.size() < 2)
      return earlier;
    const std::vector<float> &current = platformHardware.back();
    for (size_t p = 0; p + 1 < platformHardware.size(); ++p)
      if (!platformHardware[p].empty() && platformHardware[p] != current &&
          !llvm::is_contained(earlier, platformHardware[p]))
        earlier.push_back(platformHardware[p]);
    return earlier;
  }

  /// The model around the knowledge base `made` (an error passes through),
  /// having learned `platformsLearned` platforms; an error for options out
  /// of range.
  static llvm::Expected<std::unique_ptr<Impl>>
  make(llvm::Expected<std::unique_ptr<ModelImpl>> made,
       const ContinualOptions &options, unsigned platformsLearned);

  /// Training data `what` (a method's name) can learn from: the KB's shape,
  /// well formed, not empty.
  llvm::Error checkData(const ProgramSet &data, llvm::StringRef what) const {
    if (llvm::Error error = knowledge->checkShape(data.rows, data.width, what))
      return error;
    if (llvm::Error error = data.verify())
      return error;
    if (data.size() == 0)
      return makeError(what + ": no programs");
    return llvm::Error::success();
  }

  /// The embeddings of a batch by the KB the active column reads, without
  /// gradient (frozen while the column learns or teaches).
  torch::Tensor knowledgeEmbedding(const float *inputs, int64_t count,
                                   unsigned length) {
    torch::NoGradGuard noGrad;
    auto [x, mask] = columnKnowledge->prepare(inputs, count, length);
    return columnKnowledge->net->embed(x, mask);
  }

  /// The active column's scores of a batch, reading the KB laterally.
  torch::Tensor activeScore(const float *inputs, int64_t count,
                            unsigned length) {
    return active->net->head(activeEmbedding(inputs, count, length));
  }

  /// The KB's Fisher information on `data` joins the penalty; the anchor
  /// moves to its weights.
  llvm::Error consolidate(const ProgramSet &data, const TrainOptions &train) {
    BatchMaker batches(*knowledge, data, train);
    std::mt19937_64 rng(train.seed + 1);
    llvm::Error error =
        batches.forEachBatch(rng, [&](const TrainingBatch &batch) {
          auto [x, mask] =
              knowledge->prepare(batch.inputs, batch.count, batch.length);
          elastic->addBatch(
              rankingLoss(knowledge->net->score(x, mask), batch, train));
          return llvm::Error::success();
        });
    if (error)
      return error;
    elastic->consolidate();
    return llvm::Error::success();
  }

  llvm::Error learn(const ProgramSet &data, const TrainOptions &train,
                    const ProgramSet *unmeasured) {
    useThreads(train.threads);
    // Scoring later runs on as many threads as training did.
    knowledge->threads = train.threads;
    if (rehearses())
      platformHardware.push_back(
          hardwareOf(data, options.hardwareBegin, options.hardwareEnd));
    if (platforms == 0) {
      if (llvm::Error error = knowledge->train(data, train))
        return error;
      return consolidate(data, train);
    }
    lastChoice = ColumnChoice();
    lastChoice.epochs = train.epochs;
    lastChoice.distilled = lastChoice.kept = true;
    lastChoice.fresh = options.columnStart == ColumnStart::Fresh;
    auto [learnPart, check] =
        holdBackTasks(data, options.heldBackShare, train.seed + 3);
    auto distilling = learnColumn(data, learnPart, check, train);
    if (!distilling)
      return distilling.takeError();
    if (*distilling) {
      rehearsing = rehearsedHardware();
      lastChoice.rehearsed = unsigned(rehearsing.size());
      llvm::Error error = unmeasured && unmeasured->size()
                              ? distillChecked(data, *unmeasured, train)
                              : distillColumn(data, train);
      if (error)
        return error;
    }
    return consolidate(data, train);
  }

  /// KD, kept only if the KB then orders the platform's `unmeasured`
  /// programs more like its teacher than before; else the KB gets its
  /// weights back.
  llvm::Error distillChecked(const ProgramSet &data,
                             const ProgramSet &unmeasured,
                             const TrainOptions &train) {
    auto teacher = runColumn(unmeasured, Column::Active, false);
    if (!teacher)
      return teacher.takeError();
    auto before = runColumn(unmeasured, Column::KnowledgeBase, false);
    if (!before)
      return before.takeError();
    auto saved = copyOf(*knowledge);
    if (!saved)
      return saved.takeError();
    if (llvm::Error error = distillColumn(
            options.distillOnUnmeasured ? unmeasured : data, train))
      return error;
    auto after = runColumn(unmeasured, Column::KnowledgeBase, false);
    if (!after)
      return after.takeError();
    lastChoice.agreementBefore = orderAgreement(unmeasured, *teacher, *before);
    lastChoice.agreementAfter = orderAgreement(unmeasured, *teacher, *after);
    lastChoice.kept = lastChoice.agreementAfter > lastChoice.agreementBefore;
    if (!lastChoice.kept)
      copyWeights(**saved, *knowledge);
    return llvm::Error::success();
  }

  /// KD: the KB learns the active column's scores on `data`, held near what
  /// it knew by the EWC penalty.
  llvm::Error distillColumn(const ProgramSet &data, const TrainOptions &train) {
    TrainOptions distill = train;
    distill.epochs = options.distillEpochs;
    distill.learningRate = options.distillLearningRate;
    distill.minSteps = 0;
    distill.averagedFraction = 0;
    distill.seed = train.seed + 2;
    knowledge->net->train();
    llvm::Error error = runTraining(
        *knowledge, data, distill, knowledge->net->parameters(),
        [&](const TrainingBatch &batch) {
          torch::Tensor teacher;
          {
            torch::NoGradGuard noGrad;
            teacher = activeScore(batch.inputs, batch.count, batch.length);
          }
          auto [x, mask] =
              knowledge->prepare(batch.inputs, batch.count, batch.length);
          return torch::mse_loss(knowledge->net->score(x, mask), teacher) +
                 options.ewcWeight * elastic->penalty() + rehearsal(batch);
        },
        "distillation");
    knowledge->net->eval();
    return error;
  }

  /// The rehearsal term of a KD batch (ContinualOptions::rehearsalWeight):
  /// for each earlier platform with hardware columns other than the new
  /// one's, the MSE between the KB's scores of the batch as that platform's
  /// programs and those of the KB before the platform (columnKnowledge).
  torch::Tensor rehearsal(const TrainingBatch &batch) {
    torch::Tensor sum = torch::zeros({});
    const size_t rows = size_t(batch.count) * batch.length;
    for (const std::vector<float> &earlier : rehearsing) {
      std::vector<float> asEarlier = withHardware(
          batch.inputs, rows, config.width, options.hardwareBegin, earlier);
      torch::Tensor target;
      {
        torch::NoGradGuard noGrad;
        auto [x, mask] = columnKnowledge->prepare(asEarlier.data(), batch.count,
                                                  batch.length);
        target = columnKnowledge->net->score(x, mask);
      }
      auto [x, mask] =
          knowledge->prepare(asEarlier.data(), batch.count, batch.length);
      sum = sum + torch::mse_loss(knowledge->net->score(x, mask), target);
    }
    return options.rehearsalWeight * sum;
  }

  /// CL, its epochs chosen on the held-back tasks `check`
  /// (ContinualOptions::heldBackShare) if there are any: a column learns
  /// `learnPart`, ranking `check` after each epoch; then a column started
  /// afresh learns all of `data` for the epochs that ranked it best.
  /// Whether the KD phase is to distill it (whether it ranked `check`
  /// better than the KB).
  llvm::Expected<bool> learnColumn(const ProgramSet &data,
                                   const ProgramSet &learnPart,
                                   const ProgramSet &check,
                                   const TrainOptions &train) {
    if (check.size() == 0) {
      if (llvm::Error error = startActive(data, lastChoice.fresh))
        return std::move(error);
      if (llvm::Error error = trainActive(data, train))
        return std::move(error);
      return true;
    }
    auto knowledgeScores = runColumn(check, Column::KnowledgeBase, false);
    if (!knowledgeScores)
      return knowledgeScores.takeError();
    lastChoice.knowledgeTop1 = topOne(check, *knowledgeScores);

    // Each start the options allow learns `learnPart`; the start and epoch
    // that rank `check` best win (on a tie, a copy and fewer epochs).
    llvm::SmallVector<bool, 2> starts;
    if (options.columnStart != ColumnStart::Fresh)
      starts.push_back(false);
    if (options.columnStart != ColumnStart::Copy)
      starts.push_back(true);
    unsigned bestEpochs = 0;
    bool bestFresh = starts.front();
    double best = -1;
    for (bool fresh : starts)
      if (llvm::Error error = probeColumn(learnPart, check, train, fresh, best,
                                          bestEpochs, bestFresh))
        return std::move(error);
    lastChoice.fresh = bestFresh;
    lastChoice.epochs = bestEpochs;
    lastChoice.columnTop1 = std::max(best, 0.0);
    lastChoice.distilled = best > lastChoice.knowledgeTop1;

    if (llvm::Error error = startActive(data, bestFresh))
      return std::move(error);
    TrainOptions refit = train;
    refit.epochs = bestEpochs;
    refit.minSteps = 0;
    if (llvm::Error error = trainActive(data, refit))
      return std::move(error);
    return lastChoice.distilled;
  }

  /// A column started `fresh` (or as a copy) learns `learnPart` for
  /// TrainOptions::epochs, ranking `check` after each epoch; an epoch that
  /// ranks it better than `best` becomes the best (`bestEpochs`,
  /// `bestFresh`).
  llvm::Error probeColumn(const ProgramSet &learnPart, const ProgramSet &check,
                          const TrainOptions &train, bool fresh, double &best,
                          unsigned &bestEpochs, bool &bestFresh) {
    if (llvm::Error error = startActive(learnPart, fresh))
      return error;
    TrainOptions probe = train;
    std::optional<std::string> failure;
    probe.onEpoch = [&](unsigned epoch, double loss, double seconds) {
      if (train.onEpoch)
        train.onEpoch(epoch, loss, seconds);
      if (failure)
        return;
      active->net->eval();
      auto scores = runColumn(check, Column::Active, false);
      active->net->train();
      if (!scores) {
        failure = llvm::toString(scores.takeError());
        return;
      }
      double top1 = topOne(check, *scores);
      if (top1 > best) {
        best = top1;
        bestEpochs = epoch + 1;
        bestFresh = fresh;
      }
    };
    if (llvm::Error error = trainActive(learnPart, probe))
      return error;
    if (failure)
      return makeError("ranking the held-back tasks: " + *failure);
    return llvm::Error::success();
  }

  /// CL's column: a new active column (seeded apart from the KB's), a copy
  /// of the KB unless `fresh`, and its lateral connection, to learn a
  /// platform reading the frozen KB.
  llvm::Error startActive(const ProgramSet &data, bool fresh) {
    ModelConfig columnConfig = config;
    columnConfig.seed = config.seed + 1000003ull * platforms;
    auto made = ModelImpl::make(columnConfig);
    if (!made)
      return made.takeError();
    active = std::move(*made);
    if (!fresh)
      copyWeights(*knowledge, *active);
    // A copy keeps the KB's normalization, unless the KB was loaded
    // untrained (it has none).
    if (fresh || !knowledge->normalized)
      active->computeNormalization(data);
    auto frozen = copyOf(*knowledge);
    if (!frozen)
      return frozen.takeError();
    columnKnowledge = std::move(*frozen);
    columnKnowledge->net->eval();
    torch::manual_seed(columnConfig.seed);
    lateral = Lateral(knowledge->net->getEmbeddingWidth(), options.gateInit);
    return llvm::Error::success();
  }

  /// CL's training: the active column and its lateral connection learn
  /// `data` with the ranking loss, the KB frozen.
  llvm::Error trainActive(const ProgramSet &data, const TrainOptions &train) {
    std::vector<torch::Tensor> parameters = active->net->parameters();
    for (const torch::Tensor &p : lateral->parameters())
      parameters.push_back(p);
    active->net->train();
    llvm::Error error = runTraining(
        *active, data, train, parameters,
        [&](const TrainingBatch &batch) {
          return rankingLoss(
              activeScore(batch.inputs, batch.count, batch.length), batch,
              train);
        },
        getLossKindName(train.loss));
    active->net->eval();
    return error;
  }

  /// The active column's pooled representation with the lateral term.
  torch::Tensor activeEmbedding(const float *inputs, int64_t count,
                                unsigned length) {
    torch::Tensor fromKnowledge = knowledgeEmbedding(inputs, count, length);
    auto [x, mask] = active->prepare(inputs, count, length);
    return active->net->embed(x, mask) + lateral(fromKnowledge);
  }

  /// Scores (or embeddings) by one column, in the KB's forward passes
  /// (cropped, by length, on the training's threads), after checking the
  /// programs' shape; a libtorch failure comes back as an error.
  llvm::Expected<std::vector<float>> run(const ProgramSet &programs,
                                         Column column, bool embedding) {
    if (llvm::Error error = knowledge->checkShape(
            programs.rows, programs.width, embedding ? "embed" : "predict"))
      return std::move(error);
    return guarded(embedding ? "embedding programs" : "scoring programs",
                   [&]() -> llvm::Expected<std::vector<float>> {
                     return runColumn(programs, column, embedding);
                   });
  }

  llvm::Expected<std::vector<float>> runColumn(const ProgramSet &programs,
                                               Column column, bool embedding) {
    const size_t perProgram = size_t(programs.rows) * programs.width;
    std::vector<const float *> pointers(programs.size());
    for (size_t i = 0; i < pointers.size(); ++i)
      pointers[i] = programs.inputs.data() + i * perProgram;
    if (column == Column::KnowledgeBase || !active)
      return embedding ? knowledge->embed(pointers)
                       : knowledge->predict(pointers);
    return knowledge->forward(
        pointers, embedding ? knowledge->net->getEmbeddingWidth() : 1,
        [&](const float *batch, int64_t count, unsigned length) {
          return embedding ? activeEmbedding(batch, count, length)
                           : activeScore(batch, count, length);
        });
  }
};

ContinualModel::ContinualModel(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
ContinualModel::~ContinualModel() = default;

llvm::Expected<std::unique_ptr<ContinualModel::Impl>>
ContinualModel::Impl::make(llvm::Expected<std::unique_ptr<ModelImpl>> made,
                           const ContinualOptions &options,
                           unsigned platformsLearned) {
  if (!(options.ewcWeight >= 0) || !(options.distillLearningRate > 0) ||
      options.distillEpochs == 0 ||
      !(options.heldBackShare >= 0 && options.heldBackShare < 1) ||
      !(options.rehearsalWeight >= 0) ||
      options.hardwareBegin > options.hardwareEnd) {
    if (!made)
      llvm::consumeError(made.takeError());
    return makeError("continual model: the EWC and rehearsal weights must be "
                     ">= 0, the distillation's epochs and step size positive, "
                     "the held-back share in [0, 1), the hardware columns a "
                     "range");
  }
  if (!made)
    return made.takeError();
  if (options.hardwareEnd > (*made)->config.width)
    return makeError("continual model: hardware columns [" +
                     llvm::Twine(options.hardwareBegin) + ", " +
                     llvm::Twine(options.hardwareEnd) + ") lie beyond rows " +
                     llvm::Twine((*made)->config.width) + " wide");
  return guarded("making a continual model",
                 [&]() -> llvm::Expected<std::unique_ptr<Impl>> {
                   auto impl = std::make_unique<Impl>();
                   impl->config = (*made)->config;
                   impl->options = options;
                   impl->knowledge = std::move(*made);
                   impl->elastic = std::make_unique<ElasticWeights>(
                       impl->knowledge->net->parameters());
                   impl->platforms = platformsLearned;
                   return std::move(impl);
                 });
}

llvm::Expected<std::unique_ptr<ContinualModel>>
ContinualModel::create(const ModelConfig &config,
                       const ContinualOptions &options) {
  auto impl = Impl::make(ModelImpl::make(config), options, 0);
  if (!impl)
    return impl.takeError();
  return std::unique_ptr<ContinualModel>(new ContinualModel(std::move(*impl)));
}

llvm::Expected<std::unique_ptr<ContinualModel>>
ContinualModel::fromKnowledgeBase(llvm::StringRef path,
                                  const ContinualOptions &options) {
  auto impl = Impl::make(ModelImpl::load(path), options, 1);
  if (!impl)
    return impl.takeError();
  return std::unique_ptr<ContinualModel>(new ContinualModel(std::move(*impl)));
}

llvm::Error ContinualModel::learnOnline(const ProgramSet &data,
                                        const TrainOptions &train) {
  if (impl->platforms == 0)
    return makeError("learnOnline: the knowledge base has learned nothing "
                     "yet (learn a platform first)");
  if (llvm::Error error = impl->checkData(data, "learnOnline"))
    return error;
  return guarded("learning a platform online", [&]() -> llvm::Error {
    useThreads(train.threads);
    impl->knowledge->threads = train.threads;
    if (!impl->active)
      if (llvm::Error error = impl->startActive(
              data, impl->options.columnStart == ColumnStart::Fresh))
        return error;
    return impl->trainActive(data, train);
  });
}

bool ContinualModel::hasActiveColumn() const { return bool(impl->active); }

void ContinualModel::setThreads(unsigned threads) {
  impl->knowledge->threads = threads;
}

llvm::Expected<std::vector<float>>
ContinualModel::embed(const ProgramSet &programs, Column column) const {
  return impl->run(programs, column, /*embedding=*/true);
}

unsigned ContinualModel::getEmbeddingWidth() const {
  return unsigned(impl->knowledge->net->getEmbeddingWidth());
}

const ModelConfig &ContinualModel::getConfig() const { return impl->config; }

llvm::Error ContinualModel::learnPlatform(const ProgramSet &data,
                                          const TrainOptions &train,
                                          const ProgramSet *unmeasured) {
  if (llvm::Error error = impl->checkData(data, "learnPlatform"))
    return error;
  if (unmeasured)
    if (llvm::Error error =
            impl->knowledge->checkShape(unmeasured->rows, unmeasured->width,
                                        "learnPlatform's unmeasured programs"))
      return error;
  return guarded("learning a platform", [&]() -> llvm::Error {
    if (llvm::Error error = impl->learn(data, train, unmeasured))
      return error;
    ++impl->platforms;
    return llvm::Error::success();
  });
}

llvm::Expected<std::vector<float>>
ContinualModel::predict(const ProgramSet &programs, Column column) const {
  return impl->run(programs, column, /*embedding=*/false);
}

llvm::Error
ContinualModel::saveKnowledgeBase(llvm::StringRef path,
                                  llvm::ArrayRef<std::string> platforms) const {
  if (impl->platforms == 0)
    return makeError("the continual model has learned no platform to save");
  impl->knowledge->config.platforms = platforms.vec();
  return guarded("saving the knowledge base",
                 [&] { return impl->knowledge->save(path); });
}

unsigned ContinualModel::getNumPlatformsLearned() const {
  return impl->platforms;
}

ContinualModel::ColumnChoice ContinualModel::getLastColumnChoice() const {
  return impl->lastChoice;
}

std::vector<float> ContinualModel::getGates() const {
  if (!impl->lateral)
    return {};
  torch::Tensor gate = impl->lateral->getGate().detach().contiguous();
  return std::vector<float>(gate.data_ptr<float>(),
                            gate.data_ptr<float>() + gate.numel());
}

double ContinualModel::getEwcPenalty() const {
  torch::NoGradGuard noGrad;
  return impl->elastic->penalty().item<double>();
}
