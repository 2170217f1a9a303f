//===- FakeCudaDriver.cpp - A CUDA driver without a GPU, for tests --------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Built as libcuda.so.1 in a directory of its own, which only
// TclCudaRuntimeTests finds (LD_LIBRARY_PATH): the driver entry points tcl's
// CUDA runtime opens, over host memory. "Device" memory is host memory
// from malloc, copies are memcpy, launches are counted and run nothing, and
// every event pair is kFakeKernelMilliseconds apart. The tests read what
// happened through fakeCuda* functions.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {
using CUresult = int;
constexpr CUresult kSuccess = 0, kOutOfMemory = 2;
constexpr float kFakeKernelMilliseconds = 0.25f;
// Allocations above this many bytes fail, as on a full device.
constexpr size_t kMaxAllocation = size_t(1) << 30;

struct Counts {
  int allocations = 0, frees = 0, hostToDevice = 0, asyncCopies = 0,
      launches = 0;
  const void *lastAsyncSource = nullptr;
} counts;
int fakeContext, fakeModule, fakeFunction, fakeStream, fakeEvent;
} // namespace

extern "C" {
// What the tests read.
int fakeCudaAllocations() { return counts.allocations; }
int fakeCudaFrees() { return counts.frees; }
int fakeCudaHostToDeviceCopies() { return counts.hostToDevice; }
int fakeCudaAsyncCopies() { return counts.asyncCopies; }
int fakeCudaLaunches() { return counts.launches; }
const void *fakeCudaLastAsyncSource() { return counts.lastAsyncSource; }
float fakeCudaKernelMilliseconds() { return kFakeKernelMilliseconds; }

CUresult cuInit(unsigned) { return kSuccess; }
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return kSuccess;
}
CUresult cuDeviceGet(int *device, int) {
  *device = 0;
  return kSuccess;
}
CUresult cuDeviceGetName(char *name, int length, int) {
  std::strncpy(name, "Fake GPU", length);
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int *value, int, int) {
  *value = 1;
  return kSuccess;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, int) {
  *bytes = kMaxAllocation;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int) {
  *context = &fakeContext;
  return kSuccess;
}
CUresult cuCtxSetCurrent(void *) { return kSuccess; }
CUresult cuCtxSynchronize() { return kSuccess; }
CUresult cuGetErrorName(CUresult result, const char **name) {
  *name = result == kOutOfMemory ? "CUDA_ERROR_OUT_OF_MEMORY"
                                 : "CUDA_ERROR_INVALID_VALUE";
  return kSuccess;
}
CUresult cuGetErrorString(CUresult result, const char **text) {
  *text = result == kOutOfMemory ? "out of memory" : "invalid argument";
  return kSuccess;
}
CUresult cuModuleLoadData(void **module, const void *) {
  *module = &fakeModule;
  return kSuccess;
}
CUresult cuModuleUnload(void *) { return kSuccess; }
CUresult cuModuleGetFunction(void **function, void *, const char *) {
  *function = &fakeFunction;
  return kSuccess;
}
CUresult cuLaunchKernel(void *, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, void *, void **,
                        void **) {
  ++counts.launches;
  return kSuccess;
}
CUresult cuMemAlloc_v2(uint64_t *pointer, size_t bytes) {
  if (bytes > kMaxAllocation)
    return kOutOfMemory;
  ++counts.allocations;
  *pointer = reinterpret_cast<uint64_t>(std::malloc(bytes));
  return kSuccess;
}
CUresult cuMemFree_v2(uint64_t pointer) {
  ++counts.frees;
  std::free(reinterpret_cast<void *>(pointer));
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(uint64_t destination, const void *source,
                         size_t bytes) {
  ++counts.hostToDevice;
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void *destination, uint64_t source, size_t bytes) {
  std::memcpy(destination, reinterpret_cast<const void *>(source), bytes);
  return kSuccess;
}
CUresult cuMemcpyAsync(uint64_t destination, uint64_t source, size_t bytes,
                       void *) {
  ++counts.asyncCopies;
  counts.lastAsyncSource = reinterpret_cast<const void *>(source);
  std::memcpy(reinterpret_cast<void *>(destination),
              reinterpret_cast<const void *>(source), bytes);
  return kSuccess;
}
CUresult cuMemsetD32_v2(uint64_t destination, unsigned value, size_t count) {
  auto *words = reinterpret_cast<unsigned *>(destination);
  for (size_t index = 0; index < count; ++index)
    words[index] = value;
  return kSuccess;
}
CUresult cuStreamCreate(void **stream, unsigned) {
  *stream = &fakeStream;
  return kSuccess;
}
CUresult cuStreamSynchronize(void *) { return kSuccess; }
CUresult cuStreamDestroy_v2(void *) { return kSuccess; }
CUresult cuEventCreate(void **event, unsigned) {
  *event = &fakeEvent;
  return kSuccess;
}
CUresult cuEventRecord(void *, void *) { return kSuccess; }
CUresult cuEventSynchronize(void *) { return kSuccess; }
CUresult cuEventElapsedTime(float *milliseconds, void *, void *) {
  *milliseconds = kFakeKernelMilliseconds;
  return kSuccess;
}
CUresult cuEventDestroy_v2(void *) { return kSuccess; }
} // extern "C"
