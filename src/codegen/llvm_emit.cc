#include "codegen/llvm_emit.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <set>
#include <sstream>
#include <unordered_map>

#include "base/error.h"

namespace mycel::codegen {

namespace {

// bfloat16 values live in float registers (loaded exactly, rounded after each op: round_bf16).
bool fp(DType t) { return t == DType::Float32 || t == DType::Float64 || t == DType::BFloat16; }

// The type of a value in registers.
std::string vty(DType t) {
  switch (t) {
    case DType::Float32:
    case DType::BFloat16:
      return "float";
    case DType::Float64:
      return "double";
    case DType::Int32:
      return "i32";
    case DType::Int64:
      return "i64";
    case DType::Bool:
      return "i1";
    default:
      MC_ASSERT(false, "graph kernel: no loop type for ", dtype_name(t));
  }
}
// The type in memory (bool is a byte, bfloat16 its 16 bits).
std::string mty(DType t) {
  if (t == DType::BFloat16) return "i16";
  return t == DType::Bool ? "i8" : vty(t);
}
std::string fsuffix(DType t) { return t == DType::Float64 ? "f64" : "f32"; }

// A floating-point constant in LLVM's exact hexadecimal form (double bits, also for float).
std::string fconst(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIX64, bits);
  return buf;
}

// A constant of type t with value v (exact in t).
std::string cst(DType t, double v) {
  if (fp(t)) return fconst(v);
  if (t == DType::Bool) return v != 0 ? "true" : "false";
  return std::to_string(static_cast<int64_t>(v));
}

bool float_minmax(const LOutput& o) {
  return (o.reduce == Reduce::Max || o.reduce == Reduce::Min) && fp(o.dtype);
}

std::string identity(const LOutput& o) {
  DType a = acc_dtype(o);
  if (o.reduce == Reduce::Sum || o.reduce == Reduce::Mean) return cst(a, 0);
  bool max = o.reduce == Reduce::Max;
  if (fp(a)) return fconst(max ? -HUGE_VAL : HUGE_VAL);
  if (a == DType::Int32) return max ? "-2147483648" : "2147483647";
  return max ? "-9223372036854775808" : "9223372036854775807";
}

class Emitter {
 public:
  Emitter(const LoopKernel& k, std::string name) : k_(k), name_(std::move(name)) {}

  std::string run() {
    size_t nin = k_.inputs.size(), nout = k_.outputs.size();
    for (size_t i = 0; i < nin; ++i) bufs_.push_back(mty(k_.inputs[i].dtype));
    for (size_t i = 0; i < nout; ++i) bufs_.push_back(mty(k_.outputs[i].dtype));
    for (size_t i = 0; i < nout; ++i)
      if (k_.outputs[i].reduce != Reduce::None) {
        acc_[i] = static_cast<int>(bufs_.size());
        bufs_.push_back(mty(acc_dtype(k_.outputs[i])));
      }
    // An output stored in place uses its input's pointer (one pointer, so `noalias` holds).
    for (size_t i = 0; i < bufs_.size(); ++i) param_.push_back(static_cast<int>(i));
    for (size_t j = 0; j < nout; ++j)
      if (k_.outputs[j].in_place >= 0) param_[nin + j] = k_.outputs[j].in_place;
    body();
    std::ostringstream os;
    // The entry: unpack the buffer table, call the body (inlined).
    os << "define void @" << name_ << "(i8** %bufs, i64 %lo, i64 %hi, i64 %flags) #1 {\nentry:\n";
    std::string args;
    for (size_t i = 0; i < bufs_.size(); ++i) {
      os << "  %a" << i << " = getelementptr inbounds i8*, i8** %bufs, i64 " << i << "\n";
      os << "  %r" << i << " = load i8*, i8** %a" << i << "\n";
      os << "  %q" << i << " = bitcast i8* %r" << i << " to " << bufs_[i] << "*\n";
      args += bufs_[i] + "* %q" + std::to_string(i) + ", ";
    }
    os << "  call void @" << name_ << ".body(" << args
       << "i64 %lo, i64 %hi, i64 %flags)\n  ret void\n}\n\n";
    os << "define internal void @" << name_ << ".body(";
    for (size_t i = 0; i < bufs_.size(); ++i) os << bufs_[i] << "* noalias %p" << i << ", ";
    os << "i64 %lo, i64 %hi, i64 %flags) #0 {\n" << out_.str() << "}\n\n";
    for (const std::string& d : decls_) os << d << "\n";
    for (int id = 0; id < loop_ids_; ++id)
      os << "!" << id + 1 << " = distinct !{!" << id + 1 << ", !0}\n";
    if (loop_ids_ > 0) os << "!0 = !{!\"llvm.loop.vectorize.width\", i32 16}\n";
    // 512-bit vectors where the CPU has them (LLVM prefers 256 by default): a float sum's
    // double accumulators would otherwise hold the whole loop to 4 floats per vector.
    os << "attributes #0 = { alwaysinline nounwind \"prefer-vector-width\"=\"512\" }\n";
    os << "attributes #1 = { nounwind \"prefer-vector-width\"=\"512\" }\n";
    return os.str();
  }

 private:
  // (Appending, not "x" + std::to_string(): GCC 12 warns falsely about that, -Wrestrict.)
  std::string tmp() { return numbered("%t"); }
  std::string label() { return numbered("b"); }
  std::string numbered(const char* prefix) {
    std::string s(prefix);
    s += std::to_string(next_++);
    return s;
  }
  void line(const std::string& s) { out_ << "  " << s << "\n"; }
  void block(const std::string& l) {
    out_ << l << ":\n";
    cur_ = l;
  }
  std::string op(const std::string& text) {
    std::string t = tmp();
    line(t + " = " + text);
    return t;
  }
  std::string intrinsic(const std::string& ret, const std::string& name, const std::string& arg) {
    decls_.insert("declare " + ret + " @" + name + "(" + arg + ")");
    return "call " + ret + " @" + name + "(";
  }
  std::string ptr(int buf, const std::string& off) {
    const std::string& t = bufs_[static_cast<size_t>(buf)];
    int p = param_[static_cast<size_t>(buf)];
    return op("getelementptr inbounds " + t + ", " + t + "* %p" + std::to_string(p) + ", i64 " +
              off);
  }

