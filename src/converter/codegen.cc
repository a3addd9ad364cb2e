#include "converter/codegen.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/error.h"
#include "converter/converter.h"
#include "lite/arena.h"

namespace mycel::converter {

namespace {

constexpr const char* kTool = "mycel_convert --codegen=c";

// The C kernels, each emitted only when a node uses it (-Wall: no unused static function).
constexpr const char* kActC = R"(static float mc_act1(float v, int act) {
  switch (act) {
    case 1: return v > 0.f ? v : 0.f;
    case 2: return v < 0.f ? 0.f : (v > 6.f ? 6.f : v);
    case 3: return 1.f / (1.f + expf(-v));
    case 4: return tanhf(v);
    default: return v;
  }
}

/* The activation (0 none, 1 ReLU, 2 ReLU6, 3 Sigmoid, 4 Tanh) in place over n floats. */
static void mc_act(float* p, long n, int act) {
  long i;
  if (act == 0) return;
  for (i = 0; i < n; ++i) p[i] = mc_act1(p[i], act);
}
)";

constexpr const char* kConvC = R"(
/* NCHW convolution, OIHW weights [O, C/group, KH, KW], optional bias [O]. */
static void mc_conv2d(const float* x, const float* w, const float* b, float* y, long N,
                      long C, long H, long W, long O, long CG, long KH, long KW, long OH,
                      long OW, long sh, long sw, long dh, long dw, long pt, long pl,
                      long group, int act) {
  const long OG = O / group;
  long n, o, oh, ow, c, kh, kw;
  for (n = 0; n < N; ++n)
    for (o = 0; o < O; ++o) {
      const long c0 = (o / OG) * CG;
      for (oh = 0; oh < OH; ++oh)
        for (ow = 0; ow < OW; ++ow) {
          float acc = b ? b[o] : 0.f;
          for (c = 0; c < CG; ++c)
            for (kh = 0; kh < KH; ++kh) {
              const long h = oh * sh - pt + kh * dh;
              if (h < 0 || h >= H) continue;
              for (kw = 0; kw < KW; ++kw) {
                const long ww = ow * sw - pl + kw * dw;
                if (ww < 0 || ww >= W) continue;
                acc += x[((n * C + c0 + c) * H + h) * W + ww] *
                       w[((o * CG + c) * KH + kh) * KW + kw];
              }
            }
          y[((n * O + o) * OH + oh) * OW + ow] = acc;
        }
    }
  mc_act(y, N * O * OH * OW, act);
}
)";

constexpr const char* kPoolC = R"(
/* Max or average pooling over P planes of H x W; pads top, bottom, left, right. */
static void mc_pool(const float* x, float* y, long P, long H, long W, long OH, long OW,
                    long KH, long KW, long sh, long sw, long pt, long pb, long pl, long pr,
                    int avg, int count_include_pad) {
  long p, oh, ow, h, w;
  for (p = 0; p < P; ++p) {
    const float* s = x + p * H * W;
    float* d = y + p * OH * OW;
    for (oh = 0; oh < OH; ++oh) {
      const long h0 = oh * sh - pt;
      const long hs = h0 > 0 ? h0 : 0, he = h0 + KH < H ? h0 + KH : H;
      for (ow = 0; ow < OW; ++ow) {
        const long w0 = ow * sw - pl;
        const long ws = w0 > 0 ? w0 : 0, we = w0 + KW < W ? w0 + KW : W;
        float acc = avg ? 0.f : -INFINITY;
        for (h = hs; h < he; ++h)
          for (w = ws; w < we; ++w)
            acc = avg ? acc + s[h * W + w] : (s[h * W + w] > acc ? s[h * W + w] : acc);
        if (avg) {
          /* The window clipped to the padded input, or to the input alone. */
          const long ch = (h0 + KH < H + pb ? h0 + KH : H + pb) - h0;
          const long cw = (w0 + KW < W + pr ? w0 + KW : W + pr) - w0;
          const long cnt = count_include_pad ? ch * cw : (he - hs) * (we - ws);
          acc = cnt > 0 ? acc / (float)cnt : 0.f;
        }
        d[oh * OW + ow] = acc;
      }
    }
  }
}
)";

