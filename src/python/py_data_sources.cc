// Placeholder until the sources bindings land (this session's work in progress).
#include "python/py_data.h"

namespace mycel::py {

void bind_data_sources(pyb::module_& m) {}

}  // namespace mycel::py