  // A do-while loop `i` from start to end by step (start < end holds); `inside` emits the body
  // with the index and leaves the current block where the loop closes. wide: the loop asks the
  // vectoriser for 16 lanes (wide_rows_).
  template <class F>
  void loop(const std::string& start, const std::string& end, F&& inside, int64_t step = 1,
            bool wide = false) {
    std::string head = label(), latch = label(), exit = label();
    std::string pred = cur_;
    line("br label %" + head);
    block(head);
    std::string i = tmp(), inext = tmp();
    line(i + " = phi i64 [ " + start + ", %" + pred + " ], [ " + inext + ", %" + latch + " ]");
    inside(i);
    line("br label %" + latch);
    block(latch);
    line(inext + " = add nuw nsw i64 " + i + ", " + std::to_string(step));
    std::string c = op("icmp slt i64 " + inext + ", " + end);
    std::string hint = wide ? ", !llvm.loop !" + std::to_string(++loop_ids_) : "";
    line("br i1 " + c + ", label %" + head + ", label %" + exit + hint);
    block(exit);
  }

  // The range of accumulator elements the steps [lo, hi) own.
  std::pair<std::string, std::string> owned(const LOutput& o) {
    if (o.strides[0] == 0) return {"0", std::to_string(o.numel)};
    std::string s0 = std::to_string(o.strides[0]);
    return {op("mul i64 %lo, " + s0), op("mul i64 %hi, " + s0)};
  }

  // flags (llvm_emit.h): bit 0 runs the steps [lo, hi) (initialising the accumulators they
  // own, finalising those of outputs that keep dims[0]); bit 1 finalises the outputs that
  // reduce dims[0] (whose accumulators partial calls filled and the caller combined).
  void body() {
    if (k_.row_dims > 0) return body_staged();
    block("entry");
    std::string part = op("and i64 %flags, 1");
    std::string go =
        op("and i1 " + op("icmp slt i64 %lo, %hi") + ", " + op("icmp ne i64 " + part + ", 0"));
    std::string start = label(), mid = label(), last = label(), done = label();
    line("br i1 " + go + ", label %" + start + ", label %" + mid);
    block(start);
    for (size_t j = 0; j < k_.outputs.size(); ++j) {
      const LOutput& o = k_.outputs[j];
      if (o.reduce == Reduce::None) continue;
      auto [b, e] = owned(o);
      std::string a = mty(acc_dtype(o));
      loop(b, e, [&](const std::string& i) {
        line("store " + a + " " + identity(o) + ", " + a + "* " + ptr(acc_[j], i));
      });
    }
    size_t nops = k_.inputs.size() + k_.outputs.size();
    nest(0, k_.dims.size(), std::vector<std::string>(nops, "0"),
         [&](const std::vector<std::string>& off) { point(off, 0); });
    for (size_t j = 0; j < k_.outputs.size(); ++j)
      if (k_.outputs[j].reduce != Reduce::None && k_.outputs[j].strides[0] != 0) finalize(j);
    line("br label %" + mid);
    block(mid);
    std::string fin = op("icmp ne i64 " + op("and i64 %flags, 2") + ", 0");
    line("br i1 " + fin + ", label %" + last + ", label %" + done);
    block(last);
    for (size_t j = 0; j < k_.outputs.size(); ++j)
      if (k_.outputs[j].reduce != Reduce::None && k_.outputs[j].strides[0] == 0) finalize(j);
    line("br label %" + done);
    block(done);
    line("ret void");
  }

  // Loops over dims [d, last) from the operands' offsets `base`; leaf(offsets) at each point
  // (dims[0] walks [lo, hi)).
  template <class F>
  void nest(size_t d, size_t last, const std::vector<std::string>& base, F&& leaf) {
    if (d == last) {
      leaf(base);
      return;
    }
    std::string start = d == 0 ? "%lo" : "0";
    std::string end = d == 0 ? "%hi" : std::to_string(k_.dims[d]);
    bool wide = wide_rows_ && d + 1 == k_.dims.size();
    loop(
        start, end, [&](const std::string& i) { nest(d + 1, last, offsets(d, base, i), leaf); }, 1,
        wide);
  }
  // Operand j's stride on dimension d (the operands: inputs, outputs, then in a staged kernel
  // the index in the row).
  int64_t stride(size_t j, size_t d) const {
    size_t nin = k_.inputs.size(), nout = k_.outputs.size();
    return j < nin          ? k_.inputs[j].strides[d]
           : j < nin + nout ? k_.outputs[j - nin].strides[d]
                            : row_strides_[d];
  }
  // The operands' offsets at index i of dimension d, from their offsets `base` at index 0.
  std::vector<std::string> offsets(size_t d, const std::vector<std::string>& base,
                                   const std::string& i) {
    std::vector<std::string> off(base.size());
    for (size_t j = 0; j < base.size(); ++j) {
      int64_t s = stride(j, d);
      if (s == 0) {
        off[j] = base[j];
        continue;
      }
      std::string m = s == 1 ? i : op("mul nsw i64 " + i + ", " + std::to_string(s));
      off[j] = base[j] == "0" ? m : op("add nsw i64 " + base[j] + ", " + m);
    }
    return off;
  }

