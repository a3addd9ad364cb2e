# mycel: `make demo` trains on Fashion-MNIST, `make test` builds and runs every test,
# `make bench` measures against PyTorch, `make fuzz` runs the fuzz targets (fuzz/) for
# FUZZ_TIME seconds each. Each installs missing Debian packages first.
PY      ?= /usr/bin/python3
BUILD   ?= build
JOBS    ?= $(shell nproc)
WERROR  := $(if $(MYCEL_WERROR),ON,OFF)
CMAKE_FLAGS := -G Ninja -DCMAKE_BUILD_TYPE=Release -DMYCEL_WERROR=$(WERROR) \
               -DPython_EXECUTABLE=$(PY) -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
               -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache
export PYTHONPATH := $(CURDIR)/python
export CCACHE_DIR ?= $(HOME)/.cache/mycel-ccache
# Paths under the checkout hash relative to it, so other checkouts (git worktrees) share hits.
export CCACHE_BASEDIR ?= $(CURDIR)
# The libFuzzer targets (fuzz/CMakeLists.txt): clang, sanitizers, their own tree.
FUZZ_BUILD ?= build-fuzz
FUZZ_CMAKE_FLAGS := -G Ninja -DMYCEL_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14 \
                    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
export FUZZ_BUILD

.PHONY: all build deps test test-cpp test-python test-fuzz fuzz fuzz-build demo bench format clean

all: build

deps:
	@scripts/deps.sh build

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

test: 
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory build fuzz-build
	@$(MAKE) --no-print-directory test-cpp test-python test-fuzz

test-cpp:
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-python:
	$(PY) -m pytest -q -p no:cacheprovider tests/python

$(FUZZ_BUILD)/build.ninja: CMakeLists.txt fuzz/CMakeLists.txt
	cmake -S . -B $(FUZZ_BUILD) $(FUZZ_CMAKE_FLAGS)

fuzz-build: $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

# A bounded run of every fuzz target (part of make test): see fuzz/run.sh.
test-fuzz:
	fuzz/run.sh smoke

# FUZZ_TIME seconds per target (default 600); findings land in build-fuzz/crashes/.
fuzz:
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory fuzz-build
	fuzz/run.sh long

demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory build
	$(PY) examples/demo.py $(ARGS)

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory build
	$(PY) bench/run.py

format:
	clang-format -i $$(git ls-files 'src/*.cc' 'src/*.h' 'tests/*.cc')

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD) python/mycel/_mycel*.so
