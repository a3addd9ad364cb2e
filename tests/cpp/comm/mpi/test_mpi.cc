// The MPI backend, run by ctest under mpirun at 2 and 4 processes (CMakeLists.txt): the same
// checks as the Gloo backend's, on the world and on a sub-group.
#include <gtest/gtest.h>

#include "../collective_checks.h"
#include "comm/process_groups.h"

namespace mycel {
namespace {

TEST(Mpi, WorldAndSubGroupPassTheCollectiveChecks) {
  CommOptions o = CommOptions::from_env();
  ASSERT_EQ(o.backend, "mpi");  // started by mpirun
  o.timeout = std::chrono::seconds(120);
  ProcessGroups g(o);
  Communicator& w = g.world();
  EXPECT_EQ(w.backend(), "mpi");
  test::check_collectives(w);
  EXPECT_EQ(g.local_size(), w.size());  // one machine
  // The odd world ranks, in reverse order: group rank i is rank_ids[i].
  std::vector<int> odd;
  for (int r = w.size() - 1; r >= 0; --r)
    if (r % 2 == 1) odd.push_back(r);
  if (w.rank() % 2 == 1) {
    g.create_group("odd", odd);
    Communicator& c = g.group("odd");
    EXPECT_EQ(c.size(), static_cast<int>(odd.size()));
    EXPECT_EQ(g.world_rank("odd", c.rank()), w.rank());
    test::check_collectives(c);
    g.destroy_group("odd");
  }
  w.barrier();
}

}  // namespace
}  // namespace mycel
