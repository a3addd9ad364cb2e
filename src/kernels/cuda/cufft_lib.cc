// libcufft loaded at first use (see cufft_lib.h).
#include "kernels/cuda/cufft_lib.h"

#include <dlfcn.h>

#include <cstdio>
#include <string>
#include <type_traits>

#include "base/error.h"
#include "kernels/cuda/cufft_status.h"

namespace mycel::cuda {

namespace {

const char* status_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE:
      return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
      return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
      return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    default:
      return "unknown cuFFT status";
  }
}

// Resolves every function of CufftApi from `lib`; false (naming the first missing one in
// `missing`) if one is absent.
bool resolve(void* lib, CufftApi& api, std::string& missing) {
  bool ok = true;
  auto get = [&](auto& fn, const char* name) {
    void* p = dlsym(lib, name);
    if (p == nullptr && ok) {
      ok = false;
      missing = name;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  get(api.create, "cufftCreate");
  get(api.destroy, "cufftDestroy");
  get(api.set_auto_allocation, "cufftSetAutoAllocation");
  get(api.make_plan_many64, "cufftMakePlanMany64");
  get(api.set_work_area, "cufftSetWorkArea");
  get(api.set_stream, "cufftSetStream");
  get(api.exec_c2c, "cufftExecC2C");
  get(api.exec_z2z, "cufftExecZ2Z");
  get(api.exec_r2c, "cufftExecR2C");
  get(api.exec_d2z, "cufftExecD2Z");
  get(api.exec_c2r, "cufftExecC2R");
  get(api.exec_z2d, "cufftExecZ2D");
  return ok;
}

const CufftApi* load() {
  static CufftApi api;
  std::string why;
  for (const char* name : {"libcufft.so.12", "libcufft.so"}) {
    void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* e = dlerror();
      if (why.empty()) why = e ? e : name;
      continue;
    }
    std::string missing;
    if (resolve(lib, api, missing)) return &api;
    why = std::string(name) + " lacks " + missing;
    dlclose(lib);
  }
  std::fprintf(stderr,
               "mycel: cuFFT not found (%s); FFTN runs on the CPU with copies on the GPU.\n",
               why.c_str());
  return nullptr;
}

}  // namespace

const CufftApi* cufft() {
  static const CufftApi* const api = load();
  return api;
}

bool cufft_available() { return cufft() != nullptr; }

void check_cufft(cufftResult r, const char* what) {
  MC_CHECK(r == CUFFT_SUCCESS, Runtime, "cuFFT error in ", what, ": ", status_name(r), " (",
           static_cast<int>(r), ").");
}

}  // namespace mycel::cuda