  // A staged kernel (LoopKernel::row_dims): per row, stage by stage, a loop over the row
  // that computes the stage's values, accumulates its reductions and (last stage) stores;
  // then the stage's reductions are finalised into registers that later stages read.
  void body_staged() {
    size_t nv = k_.values.size(), no = k_.outputs.size();
    stage_.assign(nv, 0);
    ostage_.assign(no, 0);
    for (size_t i = 0; i < nv; ++i) {
      const LValue& lv = k_.values[i];
      if (lv.op == LOp::Load) continue;
      if (lv.op == LOp::Reduced) {
        const LOutput& o = k_.outputs[static_cast<size_t>(lv.a)];
        stage_[i] = stage_[static_cast<size_t>(o.value)] + 1;
        continue;
      }
      for (int32_t x : {lv.a, lv.b, lv.c})
        if (x >= 0) stage_[i] = std::max(stage_[i], stage_[static_cast<size_t>(x)]);
    }
    int last = 0;
    for (size_t j = 0; j < no; ++j) {
      ostage_[j] = stage_[static_cast<size_t>(k_.outputs[j].value)];
      last = std::max(last, ostage_[j]);
    }
    last_stage_ = last;
    for (const LOutput& o : k_.outputs)
      wide_rows_ = wide_rows_ || (acc_dtype(o) == DType::Float64 && o.dtype != DType::Float64);
    block("entry");
    plan_cache();
    plan_prefetch();
    std::string go = op("icmp slt i64 %lo, %hi");
    std::string start = label(), done = label();
    line("br i1 " + go + ", label %" + start + ", label %" + done);
    block(start);
    size_t nin = k_.inputs.size(), rows = static_cast<size_t>(k_.row_dims);
    std::vector<std::string> zero(nin + no + 1, "0");  // (+ the index in the row)
    nest(0, rows, zero, [&](const std::vector<std::string>& row) {
      reduced_.assign(no, "");
      stored_.assign(nv, false);
      for (int s = 0; s <= last; ++s) {
        for (size_t j = 0; j < no; ++j) {
          const LOutput& o = k_.outputs[j];
          if (o.reduce == Reduce::None || ostage_[j] != s) continue;
          std::string a = mty(acc_dtype(o));
          line("store " + a + " " + identity(o) + ", " + a + "* " + ptr(acc_[j], row[nin + j]));
        }
        need(s);
        if (s == last_stage_ && !prefetched_.empty())
          last_stage_prefetching(row);
        else
          nest(rows, k_.dims.size(), row,
               [&](const std::vector<std::string>& off) { point(off, s); });
        for (size_t j = 0; j < no; ++j)
          if (k_.outputs[j].reduce != Reduce::None && ostage_[j] == s)
            reduced_[j] = finalize_at(j, row[nin + j]);
        for (size_t i = 0; i < nv; ++i) stored_[i] = stored_[i] || store_now_[i];
      }
    });
    line("br label %" + done);
    block(done);
    line("ret void");
  }

  // Prefetching the next row in the last stage. A staged kernel reads its row from memory in
  // stage 0, which computes little (LayerNorm's sum), and computes most in the last stage
  // (LayerNorm + GELU: the tanh), whose only memory traffic is the inputs only it reads and the
  // stores; the two hardly overlap, and the hardware prefetchers stop at the row's end when a
  // row is a 4 KB page. So the last stage runs over the row in blocks of one cache line and
  // each block first prefetches the same line of the next row (llvm.prefetch, which never
  // faults: the row after the last one is harmless) for every input read along the row and
  // from row to row; the next row's stage 0 then reads from the cache while this row computes
  // (LayerNorm + GELU + dropout over [4096, 1024]: 62% -> 75-85% of the copy bandwidth, one
  // thread). Only where the row is one dimension of at least kPrefetchMinRow elements and the
  // last stage only stores (its order of accumulation is not changed). prefetched_: those inputs;
  // block_: the block's elements (one 64-byte line of the widest such input).
  static constexpr int64_t kPrefetchMinRow = 256;
  void plan_prefetch() {
    prefetched_.clear();
    size_t rows = static_cast<size_t>(k_.row_dims), d = k_.dims.size() - 1;
    if (d != rows || k_.dims[d] < kPrefetchMinRow) return;
    for (size_t j = 0; j < k_.outputs.size(); ++j)
      if (k_.outputs[j].reduce != Reduce::None && ostage_[j] == last_stage_) return;
    int64_t widest = 1;
    for (size_t j = 0; j < k_.inputs.size(); ++j) {
      const LInput& in = k_.inputs[j];
      if (in.strides[d] != 1 || in.strides[d - 1] == 0) continue;
      prefetched_.push_back(j);
      widest = std::max<int64_t>(widest, static_cast<int64_t>(mty_size(in.dtype)));
    }
    block_ = 64 / widest;
    if (!prefetched_.empty()) decls_.insert("declare void @llvm.prefetch.p0i8(i8*, i32, i32, i32)");
  }
  static size_t mty_size(DType t) { return t == DType::Bool ? 1 : dtype_size(t); }
  // The last stage over the row (one dimension, `row`: the operands' offsets at its start) in
  // blocks of block_ elements, each prefetching its line of the next row; then the rest.
  void last_stage_prefetching(const std::vector<std::string>& row) {
    size_t d = k_.dims.size() - 1;
    int64_t n = k_.dims[d], whole = n / block_ * block_;
    auto run = [&](const std::string& b, const std::string& e) {
      loop(
          b, e, [&](const std::string& i) { point(offsets(d, row, i), last_stage_); }, 1,
          wide_rows_ && block_ >= 16);  // (a block of 8 float64 in 16 lanes: not vectorised)
    };
    loop(
        "0", std::to_string(whole),
        [&](const std::string& b) {
          for (size_t j : prefetched_) {
            std::string at =
                op("add nsw i64 " + b + ", " + std::to_string(k_.inputs[j].strides[d - 1]));
            if (row[j] != "0") at = op("add nsw i64 " + row[j] + ", " + at);
            const std::string& t = bufs_[j];
            std::string p =
                op("getelementptr " + t + ", " + t + "* %p" + std::to_string(j) + ", i64 " + at);
            std::string c = op("bitcast " + t + "* " + p + " to i8*");
            line("call void @llvm.prefetch.p0i8(i8* " + c + ", i32 0, i32 3, i32 1)");
          }
          run(b, op("add nuw nsw i64 " + b + ", " + std::to_string(block_)));
        },
        block_);
    if (whole < n) run(std::to_string(whole), std::to_string(n));
  }

