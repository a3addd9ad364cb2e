#include "kernels/cpu/dnnl_util.h"

#include <map>
#include <mutex>

namespace mycel::dnnl_util {

dnnl::engine& engine() {
  static dnnl::engine* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

namespace {
constexpr size_t kMaxEntries = 1024;
std::mutex g_mu;
std::map<Key, std::shared_ptr<void>>& cache() {
  static auto* m = new std::map<Key, std::shared_ptr<void>>();
  return *m;
}
}  // namespace

std::shared_ptr<void> lookup_or_make(const Key& key,
                                     const std::function<std::shared_ptr<void>()>& make) {
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = cache().find(key);
    if (it != cache().end()) return it->second;
  }
  std::shared_ptr<void> made = make();  // outside the lock: creation is slow
  std::lock_guard<std::mutex> lock(g_mu);
  if (cache().size() >= kMaxEntries) cache().clear();
  return cache().emplace(key, std::move(made)).first->second;
}

dnnl::memory wrap(const dnnl::memory::desc& md, const Tensor& t) {
  MC_ASSERT(md.get_size() == t.nbytes(), "oneDNN memory of ", md.get_size(), " bytes over a ",
            t.nbytes(), "-byte tensor");
  return dnnl::memory(md, engine(), t.raw_data());
}

Scratch scratch(const dnnl::memory::desc& md) {
  Scratch s;
  s.storage = Storage::allocate(md.get_size());
  s.mem = dnnl::memory(md, engine(), s.storage->data());
  return s;
}

dnnl::primitive_attr attr() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

void Prim::execute(dnnl::stream& s, std::unordered_map<int, dnnl::memory> args,
                   std::vector<Scratch>* keep) const {
  if (scratchpad.get_size() > 0) {
    keep->push_back(scratch(scratchpad));
    args.emplace(DNNL_ARG_SCRATCHPAD, keep->back().mem);
  }
  prim.execute(s, args);
}

Prim make_reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  dnnl::reorder::primitive_desc pd(engine(), from, engine(), to, attr());
  return make_prim<dnnl::reorder>(pd);
}

}  // namespace mycel::dnnl_util
