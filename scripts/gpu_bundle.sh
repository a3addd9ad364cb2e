#!/usr/bin/env bash
# Packs what scripts/gpu_check.sh needs on a GPU machine into .gpu/bundle.tar.xz: this
# build's extension and CUDA test binary, and the Debian runtime they were built against
# (Python 3.11 with its standard library, numpy and pytest, and the shared libraries that the
# GPU machine's image lacks: oneDNN, protobuf, libjpeg/png, OpenBLAS, ...). The GPU machine
# has its own CUDA libraries (cuBLAS, cuDNN), a newer glibc and libstdc++, and Python 3.12
# with PyTorch, which the bench's PyTorch side runs on.
#
# Usage: scripts/gpu_bundle.sh [BUILD]   (default build; run `make build` first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
cd "$root"
out=.gpu
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$out" "$stage/usr/bin" "$stage/usr/lib/python3.11" "$stage/dist" "$stage/lib" \
  "$stage/bin"

cp /usr/bin/python3.11 "$stage/usr/bin/"
# The standard library without its tests, GUI and build files.
tar -C /usr/lib/python3.11 --exclude=test --exclude=idlelib --exclude=tkinter \
  --exclude=turtledemo --exclude=ensurepip --exclude=lib2to3 --exclude='config-3.11*' \
  --exclude=__pycache__ -cf - . | tar -C "$stage/usr/lib/python3.11" -xf -
for pkg in numpy pytest _pytest pluggy iniconfig packaging py.py attr attrs; do
  src=/usr/lib/python3/dist-packages/$pkg
  [[ -e $src ]] && cp -r "$src" "$stage/dist/"
done
find "$stage/dist" -name tests -type d -prune -exec rm -rf {} +
find "$stage" -name __pycache__ -type d -prune -exec rm -rf {} +

libs=(libdnnl.so.2 libOpenCL.so.1 libprotobuf.so.32 libjpeg.so.62 libpng16.so.16 libgomp.so.1
      libexpat.so.1 libffi.so.8 libbz2.so.1.0 liblzma.so.5 libgfortran.so.5 libquadmath.so.0)
for l in "${libs[@]}"; do
  p=$(ldconfig -p | awk -v l="$l" '$1 == l && !f { print $NF; f = 1 }')
  [[ -n $p ]] || { echo "gpu_bundle: $l not found" >&2; exit 1; }
  cp -L "$p" "$stage/lib/"
done
# numpy's BLAS and LAPACK: the reference builds (a tenth of OpenBLAS's size; numpy's speed
# does not matter to the checks).
cp -L /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 \
  "$stage/lib/"
# Fashion-MNIST for the LeNet check.
mkdir -p "$out/fashion-mnist"
cp /usr/share/datasets/fashion-mnist/*.gz "$out/fashion-mnist/"

cp python/mycel/_mycel.cpython-311-x86_64-linux-gnu.so "$stage/dist/"
cp "$build/mycel_cuda_tests" "$stage/bin/"
strip --strip-unneeded "$stage/bin/mycel_cuda_tests" "$stage/dist/_mycel.cpython-311-x86_64-linux-gnu.so"
tar -C "$stage" -cf - . | xz -T2 -6 > "$out/bundle.tar.xz"
ls -la "$out/bundle.tar.xz"
