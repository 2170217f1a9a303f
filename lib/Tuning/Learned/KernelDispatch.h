//===- KernelDispatch.h - Running the fused CPU kernels ---------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// What the fused kernels of SelectiveScan.cpp and CausalConv.cpp share: a
// kernel is a function over a range [begin, end) of the batch that writes
// its partial sums to slot `chunk`. forEachChunk splits the batch over
// torch's threads, and runBest runs the kernel through a clone compiled
// for AVX-512, else AVX2 with FMA, when the CPU has it (the project is
// built for baseline x86-64). The kernels are TCL_ALWAYS_INLINE so that
// each clone gets its own copy, vectorized for its target.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_LIB_TUNING_LEARNED_KERNELDISPATCH_H
#define TCL_LIB_TUNING_LEARNED_KERNELDISPATCH_H

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define TCL_HAVE_AVX512_CLONE 1
#define TCL_TARGET_AVX512                                                      \
  __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")))
#define TCL_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define TCL_HAVE_AVX512_CLONE 0
#define TCL_TARGET_AVX512
#define TCL_TARGET_AVX2
#endif
#define TCL_ALWAYS_INLINE inline __attribute__((always_inline))

namespace mlir::tcl::learned {

/// Calls body(chunk, begin, end) for a split of [0, n) into
/// min(n, threads) chunks, in parallel. The split depends only on n and the
/// thread count, so per-chunk partial sums reduce the same way every run.
template <typename Body> int64_t forEachChunk(int64_t n, const Body &body) {
  int64_t chunks = std::max<int64_t>(
      1, std::min<int64_t>(n, static_cast<int64_t>(at::get_num_threads())));
  if (chunks == 1) {
    body(0, 0, n);
    return 1;
  }
  at::parallel_for(0, chunks, 1, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; ++c)
      body(c, c * n / chunks, (c + 1) * n / chunks);
  });
  return chunks;
}

/// Runs a kernel compiled for AVX-512, else for AVX2 with FMA, when the CPU
/// has it (the project is built for baseline x86-64, and the scan is where
/// vector width pays).
#if TCL_HAVE_AVX512_CLONE
template <typename Args,
          void (*Kernel)(const Args &, int64_t, int64_t, int64_t)>
TCL_TARGET_AVX512 void runAvx512(const Args &args, int64_t chunk, int64_t begin,
                                 int64_t end) {
  Kernel(args, chunk, begin, end);
}

template <typename Args,
          void (*Kernel)(const Args &, int64_t, int64_t, int64_t)>
TCL_TARGET_AVX2 void runAvx2(const Args &args, int64_t chunk, int64_t begin,
                             int64_t end) {
  Kernel(args, chunk, begin, end);
}

inline bool hasAvx2() {
  static const bool has =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

inline bool hasAvx512() {
  static const bool has =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
  return has;
}
#endif

template <typename Args,
          void (*Kernel)(const Args &, int64_t, int64_t, int64_t)>
void runBest(const Args &args, int64_t chunk, int64_t begin, int64_t end) {
#if TCL_HAVE_AVX512_CLONE
  if (hasAvx512())
    return runAvx512<Args, Kernel>(args, chunk, begin, end);
  if (hasAvx2())
    return runAvx2<Args, Kernel>(args, chunk, begin, end);
#endif
  Kernel(args, chunk, begin, end);
}

template <typename T> const T *dataOf(const torch::Tensor &t) {
  return t.data_ptr<T>();
}
template <typename T> T *mutableDataOf(torch::Tensor &t) {
  return t.data_ptr<T>();
}

} // namespace mlir::tcl::learned

#endif // TCL_LIB_TUNING_LEARNED_KERNELDISPATCH_H
