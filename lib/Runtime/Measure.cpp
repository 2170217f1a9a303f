//===- Measure.cpp - Isolated measurement of candidate kernels ------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Protocol (one request, one reply, over a socket pair on the worker's
// stdin/stdout):
//   request: "MEASURE <entry> <target> <threads> <warmup> <repeats> <flush>
//             <tolerance> <workload bytes> <candidate bytes>\n" + both texts
//   progress: "PHASE compile|reference\n" (the reply's phase so far)
//   built:   "READY <build start> <build end>\n"; the worker then waits
//            for "RUN\n" from the parent before it runs anything
//   reply:   "RESULT <status> <min> <median> <max> <repeats> <max error>
//             <run start> <run end> <message bytes>\n" + message
// Times are seconds of the steady clock, which all processes share.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Measure.h"
#include "tcl/Runtime/Kernel.h"
#include "tcl/Target/Platform.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <optional>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tcl;

llvm::StringRef mlir::tcl::toString(MeasureStatus status) {
  switch (status) {
  case MeasureStatus::Ok:
    return "ok";
  case MeasureStatus::CompileError:
    return "compile-error";
  case MeasureStatus::WrongResult:
    return "wrong-result";
  case MeasureStatus::RuntimeCrash:
    return "runtime-crash";
  case MeasureStatus::Timeout:
    return "timeout";
  case MeasureStatus::WorkerError:
    return "worker-error";
  }
  llvm_unreachable("unknown status");
}

static std::optional<MeasureStatus> parseStatus(llvm::StringRef text) {
  for (MeasureStatus status :
       {MeasureStatus::Ok, MeasureStatus::CompileError,
        MeasureStatus::WrongResult, MeasureStatus::RuntimeCrash,
        MeasureStatus::Timeout, MeasureStatus::WorkerError})
    if (toString(status) == text)
      return status;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

TimingStats mlir::tcl::timeRuns(const std::function<void()> &run,
                                unsigned warmup, unsigned repeats,
                                bool flushCache, double warmupSeconds,
                                const std::function<double()> &clock) {
  // Far larger than an L2 cache and than most hosts' share of the L3.
  static constexpr size_t kFlushBytes = 64 << 20;
  auto now = [&] {
    if (clock)
      return clock();
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  std::vector<char> flush(flushCache ? kFlushBytes : 0);
  double warmupStart = now();
  for (unsigned i = 0; i < warmup || now() - warmupStart < warmupSeconds; ++i)
    run();
  std::vector<double> seconds;
  for (unsigned i = 0; i < std::max(1u, repeats); ++i) {
    if (flushCache)
      for (size_t byte = 0; byte < flush.size(); byte += 64)
        flush[byte] = static_cast<char>(i + byte);
    double start = now();
    run();
    seconds.push_back(now() - start);
  }
  std::sort(seconds.begin(), seconds.end());
  TimingStats stats;
  stats.repeats = seconds.size();
  stats.minSeconds = seconds.front();
  stats.maxSeconds = seconds.back();
  size_t mid = seconds.size() / 2;
  stats.medianSeconds = seconds.size() % 2
                            ? seconds[mid]
                            : 0.5 * (seconds[mid - 1] + seconds[mid]);
  return stats;
}

//===----------------------------------------------------------------------===//
// Framing
//===----------------------------------------------------------------------===//

namespace {
/// Reads lines and byte blocks from a socket: blocking, optionally with a
/// deadline, or from what has arrived so far.
class Reader {
public:
  explicit Reader(int fd) : fd(fd) {}

  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  enum class Outcome { Ok, Closed, TimedOut };

  Outcome readLine(std::string &line, Deadline deadline) {
    while (!takeLine(line))
      if (Outcome outcome = fill(deadline); outcome != Outcome::Ok)
        return outcome;
    return Outcome::Ok;
  }

  Outcome readBytes(size_t count, std::string &bytes, Deadline deadline) {
    while (!takeBytes(count, bytes))
      if (Outcome outcome = fill(deadline); outcome != Outcome::Ok)
        return outcome;
    return Outcome::Ok;
  }

  /// A complete line received so far, if any.
  bool takeLine(std::string &line) {
    size_t newline = buffer.find('\n');
    if (newline == std::string::npos)
      return false;
    line = buffer.substr(0, newline);
    buffer.erase(0, newline + 1);
    return true;
  }

  /// `count` bytes received so far, if there are that many.
  bool takeBytes(size_t count, std::string &bytes) {
    if (buffer.size() < count)
      return false;
    bytes = buffer.substr(0, count);
    buffer.erase(0, count);
    return true;
  }

  /// Reads once what is there (or waits until the deadline for it).
  Outcome fill(Deadline deadline) {
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return Outcome::TimedOut;
      pollfd request{fd, POLLIN, 0};
      int ready = poll(&request, 1, static_cast<int>(left.count()));
      if (ready == 0)
        return Outcome::TimedOut;
      if (ready < 0 && errno == EINTR)
        return Outcome::Ok;
    }
    char chunk[1 << 16];
    ssize_t count = ::read(fd, chunk, sizeof(chunk));
    if (count < 0 && errno == EINTR)
      return Outcome::Ok;
    if (count <= 0)
      return Outcome::Closed;
    buffer.append(chunk, count);
    return Outcome::Ok;
  }

private:
  int fd;
  std::string buffer;
};

double steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Writes everything; never raises SIGPIPE (a dead peer is an error).
bool writeAll(int fd, const std::string &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t count =
        ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0)
      return false;
    done += count;
  }
  return true;
}
} // namespace