constexpr const char* kGemmC = R"(
/* y[M, N] = op(a) op(b) (+ bias[N]); op transposes when ta / tb. FullyConnected: tb = 1. */
static void mc_gemm(const float* a, const float* b, const float* bias, float* y, long M,
                    long N, long K, int ta, int tb, int act) {
  long i, j, k;
  for (i = 0; i < M; ++i)
    for (j = 0; j < N; ++j) {
      float acc = bias ? bias[j] : 0.f;
      for (k = 0; k < K; ++k)
        acc += (ta ? a[k * M + i] : a[i * K + k]) * (tb ? b[j * K + k] : b[k * N + j]);
      y[i * N + j] = acc;
    }
  mc_act(y, M * N, act);
}
)";

constexpr const char* kBiasC = R"(
/* y = x + b along axis 1 of [outer, C, inner]. */
static void mc_bias_add(const float* x, const float* b, float* y, long outer, long C,
                        long inner) {
  long o, c, i;
  for (o = 0; o < outer; ++o)
    for (c = 0; c < C; ++c)
      for (i = 0; i < inner; ++i) y[(o * C + c) * inner + i] = x[(o * C + c) * inner + i] + b[c];
}
)";

constexpr const char* kEltC = R"(
/* y = a (op) b (0 add, 1 sub, 2 mul, 3 div) over `rank` output dimensions `shape`, each
   input read through its strides (0 where it is broadcast). */
static void mc_eltwise(const float* a, const float* b, float* y, long total, int rank,
                       const long* shape, const long* sa, const long* sb, int kind, int act) {
  long idx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  long i, ia = 0, ib = 0;
  int j;
  for (i = 0; i < total; ++i) {
    const float u = a[ia], v = b[ib];
    y[i] = kind == 0 ? u + v : kind == 1 ? u - v : kind == 2 ? u * v : u / v;
    for (j = rank - 1; j >= 0; --j) {
      ia += sa[j], ib += sb[j];
      if (++idx[j] < shape[j]) break;
      ia -= sa[j] * shape[j], ib -= sb[j] * shape[j];
      idx[j] = 0;
    }
  }
  mc_act(y, total, act);
}
)";

constexpr const char* kActOpC = R"(
static void mc_act_op(const float* x, float* y, long n, int act) {
  memcpy(y, x, (size_t)n * sizeof(float));
  mc_act(y, n, act);
}
)";

constexpr const char* kSoftmaxC = R"(
/* Softmax over the middle axis of [outer, mid, inner]. */
static void mc_softmax(const float* x, float* y, long outer, long mid, long inner) {
  long o, i, k;
  for (o = 0; o < outer; ++o)
    for (i = 0; i < inner; ++i) {
      const float* s = x + o * mid * inner + i;
      float* d = y + o * mid * inner + i;
      float m = -INFINITY, sum = 0.f;
      for (k = 0; k < mid; ++k) m = s[k * inner] > m ? s[k * inner] : m;
      for (k = 0; k < mid; ++k) sum += d[k * inner] = expf(s[k * inner] - m);
      for (k = 0; k < mid; ++k) d[k * inner] *= 1.f / sum;
    }
}
)";

constexpr const char* kMainC = R"(#include <stdio.h>

#include "model.h"

static float in_buf[MYCEL_INPUTS_SIZE > 0 ? MYCEL_INPUTS_SIZE : 1];
static float out_buf[MYCEL_OUTPUTS_SIZE > 0 ? MYCEL_OUTPUTS_SIZE : 1];

/* The files hold little-endian float32: swap the bytes on a big-endian host. */
static void to_host(float* p, long n) {
  const unsigned int one = 1;
  long i;
  if (*(const unsigned char*)&one == 1) return;
  for (i = 0; i < n; ++i) {
    unsigned char* b = (unsigned char*)(p + i);
    unsigned char t = b[0];
    b[0] = b[3], b[3] = t, t = b[1], b[1] = b[2], b[2] = t;
  }
}

