#include "base/plugin.h"

#include <dlfcn.h>

namespace mycel {
namespace {

int open_flags(bool deep_bind) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  deep_bind = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  deep_bind = false;
#endif
#endif
  return RTLD_NOW | RTLD_LOCAL | (deep_bind ? RTLD_DEEPBIND : 0);
}

}  // namespace

void* open_plugin(const std::string& file, const std::string& build_path, bool deep_bind,
                  std::string* error) {
  const int flags = open_flags(deep_bind);
  std::string tried;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&open_plugin), &info) != 0 && info.dli_fname != nullptr) {
    std::string self(info.dli_fname);
    size_t slash = self.rfind('/');
    std::string path = (slash == std::string::npos ? "." : self.substr(0, slash)) + "/" + file;
    tried = path;
    if (void* h = dlopen(path.c_str(), flags)) return h;
  }
  tried += (tried.empty() ? "" : ", ") + build_path;
  if (void* h = dlopen(build_path.c_str(), flags)) return h;
  const char* e = dlerror();
  *error = "cannot load " + file + " (tried " + tried + "): " + (e ? e : "not found");
  return nullptr;
}

void* plugin_function(void* plugin, const char* name) { return dlsym(plugin, name); }

}  // namespace mycel
