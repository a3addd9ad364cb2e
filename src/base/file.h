// Opening files that mycel reads (MindRecord shards, dataset sources, image files): only
// regular files. open() of a FIFO blocks until a writer appears (forever, for a stray named
// pipe in a dataset folder), and a directory or a device (/dev/zero, /dev/stdin) never gives a
// well-formed file; so every reader opens through open_regular_file, which opens without
// blocking (O_NONBLOCK, cleared again after the check) and checks the type with fstat of the
// opened descriptor, so a file swapped in between a check and the open cannot slip through.
#pragma once

#include <string>
#include <string_view>

namespace mycel {

// A read-only descriptor (O_CLOEXEC) of the regular file at path. Errors name `who` and the
// path: a RuntimeError "<who>: cannot read <path>: <why>" when it cannot be opened (with strerror),
// a ValueError when it is a directory, a FIFO, a socket or a device.
int open_regular_file(const std::string& path, std::string_view who);

// The whole of the regular file at path (opened by open_regular_file, so errors as there; a
// RuntimeError naming `who` when a read fails).
std::string read_regular_file(const std::string& path, std::string_view who);

// "a directory", "a FIFO (named pipe)", ... for an st_mode that is not a regular file.
const char* file_type_name(unsigned mode);

}  // namespace mycel
