// batch: consecutive rows of a pass stacked column by column (padded_batch pads them first),
// then per_batch_map. A worker takes a whole batch's rows under the lock and stacks them
// outside it. Batches never span passes: the end of a pass flushes a smaller last batch
// (dropped with drop_remainder).
#include <algorithm>
#include <cstring>

#include "data/ops.h"
#include "tensor/size.h"

namespace mycel::data {
namespace {

class BatchOp : public ThreadedOp {
 public:
  BatchOp(const Node& node, const OpContext& ctx, Op* child)
      : ThreadedOp(node, ctx, node.workers),
        child_(child),
        pass_(ctx.start_pass),
        batch_(ctx.start_index) {}
  bool tunable() const override { return true; }

 protected:
  void work() override {
    for (;;) {
      std::vector<Row> rows;
      Msg tail;
      bool has_tail = false, emit = false;
      uint64_t seq_batch = 0, seq_tail = 0;
      int64_t batch_num = 0, pass = 0;
      {
        std::lock_guard lock(in_mu_);
        if (ended_) return;
        int64_t want = node_.count;
        if (node_.batch_size_fn) {  // the callable batch_size, asked in batch order
          try {
            want = node_.batch_size_fn(batch_, epoch_of(pass_));
            MC_CHECK(want >= 1, Value, "batch: the batch_size function returned ", want,
                     " for batch ", batch_, " of epoch ", pass_, "; it must return an int >= 1.");
          } catch (...) {
            ended_ = true;
            out_.push(seq_++, Msg::make_error(std::current_exception()));
            return;
          }
        }
        while (static_cast<int64_t>(rows.size()) < want) {
          Msg m = child_->pop();
          if (!m.is_row()) {
            tail = std::move(m);
            has_tail = true;
            break;
          }
          rows.push_back(std::move(m.row));
        }
        emit =
            !rows.empty() && (static_cast<int64_t>(rows.size()) == want || !node_.drop_remainder);
        pass = pass_;
        batch_num = batch_;
        if (emit) {
          seq_batch = seq_++;
          ++batch_;
        }
        if (has_tail) {
          seq_tail = seq_++;
          if (tail.kind == Msg::Kind::EndOfPass) {
            ++pass_;
            batch_ = 0;
          } else {
            ended_ = true;
          }
        }
      }
      if (emit) {
        Msg m;
        try {
          m = Msg::make_row(make_batch(std::move(rows), batch_num, pass),
                            static_cast<uint64_t>(batch_num));
        } catch (...) {
          m = Msg::make_error(std::current_exception());
        }
        bool failed = m.kind == Msg::Kind::Error;
        out_.push(seq_batch, std::move(m));
        if (failed) {
          // The consumer stops at the error; keep the sequence gap-free for it.
          if (has_tail) out_.push(seq_tail, std::move(tail));
          return;
        }
      }
      if (has_tail) {
        bool last = tail.kind != Msg::Kind::EndOfPass;
        out_.push(seq_tail, std::move(tail));
        if (last) return;
      }
    }
  }

 private:
  // BatchInfo's epoch: the iterator's epoch holding pass `pass` (a repeat above the batch
  // makes one epoch of several of its passes), as MindSpore counts it.
  int64_t epoch_of(int64_t pass) const {
    return ctx_.passes_per_epoch > 0 ? pass / ctx_.passes_per_epoch : 0;
  }

  Row make_batch(std::vector<Row> rows, int64_t batch_num, int64_t pass) const {
    if (node_.batch_map) {
      BatchColumns args;
      for (int c : node_.in_cols) {
        std::vector<Array> col;
        for (const Row& r : rows) col.push_back(r[static_cast<size_t>(c)]);
        args.push_back(std::move(col));
      }
      BatchResult res = node_.batch_map(std::move(args), batch_num, epoch_of(pass));
      MC_CHECK(static_cast<int>(res.columns.size()) == node_.n_out, Runtime,
               "batch: per_batch_map returned ", res.columns.size(),
               " column(s) but output_columns has ", node_.n_out, ".");
      if (res.whole) return whole_batch(rows, std::move(res.columns));
      rows = map_rows(std::move(rows), std::move(res.columns));
    }
    size_t ncol = rows[0].size();
    Row out(ncol);
    for (size_t c = 0; c < ncol; ++c) out[c] = stack(rows, c);
    return out;
  }

