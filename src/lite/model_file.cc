#include "lite/model_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "base/file.h"
#include "lite/schema/model_generated.h"

namespace mycel::lite {

namespace fb = mycel::lite::schema;

namespace {

constexpr char kMagic[8] = {'M', 'Y', 'C', 'E', 'L', 'I', 'T', 'E'};

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

template <class T>
T load_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint32_t crc_of(const uint8_t* p, size_t n) {
  return static_cast<uint32_t>(crc32_z(crc32_z(0, nullptr, 0), p, n));
}

// ---------------------------------------------------------------- writing

fb::Activation fb_act(Act a) { return static_cast<fb::Activation>(a); }

std::pair<fb::Op, flatbuffers::Offset<void>> write_op(flatbuffers::FlatBufferBuilder& b,
                                                      const NodeDesc& n) {
  const OpAttrs& a = n.a;
  auto two = [&](const int64_t* v) { return b.CreateVector(v, 2); };
  switch (n.op) {
    case OpType::Conv2D:
      return {fb::Op::Conv2D,
              fb::CreateConv2D(b, two(a.stride), two(a.dilation), b.CreateVector(a.pad, 4),
                               a.pad_same, a.group, fb_act(a.act))
                  .Union()};
    case OpType::Pool:
      return {fb::Op::Pool,
              fb::CreatePool(b, static_cast<fb::PoolKind>(a.pool), two(a.kernel), two(a.stride),
                             b.CreateVector(a.pad, 4), a.pad_same, a.ceil_mode, a.count_include_pad)
                  .Union()};
    case OpType::FullyConnected:
      return {fb::Op::FullyConnected, fb::CreateFullyConnected(b, fb_act(a.act)).Union()};
    case OpType::MatMul:
      return {fb::Op::MatMul, fb::CreateMatMul(b, a.transpose_a, a.transpose_b).Union()};
    case OpType::BiasAdd:
      return {fb::Op::BiasAdd, fb::CreateBiasAdd(b).Union()};
    case OpType::Eltwise:
      return {fb::Op::Eltwise,
              fb::CreateEltwise(b, static_cast<fb::EltwiseKind>(a.elt), fb_act(a.act)).Union()};
    case OpType::Act:
      return {fb::Op::Act, fb::CreateAct(b, fb_act(a.act)).Union()};
    case OpType::Reshape:
      return {fb::Op::Reshape, fb::CreateReshape(b, b.CreateVector(a.shape)).Union()};
    case OpType::Transpose:
      return {fb::Op::Transpose, fb::CreateTranspose(b, b.CreateVector(a.perm)).Union()};
    case OpType::Softmax:
      return {fb::Op::Softmax, fb::CreateSoftmax(b, a.axis).Union()};
    case OpType::BatchNorm:
      return {fb::Op::BatchNorm, fb::CreateBatchNorm(b, a.epsilon).Union()};
  }
  MC_ASSERT(false, "unknown lite op");
}

// ---------------------------------------------------------------- reading

struct Reader {
  const std::string& what;

