//===- Machine.cpp - What the machine is, and how busy it is --------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Machine.h"
#include "tcl/Runtime/Cuda/Driver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <dirent.h>
#include <memory>
#include <optional>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace mlir::tcl;

//===----------------------------------------------------------------------===//
// Peak multiply-add throughput
//===----------------------------------------------------------------------===//

namespace {

// Enough independent accumulators to cover the multiply-add latency on both
// pipes (4 cycles x 2 on current x86 cores), and few enough to stay in the
// 16 registers of SSE and AVX2 with the two constants.
constexpr int kAccumulators = 12;

// One kernel per ISA, each compiled for that ISA only: `acc * a + b` becomes
// one FMA where the ISA has it (AVX2, AVX-512) and a multiply and an add on
// SSE4.2, which is what code generated for that platform can do too.
#define TCL_DEFINE_FMA_KERNEL(NAME, TARGET, BYTES)                             \
  __attribute__((target(TARGET), noinline)) float NAME(int64_t iterations) {   \
    typedef float Vector __attribute__((vector_size(BYTES)));                  \
    Vector acc[kAccumulators];                                                 \
    for (int k = 0; k < kAccumulators; ++k)                                    \
      acc[k] = Vector{} + 0.5f + 0.01f * k;                                    \
    Vector a = Vector{} + 0.999999f, b = Vector{} + 1e-7f;                     \
    for (int64_t i = 0; i < iterations; ++i) {                                 \
      _Pragma("clang loop unroll(full)") for (int k = 0; k < kAccumulators;    \
                                              ++k) {                           \
        acc[k] = acc[k] * a + b;                                               \
        /* In a register, opaque: the loop cannot be collapsed. */             \
        __asm__ volatile("" : "+v"(acc[k]));                                   \
      }                                                                        \
    }                                                                          \
    float sum = 0;                                                             \
    for (int k = 0; k < kAccumulators; ++k)                                    \
      for (unsigned lane = 0; lane < BYTES / sizeof(float); ++lane)            \
        sum += acc[k][lane];                                                   \
    return sum;                                                                \
  }

TCL_DEFINE_FMA_KERNEL(fmaLoopSse42, "sse4.2", 16)
TCL_DEFINE_FMA_KERNEL(fmaLoopAvx2, "avx2,fma", 32)
TCL_DEFINE_FMA_KERNEL(fmaLoopAvx512, "avx512f,fma", 64)
#undef TCL_DEFINE_FMA_KERNEL

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Runs `body(thread)` on `threads` threads started together; returns the
/// wall time from the common start to the last finish.
template <typename Body> double runOnThreads(unsigned threads, Body body) {
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load())
        std::this_thread::yield();
      body(t);
    });
  while (ready.load() != threads)
    std::this_thread::yield();
  auto start = std::chrono::steady_clock::now();
  go.store(true);
  for (std::thread &thread : pool)
    thread.join();
  return secondsSince(start);
}

double measurePeakGflops(const TargetArch &platform, unsigned threads) {
  float (*kernel)(int64_t) = nullptr;
  switch (platform.isa) {
  case IsaLevel::SSE42:
    kernel = fmaLoopSse42;
    break;
  case IsaLevel::AVX2:
    kernel = fmaLoopAvx2;
    break;
  case IsaLevel::AVX512:
    kernel = fmaLoopAvx512;
    break;
  case IsaLevel::NVPTX:
    return 0;
  }
  double flopsPerIteration = 2.0 * kAccumulators * (platform.vectorBits / 32.0);
  // Calibrate to ~0.1 s per run, then keep the best of three runs.
  int64_t iterations = 1 << 16;
  std::atomic<float> sink{0};
  for (;;) {
    double seconds = runOnThreads(
        1, [&](unsigned) { sink.store(sink.load() + kernel(iterations)); });
    if (seconds > 0.02 || iterations > (int64_t(1) << 40))
      break;
    iterations *= 4;
  }
  iterations *= 5;
  double best = 0;
  for (int run = 0; run < 3; ++run) {
    double seconds = runOnThreads(threads, [&](unsigned) {
      sink.store(sink.load() + kernel(iterations));
    });
    best = std::max(best, threads * iterations * flopsPerIteration / seconds);
  }
  return best * 1e-9;
}