//===----------------------------------------------------------------------===//
// Measurer (parent side)
//===----------------------------------------------------------------------===//

unsigned mlir::tcl::getDefaultParallelBuilds() {
  return std::max(1u, std::thread::hardware_concurrency());
}

static std::string getDefaultWorkerPath() {
  if (const char *path = std::getenv("TCL_MEASURE_WORKER"))
    return path;
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  llvm::SmallString<256> path(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(path, "tcl-measure-worker");
  return std::string(path);
}

struct Measurer::WorkerProcess {
  pid_t pid = -1;
  int socket = -1;
  std::unique_ptr<Reader> reader;
};

struct Measurer::Job {
  enum class State { Waiting, Building, Built, Running, Done };
  const MeasureInput *input = nullptr;
  MeasureResult *result = nullptr;
  State state = State::Waiting;
  std::string phase = "start";
  /// Seconds of the timeout not yet used; it runs while the job builds or
  /// runs, not while it waits for its turn.
  double secondsLeft = 0;
  std::chrono::steady_clock::time_point activeSince;
  /// Size of the message after a RESULT line, still to arrive.
  std::optional<size_t> messageBytes;

  bool isActive() const {
    return state == State::Building || state == State::Running;
  }
  std::chrono::steady_clock::time_point deadline() const {
    return activeSince +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(secondsLeft));
  }
  void fail(MeasureStatus status, std::string message) {
    result->status = status;
    result->message = std::move(message);
    state = State::Done;
  }
  void pause() {
    secondsLeft -= std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - activeSince)
                       .count();
  }
};

Measurer::Measurer(MeasureOptions options, std::string workerPath)
    : options(options), workerPath(workerPath.empty() ? getDefaultWorkerPath()
                                                      : std::move(workerPath)) {
  for (unsigned i = 0; i < std::max(1u, options.parallelBuilds); ++i)
    workers.push_back(std::make_unique<WorkerProcess>());
}

Measurer::~Measurer() {
  for (std::unique_ptr<WorkerProcess> &worker : workers)
    stopWorker(*worker, /*kill=*/false);
}

