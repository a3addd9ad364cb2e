#!/usr/bin/env bash
# mycel's GPU checks, run as they are on a machine with an NVIDIA GPU (the CUDA driver and
# its cuBLAS/cuDNN libraries installed, no package registry needed): unpacks the bundle that
# scripts/gpu_bundle.sh made on the build machine (.gpu/bundle.tar.xz) and runs issue 24's
# acceptance items in one go (about 6 minutes on an H100 with 16 cores), the most valuable
# first:
#
#   1. mycel_cuda_tests: every kernel case on the GPU against the CPU reference, the device
#      (copies, casts, allocator, out-of-memory), CUDA-graph capture, and the table of ops
#      with CUDA kernels (FFTN through cuFFT where libcufft is found: the script says
#      whether it was). A test that kills the binary (a crash, a hang) or breaks the CUDA
#      context (a sticky error such as an illegal address, which every later test would then
#      report) is named in the summary and left out of another run, three times at most, so
#      one bad kernel does not hide the others' results;
#   2. pytest tests/gpu, one process per file (a crash loses that file only): the device from
#      Python, LeNet, ResNet-18 and Transformer-encoder training steps GPU = CPU in both modes
#      (and bf16 AMP), the gradient corpus on the GPU against the CPU in both modes, the TF32
#      switches, AMP, MatMul epilogues, jit_level O2 capture;
#   3. LeNet on Fashion-MNIST (examples/demo.py; the bundle's training subset) on the CPU and
#      on the GPU, same seed, and the two test accuracies compared (within 0.5 points);
#   4. the GPU rows of bench/gpu_bench.py: mycel (bundled Python) and PyTorch (this machine's
#      python3, MYCEL_TORCH_PYTHON to change it) on the same GPU, and their table.
#
# Before the steps it finds this machine's cuBLAS, cuBLASLt and cuDNN (the bundle leaves them
# out): in MYCEL_CUDA_LIBS (folders, colon-separated) if set, then the CUDA toolkit's folders
# and the dynamic linker's cache, then the nvidia/*/lib folders of PyTorch's wheels beside
# this machine's torch, then anywhere under /usr/local, /usr/lib and /opt; a cuDNN is taken
# only with its sub-libraries beside it (cuDNN 9 loads them at run time), one built for CUDA 13
# (it names libcublasLt.so.13) before any other. What it takes is
# printed and written to cuda_libs.txt; a library not found stops the script at once, saying
# which. The GPU, its driver and compute capability go to gpu.txt.
#
# Usage: scripts/gpu_check.sh [--dry-run] [STEPS]  (default "tests pytest lenet bench"). The
# steps' time limits add up to more than one device call's 600 s when everything is slow: a
# call that may be cut short can run "tests pytest" and a second one "lenet bench" (a warm
# machine keeps the unpacked bundle).
# Logs go to .gpu/out, and when $OUT is set (the device tool's folder) also into
# $OUT/gpu_logs.tgz with $OUT/summary.txt and $OUT/gpu_bench.md, after every step (a run cut
# short still returns what it did). PYTEST_TIMEOUT (default 360) bounds the pytest step, each
# file at most 300 s. Exits non-zero if any step fails.
#
# --dry-run (or MYCEL_GPU_CHECK_DRYRUN=1) runs the same steps where there is no GPU, so that
# the script's own bugs show on the build machine (scripts/gpu_bundle_check.sh runs it): the
# bundle unpacked to a temporary folder and run from a copy of the checkout as it travels;
# mycel_cuda_tests starts (and finds no device); pytest collects each file of tests/gpu; LeNet
# trains one epoch twice on the CPU; the bench runs its CPU path at tiny sizes (--device CPU
# --tiny) on both sides. Logs go to a temporary folder, printed at the end.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
dry=${MYCEL_GPU_CHECK_DRYRUN:-0}
if [[ ${1:-} == --dry-run ]]; then
  dry=1
  shift