  // per_batch_map on the rows' input columns; the outputs replace them (module doc of map).
  std::vector<Row> map_rows(std::vector<Row> rows, BatchColumns res) const {
    size_t n = res.empty() ? rows.size() : res[0].size();
    for (const auto& col : res) {
      MC_CHECK(col.size() == n && n > 0, Runtime,
               "batch: the columns per_batch_map returned have different or zero lengths (",
               res[0].size(), " and ", col.size(), ").");
    }
    std::vector<Row> out(n);
    bool in_place = node_.n_out == static_cast<int>(node_.in_cols.size());
    MC_CHECK(n == rows.size(), Runtime, "batch: per_batch_map changed the number of rows from ",
             rows.size(), " to ", n, "; it must return one value per row.");
    for (size_t r = 0; r < n; ++r) {
      if (in_place) {
        out[r] = std::move(rows[r]);
        for (size_t i = 0; i < res.size(); ++i) {
          out[r][static_cast<size_t>(node_.in_cols[i])] = std::move(res[i][r]);
        }
        continue;
      }
      for (auto& col : res) out[r].push_back(std::move(col[r]));
      for (size_t c = 0; c < rows[r].size(); ++c) {
        if (std::find(node_.in_cols.begin(), node_.in_cols.end(), static_cast<int>(c)) ==
            node_.in_cols.end()) {
          out[r].push_back(std::move(rows[r][c]));
        }
      }
    }
    return out;
  }

  bool is_input(size_t c) const {
    return std::find(node_.in_cols.begin(), node_.in_cols.end(), static_cast<int>(c)) !=
           node_.in_cols.end();
  }

  // A `whole` per_batch_map result (pipeline.h): its columns' values as they are, the other
  // columns stacked over the rows.
  Row whole_batch(const std::vector<Row>& rows, BatchColumns res) const {
    for (const auto& col : res) {
      MC_CHECK(col.size() == 1, Runtime, "batch: per_batch_map returned ", col.size(),
               " values for a column of a whole batch; expected one.");
    }
    Row out;
    if (node_.n_out == static_cast<int>(node_.in_cols.size())) {
      out.resize(rows[0].size());
      for (size_t i = 0; i < res.size(); ++i) {
        out[static_cast<size_t>(node_.in_cols[i])] = std::move(res[i][0]);
      }
      for (size_t c = 0; c < out.size(); ++c) {
        if (!is_input(c)) out[c] = stack(rows, c);
      }
      return out;
    }
    for (auto& col : res) out.push_back(std::move(col[0]));
    for (size_t c = 0; c < rows[0].size(); ++c) {
      if (!is_input(c)) out.push_back(stack(rows, c));
    }
    return out;
  }

  // A column of Python objects: the rows' objects batched by the objects themselves.
  Array stack_objects(const std::vector<Row>& rows, size_t c) const {
    std::vector<ObjectPtr> objects;
    for (const Row& r : rows) {
      const Array& a = r[c];
      MC_CHECK(a.dtype() == DataType::Object, Runtime,
               "batch: Cannot batch tensors with different types: column ", col_name(c), " has a ",
               describe(rows[0][c]), " in one row and a ", describe(a), " in another.");
      objects.push_back(a.object());
    }
    MC_CHECK(!pad_of(c), Type, "padded_batch: column ", col_name(c), " holds ",
             describe(rows[0][c]), " values, which cannot be padded; leave it out of pad_info.");
    return Array::object(objects[0]->batch(objects, static_cast<bool>(node_.batch_map)));
  }

  const PadSpec* pad_of(size_t c) const {
    for (const PadSpec& p : node_.pads) {
      if (static_cast<size_t>(p.column) == c) return &p;
    }
    return nullptr;
  }

  std::string col_name(size_t c) const {
    return c < child_columns().size() ? "'" + child_columns()[c] + "'" : std::to_string(c);
  }
  const std::vector<std::string>& child_columns() const { return node_.children[0]->columns; }

