// mycel.communication's core: a ProcessGroups object (comm/process_groups.h) made by init()
// and held by the Python module until release(). Blocking calls (connecting the world, making
// a group) drop the GIL, so other Python threads run while a rank waits for its peers.
// While held, it is the runtime's process groups (runtime/eager.h, set_process_groups), which
// the collective ops run over; close() and destruction take it back.
#include <pybind11/stl.h>

#include "comm/exec_order.h"
#include "comm/process_groups.h"
#include "python/module.h"
#include "runtime/eager.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {
// Unregisters the groups from the runtime before they go.
struct Unregister {
  void operator()(ProcessGroups* g) const {
    if (process_groups() == g) set_process_groups(nullptr);
    delete g;
  }
};
}  // namespace

void bind_comm(pyb::module_& m) {
  pyb::class_<CommWork, std::shared_ptr<CommWork>>(m, "_CommWork",
                                                   "Queued communication work (comm/work_queue.h).")
      .def("wait", &CommWork::wait, pyb::call_guard<pyb::gil_scoped_release>(),
           "Blocks until the work ran; raises its error.")
      .def("is_completed", &CommWork::done);
  using PG = ProcessGroups;
  pyb::class_<PG, std::unique_ptr<PG, Unregister>>(m, "_ProcessGroups")
      .def(pyb::init([](const std::string& backend, double timeout_s) {
             CommOptions o = CommOptions::from_env(backend);
             if (timeout_s > 0) {
               o.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
             }
             pyb::gil_scoped_release nogil;
             std::unique_ptr<PG, Unregister> g(new PG(o));
             set_process_groups(g.get());
             return g;
           }),
           pyb::arg("backend") = "", pyb::arg("timeout") = 0.0,
           "Connects the world group (init()); timeout in seconds, 0: MYCEL_COMM_TIMEOUT.")
      .def_property_readonly("backend", [](PG& g) { return g.options().backend; })
      .def_property_readonly("timeout", [](PG& g) { return g.options().timeout.count() / 1000.0; })
      .def("rank", [](PG& g, const std::string& group) { return g.group(group).rank(); })
      .def("size", [](PG& g, const std::string& group) { return g.group(group).size(); })
      .def_property_readonly("local_rank", &PG::local_rank)
      .def_property_readonly("local_size", &PG::local_size)
      .def("create_group", &PG::create_group, pyb::call_guard<pyb::gil_scoped_release>())
      .def("destroy_group", &PG::destroy_group, pyb::call_guard<pyb::gil_scoped_release>())
      .def(
          "close",
          [](PG& g) {
            if (process_groups() == &g) set_process_groups(nullptr);
            g.close();
          },
          pyb::call_guard<pyb::gil_scoped_release>(),
          "release(): a barrier of the world, then every group closed.")
      .def(
          "agree_on",
          [](PG& g, int64_t mine) {
            g.world().broadcast(&mine, 1, DType::Int64, 0);
            return mine;
          },
          pyb::call_guard<pyb::gil_scoped_release>(), "Rank 0's value, on every rank.")
      .def(
          "agree_on_call",
          [](PG& g, const std::string& group, const std::string& op, const DTypeObj& dtype,
             const std::vector<int64_t>& shape) {
            return agree_on_call(g.group(group), {op, dtype.t, shape.data(), shape.size()});
          },
          pyb::call_guard<pyb::gil_scoped_release>(),
          "Checks that every rank of the group makes this collective call (op, dtype, shape) "
          "and returns its fingerprint, an AllReduce's `agreed` attribute (comm/communicator.h, "
          "agree_on_call).")
      .def("world_rank", &PG::world_rank)
      .def("group_rank", &PG::group_rank);
  m.attr("_WORLD_COMM_GROUP") = kWorldGroup;
  // The size of a group of the registered process groups, for the collective primitives
  // (mycel.ops), which stand below mycel.communication.
  m.def("_comm_group_size", [](const std::string& api, const std::string& group) {
    ProcessGroups* g = process_groups();
    MC_CHECK(g != nullptr, Runtime, "For '", api,
             "', the communication is not initialized: call mycel.communication.init() first.");
    return g->group(group).size();
  });
  // The collective execution-order recorder (comm/exec_order.h), behind
  // mycel.utils.comm_exec_order_check and _c_expression.CommExecOrderChecker.
  m.def("_comm_exec_order_start", [] { CommOrderRecorder::instance().start(); });
  m.def(
      "_comm_exec_order_stop",
      [](const std::string& dir) { return CommOrderRecorder::instance().stop(dir); },
      pyb::arg("dir"),
      "Stops recording; writes dir/rank_<r>/execute_order/comm_execute_order.csv "
      "and returns its path (\"\" when nothing was recorded).");
  m.def("_comm_exec_order_recording", [] { return CommOrderRecorder::instance().recording(); });
  m.def("_comm_exec_order_rows", [] { return CommOrderRecorder::instance().rows(); });
}

}  // namespace mycel::py
