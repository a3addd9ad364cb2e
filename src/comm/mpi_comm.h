// The Open MPI backend: a Communicator over an MPI communicator, for processes started by
// mpirun. Every operation is MPI's non-blocking form polled against the group's timeout, so
// a rank that never arrives is a RuntimeError naming the ranks that never reached the
// collective, not a hang (MPI cannot cancel a collective: after such an error the process
// should end). Reductions are MPI user operations that
// apply comm's reduce_into, so MPI and Gloo agree bit for bit on every dtype.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.h"

namespace mycel {

// MPI_Init_thread (once per process: a second init after mpi_finalize is a RuntimeError, as
// MPI allows only one), and the world communicator.
std::unique_ptr<Communicator> mpi_world(std::chrono::milliseconds timeout);
// This process's rank among the world ranks on its machine, and their number.
void mpi_local_rank(int* local_rank, int* local_size);
// A sub-group of `parent` (an MPI communicator from this file) of the given parent ranks;
// called by the members only.
std::unique_ptr<Communicator> mpi_subgroup(Communicator& parent, const std::string& name,
                                           const std::vector<int>& parent_ranks);
// Frees MPI's state; communicators from this file must be gone.
void mpi_finalize();

}  // namespace mycel
