// Whole-step capture: the narrow interface a device backend offers so that the graph
// executor can record the work of one compiled step once and replay it (MindSpore's
// whole-graph sink; CUDA Graphs on the CUDA device). Beside tensor/device.h's DeviceBackend,
// not inside it: only the executor's capture runner (runtime/vm_capture.h) and the backends
// include this header.
//
// Between begin_capture and end_capture on device `index`:
//   - kernels and device copies queued on the device's stream are recorded, not run;
//   - device allocations come from a private pool that the captured graph keeps (its
//     addresses are baked into the graph); a block freed during the capture is reused only
//     by later allocations of the same capture, never by work outside it;
//   - anything that needs the host to see or produce device bytes (a host->device or
//     device->host copy, a synchronisation) throws a RuntimeError saying it cannot be
//     captured; the capture is then unusable and end_capture reports it.
// A capture assumes one thread drives the device meanwhile (the device has one stream).
#pragma once

#include <memory>
#include <string>

#include "tensor/device.h"

namespace mycel {

// One captured step: replay() queues the recorded work again on the device's stream (no
// host wait), reading and writing the same addresses. Destroying it frees the graph and
// gives its pool's blocks back to the device's cache (the blocks still held by tensors
// become ordinary blocks, returned to the cache when those tensors die).
class CapturedGraph {
 public:
  virtual ~CapturedGraph() = default;
  virtual void replay() = 0;
};

class CaptureBackend {
 public:
  virtual ~CaptureBackend() = default;
  // Whether device `index` can capture at all (the driver supports it).
  virtual bool can_capture(int index) = 0;
  // Starts capturing device `index`'s stream (see above). Throws a RuntimeError when the
  // device cannot start (nothing is then captured).
  virtual void begin_capture(int index) = 0;
  // Ends the capture begun on `index`, always leaving the device out of capture mode: the
  // replayable graph, or nullptr with `*why` saying why the capture failed (a forbidden call
  // during it, an instantiation error). The pool of a failed capture is given back at once.
  virtual std::unique_ptr<CapturedGraph> end_capture(int index, std::string* why) = 0;
};

// The installed capture backend of a device type, or nullptr (always for the CPU).
CaptureBackend* capture_backend(DeviceType type);
void install_capture_backend(DeviceType type, CaptureBackend* backend);

}  // namespace mycel