fi
steps=${1:-tests pytest lenet bench}
bundle=$root/.gpu/bundle.tar.xz
out=""
save() {  # the logs so far into $OUT: a run cut short still returns them
  if [[ -n ${OUT:-} && -n $out ]] && ((!dry)); then
    cp "$out/summary.txt" "$OUT/" 2>/dev/null
    cp "$out/gpu_bench.md" "$OUT/" 2>/dev/null
    tar -C "$out" -czf "$OUT/gpu_logs.tgz" .
  fi
}
fatal() {  # a failure before the steps: on stdout, in the summary, back in $OUT; then exit
  echo "gpu_check: $*"
  [[ -n $out ]] && echo "gpu_check: $*" >> "$out/summary.txt"
  [[ -n ${OUT:-} ]] && ((!dry)) && echo "gpu_check: $*" >> "$OUT/summary.txt"
  save
  exit 1
}
[[ -f $bundle ]] || fatal "$bundle missing (scripts/gpu_bundle.sh)"
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
  cd "$root" || exit 1
else
  rt=/tmp/mycel-rt out=$root/.gpu/out
fi
rm -rf "$out" && mkdir -p "$out"
# Unpacked once per bundle (a warm machine keeps /tmp between calls).
stamp=$(md5sum < "$bundle" | cut -c1-32)
if [[ $(cat "$rt/.stamp" 2>/dev/null) != "$stamp" ]]; then
  rm -rf "$rt" && mkdir -p "$rt"
  xz -dc "$bundle" | tar -C "$rt" -xf - || fatal "cannot unpack the bundle"
  echo "$stamp" > "$rt/.stamp"
fi
# PyTorch's side: this machine's own Python (the GPU machine's has PyTorch), outside the bundle.
TORCH_PY=${MYCEL_TORCH_PYTHON:-python3}

# The bundle runs on this machine's glibc and libstdc++ (gpu_bundle.sh's needs.txt): older ones
# make whatever asks for a newer symbol fail to load. Said first, as a warning (a step that
# does not load such a library still runs).
older() { [[ $(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1) == "$1" && $1 != "$2" ]]; }
if [[ -f $rt/needs.txt ]]; then
  need=$(awk '$1 == "glibc" { print $2 }' "$rt/needs.txt")
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
  if [[ -n $need && -n $have ]] && older "$have" "$need"; then
    echo "gpu_check: warning: this machine's glibc is $have, the bundle needs $need" |
      tee -a "$out/summary.txt"
  fi
  need=$(awk '$1 == "libstdc++" { print $2 }' "$rt/needs.txt")
  have=$(ldconfig -p 2>/dev/null | awk '$1 == "libstdc++.so.6" && /x86-64/ { print $NF; exit }')
  if [[ -n $need && -n $have ]] && ! grep -aqF "GLIBCXX_$need" "$have"; then
    echo "gpu_check: warning: $have has no GLIBCXX_$need, which the bundle needs" |
      tee -a "$out/summary.txt"
  fi
fi

# ---- The machine's CUDA libraries (cuBLAS, cuBLASLt, cuDNN), wherever they were installed.
cuda13_only=1
cudnn_parts="libcudnn_graph.so.9 libcudnn_ops.so.9 libcudnn_cnn.so.9 libcudnn_heuristic.so.9
  libcudnn_engines_precompiled.so.9"
