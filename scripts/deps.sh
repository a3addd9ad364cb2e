#!/usr/bin/env bash
# Installs the Debian packages mycel needs that are missing. Idempotent and quiet when all are
# present. Usage: scripts/deps.sh [build|test|demo|bench]
set -euo pipefail
build_pkgs=(cmake ninja-build g++ ccache python3-dev pybind11-dev python3-numpy libdnnl-dev
            libprotobuf-dev protobuf-compiler zlib1g-dev libjpeg62-turbo-dev libpng-dev
            libgloo-dev libopenmpi-dev openmpi-bin libcpp-httplib-dev libssl-dev
            libsodium-dev libflatbuffers-dev flatbuffers-compiler libonnx-dev python3-yaml
            llvm-14-dev)
# MindRecord (MindSpore's format): the SQLite index and the JSON shard header.
build_pkgs+=(libsqlite3-dev nlohmann-json3-dev libxml2-dev)
# dataset.text's tokenizers and normalizers (src/data/transforms_text.cc): ICU.
build_pkgs+=(libicu-dev)
# dataset.text's SentencePieceVocab / SentencePieceTokenizer (src/data/transforms_sentencepiece.cc).
build_pkgs+=(libsentencepiece-dev pkg-config)
# dataset.vision's read_video / DecodeVideo (src/data/video_plugin.cc): FFmpeg.
build_pkgs+=(libavformat-dev libavcodec-dev libswscale-dev libavutil-dev)
# Encrypted checkpoints (enc_key/dec_key): AES-GCM, AES-CBC, SM4-CBC from the cryptography package.
build_pkgs+=(python3-cryptography)
# The tests read the real Fashion-MNIST files too (datasets, quick start, demo smoke run); PIL
# writes their JPEG/PNG fixtures and is the oracle for decoding and PIL-filter resizing.
# The fuzz targets (fuzz/) build with clang's libFuzzer and sanitizers, and its OpenMP.
# The lite converter's tests read ONNX files written by python3-onnx and torch.onnx.export,
# and run the ONNX conformance cases (libonnx-testdata).
# SimGrid simulates the collectives of the parallel cost model (tools/simgrid; smpirun, SMPI's
# replay, for bench/simgrid_bench.py).
test_pkgs=(libgtest-dev python3-pytest python3-torch python3-pil dataset-fashion-mnist
           clang-14 libclang-rt-14-dev libomp-14-dev python3-onnx libonnx-testdata
           python3-torchvision libsimgrid-dev)
# scipy: the oracle of the audio filters and transforms and of the distributions' tests.
test_pkgs+=(python3-scipy)
# The oracle of dataset.text's SentencePiece: the library's own Python binding.
test_pkgs+=(python3-sentencepiece)
# The oracle and the writer of the video tests: PyAV, the FFmpeg binding.
test_pkgs+=(python3-av)
# The vision warps and colour transforms follow OpenCV's arithmetic, as MindSpore's kernels:
# python3-opencv (cv2) is their tests' oracle.
test_pkgs+=(python3-opencv)
# CRC-32C of TFRecord files (the TFRecord tests and the fuzz corpus writer).
test_pkgs+=(python3-crcmod)
# PyTorch calls the system BLAS: without OpenBLAS it is the netlib reference one, ~50x slower.
# The data-pipeline bench runs torchvision's transforms in torch's DataLoader.
bench_pkgs=(libopenblas0-pthread python3-torchvision)
demo_pkgs=(dataset-fashion-mnist)
want=("${build_pkgs[@]}")
case "${1:-build}" in
  test) want+=("${test_pkgs[@]}") ;;
  demo) want+=("${demo_pkgs[@]}") ;;
  bench) want+=("${test_pkgs[@]}" "${demo_pkgs[@]}" "${bench_pkgs[@]}") ;;
esac
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
