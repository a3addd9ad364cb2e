#include "tensor/device.h"

#include "base/error.h"

namespace mycel {

namespace {
DeviceBackend* g_backends[kNumDeviceTypes] = {};
}

std::string device_name(Device d) {
  if (d.is_cpu()) return "CPU";
  return str("GPU:", d.index);
}

DeviceBackend* device_backend(DeviceType type) { return g_backends[static_cast<int>(type)]; }

void install_device_backend(DeviceType type, DeviceBackend* backend) {
  MC_ASSERT(type != DeviceType::CPU, "the host needs no backend");
  g_backends[static_cast<int>(type)] = backend;
}

DeviceBackend& backend_for(Device d) {
  DeviceBackend* b = device_backend(d.type);
  MC_CHECK(b != nullptr, Runtime, "no GPU backend in this build of mycel (built without CUDA)");
  int n = b->device_count();
  MC_CHECK(d.index >= 0 && d.index < n, Runtime, device_name(d), " does not exist: ", n,
           " GPU device", n == 1 ? "" : "s", " found.");
  return *b;
}

}  // namespace mycel
