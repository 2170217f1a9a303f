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
#include "Training.h"

using namespace mlir::tcl::learned;

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

} // namespace

struct ContinualModel::Impl {
  ModelConfig config;
  ContinualOptions options;
  std::unique_ptr<ModelImpl> knowledge, active;
  Lateral lateral{nullptr};
  std::unique_ptr<ElasticWeights> elastic;
  unsigned platforms = 0;

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

  /// The KB's embeddings of a batch, without gradient (the KB is frozen
  /// while the active column learns or teaches).
  torch::Tensor knowledgeEmbedding(const float *inputs, int64_t count,
                                   unsigned length) {
    torch::NoGradGuard noGrad;
    auto [x, mask] = knowledge->prepare(inputs, count, length);
    return knowledge->net->embed(x, mask);
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

  llvm::Error learn(const ProgramSet &data, const TrainOptions &train) {
    useThreads(train.threads);
    // Scoring later runs on as many threads as training did.
    knowledge->threads = train.threads;
    if (platforms == 0) {
      if (llvm::Error error = knowledge->train(data, train))
        return error;
      return consolidate(data, train);
    }
    if (llvm::Error error = startActive(data))
      return error;
    if (llvm::Error error = trainActive(data, train))
      return error;

    // KD: the KB learns the active column's scores, held near what it knew
    // by the EWC penalty.
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
                 options.ewcWeight * elastic->penalty();
        },
        "distillation");
    knowledge->net->eval();
    if (error)
      return error;
    return consolidate(data, train);
  }

  /// CL's column: a fresh active column (seeded apart from the KB's) and
  /// its lateral connection, to learn a platform reading the frozen KB.
  llvm::Error startActive(const ProgramSet &data) {
    ModelConfig columnConfig = config;
    columnConfig.seed = config.seed + 1000003ull * platforms;
    auto made = ModelImpl::make(columnConfig);
    if (!made)
      return made.takeError();
    active = std::move(*made);
    if (options.activeFromKnowledge) {
      torch::NoGradGuard noGrad;
      std::vector<torch::Tensor> from = knowledge->net->parameters();
      std::vector<torch::Tensor> to = active->net->parameters();
      for (size_t i = 0; i < to.size(); ++i)
        to[i].copy_(from[i]);
    }
    // A copy keeps the KB's normalization, unless the KB was loaded
    // untrained (it has none).
    if (options.activeFromKnowledge && knowledge->normalized)
      active->setNormalization(knowledge->mean, knowledge->stddev);
    else
      active->computeNormalization(data);
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
      options.distillEpochs == 0) {
    if (!made)
      llvm::consumeError(made.takeError());
    return makeError("continual model: the EWC weight must be >= 0, the "
                     "distillation's epochs and step size positive");
  }
  if (!made)
    return made.takeError();
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
      if (llvm::Error error = impl->startActive(data))
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
                                          const TrainOptions &train) {
  if (llvm::Error error = impl->checkData(data, "learnPlatform"))
    return error;
  return guarded("learning a platform", [&]() -> llvm::Error {
    if (llvm::Error error = impl->learn(data, train))
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
