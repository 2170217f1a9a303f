//===- Runtime.cpp - MLIR's GPU runtime interface over tcl's driver -------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The host code of a module lowered for a GPU (gpu-to-llvm) calls the mgpu*
// functions MLIR's CUDA runtime wrappers define; Debian does not ship that
// library, so libtcl_cuda_runtime.so defines them over tcl's driver layer.
// Two differences:
//
//  - modules are loaded once: MLIR's host code loads the kernels' module
//    before each launch and unloads it after, which would JIT-compile a
//    model's whole PTX at every kernel. The first load of an image is kept
//    (keyed by its address, length and a fingerprint of its text, so that a
//    library loaded later at the same address is not mistaken for it) and
//    unloading is deferred to the end of the process;
//  - errors do not abort: the first one is kept (tclCudaTakeError) and
//    later calls do nothing, so that a model's run can report it;
//  - a model's weights are uploaded once: a copy from host bytes that lie
//    in a read-only segment of a loaded image (a compiled model's
//    constants) is served from a device copy made at its first use, a
//    device-to-device copy instead of one over the host's bus at every run.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Cuda/Driver.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <link.h>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

using namespace mlir::tcl::cuda;

namespace {
std::mutex errorMutex;
std::string firstError;

void fail(const std::string &message) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (firstError.empty())
    firstError = message;
}

bool failed() {
  std::lock_guard<std::mutex> lock(errorMutex);
  return !firstError.empty();
}

/// The driver with its context current on this thread, or null (and the
/// error kept).
Driver *driver() {
  Driver *loaded = Driver::get();
  if (!loaded) {
    fail(Driver::getLoadError());
    return nullptr;
  }
  thread_local bool current = false;
  if (!current) {
    if (CUresult result = loaded->makeCurrent(); result != kSuccess) {
      fail("cannot use the CUDA context: " + loaded->describe(result));
      return nullptr;
    }
    current = true;
  }
  return loaded;
}

bool check(Driver *loaded, CUresult result, const char *what) {
  if (result == kSuccess)
    return true;
  fail(std::string(what) + ": " + loaded->describe(result));
  return false;
}

/// FNV-1a over `size` bytes.
uint64_t hashBytes(const char *data, size_t size) {
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i)
    hash = (hash ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  return hash;
}

/// Kernel timing (tclCudaTimeKernels): each launch between two events on
/// its stream, waited for, its time added up.
std::atomic<bool> timingKernels{false};
std::mutex timingMutex;
double kernelMilliseconds = 0;

/// Launches through `launch` between two events and adds the time between
/// them to kernelMilliseconds. Waits for the kernel: for measurement only.
template <typename Launch>
void launchTimed(Driver *loaded, CUstream stream, Launch launch) {
  thread_local CUevent start = nullptr, stop = nullptr;
  if (!start && (!check(loaded, loaded->cuEventCreate(&start, 0),
                        "cannot create a CUDA event") ||
                 !check(loaded, loaded->cuEventCreate(&stop, 0),
                        "cannot create a CUDA event")))
    return;
  float milliseconds = 0;
  if (check(loaded, loaded->cuEventRecord(start, stream),
            "cannot record a CUDA event") &&
      launch() &&
      check(loaded, loaded->cuEventRecord(stop, stream),
            "cannot record a CUDA event") &&
      check(loaded, loaded->cuEventSynchronize(stop),
            "a kernel failed (waiting for its end)") &&
      check(loaded, loaded->cuEventElapsedTime(&milliseconds, start, stop),
            "cannot read a kernel's time")) {
    std::lock_guard<std::mutex> lock(timingMutex);
    kernelMilliseconds += milliseconds;
  }
}

/// Device copies of read-only host bytes, by address and size; kept until
/// the process ends or unloads a shared object (another library loaded at
/// the same address could hold other constants there).
std::mutex constantMutex;
std::map<std::pair<const void *, size_t>, CUdeviceptr> constantCopies;
unsigned long long constantCopiesUnloads = 0;

/// Addresses [begin, end), and whether the loaded segment that holds them
/// all is read-only (found by findSegment).
struct ImageRange {
  uintptr_t begin, end;
  bool readOnly = false;
};