  template <class E>
  int enum_value(E e, int count, const char* kind, const std::string& where) const {
    int v = static_cast<int>(e);
    MC_CHECK(v >= 0 && v < count, Value, what, ": ", where, " has an unknown ", kind, " (", v, ")");
    return v;
  }
  // FlatBuffers' verifier checks a vector's length field (4-byte aligned), not that 8-byte
  // elements are 8-byte aligned, which the builder always makes them (an empty vector aside):
  // a file where they are not is damaged (reading it would be a misaligned load).
  const flatbuffers::Vector<int64_t>* aligned(const flatbuffers::Vector<int64_t>* v,
                                              const std::string& where) const {
    MC_CHECK(!v || v->size() == 0 || reinterpret_cast<uintptr_t>(v->data()) % alignof(int64_t) == 0,
             Value, what, ": ", where, " has a misaligned vector");
    return v;
  }
  // A fixed-length attribute: absent keeps the default, else exactly n entries.
  void fixed(const flatbuffers::Vector<int64_t>* v, int64_t* dst, size_t n, const char* name,
             const std::string& where) const {
    if (!aligned(v, where)) return;
    MC_CHECK(v->size() == n, Value, what, ": ", where, ": ", name, " has ", v->size(),
             " entries, not ", n);
    for (size_t i = 0; i < n; ++i) dst[i] = v->Get(static_cast<flatbuffers::uoffset_t>(i));
  }
  Dims dims(const flatbuffers::Vector<int64_t>* v, const std::string& where) const {
    return aligned(v, where) ? Dims(v->begin(), v->end()) : Dims{};
  }
  std::vector<int> indices(const flatbuffers::Vector<int32_t>* v) const {
    return v ? std::vector<int>(v->begin(), v->end()) : std::vector<int>{};
  }
  Act act(fb::Activation a, const std::string& where) const {
    return static_cast<Act>(enum_value(a, kNumActs, "activation", where));
  }

  template <class T>
  const T* table(const T* t, const std::string& where) const {
    MC_CHECK(t != nullptr, Value, what, ": ", where, " has no attributes");
    return t;
  }

  void op(const fb::Node& src, NodeDesc& n) const {
    const std::string where = str("node '", n.name, "'");
    OpAttrs& a = n.a;
    int type = static_cast<int>(src.op_type());
    MC_CHECK(type >= 1 && type <= kNumOpTypes, Value, what, ": ", where,
             " has an unknown operator (", type, ")");
    n.op = static_cast<OpType>(type - 1);
    switch (n.op) {
      case OpType::Conv2D: {
        auto* c = table(src.op_as_Conv2D(), where);
        fixed(c->stride(), a.stride, 2, "stride", where);
        fixed(c->dilation(), a.dilation, 2, "dilation", where);
        fixed(c->pad(), a.pad, 4, "pad", where);
        a.pad_same = c->pad_same();
        a.group = c->group();
        a.act = act(c->activation(), where);
        return;
      }
      case OpType::Pool: {
        auto* p = table(src.op_as_Pool(), where);
        a.pool = static_cast<PoolKind>(enum_value(p->kind(), 2, "pool kind", where));
        fixed(p->kernel(), a.kernel, 2, "kernel", where);
        fixed(p->stride(), a.stride, 2, "stride", where);
        fixed(p->pad(), a.pad, 4, "pad", where);
        a.pad_same = p->pad_same();
        a.ceil_mode = p->ceil_mode();
        a.count_include_pad = p->count_include_pad();
        return;
      }
      case OpType::FullyConnected:
        a.act = act(table(src.op_as_FullyConnected(), where)->activation(), where);
        return;
      case OpType::MatMul: {
        auto* m = table(src.op_as_MatMul(), where);
        a.transpose_a = m->transpose_a();
        a.transpose_b = m->transpose_b();
        return;
      }
      case OpType::BiasAdd:
        return;
      case OpType::Eltwise: {
        auto* e = table(src.op_as_Eltwise(), where);
        a.elt = static_cast<EltKind>(enum_value(e->kind(), 4, "eltwise kind", where));
        a.act = act(e->activation(), where);
        return;
      }
      case OpType::Act:
        a.act = act(table(src.op_as_Act(), where)->kind(), where);
        return;
      case OpType::Reshape:
        a.shape = dims(table(src.op_as_Reshape(), where)->shape(), where);
        return;
      case OpType::Transpose:
        a.perm = dims(table(src.op_as_Transpose(), where)->perm(), where);
        return;
      case OpType::Softmax:
        a.axis = table(src.op_as_Softmax(), where)->axis();
        return;
      case OpType::BatchNorm:
        a.epsilon = table(src.op_as_BatchNorm(), where)->epsilon();
        return;
    }
  }

