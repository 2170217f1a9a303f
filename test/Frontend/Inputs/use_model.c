/* Uses a compiled model through its C API only (header from tcl-compile,
   passed with -include). Runs it once on inputs of all ones, each of its
   element type, and prints the first value of each output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long count(int rank, const int64_t *shape) {
  long n = 1;
  for (int d = 0; d < rank; ++d)
    n *= shape[d];
  return n;
}

static size_t elementSize(int type) {
  switch (type) {
  case TCL_FLOAT:
  case TCL_INT32:
    return 4;
  case TCL_INT64:
    return 8;
  default:
    return 1;
  }
}

static const char *typeName(int type) {
  switch (type) {
  case TCL_FLOAT:
    return "float";
  case TCL_INT64:
    return "int64";
  case TCL_INT32:
    return "int32";
  case TCL_INT8:
    return "int8";
  case TCL_UINT8:
    return "uint8";
  case TCL_BOOL:
    return "bool";
  default:
    return "?";
  }
}

static void fillOnes(int type, void *data, long n) {
  for (long j = 0; j < n; ++j) {
    switch (type) {
    case TCL_FLOAT:
      ((float *)data)[j] = 1.0f;
      break;
    case TCL_INT64:
      ((int64_t *)data)[j] = 1;
      break;
    case TCL_INT32:
      ((int32_t *)data)[j] = 1;
      break;
    default:
      ((uint8_t *)data)[j] = 1;
    }
  }
}

static double first(int type, const void *data) {
  switch (type) {
  case TCL_FLOAT:
    return *(const float *)data;
  case TCL_INT64:
    return (double)*(const int64_t *)data;
  case TCL_INT32:
    return *(const int32_t *)data;
  case TCL_INT8:
    return *(const int8_t *)data;
  default:
    return *(const uint8_t *)data;
  }
}

int main(void) {
  printf("target: %s\n", tcl_model_target());
  tcl_model *model = tcl_model_create();
  if (!model) {
    printf("tcl_model_create refused: %s\n", tcl_model_error());
    return 2;
  }
  int numInputs = tcl_model_num_inputs(), numOutputs = tcl_model_num_outputs();
  const void *inputs[16];
  void *outputs[16];
  for (int i = 0; i < numInputs; ++i) {
    int rank = tcl_model_input_rank(i), type = tcl_model_input_type(i);
    long n = count(rank, tcl_model_input_shape(i));
    void *data = malloc(n * elementSize(type));
    fillOnes(type, data, n);
    inputs[i] = data;
    printf("input %d: %s %s rank %d elements %ld\n", i,
           tcl_model_input_name(i), typeName(type), rank, n);
  }
  for (int i = 0; i < numOutputs; ++i) {
    int rank = tcl_model_output_rank(i), type = tcl_model_output_type(i);
    long n = count(rank, tcl_model_output_shape(i));
    outputs[i] = calloc(n, elementSize(type));
    printf("output %d: %s %s rank %d elements %ld\n", i,
           tcl_model_output_name(i), typeName(type), rank, n);
  }
  printf("threads: %d\n", tcl_model_num_threads());
  printf("run: %d\n", tcl_model_run(model, inputs, outputs));
  for (int i = 0; i < numOutputs; ++i)
    printf("output %d, first value: %.1f\n", i,
           first(tcl_model_output_type(i), outputs[i]));
  printf("bad index: %p %d %d\n", (void *)tcl_model_input_name(99),
         tcl_model_output_rank(-1), tcl_model_input_type(numInputs));
  printf("run without buffers: %d\n", tcl_model_run(model, 0, outputs));
  tcl_model_destroy(model);
  for (int i = 0; i < numInputs; ++i)
    free((void *)inputs[i]);
  for (int i = 0; i < numOutputs; ++i)
    free(outputs[i]);
  return 0;
}
