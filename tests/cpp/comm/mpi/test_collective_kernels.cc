// The collective ops' kernels (kernels/cpu/comm.cc, on the library's collectives) against
// their references (kernels/ref/comm.cc, point to point only), on every case of
// tests/cpp/kernels/cases_comm.cc. Run by ctest under mpirun at 2 and 4 processes: each rank
// draws inputs of its own, so the ranks' data differ. A failing rank goes on with the next
// case (EXPECT, never ASSERT), so the others are not left waiting in a collective.
#include <gtest/gtest.h>

#include "../../kernels/kernel_cases.h"
#include "comm/process_groups.h"
#include "runtime/eager.h"

namespace mycel {
namespace {

class CollectiveKernels : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    CommOptions o = CommOptions::from_env();
    o.timeout = std::chrono::seconds(120);
    groups_ = new ProcessGroups(o);
    set_process_groups(groups_);
  }
  static void TearDownTestSuite() {
    set_process_groups(nullptr);
    groups_->close();
    delete groups_;
  }
  static ProcessGroups* groups_;
};
ProcessGroups* CollectiveKernels::groups_ = nullptr;

Tensor input_of(const test::KernelCase& c, size_t k, int rank) {
  return test::make_input(c.inputs[0], 1000 * k + 1 + 100000 * static_cast<uint64_t>(rank));
}

// Runs case c on `group` with the library kernel and with the reference; compares.
void run_case(const test::KernelCase& c, size_t k, const std::string& group) {
  const OpDef& op = *find_op(c.op);
  Communicator& comm = process_groups()->group(group);
  Attrs given = c.attrs;
  given.set("group", group);
  for (const AttrSpec& s : op.attrs) {
    if (std::string_view(s.name) == "rank_size" || std::string_view(s.name) == "split_count")
      given.set(s.name, int64_t{comm.size()});
  }
  Attrs attrs = make_attrs(op, given);
  // Inputs by world rank: on "rev", group rank i holds world rank n-1-i's data.
  const int me = process_groups()->world().rank();
  std::vector<Tensor> ins;
  if (!c.inputs.empty()) ins.push_back(input_of(c, k, me));
  if (c.op == "Broadcast") ins.push_back(input_of(c, k + 500, me));
  std::vector<TensorMeta> metas;
  for (const Tensor& t : ins) metas.push_back({t.dtype(), t.shape()});
  MetaList out = infer_op(op, metas, attrs);
  TensorList got = run_kernel(op, ins, out, attrs, false);
  TensorList want = run_kernel(op, ins, out, attrs, true);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(test::compare_tensors(got[i], want[i], c.rtol, c.atol), "")
        << c.op << " " << c.label << " on " << group << " output " << i;
}

// Send and Receive in pairs: for a Send case, each even rank sends to the odd rank after it;
// for a Receive case, the odd rank sends. The receiver knows what the sender drew.
void run_pair(const test::KernelCase& c, size_t k, Communicator& w) {
  const int r = w.rank(), partner = r % 2 == 0 ? r + 1 : r - 1;
  if (partner >= w.size()) return;
  const bool even_sends = c.op == "Send";
  const bool sends = (r % 2 == 0) == even_sends;
  const int64_t tag = c.attrs.get_int("sr_tag");
  const test::InputSpec& spec = c.inputs[0];
  for (bool ref : {false, true}) {
    if (sends) {
      const OpDef& op = *find_op("Send");
      Attrs a = make_attrs(op, test::A({{"sr_tag", tag}, {"dest_rank", int64_t{partner}}}));
      std::vector<Tensor> ins = {input_of(c, k, r)};
      std::vector<TensorMeta> in = {{spec.dtype, spec.shape}};
      TensorList out = run_kernel(op, ins, infer_op(op, in, a), a, ref);
      EXPECT_EQ(out[0].numel(), 0);
    } else {
      const OpDef& op = *find_op("Receive");
      Attrs a = make_attrs(
          op, test::A({{"sr_tag", tag},
                       {"src_rank", int64_t{partner}},
                       {"shape", std::vector<int64_t>(spec.shape.begin(), spec.shape.end())},
                       {"dtype", spec.dtype}}));
      TensorList out = run_kernel(op, {}, infer_op(op, {}, a), a, ref);
      EXPECT_EQ(test::compare_tensors(out[0], input_of(c, k, partner), 0, 0), "")
          << c.op << " " << c.label << (ref ? " (reference)" : "");
    }
  }
}

TEST_F(CollectiveKernels, EveryCaseMatchesTheReference) {
  Communicator& w = groups_->world();
  // The world in reverse order: group rank i is world rank n-1-i.
  std::vector<int> rev;
  for (int i = w.size() - 1; i >= 0; --i) rev.push_back(i);
  groups_->create_group("rev", rev);
  const std::vector<test::KernelCase> cases = test::comm_cases();

  for (size_t k = 0; k < cases.size(); ++k) {
    const test::KernelCase& c = cases[k];
    if (c.op == "Send" || c.op == "Receive") {
      run_pair(c, k, w);
      continue;
    }
    run_case(c, k, kWorldGroup);
    if (c.op != "AllReduce") run_case(c, k, "rev");
  }
  groups_->destroy_group("rev");
}

// A primitive made for another group size is a ValueError naming both sizes.
TEST_F(CollectiveKernels, RankSizeOtherThanTheGroupsIsAValueError) {
  const OpDef& op = *find_op("AllGather");
  Attrs a = make_attrs(op, test::A({{"rank_size", int64_t{groups_->world().size() + 1}}}));
  std::vector<Tensor> ins = {Tensor::zeros({2}, DType::Float32)};
  try {
    std::vector<TensorMeta> in = {{DType::Float32, {2}}};
    run_kernel(op, ins, infer_op(op, in, a), a);
    ADD_FAILURE() << "expected a ValueError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_NE(std::string(e.what()).find("rank_size"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mycel
