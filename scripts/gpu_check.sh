#!/usr/bin/env bash
# mycel's GPU checks, run as they are on a machine with an NVIDIA GPU (the CUDA driver and
# its cuBLAS/cuDNN libraries installed, no package registry needed): unpacks the bundle that
# scripts/gpu_bundle.sh made on the build machine (.gpu/bundle.tar.xz) and runs issue 24's
# acceptance items in one go (about 6 minutes on an H100 with 16 cores):
#
#   1. mycel_cuda_tests: every kernel case on the GPU against the CPU reference, the device
#      (copies, casts, allocator, out-of-memory), and the table of ops with CUDA kernels
#      (FFTN through cuFFT where libcufft is found: the script says whether it was);
#   2. pytest tests/gpu: the device from Python, LeNet, ResNet-18 and Transformer-encoder
#      training steps GPU = CPU in both modes (and bf16 AMP), the gradient corpus on the GPU
#      against the CPU in both modes, the TF32 switches, AMP, MatMul epilogues, jit_level O2
#      capture;
#   3. LeNet on Fashion-MNIST (examples/demo.py; the bundle's training subset) on the CPU and
#      on the GPU, same seed, and the two test accuracies compared (within 0.5 points);
#   4. the GPU rows of bench/gpu_bench.py: mycel (bundled Python) and PyTorch (this machine's
#      python3, MYCEL_TORCH_PYTHON to change it) on the same GPU, and their table.
#
# Usage: scripts/gpu_check.sh [--dry-run] [STEPS]  (default "tests lenet bench pytest").
# Logs go to .gpu/out, and when $OUT is set (the device tool's folder) also into
# $OUT/gpu_logs.tgz with $OUT/summary.txt and $OUT/gpu_bench.md. PYTEST_TIMEOUT (default 300)
# bounds the pytest step. Exits non-zero if any step fails.
#
# --dry-run (or MYCEL_GPU_CHECK_DRYRUN=1) runs the same steps where there is no GPU, so that
# the script's own bugs show on the build machine (scripts/gpu_bundle_check.sh runs it): the
# bundle unpacked to a temporary folder and run from a copy of the checkout as it travels;
# mycel_cuda_tests starts (and finds no device); pytest collects tests/gpu; LeNet trains one
# epoch twice on the CPU; the bench runs its CPU path at tiny sizes (--device CPU --tiny) on
# both sides. Logs go to a temporary folder, printed at the end.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dry=${MYCEL_GPU_CHECK_DRYRUN:-0}
if [[ ${1:-} == --dry-run ]]; then
  dry=1
  shift
fi
steps=${1:-tests lenet bench pytest}
bundle=$root/.gpu/bundle.tar.xz
[[ -f $bundle ]] || { echo "gpu_check: $bundle missing (scripts/gpu_bundle.sh)"; exit 1; }
if ((dry)); then
  # What travels to the GPU machine (tracked and untracked-not-ignored files), copied to a
  # temporary folder: the run there sees no build output of this checkout, and leaves it as
  # it is.
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/mycel-gpu-dryrun.XXXXXX")
  rt=$tmp/rt out=$tmp/out
  trap 'rm -rf "$rt" "$tmp/checkout" "$tmp/tmp"' EXIT
  mkdir -p "$tmp/tmp"
  export TMPDIR=$tmp/tmp  # (demo.py's checkpoint folders)
  mkdir -p "$tmp/checkout"
  git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp/checkout" 2>/dev/null
  root=$tmp/checkout
  cd "$root"
else
  rt=/tmp/mycel-rt out=$root/.gpu/out
fi
rm -rf "$out" && mkdir -p "$out"
# Unpacked once per bundle (a warm machine keeps /tmp between calls).
stamp=$(md5sum < "$bundle" | cut -c1-32)
if [[ $(cat "$rt/.stamp" 2>/dev/null) != "$stamp" ]]; then
  rm -rf "$rt" && mkdir -p "$rt"
  xz -dc "$bundle" | tar -C "$rt" -xf - || { echo "gpu_check: cannot unpack the bundle"; exit 1; }
  echo "$stamp" > "$rt/.stamp"
fi
# The machine's CUDA libraries (cuBLAS, cuBLASLt, cuDNN), wherever its CUDA install put them.
cudalibs=""
for lib in libcublasLt.so.13 libcublas.so.13 libcudnn.so.9; do
  p=$(find /usr/local /usr/lib /opt -name "$lib" 2>/dev/null | head -1)
  [[ -n $p ]] || { echo "gpu_check: $lib not found on this machine"; exit 1; }
  cudalibs="$cudalibs:$(dirname "$p")"
