#!/usr/bin/env bash
# The GPU check, run on a machine with an NVIDIA GPU over a kit from
# scripts/gpu-kit.sh: the device, each model run by tcl's kernels on the GPU
# and compared with PyTorch's output, and the GEMM and the convolution
# under each of their schedules against PyTorch's (cuBLAS's, cuDNN's) on
# the same GPU. A model's first time includes the copies of inputs, weights
# and outputs between host and device at every run; its second is its
# kernels' alone (CUDA events).
# Usage: bash scripts/gpu-check.sh [kit dir] [repeats]
set -uo pipefail
kit=${1:-gpu-kit}
repeats=${2:-20}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total \
  --format=csv || true
# A kernel's data, made once in BASE, copied into each of its schedules'
# directories (BASE_<name>) that lack it.
share_data() {
  local base=$1 variant
  for variant in "$base"_*/; do
    [ -f "$variant/model.so" ] && [ ! -f "$variant/output_0.bin" ] || continue
    cp "$base"/input_*.bin "$base"/output_0.bin "$variant"
  done
}
# The GEMM's data: random inputs and NumPy's product (float64 sums).
gemm=$kit/gemm_2048
if [ -f "$gemm/model.so" ] && [ ! -f "$gemm/output_0.bin" ]; then
  python3 - "$gemm" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(0)
a = rng.standard_normal((2048, 2048), dtype=np.float32)
b = rng.standard_normal((2048, 2048), dtype=np.float32)
a.tofile(sys.argv[1] + "/input_0.bin")
b.tofile(sys.argv[1] + "/input_1.bin")
(a.astype(np.float64) @ b).astype(np.float32).tofile(sys.argv[1] + "/output_0.bin")
PY
fi
share_data "$gemm"
# The convolution's data: random NHWC input (padded) and HWCF weights,
# PyTorch's convolution in float64 on the CPU.
conv=$kit/conv_56
if [ -f "$conv/model.so" ] && [ ! -f "$conv/output_0.bin" ]; then
  python3 - "$conv" <<'PY'
import sys
import numpy as np
import torch
rng = np.random.default_rng(0)
x = rng.standard_normal((1, 58, 58, 128), dtype=np.float32)
w = rng.standard_normal((3, 3, 128, 128), dtype=np.float32)
x.tofile(sys.argv[1] + "/input_0.bin")
w.tofile(sys.argv[1] + "/input_1.bin")
y = torch.nn.functional.conv2d(
    torch.from_numpy(x).double().permute(0, 3, 1, 2),
    torch.from_numpy(w).double().permute(3, 2, 0, 1))
y.permute(0, 2, 3, 1).float().numpy().tofile(sys.argv[1] + "/output_0.bin")
PY
fi
share_data "$conv"
status=0
for dir in "$kit"/*/; do
  [ -f "$dir/model.so" ] || continue
  "$kit/run-model" "${dir%/}" "$repeats" || status=1
done
# PyTorch's GEMM (cuBLAS) of the same size, for the ratio.
python3 - <<'PY' || true
import torch
a = torch.randn(2048, 2048, device="cuda")
b = torch.randn(2048, 2048, device="cuda")
for _ in range(3):
    torch.mm(a, b)
torch.cuda.synchronize()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
times = []
for _ in range(20):
    start.record(); torch.mm(a, b); end.record(); torch.cuda.synchronize()
    times.append(start.elapsed_time(end))
times.sort()
ms = times[len(times) // 2]
print(f"torch.mm 2048^3 fp32 on {torch.cuda.get_device_name()}: median {ms:.3f} ms "
      f"({2 * 2048**3 / ms / 1e9:.1f} TFLOP/s; TF32 {torch.backends.cuda.matmul.allow_tf32})")
# PyTorch's convolution (cuDNN, FP32 without TF32) of the kit's shape.
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True
for layout in (torch.contiguous_format, torch.channels_last):
    x = torch.randn(1, 128, 58, 58, device="cuda").to(memory_format=layout)
    w = torch.randn(128, 128, 3, 3, device="cuda").to(memory_format=layout)
    for _ in range(3):
        torch.nn.functional.conv2d(x, w)
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        start.record(); torch.nn.functional.conv2d(x, w); end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    ms = times[len(times) // 2]
    flops = 2 * 56 * 56 * 128 * 128 * 9
    print(f"conv2d 3x3 128->128 @56 fp32 ({layout}): median {ms:.4f} ms "
          f"({flops / ms / 1e9:.2f} TFLOP/s; cuDNN {torch.backends.cudnn.version()})")
PY
# Where the default GEMM kernel's time goes (Nsight Compute, where it reads
# the counters): throughput of the SMs, caches and memory, occupancy.
if command -v ncu >/dev/null && [ -f "$gemm/model.so" ]; then
  timeout 300 ncu --clock-control none --launch-count 1 \
    --section SpeedOfLight --section Occupancy \
    --section MemoryWorkloadAnalysis --section LaunchStats \
    "$kit/run-model" "$gemm" 1 2>&1 | grep -vE "^==PROF==" || true
fi
exit $status
