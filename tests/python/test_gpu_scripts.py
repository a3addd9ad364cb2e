"""The GPU check's helpers, on a machine without a GPU: scripts/gtest_culprit.awk (which test
of mycel_cuda_tests to leave out of a rerun after a crash, a hang or a sticky CUDA error) on
made-up gtest logs, and scripts/fatbin_archs.py (which GPU architectures the CUDA code is
built for) on a made-up ELF file and on the built extension, whose CUDA code must hold
machine code for sm_90 (H100, H200): without it the first kernel launch on those GPUs fails
with "no kernel image is available"."""
import glob
import os
import shutil
import struct
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fatbin_archs  # noqa: E402

# ---- scripts/gtest_culprit.awk --------------------------------------------------------------


def culprit(tmp_path, log):
    if shutil.which("awk") is None:
        pytest.fail("awk is needed by scripts/gpu_check.sh and this test")
    p = tmp_path / "log.txt"
    p.write_text(log)
    r = subprocess.run(["awk", "-f", os.path.join(ROOT, "scripts", "gtest_culprit.awk"), str(p)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def run_lines(name, ok=True, body=""):
    end = "[       OK ] %s (3 ms)\n" % name if ok else "[  FAILED  ] %s (3 ms)\n" % name
    return "[ RUN      ] %s\n%s%s" % (name, body, end)


def test_culprit_is_the_test_a_crash_interrupted(tmp_path):
    log = (run_lines("CudaDevice.A") + run_lines("All/CudaVsCpu.MatchesCpuReference/Add_f32") +
           "[ RUN      ] All/CudaVsCpu.MatchesCpuReference/Sort_f16\n")
    assert culprit(tmp_path, log) == "All/CudaVsCpu.MatchesCpuReference/Sort_f16"


def test_culprit_is_the_first_test_with_a_sticky_error(tmp_path):
    sticky = ("x.cc:1: Failure\nmycel::Error: CUDA error in cudaStreamSynchronize(s): an "
              "illegal memory access was encountered.\n")
    log = (run_lines("CudaDevice.A") + run_lines("All/CudaVsCpu.X/Gather_i64", False, sticky) +
           run_lines("All/CudaVsCpu.X/Add_f32", False, sticky) +
           "[==========] 3 tests ran.\n[  FAILED  ] All/CudaVsCpu.X/Gather_i64\n"
           "[  FAILED  ] All/CudaVsCpu.X/Add_f32\n")
    assert culprit(tmp_path, log) == "All/CudaVsCpu.X/Gather_i64"


def test_no_culprit_for_plain_failures_or_a_clean_run(tmp_path):
    plain = "x.cc:1: Failure\nValue of: err\n  Actual: \"max abs diff 0.1\"\n"
    log = run_lines("A.B") + run_lines("A.C", False, plain) + run_lines("A.D")
    assert culprit(tmp_path, log) == ""
    assert culprit(tmp_path, run_lines("A.B") + run_lines("A.C")) == ""


# ---- scripts/fatbin_archs.py ----------------------------------------------------------------


def fatbin(entries):
    """One fat binary container holding `entries` [(kind, arch, payload bytes)]."""
    body = b""
    for kind, arch, payload in entries:
        head = struct.pack("<HHIQ", kind, 1, 64, len(payload)) + struct.pack("<IIII", 0, 0, 0, arch)
        body += head.ljust(64, b"\0") + payload
    return struct.pack("<IHHQ", fatbin_archs.FATBIN_MAGIC, 1, 16, len(body)) + body


def elf_with(section):
    """A minimal ELF64 file whose sections are null, .nv_fatbin (`section`) and .shstrtab."""
    names = b"\0.nv_fatbin\0.shstrtab\0"
    data_off = 64
    names_off = data_off + len(section)
    shoff = (names_off + len(names) + 7) // 8 * 8
    ident = b"\x7fELF\x02\x01\x01" + b"\0" * 9
    header = ident + struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 3, 2)
    sh = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
          struct.pack("<IIQQQQIIQQ", 1, 1, 0, 0, data_off, len(section), 0, 0, 8, 0),
          struct.pack("<IIQQQQIIQQ", 12, 3, 0, 0, names_off, len(names), 0, 0, 1, 0)]
    blob = header + section + names
    return blob + b"\0" * (shoff - len(blob)) + b"".join(sh)


