//===- gemm_ceiling.cpp - What a GEMM kernel can reach on this core -------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// The kernel table reports GEMMs as a share of the measured FMA peak
// (multiply-adds on registers alone, probeHardware's). A GEMM's register
// tile also loads a row of B and broadcasts A's elements every step; this
// measures, on one core, hand-written register tiles of R rows x V vectors
// over operands that stay in L1 (no cache misses, no packing, no loop
// overhead beyond the k loop), beside that peak: the ceiling of any GEMM's
// inner loop on this host. Built for the host's widest vectors
// (-march=native; 512-bit with AVX-512, else 256-bit).
// Run: build/bin/tcl-gemm-ceiling
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Machine.h"
#include "tcl/Target/Platform.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#ifdef __AVX512F__
#define VECTOR_BYTES 64
#else
#define VECTOR_BYTES 32
#endif
#define LANES (VECTOR_BYTES / 4)
typedef float Vector __attribute__((vector_size(VECTOR_BYTES)));

/// Steps of k per call: A (R rows) and B (V vectors a step) stay in L1.
#define DEPTH 256

static double now() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/// One register tile of ROWS x VECTORS: C += A (ROWS x DEPTH, rows DEPTH
/// apart) * B (DEPTH x VECTORS vectors, packed).
#define DEFINE_TILE(ROWS, VECTORS)                                             \
  __attribute__((noinline)) static void tile##ROWS##x##VECTORS(                \
      const float *a, const float *b, float *c) {                              \
    Vector acc[ROWS][VECTORS];                                                 \
    for (int i = 0; i < ROWS; ++i)                                             \
      for (int j = 0; j < VECTORS; ++j)                                        \
        memcpy(&acc[i][j], c + (i * VECTORS + j) * LANES, VECTOR_BYTES);       \
    for (int k = 0; k < DEPTH; ++k) {                                          \
      Vector row[VECTORS];                                                     \
      for (int j = 0; j < VECTORS; ++j)                                        \
        memcpy(&row[j], b + (k * VECTORS + j) * LANES, VECTOR_BYTES);          \
      for (int i = 0; i < ROWS; ++i) {                                         \
        float element = a[i * DEPTH + k]; /* broadcast to every lane */        \
        for (int j = 0; j < VECTORS; ++j)                                      \
          acc[i][j] += element * row[j];                                       \
      }                                                                        \
    }                                                                          \
    for (int i = 0; i < ROWS; ++i)                                             \
      for (int j = 0; j < VECTORS; ++j)                                        \
        memcpy(c + (i * VECTORS + j) * LANES, &acc[i][j], VECTOR_BYTES);       \
  }

DEFINE_TILE(8, 2)
DEFINE_TILE(12, 2)
DEFINE_TILE(14, 2)
DEFINE_TILE(6, 4)
DEFINE_TILE(4, 4)

typedef void (*TileKernel)(const float *, const float *, float *);

/// Best of five runs of ~0.1 s, in GFLOP/s.
static double timeTile(TileKernel kernel, int rows, int vectors) {
  auto *a =
      static_cast<float *>(aligned_alloc(64, sizeof(float) * rows * DEPTH));
  auto *b = static_cast<float *>(
      aligned_alloc(64, sizeof(float) * DEPTH * vectors * LANES));
  auto *c = static_cast<float *>(
      aligned_alloc(64, sizeof(float) * rows * vectors * LANES));
  for (int i = 0; i < rows * DEPTH; ++i)
    a[i] = 1e-3f;
  for (int i = 0; i < DEPTH * vectors * LANES; ++i)
    b[i] = 1e-3f;
  memset(c, 0, sizeof(float) * rows * vectors * LANES);
  int64_t calls = 20000;
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    double start = now();
    for (int64_t n = 0; n < calls; ++n)
      kernel(a, b, c);
    double seconds = now() - start;
    if (seconds < best)
      best = seconds;
  }
  double flops = 2.0 * rows * vectors * LANES * DEPTH * calls;
  volatile float sink = c[0];
  (void)sink;
  free(a);
  free(b);
  free(c);
  return flops / best * 1e-9;
}

int main() {
  using namespace mlir::tcl;
  // The peak the kernel table's percentages are of (one core).
  llvm::Expected<HardwareFeatures> hardware =
      probeHardware(Platform(getHostTargetArch(), 1));
  if (!hardware) {
    std::fprintf(stderr, "tcl-gemm-ceiling: %s\n",
                 llvm::toString(hardware.takeError()).c_str());
    return 1;
  }
  double peak = hardware->peakGflops;
  printf("GEMM kernel ceiling, one core, %d-bit vectors, operands in L1\n\n",
         VECTOR_BYTES * 8);
  printf("| kernel | GFLOP/s | %% of FMA peak |\n| --- | ---: | ---: |\n");
  printf("| multiply-adds on registers (measured FMA peak) | %.1f | 100%% |\n",
         peak);
  struct {
    TileKernel kernel;
    int rows, vectors;
  } tiles[] = {{tile8x2, 8, 2},
               {tile12x2, 12, 2},
               {tile14x2, 14, 2},
               {tile6x4, 6, 4},
               {tile4x4, 4, 4}};
  for (unsigned i = 0; i < sizeof(tiles) / sizeof(tiles[0]); ++i) {
    double gflops = timeTile(tiles[i].kernel, tiles[i].rows, tiles[i].vectors);
    printf("| register tile %d x %d vectors | %.1f | %.0f%% |\n", tiles[i].rows,
           tiles[i].vectors, gflops, 100 * gflops / peak);
  }
  return 0;
}
