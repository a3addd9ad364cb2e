#!/usr/bin/env python3
"""The GPU architectures an ELF file's CUDA code is built for, read from its .nv_fatbin section:
for each fat binary (one per CUDA translation unit) its entries, machine code (SASS, "sm_90")
or PTX ("compute_90"). A GPU runs a kernel from SASS of its own architecture, or else JIT-
compiles PTX of an older one when the program starts (slow for a library of this size); with
neither, the first launch fails with "no kernel image is available for execution on the
device", the classic first run's failure.

    fatbin_archs.py FILE...                 prints each file's archs and entry counts
    fatbin_archs.py --require-sass 90 FILE  also fails (exit 1) unless every fat binary of every
                                            file holds SASS for sm_90

scripts/gpu_bundle.sh requires sm_90 SASS (H100, H200) of the extension and mycel_cuda_tests.
A file without CUDA code (a CPU-only build) has no fat binaries: with --require-sass that is
a failure too. The layout read here (NVIDIA's fatbin container, not a documented format but
stable across CUDA 10-13): a header {u32 magic 0xBA55ED50, u16 version, u16 header size, u64
payload size}, then entries {u16 kind (1 PTX, 2 ELF), u16 version, u32 header size, u64
payload size, ..., u32 arch at byte 28 (90 for sm_90)}.
"""
import argparse
import struct
import sys

FATBIN_MAGIC = 0xBA55ED50
KIND_PTX, KIND_ELF = 1, 2


def fatbin_section(data):
    """The bytes of an ELF64 little-endian file's .nv_fatbin section, or b"" when it has none."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def header(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    names_off = header(shstrndx)[4]
    for i in range(shnum):
        name, _, _, _, off, size, *_ = header(i)
        end = data.index(b"\0", names_off + name)
        if data[names_off + name:end] == b".nv_fatbin":
            return data[off:off + size]
    return b""


def fatbins(section):
    """Each fat binary of a .nv_fatbin section: a list of its entries as (kind, arch)."""
    out = []
    pos = 0
    while pos + 16 <= len(section):
        magic, _, hsize, size = struct.unpack_from("<IHHQ", section, pos)
        if magic != FATBIN_MAGIC:
            pos += 8  # containers are 8-byte aligned; padding between them
            continue
        entries = []
        p, end = pos + hsize, pos + hsize + size
        while p + 32 <= end:
            kind, _, ehsize, esize = struct.unpack_from("<HHIQ", section, p)
            arch, = struct.unpack_from("<I", section, p + 28)
            entries.append((kind, arch))
            if ehsize == 0:
                break
            p += ehsize + esize
        out.append(entries)
        pos = end
    return out


def describe(entries_list):
    counts = {}
    for entries in entries_list:
        for kind, arch in entries:
            name = ("sm_%d" if kind == KIND_ELF else "compute_%d" if kind == KIND_PTX
                    else "kind%d_%%d" % kind) % arch
            counts[name] = counts.get(name, 0) + 1
    return ", ".join("%s x%d" % kv for kv in sorted(counts.items())) or "no CUDA code"


def missing_sass(entries_list, arch):
    """How many fat binaries hold no SASS for `arch`."""
    return sum(1 for entries in entries_list if (KIND_ELF, arch) not in entries)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--require-sass", type=int, metavar="ARCH")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    ok = True
    for f in args.files:
        with open(f, "rb") as fh:
            found = fatbins(fatbin_section(fh.read()))
        print("%s: %d fat binaries: %s" % (f, len(found), describe(found)))
        if args.require_sass is not None:
            miss = missing_sass(found, args.require_sass)
            if not found or miss:
                print("%s: %s SASS for sm_%d" % (f, "no CUDA code, so no" if not found else
                                               "%d fat binaries have no" % miss,
                                               args.require_sass), file=sys.stderr)
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