/// dl_iterate_phdr's callback: stops at the loadable segment of an image
/// that holds the whole ImageRange `data`.
int findSegment(dl_phdr_info *info, size_t, void *data) {
  auto *range = static_cast<ImageRange *>(data);
  for (int index = 0; index < info->dlpi_phnum; ++index) {
    const ElfW(Phdr) &header = info->dlpi_phdr[index];
    if (header.p_type != PT_LOAD)
      continue;
    uintptr_t begin = info->dlpi_addr + header.p_vaddr;
    uintptr_t end = begin + header.p_memsz;
    if (range->begin >= begin && range->end <= end) {
      range->readOnly = !(header.p_flags & PF_W);
      return 1;
    }
  }
  return 0;
}

/// Shared objects the process has unloaded so far (the C library's count).
unsigned long long countUnloads() {
  unsigned long long unloads = 0;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t size, void *data) {
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
          *static_cast<unsigned long long *>(data) = info->dlpi_subs;
        return 1;
      },
      &unloads);
  return unloads;
}

/// The device copy of the read-only host bytes [source, source + bytes),
/// uploaded on first use; 0 if they are not read-only image data (or the
/// upload failed, with the error kept).
CUdeviceptr getConstantCopy(Driver *loaded, const void *source, size_t bytes) {
  std::lock_guard<std::mutex> lock(constantMutex);
  if (unsigned long long unloads = countUnloads();
      unloads != constantCopiesUnloads) {
    // Copies still queued may read the old buffers: wait for them first.
    if (!constantCopies.empty() &&
        check(loaded, loaded->cuCtxSynchronize(),
              "a kernel failed (synchronizing the device)"))
      for (auto &[key, copy] : constantCopies)
        loaded->cuMemFree(copy);
    constantCopies.clear();
    constantCopiesUnloads = unloads;
  }
  auto key = std::make_pair(source, bytes);
  if (auto it = constantCopies.find(key); it != constantCopies.end())
    return it->second;
  if (!isReadOnlyImageData(source, bytes))
    return 0;
  CUdeviceptr copy = 0;
  if (!check(loaded, loaded->cuMemAlloc(&copy, bytes),
             "cannot allocate device memory for a model's constants"))
    return 0;
  if (!check(loaded, loaded->cuMemcpyHtoD(copy, source, bytes),
             "cannot upload a model's constants")) {
    loaded->cuMemFree(copy);
    return 0;
  }
  constantCopies[key] = copy;
  return copy;
}

using ModuleKey = std::tuple<const void *, size_t, uint64_t>;
std::mutex moduleMutex;
std::map<ModuleKey, CUmodule> modules;

/// The module of image `data` (`size` bytes, or a NUL-terminated PTX text
/// when `size` is 0), loaded on first use.
CUmodule loadModule(const void *data, size_t size) {
  Driver *loaded = driver();
  if (!loaded || failed())
    return nullptr;
  const char *bytes = static_cast<const char *>(data);
  if (size == 0)
    size = std::strlen(bytes);
  // The fingerprint: the text's first and last KiB.
  size_t edge = std::min<size_t>(size, 1024);
  uint64_t fingerprint =
      hashBytes(bytes, edge) ^ (hashBytes(bytes + size - edge, edge) << 1);
  ModuleKey key{data, size, fingerprint};
  std::lock_guard<std::mutex> lock(moduleMutex);
  auto it = modules.find(key);
  if (it != modules.end())
    return it->second;
  CUmodule module = nullptr;
  if (!check(loaded, loaded->cuModuleLoadData(&module, data),
             "cannot load the kernels' module"))
    return nullptr;
  modules[key] = module;
  return module;
}
} // namespace

bool mlir::tcl::cuda::isReadOnlyImageData(const void *data, size_t bytes) {
  auto begin = reinterpret_cast<uintptr_t>(data);
  ImageRange range{begin, begin + bytes};
  if (bytes == 0 || range.end < begin)
    return false;
  dl_iterate_phdr(findSegment, &range);
  return range.readOnly;
}

