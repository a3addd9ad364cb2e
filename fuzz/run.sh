#!/usr/bin/env bash
# Runs every fuzz target of build-fuzz (fuzz/CMakeLists.txt) on its seed corpus, fuzz/corpus/.
#   fuzz/run.sh smoke   (make test) a bounded run per target: FUZZ_RUNS inputs (default 2000)
#                       or FUZZ_SMOKE_TIME seconds (default 25), whichever ends first, seed 1;
#                       new inputs go to a temporary directory, nothing is kept but findings.
#   fuzz/run.sh long    (make fuzz) FUZZ_TIME seconds per target (default 600); new inputs
#                       are kept in build-fuzz/corpus/<target> for the next run.
# Findings (crashes, sanitizer reports, leaks, uncaught exceptions, timeouts, huge
# allocations) are saved in build-fuzz/crashes/<target>-*; the script then fails. Reproduce
# one with build-fuzz/fuzz_<target> build-fuzz/crashes/<file>; once fixed, add it to
# fuzz/corpus/<target>/ as regress-<what>.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${FUZZ_BUILD:-build-fuzz}
mode=${1:-smoke}
targets=(${FUZZ_TARGETS:-checkpoint mindir onnx mindrecord image ir_text lite_model federated audio video
  cifar100 tfrecord data_sources sentencepiece})
mkdir -p "$BUILD/crashes" "$BUILD/logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for t in "${targets[@]}"; do
  dict=()
  [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
  if [ "$mode" = long ]; then
    work="$BUILD/corpus/$t"
    mkdir -p "$work"
    bound=(-max_total_time="${FUZZ_TIME:-600}")
  else
    work=$(mktemp -d)
    bound=(-seed=1 -runs="${FUZZ_RUNS:-2000}" -max_total_time="${FUZZ_SMOKE_TIME:-25}")
  fi
  log="$BUILD/logs/$t.log"
  start=$SECONDS
  "$BUILD/fuzz_$t" "${dict[@]}" "${bound[@]}" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -max_len=262144 -artifact_prefix="$BUILD/crashes/$t-" \
    -print_final_stats=1 "$work" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  [ "$mode" = long ] || rm -rf "$work"
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  if [ $rc -ne 0 ]; then
    failed+=("$t")
    echo "fuzz_$t: FINDING (exit $rc) after $((SECONDS - start)) s; log $log:"
    grep -E 'ERROR|SUMMARY|==[0-9]+==|runtime error|uncaught|Test unit written' "$log" | head -20
  else
    echo "fuzz_$t: ${runs:-?} inputs in $((SECONDS - start)) s, no finding"
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: findings in ${failed[*]} (inputs in $BUILD/crashes/)"
  exit 1
fi