  // need_: the values stage s computes (what its reductions and, last stage, its stores read);
  // a cached value an earlier stage stored is read back instead (its operands not needed);
  // store_now_: the cached values this stage computes and stores.
  void need(int s) {
    size_t nv = k_.values.size();
    need_.assign(nv, false);
    store_now_.assign(nv, false);
    for (size_t j = 0; j < k_.outputs.size(); ++j) {
      const LOutput& o = k_.outputs[j];
      if (o.reduce != Reduce::None ? ostage_[j] == s : s == last_stage_)
        need_[static_cast<size_t>(o.value)] = true;
    }
    for (size_t i = nv; i-- > 0;) {
      const LValue& lv = k_.values[i];
      if (!need_[i] || lv.op == LOp::Load || lv.op == LOp::Reduced) continue;
      if (!cache_.empty() && cache_[i] >= 0) {
        if (stored_[i]) continue;
        store_now_[i] = true;
      }
      for (int32_t x : {lv.a, lv.b, lv.c})
        if (x >= 0) need_[static_cast<size_t>(x)] = true;
    }
  }

  // Values of a transcendental function (Exp ... GeluTanh) that several stages need (softmax's
  // exp: the sum's stage and the quotient's) are computed once per row and kept in a row
  // buffer on the stack (rows of at most kCacheElems, at most kCacheValues of them): cache_,
  // row_strides_ (the index in the row), and the buffers' allocas in the entry block.
  static constexpr int64_t kCacheElems = 4096;
  static constexpr int kCacheValues = 4;
  void plan_cache() {
    size_t nv = k_.values.size(), rows = static_cast<size_t>(k_.row_dims);
    row_strides_.assign(k_.dims.size(), 0);
    int64_t elems = 1;
    for (size_t d = k_.dims.size(); d-- > rows;) {
      row_strides_[d] = k_.dims[d] == 1 ? 0 : elems;
      elems *= k_.dims[d];
    }
    cache_.assign(nv, -1);
    if (elems > kCacheElems) return;
    std::vector<int> stages(nv, 0);
    stored_.assign(nv, false);
    std::vector<int> saved = cache_;
    cache_.clear();  // (need() without caching)
    for (int s = 0; s <= last_stage_; ++s) {
      need(s);
      for (size_t i = 0; i < nv; ++i) stages[i] += need_[i];
    }
    cache_ = saved;
    int slots = 0;
    for (size_t i = 0; i < nv && slots < kCacheValues; ++i) {
      LOp o = k_.values[i].op;
      if (stages[i] < 2 || o < LOp::Exp || o > LOp::GeluTanh) continue;
      cache_[i] = slots++;
      line("%c" + std::to_string(cache_[i]) + " = alloca float, i64 " + std::to_string(elems) +
           ", align 64");
    }
  }
  std::string cache_ptr(size_t i, const std::string& at) {
    return op("getelementptr inbounds float, float* %c" + std::to_string(cache_[i]) + ", i64 " +
              at);
  }

  // The values at one point, then the stores and accumulations; in a staged kernel those of
  // stage s only (need_, ostage_; a Reduced value is its row's register).
  void point(const std::vector<std::string>& off, int s) {
    bool staged = k_.row_dims > 0;
    std::vector<std::string> v(k_.values.size());
    for (size_t i = 0; i < k_.values.size(); ++i) {
      const LValue& lv = k_.values[i];
      if (staged && !need_[i]) continue;
      if (lv.op == LOp::Reduced) {
        v[i] = reduced_[static_cast<size_t>(lv.a)];
        continue;
      }
      bool cached = staged && !cache_.empty() && cache_[i] >= 0;
      if (cached && stored_[i]) {
        v[i] = op("load float, float* " + cache_ptr(i, off.back()));
        continue;
      }
      v[i] = value(lv, v, off);
      // bfloat16 results round as the op kernels' (a Select picks an operand's bits as is).
      if (lv.dtype == DType::BFloat16 && lv.op != LOp::Load && lv.op != LOp::Select)
        v[i] = round_bf16(v[i]);
      if (cached && store_now_[i])
        line("store float " + v[i] + ", float* " + cache_ptr(i, off.back()));
    }
    size_t nin = k_.inputs.size();
    for (size_t j = 0; j < k_.outputs.size(); ++j) {
      const LOutput& o = k_.outputs[j];
      if (staged && (o.reduce != Reduce::None ? ostage_[j] != s : s != last_stage_)) continue;
      const std::string& x = v[static_cast<size_t>(o.value)];
      const std::string& at = off[nin + j];
      if (o.reduce == Reduce::None) {
        store(o.dtype, x, ptr(static_cast<int>(nin + j), at));
        continue;
      }
      DType ad = acc_dtype(o);
      std::string a = vty(ad);
      std::string p = ptr(acc_[j], at);
      std::string cur = op("load " + a + ", " + a + "* " + p);
      std::string xv = float_minmax(o) ? ordered_key(o, x)
                       : ad != o.dtype ? op("fpext float " + x + " to double")
                                       : x;
      std::string r;
      if (o.reduce == Reduce::Sum || o.reduce == Reduce::Mean) {
        r = op(fp(ad) ? "fadd reassoc " + a + " " + cur + ", " + xv
                      : "add " + a + " " + cur + ", " + xv);
      } else {
        // Integers, or float keys (ordered_key): a signed integer max/min.
        bool max = o.reduce == Reduce::Max;
        std::string c =
            op(std::string("icmp ") + (max ? "sgt " : "slt ") + a + " " + xv + ", " + cur);
        r = op("select i1 " + c + ", " + a + " " + xv + ", " + a + " " + cur);
      }
      line("store " + a + " " + r + ", " + a + "* " + p);
    }
  }

