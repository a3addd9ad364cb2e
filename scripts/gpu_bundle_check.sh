#!/usr/bin/env bash
# Checks on the build machine (no GPU needed) that .gpu/bundle.tar.xz (scripts/gpu_bundle.sh)
# holds everything scripts/gpu_check.sh needs on the GPU machine, so that a missing piece shows
# here and not in the GPU machine's few minutes:
#
#   1. size: what travels to the GPU machine (the checkout's tracked and untracked-not-ignored
#      files, and .gpu) fits the device tool's 64 MiB;
#   2. libraries: the bundle unpacked to a temporary folder, `ldd` of every ELF file in it with
#      only the bundle's lib/ and this machine's CUDA libraries (libcu*, libnv*: the GPU machine
#      has its own) on LD_LIBRARY_PATH; any library found elsewhere (or not at all) other than
#      glibc's family, libstdc++, libgcc_s and the CUDA driver is an error;
#   3. Python: under `env -i`, with PYTHONHOME, PYTHONPATH and LD_LIBRARY_PATH pointing only into
#      the bundle and a copy of the checkout as it travels, `import mycel`, a few LeNet training
#      steps on the CPU in both modes, and the import of every tests/gpu module; then every
#      loaded module and mapped shared library must come from the bundle, the checkout copy,
#      the CUDA libraries or glibc's family;
#   4. the GPU check itself: scripts/gpu_check.sh --dry-run (every step where there is no GPU).
#
# Usage: scripts/gpu_bundle_check.sh   (after scripts/gpu_bundle.sh; about 3 minutes). Exits
# non-zero on the first failing check (the size's failure is reported last).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bundle=$root/.gpu/bundle.tar.xz
[[ -f $bundle ]] || { echo "gpu_bundle_check: $bundle missing (scripts/gpu_bundle.sh)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mycel-bundle-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. Size.
tree=$(git ls-files -co --exclude-standard -z | xargs -0 stat -c %s 2>/dev/null |
  awk '{ s += $1 } END { print s }')
gpu=$(find .gpu -type f -not -path '.gpu/out/*' -printf '%s\n' | awk '{ s += $1 } END { print s }')
echo "size: checkout $((tree >> 20)) MiB + .gpu $((gpu >> 20)) MiB" \
  "(bundle $(($(stat -c %s "$bundle") >> 20)) MiB) of the 64 MiB that travel"
too_big=$((tree + gpu > 64 << 20))  # reported at the end, after the other checks

# 2. Libraries.
rt=$tmp/rt
mkdir -p "$rt" "$tmp/cuda"
xz -dc "$bundle" | tar -C "$rt" -xf -
cuda=$(dirname "$(ldconfig -p | awk '$1 == "libcublas.so.13" { print $NF; exit }')")
for d in "$cuda" /usr/local/cuda/lib /usr/local/cuda/lib64; do
  [[ -d $d ]] && find "$d" -maxdepth 1 \( -name 'libcu*.so*' -o -name 'libnv*.so*' \) \
    -exec ln -sf {} "$tmp/cuda/" \;
done
[[ -e $tmp/cuda/libcublas.so.13 ]] || { echo "gpu_bundle_check: no CUDA libraries here"; exit 1; }
provided='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl|libmvec|libnsl|libBrokenLocale|libnss_[a-z]+|libthread_db|libstdc\+\+|libgcc_s)\.so'
mapfile -t elves < <(find "$rt" -type f \( -name '*.so' -o -name '*.so.*' -o -perm -u+x \) \
  -exec sh -c 'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
bad=$(LD_LIBRARY_PATH=$rt/lib:$tmp/cuda ldd "${elves[@]}" 2>&1 | awk -v rt="$rt" \
  -v cuda="$tmp/cuda" -v provided="$provided" '
  /:$/ { file = $1; next }
  $2 == "=>" && $1 !~ provided {
    if ($3 == "not") { if ($1 !~ /^libcuda\.so/) print file, $1, "not found" }
    else if (index($3, rt "/") != 1 && index($3, cuda "/") != 1) print file, $1, "=>", $3 }')
if [[ -n $bad ]]; then
  echo "gpu_bundle_check: libraries not in the bundle:"; echo "$bad" | sed "s|$rt/||"; exit 1
fi
echo "libraries: ${#elves[@]} ELF files, every library in the bundle or provided"

# 3. Python under env -i, from a copy of the checkout as it travels.
co=$tmp/checkout
mkdir -p "$co"
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$co" 2>/dev/null || true
cp "$rt"/mycel-bin/*.so "$co/python/mycel/"
env -i HOME="$tmp" PATH=/usr/bin:/bin PYTHONHOME="$rt/usr" PYTHONPATH="$co/python:$rt/dist" \
  LD_LIBRARY_PATH="$rt/lib:$tmp/cuda" PYTHONDONTWRITEBYTECODE=1 ALLOWED="$rt:$co:$tmp/cuda" \
  "$rt/usr/bin/python3.11" - "$co" <<'PYEOF'
import glob, importlib.util, os, re, sys
co = sys.argv[1]
sys.path[:0] = [os.path.join(co, "tests", "gpu"), os.path.join(co, "tests", "python"),
                os.path.join(co, "examples")]
import numpy as np
import pytest  # noqa: F401
import mycel as ms
from mycel import Tensor, nn
from lenet import LeNet5
for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
    ms.set_context(device_target="CPU", mode=mode)
    ms.set_seed(1)
    net = LeNet5()
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
        nn.Momentum(net.trainable_params(), 0.01, 0.9))
    rng = np.random.RandomState(0)
    x = Tensor(rng.randn(8, 1, 28, 28).astype(np.float32))
    y = Tensor(rng.randint(0, 10, 8).astype(np.int32))
    losses = [float(step(x, y)) for _ in range(3)]
    assert all(np.isfinite(losses)) and losses[-1] < losses[0], losses
    print(f"training steps (mode {mode}): losses {losses}")
for f in sorted(glob.glob(os.path.join(co, "tests", "gpu", "*.py"))):
    name = os.path.splitext(os.path.basename(f))[0]
    spec = importlib.util.spec_from_file_location(name, f)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
print("imported tests/gpu:", ", ".join(sorted(os.listdir(os.path.join(co, "tests", "gpu")))))
allowed = tuple(p + "/" for p in os.environ["ALLOWED"].split(":"))
cuda = set(os.listdir(os.environ["ALLOWED"].split(":")[-1]))  # links to this machine's CUDA
provided = re.compile(r"(ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libutil|"
                      r"libstdc\+\+|libgcc_s|libnss_[a-z]+)\.so")
outside = sorted({m.__file__ for m in list(sys.modules.values())
                  if getattr(m, "__file__", None) and not m.__file__.startswith(allowed)
                  and m.__file__ != "<stdin>"})
for line in open("/proc/self/maps"):
    path, base = line.split()[-1], os.path.basename(line.split()[-1])
    if ".so" in path and not path.startswith(allowed) and not provided.match(base) and \
            base not in cuda:
        outside.append(path)
if outside:
    sys.exit("loaded from outside the bundle:\n  " + "\n  ".join(sorted(set(outside))))
print("python: every module and library from the bundle or the checkout")
PYEOF

# 4. The GPU check's dry run (its own copy of the checkout; PyTorch's side on this machine's
# Debian Python, which has torch).
MYCEL_TORCH_PYTHON=/usr/bin/python3 scripts/gpu_check.sh --dry-run
if ((too_big)); then
  echo "gpu_bundle_check: more than 64 MiB would travel to the GPU machine"; exit 1
fi
echo "gpu_bundle_check: OK"
