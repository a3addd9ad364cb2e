// The Gloo backend: a Communicator over Gloo's TCP transport (the library PyTorch uses for
// CPU collectives). Ranks meet through a Store (comm/store.h); each group is one Gloo
// context, a full mesh of TCP pairs, under a key prefix of its own in the store, all groups
// of a process sharing one transport device.
//
// Gloo's choices, and what mycel does about them:
//   - reductions on every dtype: Gloo applies the function it is given, comm's reduce_into;
//   - reduce-scatter: an all-to-all then a local reduction (the same bytes on the wire as a
//     ring reduce-scatter; Gloo 0.5's halving-doubling one leaves this rank's block at the
//     start of its buffer);
//   - all-reduce is mycel's schedule on Gloo's transport: two ranks exchange buffers of up to
//     1 MiB whole, and past that reduce a half each with the all-gather overlapping the
//     reduce-scatter; more ranks run Gloo's ring, reading the input in place;
//   - every collective gets a tag of its own (a per-group sequence), as concurrent ones on
//     one context must;
//   - Gloo's timeout exceptions and closed connections become throw_comm_error.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.h"
#include "comm/store.h"

namespace mycel {

class GlooDevice;  // the shared TCP transport device (gloo_comm.cc)

// The transport device for `hostname` (the address the other ranks reach this one at; the
// loopback address for one machine).
std::shared_ptr<GlooDevice> make_gloo_device(const std::string& hostname);

// Connects `group` (ranks `rank` of `size`; keys under "<group>/" in `store`) and returns
// its communicator. Blocks until every rank of the group has connected, or `timeout`.
std::unique_ptr<Communicator> connect_gloo(std::shared_ptr<GlooDevice> device, Store& store,
                                           const std::string& group, int rank, int size,
                                           std::chrono::milliseconds timeout);

}  // namespace mycel
