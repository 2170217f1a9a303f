//===- Driver.h - tcl's layer over the CUDA driver API ----------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Debian has no MLIR CUDA runtime library, and machines without a GPU have
// no CUDA driver: tcl opens the driver (libcuda.so.1) itself, at run time,
// and declares the few driver types and entry points it calls, so that it
// builds and runs everywhere and says why where there is no GPU. The code
// here depends on the C++ library and libdl only: it is part of
// libtcl_cuda_runtime.so, which compiled models for GPUs load.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_RUNTIME_CUDA_DRIVER_H
#define TCL_RUNTIME_CUDA_DRIVER_H

#include <cstddef>
#include <string>

namespace mlir::tcl::cuda {

// The driver API's types, as cuda.h declares them.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
constexpr CUresult kSuccess = 0;

/// What the driver says of the device tcl uses (device 0).
struct DeviceProperties {
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  int maxThreadsPerBlock = 0, warpSize = 0;
  int sharedMemoryPerBlock = 0, sharedMemoryPerMultiprocessor = 0;
  int registersPerBlock = 0;
  int clockKHz = 0, memoryClockKHz = 0, memoryBusBits = 0;
  int l2Bytes = 0;
  size_t globalMemoryBytes = 0;

  /// The architecture as PTX names it, e.g. "sm_90".
  std::string getArchName() const {
    return "sm_" + std::to_string(computeMajor * 10 + computeMinor);
  }
  /// FP32 multiply-add peak: 128 FP32 lanes a multiprocessor (sm_80 and
  /// later), 2 operations each a cycle.
  double getPeakGflops() const;
  /// Memory bandwidth from the memory clock and bus (double data rate).
  double getBandwidthGBs() const;
};

/// The driver, once loaded: its entry points (null until then) and the
/// device tcl uses, whose primary context is current on the thread that
/// loaded it (makeCurrent for other threads).
class Driver {
public:
  /// Loads the driver on first use: libcuda.so.1, cuInit, device 0, its
  /// primary context. Null if that fails; getLoadError() says why ("no CUDA
  /// driver: ..." on machines without one, "no CUDA device" where the
  /// driver sees none).
  static Driver *get();
  static const std::string &getLoadError();

  const DeviceProperties &getProperties() const { return properties; }
  /// Makes the device's context current on the calling thread.
  CUresult makeCurrent() const;
  /// The driver's name and description of `result`, for messages.
  std::string describe(CUresult result) const;

  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule,
                                  const char *) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t,
                            CUstream) = nullptr;
  CUresult (*cuMemsetD32)(CUdeviceptr, unsigned, size_t) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;

private:
  Driver() = default;
  /// Opens the library and the device; returns why not, or "".
  std::string load();

  void *library = nullptr;
  CUcontext context = nullptr;
  DeviceProperties properties;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
};

/// Whether the `bytes` bytes at `data` lie in a read-only segment of a
/// loaded ELF image (a program's or a library's constants, such as a
/// compiled model's weights): bytes that can never change, whose device
/// copy can therefore be kept and reused.
bool isReadOnlyImageData(const void *data, size_t bytes);

} // namespace mlir::tcl::cuda

/// The first error of the MLIR GPU runtime functions (mgpu*, Runtime.cpp)
/// since the last call ("" if none), cleared: they do not abort, and calls
/// after an error do nothing, so that a run can report it.
extern "C" const char *tclCudaTakeError();
/// Non-empty if a GPU runtime function failed since the last take.
extern "C" const char *tclCudaPeekError();
/// Why this machine cannot run GPU kernels ("" if it can).
extern "C" const char *tclCudaDeviceError();
/// Times every kernel launched from now on (non-zero) or no longer (0):
/// each launch waits between two CUDA events for its kernel's end, so runs
/// are slower; for measurement, never for production runs.
extern "C" void tclCudaTimeKernels(int enable);
/// The kernels' time, in milliseconds, since the last take (0 while timing
/// is off), cleared.
extern "C" double tclCudaTakeKernelMilliseconds();

#endif // TCL_RUNTIME_CUDA_DRIVER_H