  void tensor(const fb::Tensor& src, TensorDesc& t, const uint8_t* weights, uint64_t wsize) const {
    t.name = src.name() ? src.name()->str() : std::string();
    const std::string where = str("tensor '", t.name, "'");
    t.dtype = static_cast<DType>(enum_value(src.dtype(), kNumDTypes, "dtype", where));
    t.shape = dims(src.shape(), where);
    MC_CHECK(t.shape.size() <= 8, Value, what, ": ", where, " has rank ", t.shape.size());
    uint64_t nbytes =
        static_cast<uint64_t>(dims_numel(t.shape, what + ": " + where)) * dtype_size(t.dtype);
    t.constant = src.constant();
    if (t.constant) {
      MC_CHECK(src.nbytes() == nbytes, Value, what, ": ", where, " holds ", src.nbytes(),
               " bytes; its shape ", dims_str(t.shape), " of ", dtype_name(t.dtype), " needs ",
               nbytes);
      MC_CHECK(src.offset() % kWeightAlign == 0 && src.offset() <= wsize &&
                   nbytes <= wsize - src.offset(),
               Value, what, ": ", where, "'s data (offset ", src.offset(), ", ", nbytes,
               " bytes) lies outside the weight area (", wsize, " bytes) or is not aligned");
      t.data = weights + src.offset();
    }
    if (auto* q = src.quant()) {
      if (q->scale()) t.quant.scale.assign(q->scale()->begin(), q->scale()->end());
      if (aligned(q->zero_point(), where))
        t.quant.zero_point.assign(q->zero_point()->begin(), q->zero_point()->end());
      t.quant.axis = q->axis();
      t.quant.num_bits = q->num_bits();
      MC_CHECK(t.quant.scale.size() == t.quant.zero_point.size() && t.quant.num_bits >= 1 &&
                   t.quant.num_bits <= 16,
               Value, what, ": ", where, " has inconsistent quantization parameters");
    }
  }
};

}  // namespace

std::string write_model(const Graph& g, const std::string& producer) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<uint64_t> offset(g.tensors.size(), 0);
  uint64_t wsize = 0;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    if (!g.tensors[i].constant) continue;
    wsize = align_up(wsize, kWeightAlign);
    offset[i] = wsize;
    wsize += g.tensors[i].nbytes();
  }
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const TensorDesc& t = g.tensors[i];
    flatbuffers::Offset<fb::QuantParam> q;
    if (!t.quant.scale.empty())
      q = fb::CreateQuantParamDirect(b, &t.quant.scale, &t.quant.zero_point, t.quant.axis,
                                     t.quant.num_bits);
    tensors.push_back(fb::CreateTensorDirect(b, t.name.c_str(), static_cast<fb::DataType>(t.dtype),
                                             &t.shape, t.constant, offset[i],
                                             t.constant ? t.nbytes() : 0, q));
  }
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  for (const NodeDesc& n : g.nodes) {
    auto [type, op] = write_op(b, n);
    nodes.push_back(fb::CreateNodeDirect(b, n.name.c_str(), type, op, &n.inputs, &n.outputs));
  }
  auto model = fb::CreateModelDirect(b, kFormatVersion, g.name.c_str(), producer.c_str(), &tensors,
                                     &nodes, &g.inputs, &g.outputs);
  fb::FinishModelBuffer(b, model);

  const uint64_t meta = b.GetSize();
  const uint64_t woff = align_up(kPreambleSize + meta, kWeightAlign);
  std::string out(woff + wsize, '\0');
  auto* p = reinterpret_cast<uint8_t*>(out.data());
  std::memcpy(p, kMagic, 8);
  std::memcpy(p + 12, &kFormatVersion, 4);
  std::memcpy(p + 16, &meta, 8);
  std::memcpy(p + 24, &wsize, 8);
  std::memcpy(p + kPreambleSize, b.GetBufferPointer(), meta);
  for (size_t i = 0; i < g.tensors.size(); ++i)
    if (g.tensors[i].constant && g.tensors[i].nbytes())
      std::memcpy(p + woff + offset[i], g.tensors[i].data, g.tensors[i].nbytes());
  uint32_t crc = crc_of(p + 12, out.size() - 12);
  std::memcpy(p + 8, &crc, 4);
  return out;
}