bool Measurer::ensureWorker(WorkerProcess &worker, std::string &error) {
  if (worker.pid > 0)
    return true;
  if (!llvm::sys::fs::can_execute(workerPath)) {
    error = "no measurement worker at " + workerPath;
    return false;
  }
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  if (pid == 0) {
    // The worker talks on stdin/stdout; dup2 clears CLOEXEC on the copies.
    dup2(fds[1], STDIN_FILENO);
    dup2(fds[1], STDOUT_FILENO);
    execl(workerPath.c_str(), workerPath.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  worker.pid = pid;
  worker.socket = fds[0];
  worker.reader = std::make_unique<Reader>(fds[0]);
  ++workersStarted;
  return true;
}

std::string Measurer::stopWorker(WorkerProcess &worker, bool kill) {
  if (worker.pid <= 0)
    return "";
  if (kill)
    ::kill(worker.pid, SIGKILL);
  close(worker.socket);
  worker.socket = -1;
  worker.reader.reset();
  int status = 0;
  waitpid(worker.pid, &status, 0);
  worker.pid = -1;
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) +
           " (" + strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

bool Measurer::startJob(WorkerProcess &worker, Job &job) {
  std::string error;
  if (!ensureWorker(worker, error)) {
    job.fail(MeasureStatus::WorkerError, error);
    return false;
  }
  const MeasureInput &input = *job.input;
  std::ostringstream header;
  header << "MEASURE " << input.entry << ' '
         << input.platform.getTargetName().str() << ' '
         << input.platform.getThreads() << ' ' << options.warmup << ' '
         << options.repeats << ' ' << (options.flushCache ? 1 : 0) << ' '
         << options.tolerance << ' ' << input.workload.size() << ' '
         << input.candidate.size() << '\n';
  if (!writeAll(worker.socket,
                header.str() + input.workload + input.candidate)) {
    job.fail(MeasureStatus::WorkerError,
             "the worker died before the request (" +
                 stopWorker(worker, /*kill=*/true) + ")");
    return false;
  }
  job.state = Job::State::Building;
  job.secondsLeft = options.timeoutSeconds;
  job.activeSince = std::chrono::steady_clock::now();
  return true;
}

void Measurer::receive(WorkerProcess &worker, Job &job) {
  if (worker.reader->fill(std::nullopt) == Reader::Outcome::Closed) {
    std::string how = stopWorker(worker, /*kill=*/false);
    // A crash while compiling is the compiler's failure on this candidate;
    // a crash while running is the kernel's.
    MeasureStatus status =
        job.state == Job::State::Running ? MeasureStatus::RuntimeCrash
        : job.phase == "compile"         ? MeasureStatus::CompileError
                                         : MeasureStatus::WorkerError;
    job.fail(status, "the worker " + how + " (phase: " + job.phase + ")");
    return;
  }
  auto malformed = [&](const std::string &line) {
    stopWorker(worker, /*kill=*/true);
    job.fail(MeasureStatus::WorkerError,
             "malformed reply from the worker: " + line);
    return;
  };
  std::string line;
  while (true) {
    if (job.messageBytes) {
      if (!worker.reader->takeBytes(*job.messageBytes, job.result->message))
        return;
      job.state = Job::State::Done;
      return;
    }
    if (!worker.reader->takeLine(line))
      return;
    llvm::StringRef text(line);
    if (text.consume_front("PHASE ")) {
      job.phase = text.str();
      continue;
    }
    std::istringstream fields{text.str()};
    std::string verb;
    fields >> verb;
    if (verb == "READY" && job.state == Job::State::Building) {
      fields >> job.result->build.start >> job.result->build.end;
      if (!fields)
        return malformed(line);
      job.pause();
      job.state = Job::State::Built;
      job.phase = "run";
      continue;
    }
    if (verb != "RESULT")
      return malformed(line);
    std::string status;
    size_t messageBytes = 0;
    fields >> status >> job.result->minSeconds >> job.result->medianSeconds >>
        job.result->maxSeconds >> job.result->repeats >> job.result->maxError >>
        job.result->run.start >> job.result->run.end >> messageBytes;
    std::optional<MeasureStatus> parsed = parseStatus(status);
    if (!fields || !parsed)
      return malformed(line);
    job.result->status = *parsed;
    job.messageBytes = messageBytes;
  }
}

std::vector<MeasureResult>
Measurer::measure(llvm::ArrayRef<MeasureInput> batch) {
  using State = Job::State;
  std::vector<MeasureResult> results(batch.size());
  std::vector<Job> jobs(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    jobs[i].input = &batch[i];
    jobs[i].result = &results[i];
  }
  // The job of each worker, if any.
  std::vector<Job *> assigned(workers.size(), nullptr);
  size_t next = 0;
  auto count = [&](State state) {
    return llvm::count_if(assigned,
                          [&](Job *job) { return job && job->state == state; });
  };
  while (true) {
    // A finished job frees its worker.
    for (Job *&job : assigned)
      if (job && job->state == State::Done)
        job = nullptr;
    // Builds start only while nothing is timed, and only once every built
    // job has run: a new build while a built job waits would hold that job
    // (and its worker) back until the build ends, and building would no
    // longer overlap.
    // A job that cannot start (no worker) is done, failed: its worker
    // takes the next one.
    if (count(State::Running) == 0 && count(State::Built) == 0)
      for (size_t w = 0; w < workers.size(); ++w)
        while (!assigned[w] && next < jobs.size())
          if (startJob(*workers[w], jobs[next++]))
            assigned[w] = &jobs[next - 1];
    maxConcurrentBuilds =
        std::max<unsigned>(maxConcurrentBuilds, count(State::Building));
    // A run starts once no build is going on.
    if (count(State::Running) == 0 && count(State::Building) == 0) {
      for (size_t w = 0; w < workers.size(); ++w) {
        Job *job = assigned[w];
        if (!job || job->state != State::Built)
          continue;
        job->activeSince = std::chrono::steady_clock::now();
        if (writeAll(workers[w]->socket, "RUN\n"))
          job->state = State::Running;
        else
          job->fail(MeasureStatus::WorkerError,
                    "the worker died before its run (" +
                        stopWorker(*workers[w], /*kill=*/true) + ")");
        break;
      }
    }
    if (next == jobs.size() &&
        llvm::all_of(assigned, [](Job *job) { return !job; }))
      break;
    if (llvm::any_of(assigned,
                     [](Job *job) { return job && job->state == State::Done; }))
      continue;

    // Wait for a worker to say something, or for the next deadline.
    std::vector<pollfd> polled;
    std::vector<size_t> polledWorkers;
    std::optional<std::chrono::steady_clock::time_point> deadline;
    for (size_t w = 0; w < workers.size(); ++w) {
      if (!assigned[w])
        continue;
      polled.push_back({workers[w]->socket, POLLIN, 0});
      polledWorkers.push_back(w);
      if (assigned[w]->isActive() &&
          (!deadline || assigned[w]->deadline() < *deadline))
        deadline = assigned[w]->deadline();
    }
    int timeoutMs = -1;
    if (deadline)
      timeoutMs = std::max<int64_t>(
          0, std::chrono::duration_cast<std::chrono::milliseconds>(
                 *deadline - std::chrono::steady_clock::now())
                     .count() +
                 1);
    int ready = poll(polled.data(), polled.size(), timeoutMs);
    if (ready < 0 && errno != EINTR) {
      for (size_t w : polledWorkers)
        assigned[w]->fail(MeasureStatus::WorkerError,
                          std::string("poll: ") + std::strerror(errno) + " (" +
                              stopWorker(*workers[w], /*kill=*/true) + ")");
      continue;
    }
    for (size_t i = 0; ready > 0 && i < polled.size(); ++i)
      if (polled[i].revents)
        receive(*workers[polledWorkers[i]], *assigned[polledWorkers[i]]);
    auto now = std::chrono::steady_clock::now();
    for (size_t w = 0; w < workers.size(); ++w) {
      Job *job = assigned[w];
      if (!job || !job->isActive() || job->deadline() > now)
        continue;
      stopWorker(*workers[w], /*kill=*/true);
      job->fail(MeasureStatus::Timeout,
                "no result within " + std::to_string(options.timeoutSeconds) +
                    " s (phase: " + job->phase + ")");
    }
  }
  return results;
}

//===----------------------------------------------------------------------===//
// Worker
//===----------------------------------------------------------------------===//

namespace {
struct Request {
  std::string entry, target, workload, candidate;
  unsigned threads = 1, warmup = 0, repeats = 1;
  bool flush = false;
  float tolerance = kOutputTolerance;
};

class Worker {
public:
  explicit Worker(int fd) : fd(fd), reader(fd) {}

  int serve() {
    std::string line;
    while (reader.readLine(line, std::nullopt) == Reader::Outcome::Ok) {
      Request request;
      std::istringstream fields(line);
      std::string verb;
      size_t workloadBytes = 0, candidateBytes = 0;
      int flush = 0;
      fields >> verb >> request.entry >> request.target >> request.threads >>
          request.warmup >> request.repeats >> flush >> request.tolerance >>
          workloadBytes >> candidateBytes;
      if (!fields || verb != "MEASURE")
        return 2;
      request.flush = flush != 0;
      if (reader.readBytes(workloadBytes, request.workload, std::nullopt) !=
              Reader::Outcome::Ok ||
          reader.readBytes(candidateBytes, request.candidate, std::nullopt) !=
              Reader::Outcome::Ok)
        return 2;
      runTime = ClockInterval();
      std::optional<MeasureResult> result = handle(request);
      if (runTime.start > 0)
        runTime.end = steadySeconds();
      // No result: the parent is gone.
      if (!result || !reply(*result))
        return 2;
    }
    return 0;
  }

private:
  bool phase(llvm::StringRef name) {
    return writeAll(fd, ("PHASE " + name + "\n").str());
  }

  bool reply(const MeasureResult &result) {
    std::ostringstream out;
    out.precision(17);
    out << "RESULT " << toString(result.status).str() << ' '
        << result.minSeconds << ' ' << result.medianSeconds << ' '
        << result.maxSeconds << ' ' << result.repeats << ' ' << result.maxError
        << ' ' << runTime.start << ' ' << runTime.end << ' '
        << result.message.size() << '\n'
        << result.message;
    return writeAll(fd, out.str());
  }

  static MeasureResult failure(MeasureStatus status, std::string message) {
    MeasureResult result;
    result.status = status;
    result.message = std::move(message);
    return result;
  }

  /// Tells the parent the build is done and waits for its turn to run;
  /// false if the parent is gone.
  bool waitForTurn(double buildStart) {
    std::ostringstream ready;
    ready.precision(17);
    ready << "READY " << buildStart << ' ' << steadySeconds() << '\n';
    std::string line;
    if (!writeAll(fd, ready.str()) ||
        reader.readLine(line, std::nullopt) != Reader::Outcome::Ok ||
        line != "RUN")
      return false;
    runTime.start = steadySeconds();
    return true;
  }

  std::optional<MeasureResult> handle(const Request &request) {
    double buildStart = steadySeconds();
    const TargetArch *target = lookupTargetArch(request.target);
    if (!target || target->kind != TargetKind::CPU)
      return failure(MeasureStatus::CompileError,
                     "'" + request.target + "' is not a CPU platform");

    phase("compile");
    LoweringOptions options;
    options.platform = Platform(*target, request.threads);
    auto candidate = Kernel::jit(request.candidate, request.entry, options);
    if (!candidate)
      return failure(MeasureStatus::CompileError,
                     llvm::toString(candidate.takeError()));

    phase("reference");
    std::string key = request.entry + '\0' + request.workload;
    const ReferenceCache::Entry *reference = references.lookup(key);
    if (!reference) {
      auto workload = stripSchedules(request.workload);
      if (!workload)
        return failure(MeasureStatus::CompileError,
                       "workload: " + llvm::toString(workload.takeError()));
      LoweringOptions plain;
      plain.platform = Platform(*target, 1);
      plain.defaultSchedules = false;
      auto plainLoops = Kernel::jit(*workload, request.entry, plain);
      if (!plainLoops)
        return failure(MeasureStatus::CompileError,
                       "workload: " + llvm::toString(plainLoops.takeError()));
      ReferenceCache::Entry entry;
      entry.signature = plainLoops->getSignature();
      entry.inputs = entry.signature.makeRandomInputs(/*seed=*/0);
      entry.outputs = entry.signature.makeOutputs();
      if (llvm::Error error = plainLoops->run(entry.inputs, entry.outputs))
        return failure(MeasureStatus::CompileError,
                       "workload: " + llvm::toString(std::move(error)));
      reference = &references.insert(std::move(key), std::move(entry));
    }
    if (candidate->getSignature().inputs != reference->signature.inputs ||
        candidate->getSignature().outputs != reference->signature.outputs)
      return failure(MeasureStatus::CompileError,
                     "the candidate's signature differs from the workload's");

    if (!waitForTurn(buildStart))
      return std::nullopt;
    std::vector<Buffer> outputs = candidate->getSignature().makeOutputs();
    if (llvm::Error error = candidate->run(reference->inputs, outputs))
      return failure(MeasureStatus::CompileError,
                     llvm::toString(std::move(error)));
    double maxError = maxRelativeError(outputs, reference->outputs);
    if (maxError > request.tolerance) {
      MeasureResult result =
          failure(MeasureStatus::WrongResult,
                  "output differs from the reference: max relative error " +
                      std::to_string(maxError));
      result.maxError = maxError;
      return result;
    }
    std::optional<OpenMPThreadPinning> pinning;
    if (request.threads > 1)
      pinning.emplace();
    TimingStats stats = timeRuns(
        [&] { llvm::consumeError(candidate->run(reference->inputs, outputs)); },
        request.warmup, request.repeats, request.flush,
        getWarmupSeconds(request.threads));
    pinning.reset();
    // Otherwise a parallel kernel's threads spin on for 200 ms after the
    // last timed run, on the cores where the other workers build.
    if (request.threads > 1)
      llvm::consumeError(
          candidate->runThenSleepThreads(reference->inputs, outputs));
    MeasureResult result;
    result.status = MeasureStatus::Ok;
    result.minSeconds = stats.minSeconds;
    result.medianSeconds = stats.medianSeconds;
    result.maxSeconds = stats.maxSeconds;
    result.repeats = stats.repeats;
    result.maxError = maxError;
    return result;
  }

  int fd;
  Reader reader;
  /// When the current request ran (the check and the timed runs).
  ClockInterval runTime;
  /// Within 256 MB: the references of a few dozen tasks of typical size.
  ReferenceCache references{256u << 20};
};
} // namespace

int mlir::tcl::runMeasureWorker(int fd) { return Worker(fd).serve(); }
