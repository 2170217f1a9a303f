/* Uses a compiled model through its C API only (header from tcl-compile,
   passed with -include). Runs it once on all-ones inputs. */
#include <stdio.h>
#include <stdlib.h>

static long count(int rank, const int64_t *shape) {
  long n = 1;
  for (int d = 0; d < rank; ++d)
    n *= shape[d];
  return n;
}

int main(void) {
  printf("target: %s\n", tcl_model_target());
  tcl_model *model = tcl_model_create();
  if (!model) {
    printf("tcl_model_create refused: this CPU cannot run %s code\n",
           tcl_model_target());
    return 2;
  }
  int numInputs = tcl_model_num_inputs(), numOutputs = tcl_model_num_outputs();
  const float *inputs[16];
  float *outputs[16];
  for (int i = 0; i < numInputs; ++i) {
    int rank = tcl_model_input_rank(i);
    long n = count(rank, tcl_model_input_shape(i));
    float *data = malloc(n * sizeof(float));
    for (long j = 0; j < n; ++j)
      data[j] = 1.0f;
    inputs[i] = data;
    printf("input %d: %s rank %d elements %ld\n", i, tcl_model_input_name(i),
           rank, n);
  }
  for (int i = 0; i < numOutputs; ++i) {
    int rank = tcl_model_output_rank(i);
    long n = count(rank, tcl_model_output_shape(i));
    outputs[i] = calloc(n, sizeof(float));
    printf("output %d: %s rank %d elements %ld\n", i, tcl_model_output_name(i),
           rank, n);
  }
  printf("threads: %d\n", tcl_model_num_threads());
  printf("run: %d\n", tcl_model_run(model, inputs, outputs));
  printf("output 0, first value: %.1f\n", outputs[0][0]);
  printf("bad index: %p %d\n", (void *)tcl_model_input_name(99),
         tcl_model_output_rank(-1));
  printf("run without buffers: %d\n", tcl_model_run(model, 0, outputs));
  tcl_model_destroy(model);
  for (int i = 0; i < numInputs; ++i)
    free((void *)inputs[i]);
  for (int i = 0; i < numOutputs; ++i)
    free(outputs[i]);
  return 0;
}