extern "C" {

/// The first error of a CUDA runtime call since the last take ("" if none),
/// cleared.
const char *tclCudaTakeError() {
  thread_local std::string taken;
  std::lock_guard<std::mutex> lock(errorMutex);
  taken = firstError;
  firstError.clear();
  return taken.c_str();
}

/// Whether a run has failed since the last take: "" if not, else a
/// non-empty text (the error itself comes with tclCudaTakeError).
const char *tclCudaPeekError() { return failed() ? "failed" : ""; }

/// Why this machine cannot run GPU kernels ("" if it can).
const char *tclCudaDeviceError() {
  return Driver::get() ? "" : Driver::getLoadError().c_str();
}

void tclCudaTimeKernels(int enable) {
  timingKernels.store(enable != 0, std::memory_order_relaxed);
}

double tclCudaTakeKernelMilliseconds() {
  std::lock_guard<std::mutex> lock(timingMutex);
  double taken = kernelMilliseconds;
  kernelMilliseconds = 0;
  return taken;
}

CUmodule mgpuModuleLoad(void *data, size_t size) {
  return loadModule(data, size);
}

CUmodule mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  return loadModule(data, 0);
}

void mgpuModuleUnload(CUmodule) {
  // Kept for the next launch (see the file comment).
}

CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  Driver *loaded = driver();
  if (!loaded || !module || failed())
    return nullptr;
  CUfunction function = nullptr;
  check(loaded, loaded->cuModuleGetFunction(&function, module, name),
        (std::string("no kernel ") + name).c_str());
  return function;
}

void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, CUstream stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  Driver *loaded = driver();
  if (!loaded || !function || failed())
    return;
  auto launch = [&] {
    return check(loaded,
                 loaded->cuLaunchKernel(function, gridX, gridY, gridZ, blockX,
                                        blockY, blockZ, sharedBytes, stream,
                                        params, extra),
                 "cannot launch a kernel");
  };
  if (timingKernels.load(std::memory_order_relaxed))
    launchTimed(loaded, stream, launch);
  else
    launch();
}

CUstream mgpuStreamCreate() {
  Driver *loaded = driver();
  CUstream stream = nullptr;
  if (loaded)
    check(loaded, loaded->cuStreamCreate(&stream, /*flags=*/0),
          "cannot create a stream");
  return stream;
}

void mgpuStreamDestroy(CUstream stream) {
  if (Driver *loaded = driver(); loaded && stream)
    check(loaded, loaded->cuStreamDestroy(stream), "cannot destroy a stream");
}

void mgpuStreamSynchronize(CUstream stream) {
  if (Driver *loaded = driver())
    check(loaded, loaded->cuStreamSynchronize(stream),
          "a kernel failed (synchronizing its stream)");
}

void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                   bool /*isHostShared*/) {
  Driver *loaded = driver();
  CUdeviceptr pointer = 0;
  if (loaded && sizeBytes > 0)
    check(loaded, loaded->cuMemAlloc(&pointer, sizeBytes),
          ("cannot allocate " + std::to_string(sizeBytes) +
           " bytes of device memory")
              .c_str());
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, CUstream /*stream*/) {
  if (Driver *loaded = driver(); loaded && pointer)
    check(loaded, loaded->cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)),
          "cannot free device memory");
}

// Pointers are unified (host and device in one address space): the driver
// tells the direction of a copy from them. In the stream's order, after the
// kernels before it.
void mgpuMemcpy(void *destination, void *source, size_t sizeBytes,
                CUstream stream) {
  Driver *loaded = driver();
  if (!loaded || sizeBytes == 0 || failed())
    return;
  auto from = reinterpret_cast<CUdeviceptr>(source);
  if (CUdeviceptr copy = getConstantCopy(loaded, source, sizeBytes))
    from = copy;
  else if (failed())
    return;
  check(loaded,
        loaded->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(destination), from,
                              sizeBytes, stream),
        "cannot copy memory");
}

void mgpuMemset32(void *destination, unsigned value, size_t count,
                  CUstream /*stream*/) {
  if (Driver *loaded = driver(); loaded && count > 0)
    check(loaded,
          loaded->cuMemsetD32(reinterpret_cast<CUdeviceptr>(destination), value,
                              count),
          "cannot set device memory");
}

void mgpuSetDefaultDevice(int32_t device) {
  if (device != 0)
    fail("tcl uses CUDA device 0 only");
}

} // extern "C"