  // The integer view of a float type: its integer type, the shift to its sign bit, and the bit
  // patterns of the sign, the magnitude mask, +inf and the canonical quiet NaN.
  struct Bits {
    std::string it, ft, top, sign, mag, inf, qnan;
  };
  static Bits bits_of(DType t) {
    if (t == DType::Float32)
      return {"i32", "float", "31", "-2147483648", "2147483647", "2139095040", "2143289344"};
    return {"i64",
            "double",
            "63",
            "-9223372036854775808",
            "9223372036854775807",
            "9218868437227405312",
            "9221120237041090560"};
  }
  std::string is_nan(const Bits& f, const std::string& bits) {
    std::string abs = op("and " + f.it + " " + bits + ", " + f.mag);
    return op("icmp ugt " + f.it + " " + abs + ", " + f.inf);
  }
  // Float max/min reduce integer keys in the floats' total order, so the loop is an integer
  // max/min, which LLVM vectorises without fast-math flags (a NaN-propagating float select
  // kept whole clusters scalar). key(b) = b ^ ((b >> (w-1)) & ~sign): -inf < ... < -0 < +0
  // < ... < +inf. A NaN is first given the sign that makes it win (+ for max, - for min), so
  // any NaN makes the result NaN, as the CPU kernel's; -0 and +0 order as -0 < +0 (the CPU
  // kernel keeps whichever its lanes meet first: both compare equal).
  std::string ordered_key(const LOutput& o, const std::string& x) {
    Bits f = bits_of(o.dtype);
    std::string bits = op("bitcast " + f.ft + " " + x + " to " + f.it);
    std::string won = o.reduce == Reduce::Max ? op("and " + f.it + " " + bits + ", " + f.mag)
                                              : op("or " + f.it + " " + bits + ", " + f.sign);
    std::string b =
        op("select i1 " + is_nan(f, bits) + ", " + f.it + " " + won + ", " + f.it + " " + bits);
    return flip(f, b);
  }
  // The float of a key (flip is its own inverse); a NaN as the canonical quiet NaN.
  std::string key_value(const LOutput& o, const std::string& key) {
    Bits f = bits_of(o.dtype);
    std::string bits = flip(f, key);
    std::string b =
        op("select i1 " + is_nan(f, bits) + ", " + f.it + " " + f.qnan + ", " + f.it + " " + bits);
    return op("bitcast " + f.it + " " + b + " to " + f.ft);
  }
  std::string flip(const Bits& f, const std::string& b) {
    std::string s = op("ashr " + f.it + " " + b + ", " + f.top);
    std::string m = op("and " + f.it + " " + s + ", " + f.mag);
    return op("xor " + f.it + " " + b + ", " + m);
  }

  void finalize(size_t j) {
    auto [b, e] = owned(k_.outputs[j]);
    loop(b, e, [&](const std::string& i) { finalize_at(j, i); });
  }
  // Output j's element i from its accumulator; returns the value (a register of the output's
  // dtype, bfloat16 in a float).
  std::string finalize_at(size_t j, const std::string& i) {
    const LOutput& o = k_.outputs[j];
    DType ad = acc_dtype(o);
    std::string a = vty(ad), m = mty(o.dtype);
    int outbuf = static_cast<int>(k_.inputs.size() + j);
    std::string x = op("load " + a + ", " + a + "* " + ptr(acc_[j], i));
    if (float_minmax(o)) {
      std::string f = key_value(o, x);
      line("store " + m + " " + f + ", " + m + "* " + ptr(outbuf, i));
      return f;
    }
    if (o.reduce == Reduce::Mean)
      x = op("fdiv double " + x + ", " + fconst(static_cast<double>(o.count)));
    if (ad != o.dtype) x = op("fptrunc double " + x + " to float");
    if (o.dtype == DType::BFloat16) x = round_bf16(x);
    store(o.dtype, x, ptr(outbuf, i));
    return x;
  }

