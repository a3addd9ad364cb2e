#!/usr/bin/env bash
# Packs what scripts/gpu_check.sh needs on a GPU machine into .gpu/bundle.tar.xz: this build's
# extension (and plugins, see below) and the CUDA test binary, with the Debian runtime they
# were built against (Python 3.11 with its standard library, numpy and pytest, and every shared
# library these need), and the Fashion-MNIST files of the LeNet check.
#
# Self-contained by construction: the libraries are not a hand-kept list but the closure that
# `ldd` reports for everything bundled (the extension, the plugins, mycel_cuda_tests,
# python3.11, the standard library's and numpy's extension modules), less the libraries the
# GPU machine certainly provides: glibc's family, libstdc++ and libgcc_s (the GPU machine's are
# newer), and the CUDA driver and CUDA libraries (libcuda, libcudart, libcublas*, libcudnn*,
# libnv*), which gpu_check.sh finds on that machine. A library ldd cannot find here is an error.
# numpy's BLAS and LAPACK are the reference builds (a tenth of OpenBLAS's size; numpy's speed
# does not matter to the checks). scripts/gpu_bundle_check.sh unpacks the bundle and runs it
# with nothing of this machine's on the paths, so a missing piece shows here.
#
# Plugins (MYCEL_BUNDLE_PLUGINS, e.g. "jit sentencepiece video"; default none): libmycel_<name>.so
# beside the extension, with their libraries. No GPU check uses them (libmycel_jit.so: LLVM, for
# enable_graph_kernel on the CPU; libmycel_video.so: FFmpeg; libmycel_sentencepiece.so), and
# jit's and video's libraries alone would double the bundle, whose carry to the GPU machine is
# limited (the device tool takes 64 MiB with the checkout). mycel loads plugins on first use,
# so without them only those features fail: video and SentencePiece with their error, the
# CPU's graph kernels (enable_graph_kernel with the CPU as target) by running op by op, which
# the compile log says ("not built"); the GPU's MatMul epilogues need no plugin. (On this
# machine a missing plugin is still found at the build's path compiled into the extension.)
#
# Usage: scripts/gpu_bundle.sh [BUILD]   (default build; run `make build` first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
cd "$root"
out=.gpu
plugins=${MYCEL_BUNDLE_PLUGINS-}
ext=python/mycel/_mycel.cpython-311-x86_64-linux-gnu.so
for f in "$ext" "$build/mycel_cuda_tests"; do
  [[ -f $f ]] || { echo "gpu_bundle: $f missing: run make build first" >&2; exit 1; }
done
# Machine code for the GPU machine's architecture in every CUDA object (H100, H200: sm_90;
# MYCEL_BUNDLE_SM to change it): without it the first launch there fails with "no kernel image
# is available" (a CPU-only build has no CUDA code at all). Recorded in the bundle (sm.txt),
# which gpu_check.sh compares with the GPU's compute capability.
sm=${MYCEL_BUNDLE_SM:-90}
/usr/bin/python3 scripts/fatbin_archs.py --require-sass "$sm" "$ext" "$build/mycel_cuda_tests" ||
  { echo "gpu_bundle: not built for sm_$sm (CMAKE_CUDA_ARCHITECTURES)" >&2; exit 1; }
