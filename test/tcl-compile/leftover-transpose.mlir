// A layout transpose outside every task, split between two threads
// (tcl-parallelize-leftover-ops), compiles to a loop nest, not to LLVM's
// whole unrolling of it: with a chunk of 16 of its 32 rows a thread, every
// loop of the chunk had a small constant trip count and LLVM's -O3 unrolled
// them level after level into 30,756 loads (123,000 lines of IR, 34 s; a
// UNet for 2 threads compiled in 35 s). With one row a step: 36 loads.
// RUN: tcl-compile %s --target=x86-avx512 --num-threads=2 --emit=llvm -o %t.ll
// RUN: %system_python -c "import sys; n = open(sys.argv[1]).read().count(' = load '); print(n, 'loads'); sys.exit(n > 2000)" %t.ll
func.func @f(%x: tensor<1x64x32x32xf32>) -> tensor<1x32x32x64xf32> {
  %e = tensor.empty() : tensor<1x32x32x64xf32>
  %t = linalg.transpose ins(%x : tensor<1x64x32x32xf32>) outs(%e : tensor<1x32x32x64xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<1x32x32x64xf32>
}