def test_fatbin_archs_reads_each_container(tmp_path):
    sec = (fatbin([(2, 90, b"\x7fELF" + b"\0" * 12), (1, 90, b"ptx" * 5)]) + b"\0" * 8 +
           fatbin([(2, 80, b"\0" * 24), (1, 80, b"p" * 8)]))
    path = tmp_path / "lib.so"
    path.write_bytes(elf_with(sec))
    found = fatbin_archs.fatbins(fatbin_archs.fatbin_section(path.read_bytes()))
    assert found == [[(2, 90), (1, 90)], [(2, 80), (1, 80)]]
    assert fatbin_archs.describe(found) == "compute_80 x1, compute_90 x1, sm_80 x1, sm_90 x1"
    assert fatbin_archs.missing_sass(found, 90) == 1
    assert fatbin_archs.main(["--require-sass", "90", str(path)]) == 1
    assert fatbin_archs.main(["--require-sass", "80", str(path)]) == 1
    path.write_bytes(elf_with(fatbin([(2, 90, b"\0" * 16)])))
    assert fatbin_archs.main(["--require-sass", "90", str(path)]) == 0
    # No CUDA code at all cannot satisfy a requirement.
    path.write_bytes(elf_with(b""))
    assert fatbin_archs.fatbins(fatbin_archs.fatbin_section(path.read_bytes())) == []
    assert fatbin_archs.main(["--require-sass", "90", str(path)]) == 1


def test_the_extensions_cuda_code_runs_on_hopper():
    ext = glob.glob(os.path.join(ROOT, "python", "mycel", "_mycel*.so"))
    assert ext, "the extension is not built"
    with open(ext[0], "rb") as f:
        found = fatbin_archs.fatbins(fatbin_archs.fatbin_section(f.read()))
    # A CPU-only build has no CUDA code; a CUDA build's every fat binary has sm_90 SASS.
    assert fatbin_archs.missing_sass(found, 90) == 0, fatbin_archs.describe(found)


# ---- scripts/gpu_check.sh's mycel_cuda_tests step -----------------------------------------

FAKE_GTEST = r"""#!/bin/bash
# A gtest binary's output for S.A .. S.E: S.B kills the process, S.C breaks the CUDA context
# (every later test then fails with the same sticky error).
filter=""
for a in "$@"; do case $a in --gtest_filter=-*) filter=${a#--gtest_filter=-};; esac; done
sticky=0
for t in S.A S.B S.C S.D S.E; do
  [[ ":$filter:" == *":$t:"* ]] && continue
  echo "[ RUN      ] $t"
  [[ $t == S.B ]] && kill -SEGV $$
  [[ $t == S.C ]] && sticky=1
  if ((sticky)); then
    echo "CUDA error in cudaStreamSynchronize(s): an illegal memory access was encountered."
    echo "[  FAILED  ] $t (1 ms)"
  else
    echo "[       OK ] $t (1 ms)"
  fi
done
exit $sticky
"""


def test_cuda_tests_step_reruns_without_the_test_that_broke_the_run(tmp_path):
    """The step's functions taken from scripts/gpu_check.sh and run on a fake binary."""
    script = open(os.path.join(ROOT, "scripts", "gpu_check.sh")).read()

    def function(name):
        start = script.index("\n%s() {" % name) + 1
        return script[start:script.index("\n}\n", start) + 3]
    rt = tmp_path / "rt"
    (rt / "bin").mkdir(parents=True)
    fake = rt / "bin" / "mycel_cuda_tests"
    fake.write_text(FAKE_GTEST)
    fake.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    driver = "\n".join([
        'root=%s rt=%s out=%s dry=0 fail=0 last_rc=0' % (ROOT, rt, out),
        'save() { :; }', function("run"), function("cuda_tests"),
        'cuda_tests', 'echo "fail=$fail"'])
    r = subprocess.run(["bash", "-c", driver], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("fail=1")  # a crash and a sticky error are failures
    summary = (out / "summary.txt").read_text()
    assert "cuda_tests: S.B ended the run" in summary
    assert "cuda_tests_2: S.C ended the run" in summary
    last = (out / "cuda_tests_3.log").read_text()
    assert "[       OK ] S.D" in last and "[       OK ] S.E" in last
    assert "S.B" not in last and "S.C" not in last
