/*===- run-model.c - Runs a compiled model through its C API -------------===*
 *
 * Part of the tcl project.
 *
 *===----------------------------------------------------------------------===*
 *
 * For machines that have a GPU but not tcl's toolchain (LLVM, MLIR): runs a
 * library from tcl-compile --emit=so on the raw inputs beside it
 * (input_<i>.bin, the tensors' bytes), compares its outputs with
 * output_<i>.bin when there, and times it. Depends on libc and libdl only.
 *
 *   run-model MODEL_DIR [REPEATS]
 *
 * prints "<dir> <target>: max relative error E: ok|WRONG; median T ms, min
 * M ms over N runs" and exits 0 only when the run succeeded and matched.
 * Those times include the copies between host and device. For a GPU
 * library it then runs the model N times more with tcl's CUDA runtime
 * timing each kernel with CUDA events, and prints the kernels' median time
 * a run (the sum of the run's kernels) and its minimum.
 *
 *===----------------------------------------------------------------------===*/

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void *(*create_f)(void);
typedef const char *(*text_f)(void);
typedef int (*run_f)(void *, const void *const *, void *const *);
typedef int (*count_f)(void);
typedef int (*index_f)(int);
typedef const int64_t *(*shape_f)(int);

static size_t element_bytes(int type) {
  switch (type) {
  case 1:
  case 6:
    return 4; /* float, int32 */
  case 7:
    return 8; /* int64 */
  default:
    return 1; /* uint8, int8, bool */
  }
}

static size_t tensor_bytes(index_f type, index_f rank, shape_f shape, int i) {
  size_t bytes = element_bytes(type(i));
  for (int d = 0; d < rank(i); ++d)
    bytes *= (size_t)shape(i)[d];
  return bytes;
}

/* The file's bytes into a new buffer of `bytes`; 0 if it is not there or
   has another size. */