int main(int argc, char** argv) {
  const long in_sizes[] = MYCEL_INPUT_SIZES, out_sizes[] = MYCEL_OUTPUT_SIZES;
  const float* inputs[MYCEL_NUM_INPUTS];
  float* outputs[MYCEL_NUM_OUTPUTS];
  long off = 0, got;
  int k;
  FILE* f;
  if (argc != 3) {
    fprintf(stderr, "usage: %s input.bin output.bin\n", argv[0]);
    return 2;
  }
  f = fopen(argv[1], "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open '%s'\n", argv[0], argv[1]);
    return 1;
  }
  got = (long)fread(in_buf, sizeof(float), MYCEL_INPUTS_SIZE, f);
  if (got != MYCEL_INPUTS_SIZE || fgetc(f) != EOF) {
    fprintf(stderr, "%s: '%s' must hold exactly %ld float32 values (%ld bytes)\n", argv[0],
            argv[1], (long)MYCEL_INPUTS_SIZE, (long)MYCEL_INPUTS_SIZE * 4L);
    fclose(f);
    return 1;
  }
  fclose(f);
  to_host(in_buf, MYCEL_INPUTS_SIZE);
  for (k = 0; k < MYCEL_NUM_INPUTS; ++k) inputs[k] = in_buf + off, off += in_sizes[k];
  for (off = 0, k = 0; k < MYCEL_NUM_OUTPUTS; ++k) outputs[k] = out_buf + off, off += out_sizes[k];
  mycel_model_run(inputs, outputs);
  to_host(out_buf, MYCEL_OUTPUTS_SIZE);
  f = fopen(argv[2], "wb");
  if (!f || fwrite(out_buf, sizeof(float), MYCEL_OUTPUTS_SIZE, f) != MYCEL_OUTPUTS_SIZE ||
      fclose(f) != 0) {
    fprintf(stderr, "%s: cannot write '%s'\n", argv[0], argv[2]);
    return 1;
  }
  return 0;
}
)";

// A name safe inside a C comment.
std::string comment_safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '\n' || c == '\r' || c == '*') ? '_' : c;
  return out;
}

std::string dims_list(const lite::Dims& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s;
}

// An exact C literal of a float (hex, or the math.h macros for inf and nan).
std::string float_literal(float v) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "-INFINITY";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%af", static_cast<double>(v));
  return buf;
}

// Every node op and tensor the generator cannot write, in one ValueError.
void check_supported(const lite::Graph& g) {
  std::map<std::string, std::vector<std::string>> missing;
  for (const lite::NodeDesc& n : g.nodes) {
    if (n.op == lite::OpType::Transpose || n.op == lite::OpType::BatchNorm)
      missing[lite::op_type_name(n.op)].push_back(n.name);
    for (int t : n.inputs)
      if (g.tensors[t].dtype != lite::DType::Float32)
        missing[std::string("a ") + lite::dtype_name(g.tensors[t].dtype) + " tensor"].push_back(
            n.name);
  }
  std::string list = unsupported_list(missing);
  MC_CHECK(list.empty(), Value, kTool, ": '", g.name, "': ", missing.size(),
           " unsupported operator(s) for C code generation: ", list);
  MC_CHECK(!g.inputs.empty() && !g.outputs.empty(), Value, kTool,
           ": the model needs at least one input and one output");
}

// Writes model.c's body: the node calls over the arena and the weights.
class RunWriter {
 public:
  RunWriter(const lite::Graph& g, const lite::ArenaPlan& plan) : g_(g), plan_(plan) {}

  // `arena + offset` for an activation, the weight array for a constant.
  std::string at(int t) const {
    if (g_.tensors[t].constant) return "mycel_w" + std::to_string(t);
    return "(arena + " + std::to_string(plan_.offset[t] / 4) + ")";
  }