done
# cuFFT (FFTN's GPU kernel) is optional and not bundled (about 300 MB): mycel loads it with
# dlopen at first use and runs FFTN on host copies without it. Looked for in the CUDA install
# and in PyTorch's Python packages (its nvidia/*/lib folders), and put last on the path.
cufft=$(find /usr/local /usr/lib /opt -name libcufft.so.12 2>/dev/null | head -1)
if [[ -z $cufft ]]; then
  for sp in $(${MYCEL_TORCH_PYTHON:-python3} -c 'import site; print(" ".join(site.getsitepackages()))' \
                2>/dev/null); do
    [[ -d $sp/nvidia ]] && cufft=$(find "$sp/nvidia" -maxdepth 3 -name libcufft.so.12 2>/dev/null |
                                   head -1)
    [[ -n $cufft ]] && break
  done
fi
if [[ -n $cufft ]]; then
  cufft_line="gpu_check: libcufft found: $cufft (FFTN runs on the GPU)"
  cudalibs="$cudalibs:$(dirname "$cufft")"
  export MYCEL_CUFFT_FOUND=$cufft  # tests/gpu/test_gpu_fft.py then requires cuFFT in use
else
  cufft_line="gpu_check: libcufft.so.12 not found: FFTN runs on the CPU with copies"
fi
echo "$cufft_line"
export LD_LIBRARY_PATH="$rt/lib$cudalibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONHOME=$rt/usr PYTHONPATH=$root/python:$rt/dist PYTHONUNBUFFERED=1
export PYTHONDONTWRITEBYTECODE=1
# The extension (and any bundled plugin) beside mycel's Python sources.
cp "$rt"/mycel-bin/*.so python/mycel/
PY=$rt/usr/bin/python3.11
# PyTorch's side: this machine's own Python (the GPU machine's has PyTorch), outside the bundle.
TORCH_PY=${MYCEL_TORCH_PYTHON:-python3}
data=${MYCEL_FASHION:-$rt/data/fashion-mnist}
if ((dry)); then
  echo "dry run: no GPU used" | tee "$out/gpu.txt"
  bench_args=(--device CPU --tiny)
  lenet_epochs=1 lenet_gpu=CPU
else
  nvidia-smi -L | tee "$out/gpu.txt"
  echo "$cufft_line" >> "$out/gpu.txt"
  bench_args=()
  lenet_epochs=5 lenet_gpu=GPU
fi
echo "$cufft_line" > "$out/summary.txt"
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
  if [[ -n ${OUT:-} ]] && ((!dry)); then
    cp "$out/summary.txt" "$OUT/" 2>/dev/null
    cp "$out/gpu_bench.md" "$OUT/" 2>/dev/null
    tar -C "$out" -czf "$OUT/gpu_logs.tgz" .
  fi
}
for step in $steps; do
  case $step in
    tests)
      if ((dry)); then
        # Without a device its main answers "no CUDA device found" and exits 2: the binary
        # and its libraries loaded, which is what the dry run can show.
        run cuda_tests 60 bash -c '"$1" --gtest_list_tests 2>&1 | tee /dev/stderr |
          grep -q "no CUDA device found"' _ "$rt/bin/mycel_cuda_tests"
      else
        run cuda_tests 180 "$rt/bin/mycel_cuda_tests" --gtest_brief=1
      fi
      ;;
    pytest)
      if ((dry)); then
        run pytest 120 env MYCEL_GPU_CHECK_DRYRUN=1 $PY -m pytest -q -p no:cacheprovider \
          --collect-only tests/gpu
      else
        run pytest "${PYTEST_TIMEOUT:-300}" $PY -m pytest -q -p no:cacheprovider tests/gpu
      fi
      ;;
    lenet)
      run lenet_cpu 120 $PY examples/demo.py --device CPU --epochs $lenet_epochs --data "$data"
      run lenet_gpu 120 $PY examples/demo.py --device $lenet_gpu --epochs $lenet_epochs \
        --data "$data"
      run lenet_compare 10 $PY - "$out/lenet_cpu.log" "$out/lenet_gpu.log" <<'PYEOF'
import re, sys
acc = [float(re.findall(r"summary: test accuracy ([0-9.]+)", open(f).read())[-1]) for f in sys.argv[1:]]
print(f"LeNet test accuracy: CPU {acc[0]:.4f}, GPU {acc[1]:.4f}")
sys.exit(0 if abs(acc[0] - acc[1]) <= 0.005 else 1)
PYEOF
      ;;
    bench)
      run bench_mycel 150 $PY bench/gpu_bench.py "${bench_args[@]}" --out "$out/bench_mycel.json"
      run bench_torch 150 env -u PYTHONHOME -u PYTHONPATH LD_LIBRARY_PATH= "$TORCH_PY" \
        bench/gpu_bench.py --torch "${bench_args[@]}" --out "$out/bench_torch.json"
      run bench_table 10 $PY bench/gpu_bench.py --table "$out/bench_mycel.json" \
        "$out/bench_torch.json"
      cp "$out/bench_table.log" "$out/gpu_bench.md"
      cat "$out/gpu_bench.md"
      save
      ;;
    *) echo "gpu_check: unknown step $step"; fail=1 ;;
  esac
done
((dry)) && echo "gpu_check: dry run logs in $out"
exit $fail
