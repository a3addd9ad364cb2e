// Kernel test cases of the collective family (see kernel_cases.h). They need a job of several
// processes: tests/cpp/comm/mpi/test_collective_kernels.cc runs them under mpirun (2 and 4
// ranks), each rank with inputs of its own, the library kernel against the point-to-point
// reference. rank_size and split_count are set there to the world's size; Send and Receive
// cases are run there as pairs (even rank sends to the odd one after it).
#include "kernel_cases.h"

namespace mycel::test {

namespace {

KernelCase comm_case(const char* op, Shape shape, DType t, Attrs attrs, const std::string& label) {
  KernelCase c;
  c.op = op;
  c.inputs = {{std::move(shape), t,
               t == DType::Bool ? Gen::Bool
               : is_floating(t) ? Gen::Normal
                                : Gen::Int,
               -50, 50}};
  c.attrs = std::move(attrs);
  const bool half = t == DType::Float16 || t == DType::BFloat16;
  c.rtol = half ? 2e-2 : 1e-5;
  c.atol = half ? 2e-2 : 1e-5;
  c.label = std::string(dtype_name(t)) + " " + label;
  return c;
}

}  // namespace

std::vector<KernelCase> comm_cases() {
  std::vector<KernelCase> v;
  const DType all[] = {DType::Float32, DType::Float64, DType::Float16, DType::Int32,
                       DType::Int64,   DType::Int8,    DType::Bool};
  for (DType t : all) {
    for (const char* op : {"sum", "max", "min", "prod"}) {
      v.push_back(comm_case("AllReduce", {3, 5}, t, A({{"op", std::string(op)}}), op));
      v.push_back(comm_case("ReduceScatter", {8, 3}, t, A({{"op", std::string(op)}}), op));
    }
    v.push_back(comm_case("AllGather", {2, 3}, t, {}, "2x3"));
    v.push_back(comm_case("Broadcast", {4, 3}, t, A({{"root_rank", i64(1)}}), "root 1"));
    v.push_back(comm_case("Send", {6, 2}, t, A({{"sr_tag", i64(3)}}), "pair"));
  }
  v.push_back(comm_case("AllReduce", {250}, DType::Float32, {}, "sum 250 (inlined)"));
  v.push_back(comm_case("AllReduce", {1000}, DType::Float32, {}, "sum 1000"));
  // Above kInlineBytes (comm/communicator.h): the library's own collectives, not the data the
  // call check carries.
  for (DType t : {DType::Float32, DType::Int64, DType::Float16}) {
    for (const char* op : {"sum", "max", "prod"})
      v.push_back(comm_case("AllReduce", {40, 60}, t, A({{"op", std::string(op)}}),
                            std::string(op) + " large"));
    v.push_back(comm_case("AllGather", {30, 50}, t, {}, "large"));
    v.push_back(comm_case("ReduceScatter", {1200, 4}, t, {}, "large"));
    v.push_back(comm_case("Broadcast", {3000}, t, A({{"root_rank", i64(1)}}), "large"));
  }
  v.push_back(comm_case("AllReduce", {0, 3}, DType::Float32, {}, "empty"));
  for (auto [split, concat] : {std::pair{0, 0}, {0, 1}, {1, 0}, {2, 1}, {-1, -3}})
    v.push_back(comm_case("AlltoAll", {4, 8, 12}, DType::Float32,
                          A({{"split_dim", i64(split)}, {"concat_dim", i64(concat)}}),
                          "split " + std::to_string(split) + " concat " + std::to_string(concat)));
  v.push_back(comm_case("AlltoAll", {4, 8}, DType::Int64,
                        A({{"split_dim", i64(1)}, {"concat_dim", i64(0)}}), "split 1 concat 0"));
  v.push_back(comm_case("Receive", {5}, DType::Float32, A({{"sr_tag", i64(4)}}), "pair"));
  KernelCase barrier = comm_case("Barrier", {}, DType::Float32, {}, "no input");
  barrier.inputs.clear();
  v.push_back(barrier);
  return v;
}

}  // namespace mycel::test