  void node(const lite::NodeDesc& n, std::ostream& s, std::set<std::string>* kernels) {
    using lite::OpType;
    const lite::OpAttrs& a = n.a;
    const lite::Dims& y = g_.tensors[n.outputs[0]].shape;
    auto in = [&](size_t i) -> const lite::Dims& { return g_.tensors[n.inputs[i]].shape; };
    const std::string x = at(n.inputs[0]), out = at(n.outputs[0]);
    const int act = static_cast<int>(a.act);
    s << "  /* " << lite::op_type_name(n.op) << " '" << comment_safe(n.name) << "' -> ["
      << dims_list(y) << "] */\n  ";
    switch (n.op) {
      case OpType::Conv2D: {
        const lite::Dims &xs = in(0), &w = in(1);
        s << "mc_conv2d(" << x << ", " << at(n.inputs[1]) << ", "
          << (n.inputs.size() == 3 ? at(n.inputs[2]) : "0") << ", " << out << ", " << xs[0] << ", "
          << xs[1] << ", " << xs[2] << ", " << xs[3] << ", " << w[0] << ", " << w[1] << ", " << w[2]
          << ", " << w[3] << ", " << y[2] << ", " << y[3] << ", " << a.stride[0] << ", "
          << a.stride[1] << ", " << a.dilation[0] << ", " << a.dilation[1] << ", " << a.pad[0]
          << ", " << a.pad[2] << ", " << a.group << ", " << act << ");\n";
        kernels->insert("conv");
        break;
      }
      case OpType::Pool: {
        const lite::Dims& xs = in(0);
        s << "mc_pool(" << x << ", " << out << ", " << xs[0] * xs[1] << ", " << xs[2] << ", "
          << xs[3] << ", " << y[2] << ", " << y[3] << ", " << a.kernel[0] << ", " << a.kernel[1]
          << ", " << a.stride[0] << ", " << a.stride[1] << ", " << a.pad[0] << ", " << a.pad[1]
          << ", " << a.pad[2] << ", " << a.pad[3] << ", " << (a.pool == lite::PoolKind::Avg) << ", "
          << a.count_include_pad << ");\n";
        kernels->insert("pool");
        break;
      }
      case OpType::FullyConnected:
      case OpType::MatMul: {
        const bool fc = n.op == OpType::FullyConnected;
        const bool ta = !fc && a.transpose_a, tb = fc || a.transpose_b;
        const int64_t K = ta ? in(0)[0] : in(0)[1];
        s << "mc_gemm(" << x << ", " << at(n.inputs[1]) << ", "
          << (fc && n.inputs.size() == 3 ? at(n.inputs[2]) : "0") << ", " << out << ", " << y[0]
          << ", " << y[1] << ", " << K << ", " << ta << ", " << tb << ", " << (fc ? act : 0)
          << ");\n";
        kernels->insert("gemm");
        break;
      }
      case OpType::BiasAdd: {
        int64_t inner = 1;
        for (size_t i = 2; i < y.size(); ++i) inner *= y[i];
        s << "mc_bias_add(" << x << ", " << at(n.inputs[1]) << ", " << out << ", " << y[0] << ", "
          << y[1] << ", " << inner << ");\n";
        kernels->insert("bias");
        break;
      }
      case OpType::Eltwise:
        eltwise(n, s);
        kernels->insert("eltwise");
        break;
      case OpType::Act:
        s << "mc_act_op(" << x << ", " << out << ", " << lite::numel(y) << ", " << act << ");\n";
        kernels->insert("act_op");
        break;
      case OpType::Reshape:
        s << "memcpy(" << out << ", " << x << ", " << lite::numel(y) << " * sizeof(float));\n";
        break;
      case OpType::Softmax: {
        const int64_t r = static_cast<int64_t>(y.size());
        const int64_t axis = a.axis < 0 ? a.axis + r : a.axis;
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < axis; ++i) outer *= y[i];
        for (int64_t i = axis + 1; i < r; ++i) inner *= y[i];
        s << "mc_softmax(" << x << ", " << out << ", " << outer << ", " << y[axis] << ", " << inner
          << ");\n";
        kernels->insert("softmax");
        break;
      }
      default:
        MC_ASSERT(false, "codegen: ", lite::op_type_name(n.op), " passed check_supported");
    }
  }

 private:
  // Each input's strides over the output's dimensions (0 where broadcast); equal shapes as
  // one flat dimension.
  void eltwise(const lite::NodeDesc& n, std::ostream& s) {
    const lite::Dims& y = g_.tensors[n.outputs[0]].shape;
    const lite::Dims& d0 = g_.tensors[n.inputs[0]].shape;
    const lite::Dims& d1 = g_.tensors[n.inputs[1]].shape;
    lite::Dims shape = y, sa(y.size(), 0), sb(y.size(), 0);
    if (d0 == y && d1 == y) {
      shape = {lite::numel(y)}, sa = {1}, sb = {1};
    } else {
      for (int which = 0; which < 2; ++which) {
        const lite::Dims& d = which ? d1 : d0;
        lite::Dims& st = which ? sb : sa;
        int64_t stride = 1;
        for (size_t i = d.size(); i-- > 0;) {
          st[i + (y.size() - d.size())] = d[i] == 1 ? 0 : stride;
          stride *= d[i];
        }
      }
    }
    if (shape.empty()) shape = {1}, sa = {0}, sb = {0};  // scalars
    MC_CHECK(shape.size() <= 8, Value, kTool, ": Eltwise '", n.name, "' has rank ", shape.size(),
             " (at most 8)");
    s << "mc_eltwise(" << at(n.inputs[0]) << ", " << at(n.inputs[1]) << ", " << at(n.outputs[0])
      << ", " << lite::numel(y) << ", " << shape.size() << ", (const long[]){" << dims_list(shape)
      << "}, (const long[]){" << dims_list(sa) << "}, (const long[]){" << dims_list(sb) << "}, "
      << static_cast<int>(n.a.elt) << ", " << static_cast<int>(n.a.act) << ");\n";
  }

  const lite::Graph& g_;
  const lite::ArenaPlan& plan_;
};

