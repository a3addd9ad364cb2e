// Placeholder until the mindrecord bindings land (this session's work in progress).
#include "python/py_data.h"

namespace mycel::py {

void bind_data_mindrecord(pyb::module_& m) {}

}  // namespace mycel::py
