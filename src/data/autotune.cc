#include "data/autotune.h"

#include <algorithm>

#include "data/ops.h"

namespace mycel::data {

QueueProbe::QueueProbe(const std::vector<std::unique_ptr<Op>>& ops) {
  for (const auto& op : ops) {
    if (auto* t = dynamic_cast<ThreadedOp*>(op.get())) ops_.push_back(t);
  }
}

void QueueProbe::read(std::vector<int64_t>* queued) const {
  queued->resize(ops_.size());
  for (size_t i = 0; i < ops_.size(); ++i) (*queued)[i] = ops_[i]->queued();
}

void QueueProbe::read_fill(std::vector<double>* fill) const {
  fill->resize(ops_.size());
  for (size_t i = 0; i < ops_.size(); ++i) {
    (*fill)[i] = static_cast<double>(ops_[i]->queued()) /
                 static_cast<double>(std::max<int64_t>(ops_[i]->capacity(), 1));
  }
}

AutoTuner::AutoTuner(const std::vector<std::unique_ptr<Op>>& ops, int64_t interval, int max_workers)
    : probe_(ops), interval_(interval), max_workers_(std::max(1, max_workers)) {
  for (ThreadedOp* t : probe_.ops()) {
    Entry e{t, -1, {}};
    e.info.node = &t->node();
    e.info.kind = t->node().kind_name();
    e.info.initial_workers = e.info.workers = t->workers();
    e.info.tunable = t->tunable();
    entries_.push_back(std::move(e));
  }
  // The measured op below each one: down the first-child chain through the inline ops.
  for (Entry& e : entries_) {
    const Node* n = e.info.node;
    while (e.child < 0 && !n->children.empty()) {
      n = n->children[0].get();
      for (size_t j = 0; j < entries_.size(); ++j) {
        if (entries_[j].info.node == n) e.child = static_cast<int>(j);
      }
    }
  }
}

void AutoTuner::step(bool epoch_end) {
  probe_.read_fill(&fill_);
  for (size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    const double fill = fill_[i];
    e.fill_sum += fill;
    e.total_sum += fill;
    ++e.samples;
    ++e.total_samples;
  }
  if (!epoch_end) ++rows_;
  const bool due = interval_ > 0 ? (!epoch_end && rows_ % interval_ == 0) : epoch_end;
  if (due) tune();
}

void AutoTuner::tune() {
  int best = -1;
  double best_fill = kStarved;
  for (size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (e.samples == 0 || !e.info.tunable || e.op->workers() >= max_workers_) continue;
    const double out = e.fill_sum / static_cast<double>(e.samples);
    double in = 1.0;  // a source op reads its input itself
    if (e.child >= 0) {
      const Entry& c = entries_[static_cast<size_t>(e.child)];
      in = c.samples ? c.fill_sum / static_cast<double>(c.samples) : 0.0;
    }
    if (out < best_fill && in >= kAmple) {
      best = static_cast<int>(i);
      best_fill = out;
    }
  }
  if (best >= 0 && entries_[static_cast<size_t>(best)].op->add_worker()) ++adjustments_;
  for (Entry& e : entries_) {
    e.fill_sum = 0;
    e.samples = 0;
  }
}

std::vector<TunedOp> AutoTuner::report() const {
  std::vector<TunedOp> out;
  for (const Entry& e : entries_) {
    TunedOp t = e.info;
    t.workers = e.op->workers();
    t.mean_fill = e.total_samples ? e.total_sum / static_cast<double>(e.total_samples) : 0.0;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace mycel::data
