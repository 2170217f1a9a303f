//===- Driver.cpp - tcl's layer over the CUDA driver API ------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Cuda/Driver.h"

#include <dlfcn.h>
#include <mutex>

using namespace mlir::tcl::cuda;

namespace {
// Device attributes (CUdevice_attribute in cuda.h).
enum Attribute : int {
  kMaxThreadsPerBlock = 1,
  kSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kRegistersPerBlock = 12,
  kClockRate = 13,
  kMultiprocessorCount = 16,
  kMemoryClockRate = 36,
  kMemoryBusWidth = 37,
  kL2CacheSize = 38,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kSharedMemoryPerMultiprocessor = 81,
};

/// FP32 lanes of a multiprocessor of compute capability 8.0 and later.
constexpr double kFp32LanesPerMultiprocessor = 128;

std::once_flag loadOnce;
Driver *loaded = nullptr;
std::string loadError;
} // namespace

double DeviceProperties::getPeakGflops() const {
  return multiprocessors * kFp32LanesPerMultiprocessor * 2 * clockKHz * 1e-6;
}

double DeviceProperties::getBandwidthGBs() const {
  return 2.0 * memoryClockKHz * 1e3 * (memoryBusBits / 8.0) * 1e-9;
}

Driver *Driver::get() {
  std::call_once(loadOnce, [] {
    auto *driver = new Driver();
    loadError = driver->load();
    if (loadError.empty())
      loaded = driver;
    else
      delete driver;
  });
  return loaded;
}

const std::string &Driver::getLoadError() {
  get();
  return loadError;
}

CUresult Driver::makeCurrent() const { return cuCtxSetCurrent(context); }

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(result)) +
         (text ? std::string(": ") + text : std::string());
}

std::string Driver::load() {
  library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return std::string("no CUDA driver: cannot load libcuda.so.1 (") +
           (why ? why : "not found") + ")";
  }
  std::string missing;
  auto resolve = [&](auto &function, const char *name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
        dlsym(library, name));
    if (!function)
      missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  resolve(cuInit, "cuInit");
  resolve(cuDeviceGetCount, "cuDeviceGetCount");
  resolve(cuDeviceGet, "cuDeviceGet");
  resolve(cuDeviceGetName, "cuDeviceGetName");
  resolve(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  resolve(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(cuCtxSynchronize, "cuCtxSynchronize");
  resolve(cuGetErrorName, "cuGetErrorName");
  resolve(cuGetErrorString, "cuGetErrorString");
  resolve(cuModuleLoadData, "cuModuleLoadData");
  resolve(cuModuleUnload, "cuModuleUnload");
  resolve(cuModuleGetFunction, "cuModuleGetFunction");
  resolve(cuLaunchKernel, "cuLaunchKernel");
  resolve(cuMemAlloc, "cuMemAlloc_v2");
  resolve(cuMemFree, "cuMemFree_v2");
  resolve(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  resolve(cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  resolve(cuMemcpyAsync, "cuMemcpyAsync");
  resolve(cuMemsetD32, "cuMemsetD32_v2");
  resolve(cuStreamCreate, "cuStreamCreate");
  resolve(cuStreamSynchronize, "cuStreamSynchronize");
  resolve(cuStreamDestroy, "cuStreamDestroy_v2");
  resolve(cuEventCreate, "cuEventCreate");
  resolve(cuEventRecord, "cuEventRecord");
  resolve(cuEventSynchronize, "cuEventSynchronize");
  resolve(cuEventElapsedTime, "cuEventElapsedTime");
  resolve(cuEventDestroy, "cuEventDestroy_v2");
  if (!missing.empty())
    return "the CUDA driver lacks " + missing;

  if (CUresult result = cuInit(0); result != kSuccess)
    return "the CUDA driver does not start: " + describe(result);
  int count = 0;
  if (cuDeviceGetCount(&count) != kSuccess || count == 0)
    return "no CUDA device";
  CUdevice device = 0;
  if (CUresult result = cuDeviceGet(&device, 0); result != kSuccess)
    return "no CUDA device: " + describe(result);
  char name[256] = {};
  cuDeviceGetName(name, sizeof(name) - 1, device);
  properties.name = name;
  auto attribute = [&](Attribute which) {
    int value = 0;
    cuDeviceGetAttribute(&value, which, device);
    return value;
  };
  properties.computeMajor = attribute(kComputeCapabilityMajor);
  properties.computeMinor = attribute(kComputeCapabilityMinor);
  properties.multiprocessors = attribute(kMultiprocessorCount);
  properties.maxThreadsPerBlock = attribute(kMaxThreadsPerBlock);
  properties.warpSize = attribute(kWarpSize);
  properties.sharedMemoryPerBlock = attribute(kSharedMemoryPerBlock);
  properties.sharedMemoryPerMultiprocessor =
      attribute(kSharedMemoryPerMultiprocessor);
  properties.registersPerBlock = attribute(kRegistersPerBlock);
  properties.clockKHz = attribute(kClockRate);
  properties.memoryClockKHz = attribute(kMemoryClockRate);
  properties.memoryBusBits = attribute(kMemoryBusWidth);
  properties.l2Bytes = attribute(kL2CacheSize);
  cuDeviceTotalMem(&properties.globalMemoryBytes, device);
  if (CUresult result = cuDevicePrimaryCtxRetain(&context, device);
      result != kSuccess)
    return "cannot create a context on " + properties.name + ": " +
           describe(result);
  if (CUresult result = makeCurrent(); result != kSuccess)
    return "cannot use the context of " + properties.name + ": " +
           describe(result);
  return "";
}