  std::string value(const LValue& lv, const std::vector<std::string>& v,
                    const std::vector<std::string>& off) {
    DType t = lv.dtype;
    std::string T = vty(t);
    if (lv.op == LOp::Load) {
      std::string m = mty(t);
      std::string x = op("load " + m + ", " + m + "* " + ptr(lv.a, off[static_cast<size_t>(lv.a)]));
      if (t == DType::BFloat16) {
        std::string w = op("zext i16 " + x + " to i32");
        return op("bitcast i32 " + op("shl i32 " + w + ", 16") + " to float");
      }
      return t == DType::Bool ? op("icmp ne i8 " + x + ", 0") : x;
    }
    const std::string& a = v[static_cast<size_t>(lv.a)];
    const std::string b = lv.b >= 0 ? v[static_cast<size_t>(lv.b)] : "";
    DType at = k_.values[static_cast<size_t>(lv.a)].dtype;  // an operand's dtype
    std::string A = vty(at);
    bool f = fp(t);
    switch (lv.op) {
      case LOp::Neg:
        return op(f ? "fneg " + T + " " + a : "sub " + T + " 0, " + a);
      case LOp::Abs: {
        if (f) return op(intrinsic(T, "llvm.fabs." + fsuffix(t), T) + T + " " + a + ")");
        std::string n = op("sub " + T + " 0, " + a);
        std::string c = op("icmp slt " + T + " " + a + ", 0");
        return op("select i1 " + c + ", " + T + " " + n + ", " + T + " " + a);
      }
      case LOp::Sign: {
        std::string c1 = op((f ? "fcmp ogt " : "icmp sgt ") + T + " " + a + ", " + cst(t, 0));
        std::string c2 = op((f ? "fcmp olt " : "icmp slt ") + T + " " + a + ", " + cst(t, 0));
        // Neither above nor below 0 (+-0, NaN): 0, as MindSpore's Sign.
        std::string s =
            op("select i1 " + c2 + ", " + T + " " + cst(t, -1) + ", " + T + " " + cst(t, 0));
        return op("select i1 " + c1 + ", " + T + " " + cst(t, 1) + ", " + T + " " + s);
      }
      case LOp::Square:
        return op((f ? "fmul " : "mul ") + T + " " + a + ", " + a);
      case LOp::Relu: {
        std::string c = op((f ? "fcmp olt " : "icmp slt ") + T + " " + a + ", " + cst(t, 0));
        return op("select i1 " + c + ", " + T + " " + cst(t, 0) + ", " + T + " " + a);
      }
      case LOp::Sqrt:
        return op(intrinsic(T, "llvm.sqrt." + fsuffix(t), T) + T + " " + a + ")");
      case LOp::Rsqrt: {
        std::string s = op(intrinsic(T, "llvm.sqrt." + fsuffix(t), T) + T + " " + a + ")");
        return op("fdiv " + T + " " + cst(t, 1) + ", " + s);
      }
      case LOp::Reciprocal:
        return op("fdiv " + T + " " + cst(t, 1) + ", " + a);
      case LOp::Not:
        return op("xor i1 " + a + ", true");
      case LOp::Add:
        return op((f ? "fadd " : "add ") + T + " " + a + ", " + b);
      case LOp::Sub:
        return op((f ? "fsub " : "sub ") + T + " " + a + ", " + b);
      case LOp::Mul:
        return op((f ? "fmul " : "mul ") + T + " " + a + ", " + b);
      case LOp::Div:
        return op("fdiv " + T + " " + a + ", " + b);
      case LOp::Max:
      case LOp::Min: {
        bool max = lv.op == LOp::Max;
        if (!f) {
          std::string c =
              op(std::string("icmp ") + (max ? "sgt " : "slt ") + T + " " + a + ", " + b);
          return op("select i1 " + c + ", " + T + " " + a + ", " + T + " " + b);
        }
        std::string c1 =
            op(std::string("fcmp ") + (max ? "ogt " : "olt ") + T + " " + a + ", " + b);
        std::string c2 = op("fcmp uno " + T + " " + a + ", " + a);
        std::string c = op("or i1 " + c1 + ", " + c2);
        return op("select i1 " + c + ", " + T + " " + a + ", " + T + " " + b);
      }
      case LOp::ReluGrad: {
        std::string c = op((f ? "fcmp ogt " : "icmp sgt ") + T + " " + b + ", " + cst(t, 0));
        return op("select i1 " + c + ", " + T + " " + a + ", " + T + " " + cst(t, 0));
      }
      case LOp::And:
        return op("and i1 " + a + ", " + b);
      case LOp::Or:
        return op("or i1 " + a + ", " + b);
      case LOp::Eq:
      case LOp::Ne:
      case LOp::Lt:
      case LOp::Le:
      case LOp::Gt:
      case LOp::Ge: {
        static constexpr const char* kF[] = {"oeq", "une", "olt", "ole", "ogt", "oge"};
        static constexpr const char* kI[] = {"eq", "ne", "slt", "sle", "sgt", "sge"};
        size_t idx = static_cast<size_t>(lv.op) - static_cast<size_t>(LOp::Eq);
        return op(std::string(fp(at) ? "fcmp " : "icmp ") + (fp(at) ? kF[idx] : kI[idx]) + " " + A +
                  " " + a + ", " + b);
      }
      case LOp::Select:
        return op("select i1 " + a + ", " + T + " " + b + ", " + T + " " +
                  v[static_cast<size_t>(lv.c)]);
      case LOp::Cast:
        return cast(a, at, t);
      case LOp::Exp:
        return exp32(a);
      case LOp::Sigmoid:
        return sigmoid32(a);
      case LOp::Tanh:
        return tanh32(a);
      case LOp::Erf:
        return erf32(a);
      case LOp::Gelu:
        return gelu32(a);
      case LOp::GeluTanh:
        return gelu_tanh32(a);
      default:
        MC_ASSERT(false, "graph kernel: no rule for ", lop_name(lv.op));
    }
  }

