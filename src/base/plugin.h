// Plugins: shared libraries that mycel loads with dlopen on first use rather than linking,
// either to keep `import mycel` light (the kernel JIT's LLVM, FFmpeg) or to keep a library's
// symbols out of the process's link map (sentencepiece's bundled protobuf). Each plugin
// exports a small C interface; its users look the functions up once.
#pragma once

#include <string>

namespace mycel {

// Opens the plugin `file` (e.g. "libmycel_jit.so") from the folder of the module that holds
// mycel's code (the Python extension, in python/mycel), else from `build_path` (where the build
// put it, for the test binaries). RTLD_NOW | RTLD_LOCAL; with `deep_bind` also RTLD_DEEPBIND
// (the plugin and its libraries resolve their own symbols first; not under sanitizers, whose
// runtimes refuse it). Returns the handle, or null with *error naming the paths tried and why.
void* open_plugin(const std::string& file, const std::string& build_path, bool deep_bind,
                  std::string* error);

// The address of the plugin's function `name`, or null.
void* plugin_function(void* plugin, const char* name);

}  // namespace mycel