stage=$(mktemp -d "${TMPDIR:-/tmp}/mycel-bundle.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out" "$stage/usr/bin" "$stage/usr/lib/python3.11" "$stage/dist" "$stage/mycel-bin" \
  "$stage/lib" "$stage/bin"

# --- Python 3.11: the interpreter and the standard library without its tests, GUI, build
# files, and the extension modules nothing here imports whose libraries would weigh (curses,
# readline, dbm, nis, crypt, sqlite3, the CJK codecs, the test modules).
cp /usr/bin/python3.11 "$stage/usr/bin/"
tar -C /usr/lib/python3.11 --exclude=./test --exclude=./idlelib --exclude=./tkinter \
  --exclude=./turtledemo --exclude=./ensurepip --exclude=./lib2to3 --exclude='./config-3.11*' \
  --exclude=./distutils --exclude=./pydoc_data --exclude=./dist-packages \
  --exclude=./site-packages --exclude=./sqlite3 --exclude=./curses --exclude=./dbm \
  --exclude=__pycache__ --exclude='_test*.so' --exclude='_ctypes_test*.so' \
  --exclude='_xx*.so' --exclude='xx*.so' --exclude='_tkinter*.so' --exclude='_curses*.so' \
  --exclude='readline*.so' --exclude='_dbm*.so' --exclude='nis*.so' --exclude='_crypt*.so' \
  --exclude='_sqlite3*.so' --exclude='ossaudiodev*.so' --exclude='_codecs_[chijkt]*.so' \
  -cf - . | tar -C "$stage/usr/lib/python3.11" -xf -
# The packages `import mycel` and tests/gpu import (scripts/gpu_bundle_check.sh checks them),
# numpy without its build tools (distutils, f2py), headers, type stubs and test modules.
for pkg in numpy pytest _pytest pluggy iniconfig packaging py.py attr; do
  src=/usr/lib/python3/dist-packages/$pkg
  [[ -e $src ]] || { echo "gpu_bundle: $src not found" >&2; exit 1; }
  cp -r "$src" "$stage/dist/"
done
np=$stage/dist/numpy
rm -rf "$np/distutils" "$np/f2py" "$np/core/include" "$np/core/lib" "$np/random/lib" \
  "$np/random/_examples" "$np/core"/_simd*.so "$np/core"/_operand_flag_tests*.so \
  "$np/core"/_rational_tests*.so "$np/core"/_struct_ufunc_tests*.so "$np/core"/_umath_tests*.so
find "$stage/dist" -name tests -type d -prune -exec rm -rf {} +
find "$stage" -name __pycache__ -type d -prune -exec rm -rf {} +
find "$stage/dist" -name '*.pyi' -delete

# --- mycel: the extension, the plugins, the CUDA test binary (symbols stripped).
cp "$ext" "$stage/mycel-bin/"
for p in $plugins; do
  cp "python/mycel/libmycel_$p.so" "$stage/mycel-bin/"
done
cp "$build/mycel_cuda_tests" "$stage/bin/"
echo "$sm" > "$stage/sm.txt"
strip --strip-unneeded "$stage/bin/mycel_cuda_tests" "$stage"/mycel-bin/*.so

# --- The shared libraries: ldd's closure of every ELF file bundled, less what the GPU machine
# provides. Reported, with the names ldd could not find, in .gpu/bundle_libs.txt.
provided='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl|libmvec|libnsl|libBrokenLocale|libnss_[a-z]+|libthread_db|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas[A-Za-z]*|libcudnn[a-z_]*|libnv[A-Za-z_]*)\.so'
# numpy's BLAS/LAPACK: the reference builds under the same names; OpenBLAS stays out.
declare -A swap=([libblas.so.3]=/usr/lib/x86_64-linux-gnu/blas/libblas.so.3
                 [liblapack.so.3]=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3)
mapfile -t elves < <(find "$stage" -type f \( -name '*.so' -o -name '*.so.*' -o -perm -u+x \) \
  -exec sh -c 'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
elves+=("${swap[@]}")
ldd "${elves[@]}" 2>/dev/null | awk -v provided="$provided" '
  $2 == "=>" && $1 !~ provided {
    if ($3 == "not") missing[$1] = 1; else found[$1] = $3 }
  END { for (n in found) print "found", n, found[n]; for (n in missing) print "missing", n }' |
  sort > "$stage/libs.txt"
missing=$(awk '$1 == "missing" { print $2 }' "$stage/libs.txt")
if [[ -n $missing ]]; then
  echo "gpu_bundle: ldd cannot find these here:" $missing >&2
  exit 1
fi
while read -r _ name path; do
  case $name in libopenblas*) continue ;; esac
  src=${swap[$name]:-$path}
  cp -L "$src" "$stage/lib/$name"
  echo "$name $src"
done < "$stage/libs.txt" > "$out/bundle_libs.txt"
rm "$stage/libs.txt"
# The newest glibc and libstdc++ symbol versions anything bundled asks for (those two come from
# the GPU machine): in needs.txt, which gpu_check.sh compares with that machine's first.
mapfile -t elves < <(find "$stage" -type f \( -name '*.so' -o -name '*.so.*' -o -perm -u+x \) \
  -exec sh -c 'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
versions=$(objdump -T "${elves[@]}" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*\|GLIBCXX_3\.4\.[0-9]*' |
  sort -u || true)
{ echo "glibc $(grep -o '^GLIBC_.*' <<< "$versions" | sed 's/GLIBC_//' | sort -V | tail -1)"
  echo "libstdc++ $(grep -o '^GLIBCXX_.*' <<< "$versions" | sed 's/GLIBCXX_//' | sort -V | tail -1)"
} > "$stage/needs.txt"

# Fashion-MNIST for the LeNet check: the test set and the first MYCEL_BUNDLE_TRAIN (default
# 15000) training images, as idx files in the bundle (xz stores them in less than gzip would,
# and the whole training set would not fit the carry beside the bundle and the checkout).
mkdir -p "$stage/data/fashion-mnist"
/usr/bin/python3 - "$stage/data/fashion-mnist" "${MYCEL_BUNDLE_TRAIN:-15000}" <<'PYEOF'
import gzip, os, sys
src, dst, n = "/usr/share/datasets/fashion-mnist", sys.argv[1], int(sys.argv[2])
for stem, count in (("train", n), ("t10k", None)):
    for kind, item in (("images-idx3-ubyte", 784), ("labels-idx1-ubyte", 1)):
        raw = gzip.open(os.path.join(src, f"{stem}-{kind}.gz")).read()
        head = 16 if item == 784 else 8
        total = int.from_bytes(raw[4:8], "big")
        keep = total if count is None else min(count, total)
        with open(os.path.join(dst, f"{stem}-{kind}"), "wb") as f:
            f.write(raw[:4] + keep.to_bytes(4, "big") + raw[8:head] + raw[head:head + keep * item])
PYEOF

# The extension and the test binary next to each other in the archive: they share most of
# their code, which xz's 64 MiB window (-9) then stores once.
rm -rf "$out/fashion-mnist"  # (older bundles carried the gzip files beside it)
(cd "$stage" && { echo bin/mycel_cuda_tests; echo mycel-bin/_mycel.cpython-311-x86_64-linux-gnu.so;
  find . -type f -o -type l | sed 's|^\./||' |
    grep -v -e '^bin/mycel_cuda_tests$' -e '^mycel-bin/_mycel\.'; } > "$stage.list")
# MYCEL_BUNDLE_XZ (default 9): the xz level; 1 packs in seconds, for trying the scripts out.
tar -C "$stage" --no-recursion -T "$stage.list" -cf - |
  xz -T2 "-${MYCEL_BUNDLE_XZ:-9}" > "$out/bundle.tar.xz"
rm -f "$stage.list"
echo "gpu_bundle: $(wc -l < "$out/bundle_libs.txt") libraries bundled;" \
  "$(du -h "$stage" | tail -1 | cut -f1) unpacked; .gpu is $(du -sh "$out" | cut -f1)"
ls -la "$out/bundle.tar.xz"
