// Placeholder until the vision bindings land (this session's work in progress).
#include "python/py_data.h"

namespace mycel::py {

void bind_data_vision(pyb::module_& m) {}

}  // namespace mycel::py