# The first folder of the arguments after `lib` that holds it (a cuDNN with its sub-libraries).
lib_dir() {
  local lib=$1 d part
  shift
  for d in "$@"; do
    [[ -n $d && -e $d/$lib ]] || continue
    if [[ $lib == libcudnn.so.9 ]]; then
      for part in $cudnn_parts; do
        if [[ ! -e $d/$part ]]; then
          echo "gpu_check: $d/$lib has no $part beside it: not used" >&2
          continue 2
        fi
      done
      # A cuDNN for CUDA 12 would look for libcublasLt.so.12 and miss its engines: passed
      # over while cuda13_only is set (the first search), taken if nothing else is found.
      if ((cuda13_only)) &&
        ! grep -aqF libcublasLt.so.13 "$d/libcudnn_engines_precompiled.so.9"; then
        echo "gpu_check: $d/$lib does not name libcublasLt.so.13 (built for CUDA 12?)" >&2
        continue
      fi
    fi
    echo "$d"
    return 0
  done
  return 1
}
# The nvidia/*/lib folders of the wheels beside this machine's torch (found, not imported).
torch_lib_dirs() {
  env -u PYTHONHOME -u PYTHONPATH timeout 60 "$TORCH_PY" - 2>/dev/null <<'PYEOF'
import glob, importlib.util, os, site
roots = set(site.getsitepackages() + [site.getusersitepackages()])
spec = importlib.util.find_spec("torch")
if spec is not None and spec.origin:
    roots.add(os.path.dirname(os.path.dirname(spec.origin)))
for r in sorted(roots):
    wheels = sorted(glob.glob(os.path.join(r, "nvidia", "*", "lib")))
    for d in wheels + [os.path.join(r, "torch", "lib")]:
        if os.path.isdir(d):
            print(d)
PYEOF
}
IFS=: read -r -a user_dirs <<< "${MYCEL_CUDA_LIBS:-}"
mapfile -t fast_dirs < <(printf '%s\n' /usr/local/cuda/lib64 \
  /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13*/lib64
  ldconfig -p 2>/dev/null | awk '/(libcublas|libcudnn)/ { print $NF }' | xargs -r -n1 dirname |
  sort -u)
torch_dirs=() torch_done=0 cudalibs=""
lt_dir=""
for lib in libcublasLt.so.13 libcublas.so.13 libcudnn.so.9; do
  d=""
  # cuBLAS from cuBLASLt's folder when it is there (the two come as a pair of one version).
  [[ $lib == libcublas.so.13 && -n $lt_dir ]] && d=$(lib_dir "$lib" "$lt_dir")
  for cuda13_only in 1 0; do
    [[ -n $d ]] && break
    d=$(lib_dir "$lib" "${user_dirs[@]}" "${fast_dirs[@]}")
    if [[ -z $d ]]; then
      ((torch_done)) || mapfile -t torch_dirs < <(torch_lib_dirs)
      torch_done=1
      d=$(lib_dir "$lib" "${torch_dirs[@]}")
    fi
    if [[ -z $d ]]; then
      mapfile -t found < <(find /usr/local /usr/lib /opt -name "$lib" -printf '%h\n' 2>/dev/null)
      d=$(lib_dir "$lib" "${found[@]}")
    fi
    [[ -n $d ]] && break
  done
  [[ -n $d ]] || fatal "$lib not found on this machine (MYCEL_CUDA_LIBS, the CUDA toolkit," \
    "ldconfig, PyTorch's wheels, /usr/local, /usr/lib, /opt): set MYCEL_CUDA_LIBS to its folder"
  [[ $lib == libcublasLt.so.13 ]] && lt_dir=$d
  echo "$lib: $(readlink -f "$d/$lib")" | tee -a "$out/cuda_libs.txt"
  [[ ":$cudalibs:" == *":$d:"* ]] || cudalibs="$cudalibs:$d"
done
# cuDNN's runtime-compiled engines use NVRTC; the others run without it.
if d=$(lib_dir libnvrtc.so.13 "${user_dirs[@]}" "${fast_dirs[@]}" "${torch_dirs[@]}"); then
  echo "libnvrtc.so.13: $(readlink -f "$d/libnvrtc.so.13")" | tee -a "$out/cuda_libs.txt"
  [[ ":$cudalibs:" == *":$d:"* ]] || cudalibs="$cudalibs:$d"
else
  echo "libnvrtc.so.13: not found (cuDNN's runtime-compiled engines unavailable)" |
    tee -a "$out/cuda_libs.txt"