std::string header_comment(const lite::Graph& g, const std::string& source) {
  return "/* Generated by mycel_convert --codegen=c from '" + comment_safe(source) + "' (model '" +
         comment_safe(g.name) +
         "'). Self-contained C99: no heap, no runtime library.\n   Build: cc -O2 -std=c99 "
         "-Wall -Werror *.c -lm -o prog; run: prog input.bin output.bin */\n";
}

std::string model_h(const lite::Graph& g, const std::string& source, size_t arena_bytes) {
  std::ostringstream s;
  auto sizes = [&](const std::vector<int>& ts, const char* what) {
    std::string list;
    int64_t total = 0;
    for (size_t k = 0; k < ts.size(); ++k) {
      const lite::TensorDesc& t = g.tensors[ts[k]];
      s << "/* " << what << " " << k << " '" << comment_safe(t.name) << "': float32 ["
        << dims_list(t.shape) << "] */\n";
      list += (k ? ", " : "") + std::to_string(lite::numel(t.shape));
      total += lite::numel(t.shape);
    }
    return std::make_pair(list, total);
  };
  s << header_comment(g, source) << "#ifndef MYCEL_MODEL_H\n#define MYCEL_MODEL_H\n\n";
  auto [in_list, in_total] = sizes(g.inputs, "input");
  auto [out_list, out_total] = sizes(g.outputs, "output");
  s << "#define MYCEL_NUM_INPUTS " << g.inputs.size() << "\n#define MYCEL_NUM_OUTPUTS "
    << g.outputs.size() << "\n#define MYCEL_INPUT_SIZES {" << in_list
    << "}\n#define MYCEL_OUTPUT_SIZES {" << out_list << "}\n#define MYCEL_INPUTS_SIZE " << in_total
    << "L\n#define MYCEL_OUTPUTS_SIZE " << out_total << "L\n#define MYCEL_ARENA_BYTES "
    << arena_bytes << "L\n\n"
    << "/* Runs the model: inputs[k] holds input k's floats (sizes above, row-major), outputs[k]\n"
       "   receives output k's. Not reentrant: the activations live in one static arena. */\n"
       "void mycel_model_run(const float* const inputs[], float* const outputs[]);\n\n"
       "#endif\n";
  return s.str();
}

