#include "base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/error.h"

namespace mycel {

const char* file_type_name(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

int open_regular_file(const std::string& path, std::string_view who) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  MC_CHECK(fd >= 0, Runtime, who, ": cannot read ", path, ": ", std::strerror(errno), ".");
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    MC_THROW(Runtime, who, ": cannot stat ", path, ": ", std::strerror(err), ".");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    MC_THROW(Value, who, ": ", path, " is ", file_type_name(st.st_mode),
             ", not a regular file; only regular files can be read.");
  }
  // Blocking reads again (no effect on a regular file's reads, but callers may fdopen it).
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string read_regular_file(const std::string& path, std::string_view who) {
  const int fd = open_regular_file(path, who);
  std::string out;
  char buf[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      MC_THROW(Runtime, who, ": cannot read ", path, ": ", std::strerror(err));
    }
    if (got == 0) break;
    out.append(buf, static_cast<size_t>(got));
  }
  ::close(fd);
  return out;
}

}  // namespace mycel
