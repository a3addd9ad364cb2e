#include "base/error.h"

namespace mycel {

void throw_error(ErrorKind kind, std::string msg) { throw Error(kind, std::move(msg)); }

void throw_internal(const char* file, int line, const char* cond, std::string msg) {
  throw Error(ErrorKind::Internal,
              str("internal error at ", file, ":", line, ": check '", cond, "' failed",
                  msg.empty() ? "" : ": ", msg, " (please report this as a mycel bug)"));
}

}  // namespace mycel