std::string weights_c(const lite::Graph& g, const std::string& source, const std::set<int>& used,
                      std::string* decls) {
  std::ostringstream s;
  s << header_comment(g, source) << "/* The weights: every constant the model reads. */\n\n";
  for (int t : used) {
    const lite::TensorDesc& d = g.tensors[t];
    const int64_t n = lite::numel(d.shape);
    const std::string decl =
        "const float mycel_w" + std::to_string(t) + "[" + std::to_string(n > 0 ? n : 1) + "]";
    *decls +=
        "extern " + decl + ";  /* '" + comment_safe(d.name) + "' [" + dims_list(d.shape) + "] */\n";
    s << "/* '" << comment_safe(d.name) << "' [" << dims_list(d.shape) << "] */\n"
      << decl << " = {";
    for (int64_t i = 0; i < n; ++i)
      s << (i % 6 ? " " : "\n  ") << float_literal(d.f32()[i]) << (i + 1 < n ? "," : "");
    s << (n > 0 ? "" : "0") << "};\n\n";
  }
  return s.str();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> generate_c(const lite::Graph& g,
                                                            const std::string& source) {
  check_supported(g);
  const lite::ArenaPlan plan = lite::plan_arena(g);
  MC_CHECK(plan.bytes < (size_t{1} << 31), Value, kTool, ": the model needs ", plan.bytes,
           " bytes of activations (at most 2 GiB for C's long offsets on 32-bit targets)");
  RunWriter w(g, plan);
  std::set<int> used;
  for (const lite::NodeDesc& n : g.nodes)
    for (int t : n.inputs)
      if (g.tensors[t].constant) used.insert(t);
  for (int t : g.outputs)
    if (g.tensors[t].constant) used.insert(t);
  std::ostringstream run;
  std::set<std::string> kernels;
  run << "void mycel_model_run(const float* const inputs[], float* const outputs[]) {\n";
  for (size_t k = 0; k < g.inputs.size(); ++k)
    run << "  memcpy(" << w.at(g.inputs[k]) << ", inputs[" << k << "], "
        << lite::numel(g.tensors[g.inputs[k]].shape) << " * sizeof(float));\n";
  for (const lite::NodeDesc& n : g.nodes) w.node(n, run, &kernels);
  for (size_t k = 0; k < g.outputs.size(); ++k)
    run << "  memcpy(outputs[" << k << "], " << w.at(g.outputs[k]) << ", "
        << lite::numel(g.tensors[g.outputs[k]].shape) << " * sizeof(float));\n";
  run << "}\n";

  std::string decls;
  std::string weights = weights_c(g, source, used, &decls);
  std::ostringstream c;
  c << header_comment(g, source)
    << "#include <math.h>\n#include <string.h>\n\n#include \"model.h\"\n\n"
    << decls << "\n/* The activations: " << plan.bytes
    << " bytes, planned as the lite runtime plans its arena. */\nstatic float arena["
    << (plan.bytes > 0 ? plan.bytes / 4 : 1) << "];\n\n";
  if (kernels.count("conv") || kernels.count("gemm") || kernels.count("eltwise") ||
      kernels.count("act_op"))
    c << kActC;
  const std::pair<const char*, const char*> texts[] = {
      {"conv", kConvC},   {"pool", kPoolC},    {"gemm", kGemmC},      {"bias", kBiasC},
      {"eltwise", kEltC}, {"act_op", kActOpC}, {"softmax", kSoftmaxC}};
  for (auto [name, text] : texts)
    if (kernels.count(name)) c << text;
  c << "\n" << run.str();
  return {{"model.h", model_h(g, source, plan.bytes)},
          {"model.c", c.str()},
          {"weights.c", weights},
          {"main.c", header_comment(g, source) + kMainC}};
}

void write_c(const lite::Graph& g, const std::string& source, const std::string& dir,
             std::ostream& out) {
  auto files = generate_c(g, source);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  MC_CHECK(!ec && std::filesystem::is_directory(dir), Value, kTool, ": cannot make folder '", dir,
           "'", ec ? ": " + ec.message() : std::string());
  size_t total = 0;
  for (const auto& [name, text] : files) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    MC_CHECK(f.good(), Value, kTool, ": cannot write '", path, "'");
    total += text.size();
  }
  out << "Generated C for '" << source << "': " << g.nodes.size() << " ops into '" << dir
      << "/' (model.h, model.c, weights.c, main.c; " << total
      << " bytes); build: cc -O2 -std=c99 -Wall -Werror " << dir << "/*.c -lm\n";
}

}  // namespace mycel::converter