  // ---- float32 transcendental functions: kernels/cpu/vmath.h's algorithms, step for step
  // (a * b + c as llvm.fmuladd, which the host's FMA may contract as GCC does for the op
  // kernels: results agree with them to an ulp or two, not bit for bit).
  std::string fma(const std::string& a, const std::string& b, const std::string& c) {
    return op(intrinsic("float", "llvm.fmuladd.f32", "float, float, float") + "float " + a +
              ", float " + b + ", float " + c + ")");
  }
  std::string fop(const char* o, const std::string& a, const std::string& b) {
    return op(std::string(o) + " float " + a + ", " + b);
  }
  std::string fsel(const std::string& c, const std::string& a, const std::string& b) {
    return op("select i1 " + c + ", float " + a + ", float " + b);
  }
  std::string fcmp(const char* pred, const std::string& a, const std::string& b) {
    return op(std::string("fcmp ") + pred + " float " + a + ", " + b);
  }
  std::string horner(const std::string& x, std::initializer_list<float> cs) {
    auto it = cs.begin();
    std::string p = fconst(*it++);
    for (; it != cs.end(); ++it) p = fma(p, x, fconst(*it));
    return p;
  }
  std::string fabs32(const std::string& x) {
    return op(intrinsic("float", "llvm.fabs.f32", "float") + "float " + x + ")");
  }
  // 2^k for an i32 k in [-126, 127].
  std::string pow2i(const std::string& k) {
    std::string e = op("add i32 " + k + ", 127");
    std::string s = op("shl i32 " + e + ", 23");
    return op("bitcast i32 " + s + " to float");
  }
  std::string exp_scaled(const std::string& n, const std::string& r) {
    std::string p = horner(r, {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                               4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f});
    std::string rr = fop("fmul", r, r);
    p = fma(p, rr, r);
    p = fop("fadd", p, fconst(1.0));
    std::string ni = op("fptosi float " + n + " to i32");
    std::string n1 = op("ashr i32 " + ni + ", 1");
    std::string n2 = op("sub i32 " + ni + ", " + n1);
    return fop("fmul", fop("fmul", p, pow2i(n1)), pow2i(n2));
  }
  std::string exp32(const std::string& x) {
    const float log2e = 1.44269504088896341f, ln2hi = 0.693359375f, ln2lo = -2.12194440e-4f;
    std::string xc = fsel(fcmp("olt", x, fconst(88.8f)), x, fconst(88.8f));
    xc = fsel(fcmp("ogt", xc, fconst(-104.0f)), xc, fconst(-104.0f));
    std::string t = fma(xc, fconst(log2e), fconst(12582912.0f));
    std::string n = fop("fsub", t, fconst(12582912.0f));
    std::string r = fma(op("fneg float " + n), fconst(ln2hi), xc);
    r = fma(op("fneg float " + n), fconst(ln2lo), r);
    return fsel(fcmp("oeq", x, x), exp_scaled(n, r), x);
  }
  std::string sigmoid32(const std::string& x) {
    std::string e = exp32(op("fneg float " + fabs32(x)));
    std::string r = fop("fdiv", fconst(1.0), fop("fadd", fconst(1.0), e));
    return fsel(fcmp("oge", x, fconst(0.0)), r, fop("fmul", e, r));
  }
  std::string tanh32(const std::string& x) {
    std::string a = fabs32(x);
    std::string z = fop("fmul", x, x);
    std::string p = horner(z, {-5.70498872745e-3f, 2.06390887954e-2f, -5.37397155531e-2f,
                               1.33314422036e-1f, -3.33332819422e-1f});
    std::string small = fma(fop("fmul", p, z), x, x);
    std::string e = exp32(fop("fadd", a, a));
    std::string big =
        fop("fsub", fconst(1.0), fop("fdiv", fconst(2.0), fop("fadd", e, fconst(1.0))));
    big = fsel(fcmp("olt", x, fconst(0.0)), op("fneg float " + big), big);
    return fsel(fcmp("ogt", a, fconst(0.625f)), big, small);
  }

  // x * x as hi + lo (vmath::square_split).
  std::pair<std::string, std::string> square_split(const std::string& x) {
    std::string b = op("bitcast float " + x + " to i32");
    std::string xh = op("bitcast i32 " + op("and i32 " + b + ", -4096") + " to float");
    std::string xl = fop("fsub", x, xh);
    std::string hi = fop("fmul", xh, xh);
    std::string lo = fop("fmul", fop("fadd", fop("fadd", xh, xh), xl), xl);
    return {hi, lo};
  }
  // erfc(z) for 0 <= z <= 10, z^2 = z2hi + z2lo (vmath::erfc_nonneg).
  std::string erfc_nonneg(const std::string& z, const std::string& z2hi, const std::string& z2lo) {
    const float log2e = 1.44269504088896341f, ln2hi = 0.693359375f, ln2lo = -2.12194440e-4f;
    std::string t = fop("fdiv", fconst(1.0), fma(fconst(0.5), z, fconst(1.0)));
    std::string p = horner(t, {0.17087277f, -0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f,
                               -0.18628806f, 0.09678418f, 0.37409196f, 1.00002368f, -1.26551223f});
    std::string e = fop("fsub", fop("fsub", p, z2hi), z2lo);
    std::string n = fop("fsub", fma(e, fconst(log2e), fconst(12582912.0f)), fconst(12582912.0f));
    std::string nn = op("fneg float " + n);
    std::string r = fma(nn, fconst(ln2hi), op("fneg float " + z2hi));
    r = fop("fadd", r, p);
    r = fop("fsub", r, z2lo);
    r = fma(nn, fconst(ln2lo), r);
    return fop("fmul", t, exp_scaled(n, r));
  }
  std::string erf32(const std::string& x) {
    std::string a = fabs32(x);
    std::string ratio = horner(
        fop("fmul", x, x), {7.853861353153693e-5f, -8.010193625184903e-4f, 5.188327685732524e-3f,
                            -2.685381193529856e-2f, 1.128358514861418e-1f, -3.761262582423300e-1f,
                            1.128379165726710e0f});
    std::string small = fop("fmul", x, ratio);
    std::string ac = fsel(fcmp("olt", a, fconst(4.0)), a, fconst(4.0));
    auto [hi, lo] = square_split(ac);
    std::string big = fop("fsub", fconst(1.0), erfc_nonneg(ac, hi, lo));
    big = fsel(fcmp("olt", x, fconst(0.0)), op("fneg float " + big), big);
    std::string y = fsel(fcmp("olt", a, fconst(1.0)), small, big);
    return fsel(fcmp("oeq", x, x), y, x);
  }
  std::string gelu32(const std::string& x) {
    const float rsqrt2 = 0.7071067811865476f;
    std::string s = fop("fmul", x, fconst(rsqrt2));
    std::string tail = fcmp("olt", fabs32(s), fconst(10.0));
    std::string xc = fsel(tail, x, fconst(0.0));
    auto [hi, lo] = square_split(xc);
    std::string ec = erfc_nonneg(fabs32(fop("fmul", xc, fconst(rsqrt2))),
                                 fop("fmul", fconst(0.5), hi), fop("fmul", fconst(0.5), lo));
    ec = fsel(tail, ec, fconst(0.0));
    std::string m = fsel(fcmp("olt", s, fconst(0.0)), ec, fop("fsub", fconst(2.0), ec));
    std::string y = fop("fmul", fop("fmul", fconst(0.5), x), m);
    return fsel(fcmp("oeq", x, fconst(-HUGE_VAL)), fconst(0.0), y);
  }
  std::string gelu_tanh32(const std::string& x) {
    std::string c = fop("fmul", fop("fmul", fconst(0.044715f), x), x);
    std::string u = fop("fmul", fconst(0.7978845608028654f), fma(c, x, x));
    std::string y = fop("fmul", x, sigmoid32(fop("fadd", u, u)));
    return fsel(fcmp("oeq", x, fconst(-HUGE_VAL)), fconst(0.0), y);
  }