/// Stream triad (a = b + s * c) over arrays far larger than the caches,
/// each thread on its slice; counts the bytes read and written once.
double measureBandwidthGBs(unsigned threads) {
  constexpr size_t kElements = size_t(32) << 20; // 128 MiB per array
  std::unique_ptr<float[]> a(new float[kElements]), b(new float[kElements]),
      c(new float[kElements]);
  size_t slice = kElements / threads;
  auto triad = [&](unsigned thread) {
    float *__restrict out = a.get() + thread * slice;
    const float *__restrict x = b.get() + thread * slice;
    const float *__restrict y = c.get() + thread * slice;
    for (size_t i = 0; i < slice; ++i)
      out[i] = x[i] + 3.0f * y[i];
  };
  // First touch by the threads that use the pages (and no page faults in
  // the timed runs).
  runOnThreads(threads, [&](unsigned thread) {
    std::fill_n(a.get() + thread * slice, slice, 0.0f);
    std::fill_n(b.get() + thread * slice, slice, 1.0f);
    std::fill_n(c.get() + thread * slice, slice, 2.0f);
  });
  double best = 0;
  for (int run = 0; run < 3; ++run) {
    double seconds = runOnThreads(threads, triad);
    best = std::max(best, 3.0 * sizeof(float) * slice * threads / seconds);
  }
  return best * 1e-9;
}

/// Reads a small sysfs or procfs file; empty if it cannot.
std::string readSmallFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFileAsStream(path);
  if (!buffer)
    return "";
  return (*buffer)->getBuffer().trim().str();
}

/// "48K", "1024K", "32M" -> KiB.
double parseCacheSize(llvm::StringRef text) {
  double scale = 1;
  if (text.consume_back("K"))
    scale = 1;
  else if (text.consume_back("M"))
    scale = 1024;
  else if (text.consume_back("G"))
    scale = 1024 * 1024;
  else
    scale = 1.0 / 1024;
  uint64_t value = 0;
  if (text.getAsInteger(10, value))
    return 0;
  return value * scale;
}

void readCacheSizes(HardwareFeatures &features) {
  for (unsigned index = 0;; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    if (!llvm::sys::fs::is_directory(dir))
      break;
    std::string type = readSmallFile(dir + "/type");
    std::string level = readSmallFile(dir + "/level");
    double kib = parseCacheSize(readSmallFile(dir + "/size"));
    if (type == "Instruction")
      continue;
    if (level == "1")
      features.l1KiB = kib;
    else if (level == "2")
      features.l2KiB = kib;
    else if (level == "3")
      features.l3KiB = kib;
  }
  // Some sandboxes and VMs hide the cache directories of sysfs; glibc then
  // still answers from CPUID. Without either, the sizes stay 0 (unknown).
  auto fromSysconf = [](double &kib, int name) {
    long bytes = kib > 0 ? 0 : sysconf(name);
    if (bytes > 0)
      kib = bytes / 1024.0;
  };
  fromSysconf(features.l1KiB, _SC_LEVEL1_DCACHE_SIZE);
  fromSysconf(features.l2KiB, _SC_LEVEL2_CACHE_SIZE);
  fromSysconf(features.l3KiB, _SC_LEVEL3_CACHE_SIZE);
}

} // namespace

std::string mlir::tcl::getHostCpuModel() {
  if (auto cpuinfo = llvm::MemoryBuffer::getFileAsStream("/proc/cpuinfo")) {
    llvm::SmallVector<llvm::StringRef> lines;
    (*cpuinfo)->getBuffer().split(lines, '\n');
    for (llvm::StringRef line : lines)
      if (line.starts_with("model name"))
        return line.split(':').second.trim().str();
  }
  return "unknown CPU";
}

std::string mlir::tcl::describeHost() {
  return getHostCpuModel() + " (" + getHostMachineName() + "), " +
         std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " logical cores";
}

/// A GPU platform's features, from what the CUDA driver says of device 0:
/// multiprocessors for cores, shared memory a multiprocessor for L1, the
/// L2, the FP32 FMA peak and the memory bandwidth of its clocks.
static llvm::Expected<HardwareFeatures> probeGpu(const TargetArch &target) {
  cuda::Driver *driver = cuda::Driver::get();
  if (!driver)
    return llvm::createStringError(cuda::Driver::getLoadError());
  const cuda::DeviceProperties &device = driver->getProperties();
  std::string arch = device.getArchName();
  if (arch != target.cpu)
    return llvm::createStringError("the CUDA device is " + device.name + " (" +
                                   arch + "), not " + target.cpu.str() +
                                   " as " + target.name.str() + " needs");
  HardwareFeatures features = HardwareFeatures::fromTarget(target, 1);
  features.cores = device.multiprocessors;
  features.l1KiB = device.sharedMemoryPerMultiprocessor / 1024.0;
  features.l2KiB = device.l2Bytes / 1024.0;
  features.peakGflops = device.getPeakGflops();
  features.bandwidthGBs = device.getBandwidthGBs();
  features.cpuModel = device.name;
  features.machine = arch;
  return features;
}