static void *read_file(const char *path, size_t bytes) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return 0;
  void *data = malloc(bytes ? bytes : 1);
  size_t got = fread(data, 1, bytes, file);
  int extra = fgetc(file) != EOF;
  fclose(file);
  if (got != bytes || extra) {
    free(data);
    return 0;
  }
  return data;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define SYMBOL(type, name)                                                     \
  type name = (type)dlsym(library, #name);                                     \
  if (!name) {                                                                 \
    fprintf(stderr, "%s: no symbol %s\n", path, #name);                        \
    return 1;                                                                  \
  }

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: run-model MODEL_DIR [REPEATS]\n");
    return 2;
  }
  const char *dir = argv[1];
  int repeats = argc > 2 ? atoi(argv[2]) : 10;
  if (repeats < 1)
    repeats = 1;
  char path[4096];
  snprintf(path, sizeof(path), "%s/model.so", dir);
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return 1;
  }
  SYMBOL(create_f, tcl_model_create)
  SYMBOL(text_f, tcl_model_error)
  SYMBOL(text_f, tcl_model_target)
  SYMBOL(run_f, tcl_model_run)
  SYMBOL(count_f, tcl_model_num_inputs)
  SYMBOL(count_f, tcl_model_num_outputs)
  SYMBOL(index_f, tcl_model_input_type)
  SYMBOL(index_f, tcl_model_output_type)
  SYMBOL(index_f, tcl_model_input_rank)
  SYMBOL(index_f, tcl_model_output_rank)
  SYMBOL(shape_f, tcl_model_input_shape)
  SYMBOL(shape_f, tcl_model_output_shape)
  void *model = tcl_model_create();
  if (!model) {
    fprintf(stderr, "%s: %s\n", dir, tcl_model_error());
    return 1;
  }
  int num_inputs = tcl_model_num_inputs(),
      num_outputs = tcl_model_num_outputs();
  const void **inputs = calloc(num_inputs + 1, sizeof(void *));
  void **outputs = calloc(num_outputs + 1, sizeof(void *));
  void **expected = calloc(num_outputs + 1, sizeof(void *));
  for (int i = 0; i < num_inputs; ++i) {
    size_t bytes = tensor_bytes(tcl_model_input_type, tcl_model_input_rank,
                                tcl_model_input_shape, i);
    snprintf(path, sizeof(path), "%s/input_%d.bin", dir, i);
    if (!(inputs[i] = read_file(path, bytes))) {
      fprintf(stderr, "%s: no input of %zu bytes at %s\n", dir, bytes, path);
      return 1;
    }
  }
  for (int i = 0; i < num_outputs; ++i) {
    size_t bytes = tensor_bytes(tcl_model_output_type, tcl_model_output_rank,
                                tcl_model_output_shape, i);
    outputs[i] = calloc(1, bytes ? bytes : 1);
    snprintf(path, sizeof(path), "%s/output_%d.bin", dir, i);
    expected[i] = read_file(path, bytes);
  }
  double *times = calloc(repeats, sizeof(double));
  for (int r = 0; r < repeats + 1; ++r) {
    double start = now_ms();
    if (tcl_model_run(model, inputs, outputs) != 0) {
      fprintf(stderr, "%s: the run failed: %s\n", dir, tcl_model_error());
      return 1;
    }
    if (r > 0) /* the first run loads the kernels */
      times[r - 1] = now_ms() - start;
  }
  /* The kernels alone, timed by the CUDA runtime beside a GPU library. */
  double *kernel_times = 0;
  snprintf(path, sizeof(path), "%s/libtcl_cuda_runtime.so", dir);
  void *runtime = strstr(tcl_model_target(), "nvptx")
                      ? dlopen(path, RTLD_NOW | RTLD_LOCAL)
                      : 0;
  if (runtime) {
    void (*time_kernels)(int) =
        (void (*)(int))dlsym(runtime, "tclCudaTimeKernels");
    double (*take_kernel_ms)(void) =
        (double (*)(void))dlsym(runtime, "tclCudaTakeKernelMilliseconds");
    if (time_kernels && take_kernel_ms) {
      kernel_times = calloc(repeats, sizeof(double));
      time_kernels(1);
      take_kernel_ms();
      for (int r = 0; r < repeats; ++r) {
        if (tcl_model_run(model, inputs, outputs) != 0) {
          fprintf(stderr, "%s: the timed run failed: %s\n", dir,
                  tcl_model_error());
          return 1;
        }
        kernel_times[r] = take_kernel_ms();
      }
      time_kernels(0);
      qsort(kernel_times, repeats, sizeof(double), compare_doubles);
    }
  }
  double error = 0;
  int compared = 0;
  for (int i = 0; i < num_outputs; ++i) {
    if (!expected[i] || tcl_model_output_type(i) != 1)
      continue;
    ++compared;
    size_t count = tensor_bytes(tcl_model_output_type, tcl_model_output_rank,
                                tcl_model_output_shape, i) /
                   4;
    const float *got = outputs[i], *want = expected[i];
    double scale = 0;
    for (size_t k = 0; k < count; ++k)
      scale = fmax(scale, fabs(want[k]));
    for (size_t k = 0; k < count; ++k)
      error = fmax(error, fabs(got[k] - want[k]) / (scale > 0 ? scale : 1));
  }
  qsort(times, repeats, sizeof(double), compare_doubles);
  int ok = compared > 0 && error < 1e-3;
  printf("%s %s: max relative error %.2e (%d outputs): %s; median %.3f ms, "
         "min %.3f ms over %d runs\n",
         dir, tcl_model_target(), error, compared,
         compared ? (ok ? "ok" : "WRONG") : "no expected outputs",
         times[repeats / 2], times[0], repeats);
  if (kernel_times)
    printf("%s kernels: median %.4f ms, min %.4f ms a run over %d runs\n", dir,
           kernel_times[repeats / 2], kernel_times[0], repeats);
  return ok || compared == 0 ? 0 : 1;
}
