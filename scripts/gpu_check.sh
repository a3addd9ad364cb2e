#!/usr/bin/env bash
# mycel's GPU checks, run as they are on a machine with an NVIDIA GPU (the CUDA driver and
# its cuBLAS/cuDNN libraries installed, no package registry needed): unpacks the bundle that
# scripts/gpu_bundle.sh made on the build machine (.gpu/bundle.tar.xz) and runs
#
#   1. mycel_cuda_tests: every kernel case on the GPU against the CPU reference, the device
#      (copies, casts, allocator, out-of-memory), and the table of ops with CUDA kernels;
#   2. pytest tests/gpu: the device from Python, LeNet steps GPU = CPU in both modes, and the
#      gradient corpus on the GPU against the CPU in both modes;
#   3. LeNet on Fashion-MNIST (examples/demo.py) on the CPU and on the GPU, same seed, and
#      the two test accuracies compared (within 0.5 points);
#   4. the GPU rows of bench/ (bench/gpu_bench.py, mycel; bench/gpu_bench_torch.py, PyTorch on
#      the same GPU) where this machine's python3 has torch.
#
# Usage: scripts/gpu_check.sh [STEPS]  (default "tests lenet bench pytest"); logs go to
# .gpu/out, and when $OUT is set (the device tool's folder) also into $OUT/gpu_logs.tgz with
# $OUT/summary.txt. PYTEST_TIMEOUT (default 300) bounds the pytest step. Exits non-zero if
# any step fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$root/.gpu/out
steps=${1:-tests lenet bench pytest}
rm -rf "$out" && mkdir -p "$out"
rt=/tmp/mycel-rt
if [[ ! -x $rt/usr/bin/python3.11 ]]; then
  mkdir -p $rt && xz -dc .gpu/bundle.tar.xz | tar -C $rt -xf - || exit 1
fi
# The machine's CUDA libraries (cuBLAS, cuBLASLt, cuDNN), wherever its CUDA install put them.
cudalibs=""
for lib in libcublasLt.so.13 libcublas.so.13 libcudnn.so.9; do
  p=$(find /usr/local /usr/lib /opt -name "$lib" 2>/dev/null | head -1)
  [[ -n $p ]] || { echo "gpu_check: $lib not found on this machine"; exit 1; }
  cudalibs="$cudalibs:$(dirname "$p")"
done
export LD_LIBRARY_PATH="$rt/lib$cudalibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONHOME=$rt/usr PYTHONPATH=$root/python:$rt/dist PYTHONUNBUFFERED=1
cp $rt/dist/_mycel.cpython-311-x86_64-linux-gnu.so python/mycel/
PY=$rt/usr/bin/python3.11
nvidia-smi -L | tee "$out/gpu.txt"
fail=0
run() {  # name, time limit (s), command...
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: rc=$rc, $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
  tail -n 5 "$out/$name.log"
  ((rc == 0)) || fail=1
  save
}
save() {  # the logs so far into $OUT: a run cut short still returns them
  if [[ -n ${OUT:-} ]]; then
    cp "$out/summary.txt" "$OUT/" 2>/dev/null
    tar -C "$out" -czf "$OUT/gpu_logs.tgz" .
  fi
}
for step in $steps; do
  case $step in
    tests) run cuda_tests 180 $rt/bin/mycel_cuda_tests --gtest_brief=1 ;;
    pytest) run pytest "${PYTEST_TIMEOUT:-300}" $PY -m pytest -q -p no:cacheprovider tests/gpu ;;
    lenet)
      data=${MYCEL_FASHION:-.gpu/fashion-mnist}
      run lenet_cpu 120 $PY examples/demo.py --device CPU --epochs 5 --data "$data"
      run lenet_gpu 120 $PY examples/demo.py --device GPU --epochs 5 --data "$data"
      run lenet_compare 10 $PY - "$out/lenet_cpu.log" "$out/lenet_gpu.log" <<'PYEOF'
import re, sys
acc = [float(re.findall(r"summary: test accuracy ([0-9.]+)", open(f).read())[-1]) for f in sys.argv[1:]]
print(f"LeNet test accuracy: CPU {acc[0]:.4f}, GPU {acc[1]:.4f}")
sys.exit(0 if abs(acc[0] - acc[1]) <= 0.005 else 1)
PYEOF
      ;;
    bench)
      if [[ -f bench/gpu_bench.py ]]; then
        run bench_mycel 90 $PY bench/gpu_bench.py --out "$out/bench_mycel.json"
        run bench_torch 90 env -u PYTHONHOME -u PYTHONPATH LD_LIBRARY_PATH= python3 \
          bench/gpu_bench.py --torch --out "$out/bench_torch.json"
        $PY bench/gpu_bench.py --table "$out/bench_mycel.json" "$out/bench_torch.json" \
          | tee "$out/gpu_bench.md"
      fi
      ;;
  esac
done
exit $fail