llvm::Expected<HardwareFeatures>
mlir::tcl::probeHardware(const Platform &platform) {
  const TargetArch &target = platform.getTarget();
  unsigned threads = platform.getThreads();
  if (target.kind == TargetKind::GPU)
    return probeGpu(target);
  if (llvm::Error error = checkHostSupports(target))
    return std::move(error);
  HardwareFeatures features = HardwareFeatures::fromTarget(target, threads);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  features.cores = online > 0 ? static_cast<unsigned>(online) : 0;
  readCacheSizes(features);
  features.peakGflops = measurePeakGflops(target, threads);
  features.bandwidthGBs = measureBandwidthGBs(threads);
  features.cpuModel = getHostCpuModel();
  features.machine = getHostMachineName();
  return features;
}

//===----------------------------------------------------------------------===//
// LoadMonitor
//===----------------------------------------------------------------------===//

namespace {

/// Fields of /proc/<pid>/stat after the command name: state is field 3;
/// pgrp 5; utime, stime, cutime, cstime 14-17 (1-based, proc(5)).
struct ProcessTimes {
  long pgrp = -1;
  uint64_t ticks = 0;
};

std::optional<ProcessTimes> readProcessTimes(const std::string &path) {
  std::string text = readSmallFile(path);
  // The command name is in parentheses and may contain spaces.
  size_t close = text.rfind(')');
  if (close == std::string::npos)
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef> fields;
  llvm::StringRef(text).drop_front(close + 1).split(fields, ' ', -1, false);
  // fields[0] is field 3 (state).
  if (fields.size() < 15)
    return std::nullopt;
  ProcessTimes times;
  if (fields[2].getAsInteger(10, times.pgrp))
    return std::nullopt;
  for (unsigned field = 14; field <= 17; ++field) {
    uint64_t value = 0;
    if (fields[field - 3].getAsInteger(10, value))
      return std::nullopt;
    times.ticks += value;
  }
  return times;
}

} // namespace

LoadMonitor::Snapshot LoadMonitor::take() {
  Snapshot snapshot;
  snapshot.wallSeconds =
      std::chrono::duration<double>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count();
  // "cpu  user nice system idle iowait irq softirq steal ...": everything
  // but idle and iowait is busy; steal is time another guest took.
  std::string stat = readSmallFile("/proc/stat");
  llvm::StringRef line = llvm::StringRef(stat).split('\n').first;
  llvm::SmallVector<llvm::StringRef> fields;
  line.split(fields, ' ', -1, false);
  for (size_t i = 1; i < fields.size() && i <= 8; ++i) {
    uint64_t value = 0;
    if (i == 4 || i == 5 || fields[i].getAsInteger(10, value))
      continue;
    snapshot.machineBusy += value;
  }
  long group = getpgrp();
  if (DIR *proc = opendir("/proc")) {
    while (dirent *entry = readdir(proc)) {
      if (!llvm::all_of(llvm::StringRef(entry->d_name), llvm::isDigit))
        continue;
      std::optional<ProcessTimes> times =
          readProcessTimes(std::string("/proc/") + entry->d_name + "/stat");
      if (times && times->pgrp == group)
        snapshot.groupTime += times->ticks;
    }
    closedir(proc);
  }
  return snapshot;
}

void LoadMonitor::restart() { start = take(); }

double LoadMonitor::elapsedSeconds() const {
  return take().wallSeconds - start.wallSeconds;
}

double LoadMonitor::foreignCores() const {
  Snapshot now = take();
  double seconds = now.wallSeconds - start.wallSeconds;
  long ticksPerSecond = sysconf(_SC_CLK_TCK);
  if (seconds <= 0 || ticksPerSecond <= 0 || now.machineBusy == 0)
    return 0;
  double busy = double(now.machineBusy - start.machineBusy);
  // A group member that exited unreaped takes its time with it; that can
  // only overstate the foreign load (and cause a re-measurement).
  double own = now.groupTime >= start.groupTime
                   ? double(now.groupTime - start.groupTime)
                   : 0;
  return std::max(0.0, (busy - own) / ticksPerSecond / seconds);
}

//===----------------------------------------------------------------------===//
// LoadEnvironment
//===----------------------------------------------------------------------===//

LoadEnvironment::~LoadEnvironment() = default;

namespace {
class MachineLoadEnvironment : public LoadEnvironment {
public:
  std::function<double()> startWindow() override {
    auto monitor = std::make_shared<LoadMonitor>();
    return [monitor] { return monitor->foreignCores(); };
  }
  double nowSeconds() override {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void sleep(double seconds) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
};
} // namespace

LoadEnvironment &LoadEnvironment::machine() {
  static MachineLoadEnvironment environment;
  return environment;
}
