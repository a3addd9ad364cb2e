// open_regular_file: regular files open; FIFOs, directories and devices are ValueErrors at once
// (a FIFO's plain open() would block until a writer came).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "base/error.h"
#include "base/file.h"

namespace mycel {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/mycel_test_file_XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

ErrorKind kind_of_open(const std::string& path, std::string* msg) {
  try {
    ::close(open_regular_file(path, "Reader"));
  } catch (const Error& e) {
    *msg = e.message();
    return e.kind();
  }
  return ErrorKind::Internal;  // no error
}

TEST(OpenRegularFile, RegularFilesOpen) {
  TempDir dir;
  std::string p = (dir.path / "a.bin").string();
  std::FILE* f = std::fopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("abc", f);
  std::fclose(f);
  int fd = open_regular_file(p, "Reader");
  char buf[4] = {};
  EXPECT_EQ(::read(fd, buf, 3), 3);  // blocking mode restored; reads as usual
  EXPECT_STREQ(buf, "abc");
  ::close(fd);
}

TEST(OpenRegularFile, FifoDirectoryDeviceAndMissingAreErrorsNamingThePath) {
  TempDir dir;
  std::string fifo = (dir.path / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string msg;
  EXPECT_EQ(kind_of_open(fifo, &msg), ErrorKind::Value);  // returns: no writer needed
  EXPECT_NE(msg.find("FIFO"), std::string::npos) << msg;
  EXPECT_NE(msg.find(fifo), std::string::npos) << msg;
  EXPECT_NE(msg.find("Reader"), std::string::npos) << msg;
  EXPECT_EQ(kind_of_open(dir.path.string(), &msg), ErrorKind::Value);
  EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
  EXPECT_EQ(kind_of_open("/dev/null", &msg), ErrorKind::Value);
  EXPECT_NE(msg.find("device"), std::string::npos) << msg;
  EXPECT_EQ(kind_of_open((dir.path / "missing").string(), &msg), ErrorKind::Runtime);
  EXPECT_NE(msg.find("cannot read"), std::string::npos) << msg;
}

}  // namespace
}  // namespace mycel
