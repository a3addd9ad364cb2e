// Helpers of the fuzz targets whose readers take file paths rather than bytes (the data
// engine's sources: fuzz_tfrecord, fuzz_data_sources): a private temporary directory per
// process, a fresh sub-directory per input (so that no reader's cache keyed by path sees an
// earlier input), files written into it, and the rows read touched byte by byte (so that a
// row viewing memory it does not own is an ASan report, not a silent read).
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "data/source.h"

namespace mycel::fuzz {

// The process's directory under $TMPDIR (or /tmp), made once and removed at exit.
inline const std::string& process_dir(const char* target) {
  static const std::string path = [target] {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(base && *base ? base : "/tmp") + "/mycel-fuzz-" + target + "-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    static std::string d;
    d = tmpl;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    });
    return tmpl;
  }();
  return path;
}

// A fresh, empty directory for one input: <process dir>/<n>, the previous one removed.
inline std::string input_dir(const char* target) {
  static unsigned long long n = 0;
  std::error_code ec;
  const std::string& base = process_dir(target);
  if (n > 0) std::filesystem::remove_all(base + "/" + std::to_string(n - 1), ec);
  std::string d = base + "/" + std::to_string(n++);
  std::filesystem::create_directories(d, ec);
  return d;
}

// Writes bytes to dir/name, making the directories of name.
inline std::string put_file(const std::string& dir, const std::string& name,
                            std::string_view bytes) {
  std::string path = dir + "/" + name;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Reads every byte of a row's arrays (numeric bytes, string elements) into a sum the
// optimiser cannot drop.
inline void touch_row(const data::Row& row) {
  static volatile unsigned sink = 0;
  unsigned s = 0;
  for (const data::Array& a : row) {
    if (!a.defined()) continue;
    if (a.dtype() == data::DataType::String) {
      for (const std::string& v : a.str())
        for (char c : v) s += static_cast<unsigned char>(c);
      continue;
    }
    const auto* p = static_cast<const unsigned char*>(a.raw());
    for (size_t i = 0, n = a.nbytes(); i < n; ++i) s += p[i];
  }
  sink = sink + s;
}

// Reads every row of a source (each read's typed error swallowed on its own, so that a bad
// row does not hide the rows after it), touching each.
template <class Expect>
void read_all(const data::RandomAccessSource& src, Expect&& expect, int64_t limit = 4096) {
  const int64_t n = std::min<int64_t>(src.size(), limit);
  (void)src.columns();
  (void)src.file_of_rows();
  (void)src.class_rows();
  for (int64_t i = 0; i < n; ++i) expect([&] { touch_row(src.read(i)); });
}

}  // namespace mycel::fuzz