Graph read_model(const uint8_t* p, size_t size, const std::string& what, bool verify_checksum) {
  MC_CHECK(size >= kPreambleSize && std::memcmp(p, kMagic, 8) == 0, Value, what,
           ": not a mycel lite model file (no MYCELITE header)");
  const uint32_t version = load_le<uint32_t>(p + 12);
  MC_CHECK(version == kFormatVersion, Value, what, ": model file format version ", version,
           "; this runtime reads version ", kFormatVersion, " (convert the model again)");
  const uint64_t meta = load_le<uint64_t>(p + 16), wsize = load_le<uint64_t>(p + 24);
  MC_CHECK(meta <= size - kPreambleSize, Value, what, ": truncated (metadata of ", meta,
           " bytes, file of ", size, ")");
  const uint64_t woff = align_up(kPreambleSize + meta, kWeightAlign);
  MC_CHECK(woff <= size && wsize == size - woff, Value, what, ": truncated or padded (", size,
           " bytes; the header says ", woff, " + ", wsize, ")");
  if (verify_checksum) {
    uint32_t want = load_le<uint32_t>(p + 8), got = crc_of(p + 12, size - 12);
    MC_CHECK(want == got, Value, what, ": checksum mismatch (the file is damaged)");
  }
  const uint8_t* mp = p + kPreambleSize;
  flatbuffers::Verifier verifier(mp, meta, 64, 1000000);
  MC_CHECK(fb::ModelBufferHasIdentifier(mp) && fb::VerifyModelBuffer(verifier), Value, what,
           ": the model metadata is malformed");
  const fb::Model* m = fb::GetModel(mp);
  MC_CHECK(m->version() == kFormatVersion, Value, what, ": metadata version ", m->version(),
           " differs from the header's ", version);
  Reader r{what};
  Graph g;
  g.name = m->name() ? m->name()->str() : std::string();
  if (m->tensors()) {
    g.tensors.resize(m->tensors()->size());
    for (size_t i = 0; i < g.tensors.size(); ++i)
      r.tensor(*m->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i)), g.tensors[i], p + woff,
               wsize);
  }
  if (m->nodes()) {
    for (const fb::Node* src : *m->nodes()) {
      NodeDesc n;
      n.name = src->name() ? src->name()->str() : std::string();
      r.op(*src, n);
      n.inputs = r.indices(src->inputs());
      n.outputs = r.indices(src->outputs());
      g.nodes.push_back(std::move(n));
    }
  }
  g.inputs = r.indices(m->inputs());
  g.outputs = r.indices(m->outputs());
  validate(g, what);
  std::vector<Dims> stored;
  for (const TensorDesc& t : g.tensors) stored.push_back(t.shape);
  infer_shapes(g);
  for (size_t i = 0; i < g.tensors.size(); ++i)
    MC_CHECK(g.tensors[i].shape == stored[i], Value, what, ": tensor '", g.tensors[i].name,
             "' is stored as ", dims_str(stored[i]), " but its node gives ",
             dims_str(g.tensors[i].shape));
  return g;
}

MappedFile::MappedFile(const std::string& path) {
  int fd = open_regular_file(path, "lite model");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    MC_THROW(Value, "lite model: cannot stat '", path, "': ", std::strerror(errno));
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      ::close(fd);
      MC_THROW(Value, "cannot map model file '", path, "': ", std::strerror(errno));
    }
    data_ = static_cast<const uint8_t*>(m);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace mycel::lite
