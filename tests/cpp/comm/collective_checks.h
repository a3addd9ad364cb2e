// The checks every Communicator backend passes (tests/cpp/comm/test_gloo.cc runs them on
// ranks in threads, tests/cpp/comm/mpi/ on processes under mpirun). Each rank calls
// check_collectives on its communicator; expected values are computed here, in double or in
// the integer types directly, independently of comm's reduce_into.
#pragma once

#include "comm/communicator.h"

namespace mycel::test {

// All-reduce (every op, every dtype, sizes 1, 7 and 1000; integer wrap-around; NaN; float32
// up to 5 MiB, in place and out of place), all-gather, reduce-scatter, all-to-all, broadcast,
// send/receive in a ring, barrier and empty buffers.
void check_collectives(Communicator& c);

}  // namespace mycel::test
