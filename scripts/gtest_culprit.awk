# The gtest that ended a run of a gtest binary's log (started, never finished: a crash or a
# hang), or, failing that, the first to report a sticky CUDA error (the CUDA context is then
# unusable and every later test fails with the same error); prints nothing when neither.
# Used by scripts/gpu_check.sh to rerun mycel_cuda_tests without that test
# (tests/python/test_gpu_scripts.py checks it). Usage: awk -f gtest_culprit.awk LOG
/^\[ RUN      \] / { cur = $4; open = 1; next }
/^\[       OK \] / || /^\[  FAILED  \] / { open = 0; next }
/illegal memory access|illegal address|unspecified launch failure|misaligned address|illegal instruction|hardware stack error/ {
  if (open && sticky == "") sticky = cur
}
END {
  if (open) print cur
  else if (sticky != "") print sticky
}