  // A float rounded to bfloat16 (nearest even; a NaN quieted), as tensor/half.h's bfloat16(f),
  // kept in a float register: the top 16 bits of b + 0x7fff + lsb, or of b | 0x400000 for a
  // NaN (an unordered compare, so the NaN test is one mask on AVX-512 and the select a merge
  // into the sum before the one shared mask: this runs after every bfloat16 op of a chain,
  // and its integer steps outnumbered the arithmetic in GeLU's gradient).
  std::string round_bf16(const std::string& x) {
    std::string b = op("bitcast float " + x + " to i32");
    std::string lsb = op("and i32 " + op("lshr i32 " + b + ", 16") + ", 1");
    std::string r = op("add i32 " + op("add i32 " + b + ", 32767") + ", " + lsb);
    std::string q = op("or i32 " + b + ", 4194304");
    std::string nan = op("fcmp uno float " + x + ", 0.0");
    std::string t = op("select i1 " + nan + ", i32 " + q + ", i32 " + r);
    return op("bitcast i32 " + op("and i32 " + t + ", -65536") + " to float");
  }
  // Stores register value x of dtype t at p (bool as a byte, bfloat16 as its top 16 bits: x is
  // a bfloat16 value already).
  void store(DType t, const std::string& x, const std::string& p) {
    std::string m = mty(t), s = x;
    if (t == DType::Bool) s = op("zext i1 " + x + " to i8");
    if (t == DType::BFloat16) {
      std::string b = op("bitcast float " + x + " to i32");
      s = op("trunc i32 " + op("lshr i32 " + b + ", 16") + " to i16");
    }
    line("store " + m + " " + s + ", " + m + "* " + p);
  }

  // saturate_cast (tensor/dtype.h) from s to d; bfloat16 to and from float32 only (fusible()),
  // both float registers: the rounding to bfloat16 follows in point().
  std::string cast(const std::string& x, DType s, DType d) {
    if (s == d || vty(s) == vty(d)) return x;
    std::string S = vty(s), D = vty(d);
    if (d == DType::Bool)
      return op(fp(s) ? "fcmp une " + S + " " + x + ", " + cst(s, 0)
                      : "icmp ne " + S + " " + x + ", 0");
    if (s == DType::Bool) return op((fp(d) ? "uitofp i1 " : "zext i1 ") + x + " to " + D);
    if (fp(s) && fp(d))
      return op((s == DType::Float32 ? "fpext " : "fptrunc ") + S + " " + x + " to " + D);
    if (fp(s)) {
      std::string name = "llvm.fptosi.sat." + D + "." + fsuffix(s);
      return op(intrinsic(D, name, S) + S + " " + x + ")");
    }
    if (fp(d)) return op("sitofp " + S + " " + x + " to " + D);
    bool wider = dtype_size(d) > dtype_size(s);
    return op((wider ? "sext " : "trunc ") + S + " " + x + " to " + D);
  }

  const LoopKernel& k_;
  std::string name_;
  std::vector<std::string> bufs_;        // element type of each buffer argument
  std::vector<int> param_;               // the body parameter each buffer is accessed through
  std::unordered_map<size_t, int> acc_;  // output -> its accumulator's buffer
  std::set<std::string> decls_;
  std::ostringstream out_;
  std::string cur_;
  int next_ = 0;
  // Staged kernels: each value's and output's stage, the last stage, the values the current
  // stage computes, and the current row's finalised reductions (by output).
  std::vector<int> stage_, ostage_;
  int last_stage_ = 0;
  std::vector<bool> need_;
  std::vector<std::string> reduced_;
  // Staged kernels' row cache (plan_cache): each value's buffer (-1: none), whether an earlier
  // stage stored it, whether this stage stores it; the index in the row per dimension.
  std::vector<int> cache_;
  std::vector<bool> stored_, store_now_;
  std::vector<int64_t> row_strides_;
  // Staged kernels' prefetching (plan_prefetch): the inputs prefetched, the block's elements.
  std::vector<size_t> prefetched_;
  int64_t block_ = 16;
  // A staged kernel that sums float32 or bfloat16 values in double: its loops over the row ask
  // for 16 lanes (loop metadata llvm.loop.vectorize.width). LLVM's cost model gives such a loop
  // 8 (a double accumulator of 16 lanes takes two registers), and so half the width to all its
  // arithmetic: softmax's exp ran in 256-bit vectors; with 16, the attention block's softmax
  // kernel ([16, 128, 128], one thread) takes 157 us instead of 217. loop_ids_: the loops so
  // marked (metadata !1 ... !loop_ids_, each naming !0).
  bool wide_rows_ = false;
  int loop_ids_ = 0;
};

}  // namespace

std::string emit_llvm(const LoopKernel& k, const std::string& name) {
  return Emitter(k, name).run();
}

}  // namespace mycel::codegen