fi
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
echo "$cufft_line" | tee -a "$out/cuda_libs.txt"
export LD_LIBRARY_PATH="$rt/lib$cudalibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PYTHONHOME=$rt/usr PYTHONPATH=$root/python:$rt/dist PYTHONUNBUFFERED=1
export PYTHONDONTWRITEBYTECODE=1
# The extension (and any bundled plugin) beside mycel's Python sources.
cp "$rt"/mycel-bin/*.so python/mycel/
PY=$rt/usr/bin/python3.11
data=${MYCEL_FASHION:-$rt/data/fashion-mnist}
if ((dry)); then
  echo "dry run: no GPU used" | tee "$out/gpu.txt"
  bench_args=(--device CPU --tiny)
  lenet_epochs=1 lenet_gpu=CPU
else
  trap save EXIT
  { nvidia-smi -L
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv
  } 2>&1 | tee "$out/gpu.txt"
  # The bundle's machine code is for one architecture (gpu_bundle.sh): another GPU would
  # JIT-compile its PTX at start (minutes) or fail.
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  if [[ -n $cc && -f $rt/sm.txt && $cc != "$(cat "$rt/sm.txt")" ]]; then
    echo "gpu_check: this GPU is sm_$cc, the bundle's machine code sm_$(cat "$rt/sm.txt")" |
      tee -a "$out/summary.txt" "$out/gpu.txt"
  fi
  bench_args=()
  lenet_epochs=5 lenet_gpu=GPU
fi
echo "$cufft_line" | tee -a "$out/summary.txt" >> "$out/gpu.txt"
save
fail=0 last_rc=0
run() {  # name, time limit (s), command...
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  timeout -k 15 "$limit" "$@" > "$out/$name.log" 2>&1
  last_rc=$?
  echo "== $name: rc=$last_rc, $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
  tail -n 5 "$out/$name.log"
  ((last_rc == 0)) || fail=1
  save
}
cuda_tests() {
  local bin=$rt/bin/mycel_cuda_tests name=cuda_tests exclude="" bad try t0=$SECONDS
  for try in 2 3 4 5; do
    run "$name" 240 "$bin" --gtest_color=no "--gtest_output=xml:$out/$name.xml" \
      ${exclude:+"--gtest_filter=-$exclude"}
    ((last_rc == 0)) && return
    bad=$(awk -f "$root/scripts/gtest_culprit.awk" "$out/$name.log")
    [[ -n $bad ]] || return
    echo "== $name: $bad ended the run or broke the CUDA context" | tee -a "$out/summary.txt"
    ((try <= 4 && SECONDS - t0 < 420)) || return
    echo "== running mycel_cuda_tests again without it" | tee -a "$out/summary.txt"
    exclude=${exclude:+$exclude:}$bad
    name=cuda_tests_$try
  done
}
pytests() {
  # tests/gpu, the most basic files first, then any others; one process per file.
  local order="test_gpu_device test_gpu_grad_corpus test_gpu_models test_gpu_select
    test_gpu_capture test_gpu_epilogue test_gpu_amp test_gpu_tf32" f files=() t0=$SECONDS left
  local budget=${PYTEST_TIMEOUT:-360}
  for f in $order; do [[ -f tests/gpu/$f.py ]] && files+=("tests/gpu/$f.py"); done
  for f in tests/gpu/test_*.py; do
    [[ " ${files[*]} " == *" $f "* ]] || files+=("$f")
  done
  for f in "${files[@]}"; do
    local name
    name=pytest_$(basename "$f" .py)
    if ((dry)); then
      run "$name" 60 env MYCEL_GPU_CHECK_DRYRUN=1 $PY -m pytest -q -p no:cacheprovider \
        --collect-only "$f"
      continue
    fi
    left=$((budget - (SECONDS - t0)))
    if ((left < 20)); then
      echo "== $name: not run, the pytest step's $budget s are spent" | tee -a "$out/summary.txt"
      fail=1
      continue
    fi
    # -v names each test as it ends, so a file cut short by its limit still says which
    # passed and failed; faulthandler prints the stacks of a test stuck for 150 s.
    run "$name" $((left < 300 ? left : 300)) $PY -m pytest -v --tb=short -rfE \
      -p no:cacheprovider -o faulthandler_timeout=150 "$f"
  done
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
        cuda_tests
      fi
      ;;
    pytest)
      pytests
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