  Array stack(const std::vector<Row>& rows, size_t c) const {
    const Array& first = rows[0][c];
    if (first.dtype() == DataType::Object) return stack_objects(rows, c);
    const PadSpec* pad = pad_of(c);
    Shape shape = first.shape();
    for (const Row& r : rows) {
      const Array& a = r[c];
      MC_CHECK(a.dtype() == first.dtype(), Runtime,
               "batch: Cannot batch tensors with different types: column ", col_name(c),
               " has rows of different dtypes ", data_type_name(first.dtype()), " and ",
               data_type_name(a.dtype()), "; cast them to one type first.");
      if (pad) {
        MC_CHECK(a.ndim() == first.ndim(), Runtime, "padded_batch: column ", col_name(c),
                 " has rows of different ranks ", shape_str(first.shape()), " and ",
                 shape_str(a.shape()), ".");
        for (int64_t d = 0; d < a.ndim(); ++d) shape[d] = std::max(shape[d], a.shape()[d]);
      } else {
        MC_CHECK(a.shape() == first.shape(), Runtime,
                 "batch: Cannot batch tensors with different shapes: column ", col_name(c),
                 " has rows of different shapes ", shape_str(first.shape()), " and ",
                 shape_str(a.shape()),
                 "; rows of a batch must have equal shapes (or use "
                 "padded_batch).");
      }
    }
    if (pad && pad->has_shape) {
      MC_CHECK(pad->shape.size() == shape.size(), Value, "padded_batch: pad_info shape for column ",
               col_name(c), " has ", pad->shape.size(), " dimensions but the rows have ",
               shape.size(), ".");
      // A pad size below a row's size truncates the row there (MindSpore's padded_batch).
      for (size_t d = 0; d < shape.size(); ++d) {
        int64_t want = pad->shape[d];
        if (want >= 0) shape[d] = want;
      }
    }
    Shape out_shape{static_cast<int64_t>(rows.size())};
    for (int64_t d : shape) out_shape.push_back(d);
    // pad_info shapes are the user's: the batch's size must fit before anything is allocated.
    checked_nbytes(out_shape, std::max<size_t>(data_type_size(first.dtype()), 1),
                   pad ? "padded_batch" : "batch");
    if (first.dtype() == DataType::String) return stack_strings(rows, c, shape, out_shape, pad);
    Array out = Array::empty(first.dtype(), out_shape);
    size_t item = data_type_size(first.dtype());
    size_t row_bytes = static_cast<size_t>(numel(shape)) * item;
    char* dst = static_cast<char*>(out.mutable_raw());
    for (const Row& r : rows) {
      const Array& a = r[c];
      if (a.shape() == shape) {
        std::memcpy(dst, a.raw(), row_bytes);
      } else {
        fill_value(dst, numel(shape), first.dtype(), pad ? pad->value : 0);
        copy_into(dst, shape, a, item);
      }
      dst += row_bytes;
    }
    return out;
  }

  static void fill_value(char* dst, int64_t n, DataType t, double v) {
    dispatch_data(t, "padded_batch", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T x = static_cast<T>(v);
      T* p = reinterpret_cast<T*>(dst);
      std::fill(p, p + n, x);
    });
  }

  // The part of a that fits a `shape` block (a truncated where it is larger) into the
  // top-left corner of that block at dst.
  static void copy_into(char* dst, const Shape& shape, const Array& a, size_t item) {
    int64_t nd = a.ndim();
    if (nd == 0) {
      std::memcpy(dst, a.raw(), item);
      return;
    }
    Shape dst_strides = contiguous_strides(shape), src_strides = contiguous_strides(a.shape());
    Shape part(static_cast<size_t>(nd));  // the extent copied: the smaller of the two
    for (int64_t d = 0; d < nd; ++d) part[d] = std::min(a.shape()[d], shape[d]);
    int64_t inner = part[nd - 1];
    int64_t outer = numel(part) / std::max<int64_t>(inner, 1);
    const char* src = static_cast<const char*>(a.raw());
    for (int64_t o = 0; o < outer && inner > 0; ++o) {
      int64_t rem = o, so = 0, dofs = 0;
      for (int64_t d = nd - 2; d >= 0; --d) {
        int64_t idx = rem % part[d];
        rem /= part[d];
        so += idx * src_strides[d];
        dofs += idx * dst_strides[d];
      }
      std::memcpy(dst + dofs * static_cast<int64_t>(item), src + so * static_cast<int64_t>(item),
                  static_cast<size_t>(inner) * item);
    }
  }

  Array stack_strings(const std::vector<Row>& rows, size_t c, const Shape& shape,
                      const Shape& out_shape, const PadSpec* pad) const {
    std::vector<std::string> all;
    int64_t per = numel(shape);
    bool bytes = true;  // a batch of bytes stays bytes; any text row makes it text
    for (const Row& r : rows) {
      const Array& a = r[c];
      bytes = bytes && a.bytes();
      if (a.shape() == shape) {
        all.insert(all.end(), a.str().begin(), a.str().end());
        continue;
      }
      std::vector<std::string> block(static_cast<size_t>(per), pad ? pad->text : std::string());
      Shape ds = contiguous_strides(shape), ss = contiguous_strides(a.shape());
      for (int64_t i = 0; i < a.numel(); ++i) {
        int64_t rem = i, off = 0;
        bool inside = true;  // not cut off by a smaller pad shape
        for (int64_t d = a.ndim() - 1; d >= 0; --d) {
          const int64_t at = rem % a.shape()[d];
          inside = inside && at < shape[d];
          off += at * ds[d];
          rem /= a.shape()[d];
        }
        if (inside) block[static_cast<size_t>(off)] = a.str()[static_cast<size_t>(i)];
      }
      all.insert(all.end(), block.begin(), block.end());
    }
    return Array::strings(std::move(all), out_shape, bytes);
  }

  Op* child_;
  int64_t pass_, batch_;
};

}  // namespace

std::unique_ptr<Op> make_batch_op(const Node& node, const OpContext& ctx, Op* child) {
  return std::make_unique<BatchOp>(node, ctx, child);
}

}  // namespace mycel::data
