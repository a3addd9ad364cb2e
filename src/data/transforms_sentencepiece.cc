#include "data/transforms_sentencepiece.h"

#include <memory>
#include <mutex>
#include <utility>

#include "base/error.h"
#include "base/plugin.h"

#ifndef MYCEL_SP_PLUGIN
#define MYCEL_SP_PLUGIN "libmycel_sentencepiece.so"
#endif

namespace mycel::data {
namespace {

using TrainFn = int (*)(const char* const*, size_t, const char* const*, const size_t*, size_t,
                        char**, size_t*, char*, size_t);
using FreeBufferFn = void (*)(char*);
using LoadFn = void* (*)(const char*, size_t, int, char*, size_t);
using FreeFn = void (*)(void*);
using EmitFn = void (*)(void*, const char*, size_t, int);
using EncodeFn = int (*)(void*, const char*, size_t, int, EmitFn, void*, char*, size_t);

// The plugin's functions (data/sentencepiece_plugin.cc), loaded once.
struct Plugin {
  TrainFn train = nullptr;
  FreeBufferFn free_buffer = nullptr;
  LoadFn load = nullptr;
  FreeFn free = nullptr;
  EncodeFn encode = nullptr;
  std::string error;  // why it could not be loaded
};

const Plugin& plugin() {
  static Plugin p;
  static std::once_flag once;
  std::call_once(once, [] {
    // RTLD_DEEPBIND keeps sentencepiece's protobuf symbols its own even where libprotobuf is
    // in the global scope (a test binary).
    void* h = open_plugin("libmycel_sentencepiece.so", MYCEL_SP_PLUGIN, true, &p.error);
    if (h == nullptr) return;
    p.train = reinterpret_cast<TrainFn>(plugin_function(h, "mycel_sp_train"));
    p.free_buffer = reinterpret_cast<FreeBufferFn>(plugin_function(h, "mycel_sp_free_buffer"));
    p.load = reinterpret_cast<LoadFn>(plugin_function(h, "mycel_sp_load"));
    p.free = reinterpret_cast<FreeFn>(plugin_function(h, "mycel_sp_free"));
    p.encode = reinterpret_cast<EncodeFn>(plugin_function(h, "mycel_sp_encode"));
    if (!p.train || !p.free_buffer || !p.load || !p.free || !p.encode)
      p.error = "the sentencepiece plugin lacks its functions";
  });
  MC_CHECK(p.error.empty(), Runtime, "SentencePiece: ", p.error);
  return p;
}

class SentencePieceTokenizer : public UnaryTransform {
 public:
  SentencePieceTokenizer(const std::string& model, bool from_file, bool out_int)
      : out_int_(out_int) {
    const Plugin& p = plugin();
    char err[512] = {0};
    void* h = p.load(model.data(), model.size(), from_file ? 1 : 0, err, sizeof err);
    MC_CHECK(h != nullptr, Value, "SentencePieceTokenizer: cannot load the model",
             from_file ? " file " + model : std::string(), ": ", err);
    model_ = std::shared_ptr<void>(h, p.free);
  }
  std::string_view name() const override { return "SentencePieceTokenizer"; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    MC_CHECK(x.dtype() == DataType::String && x.ndim() == 0, Type,
             "SentencePieceTokenizer: the input must be one string (a 0-d str array), but got ",
             describe(x), ".");
    const std::string& text = x.str()[0];
    struct Out {
      std::vector<std::string> pieces;
      std::vector<int32_t> ids;
    } out;
    EmitFn emit = [](void* ctx, const char* s, size_t n, int id) {
      auto* o = static_cast<Out*>(ctx);
      if (s == nullptr)
        o->ids.push_back(id);
      else
        o->pieces.emplace_back(s, n);
    };
    char err[512] = {0};
    MC_CHECK(plugin().encode(model_.get(), text.data(), text.size(), out_int_ ? 1 : 0, emit, &out,
                             err, sizeof err) == 0,
             Runtime, "SentencePieceTokenizer: ", err);
    if (!out_int_) {
      const int64_t n = static_cast<int64_t>(out.pieces.size());
      return Array::strings(std::move(out.pieces), {n});
    }
    Array a = Array::empty(DataType::Int32, {static_cast<int64_t>(out.ids.size())});
    std::copy(out.ids.begin(), out.ids.end(), a.mutable_data<int32_t>());
    return a;
  }

 private:
  std::shared_ptr<void> model_;  // the processor (Encode is const, so apply is thread-safe)
  bool out_int_;
};

}  // namespace

std::string train_sentencepiece(const std::vector<std::string>& files,
                                const std::vector<std::string>& sentences, int64_t vocab_size,
                                double character_coverage, const std::string& model_type,
                                const std::map<std::string, std::string>& params) {
  static const char* kWho = "SentencePieceVocab";
  MC_CHECK(vocab_size > 0, Value, kWho, ": vocab_size must be positive, but got ", vocab_size);
  MC_CHECK(model_type == "UNIGRAM" || model_type == "BPE" || model_type == "CHAR" ||
               model_type == "WORD",
           Value, kWho, ": model_type must be UNIGRAM, BPE, CHAR or WORD, but got ", model_type);
  std::map<std::string, std::string> args;
  for (const auto& [k, v] : params) {  // the user's trainer options, then the fixed ones
    MC_CHECK(k != "input" && k != "model_prefix" && k != "model_writer", Value, kWho,
             ": params cannot set '", k, "' (the input and output are the vocab's)");
    args[k] = v;
  }
  args["vocab_size"] = std::to_string(vocab_size);
  args["character_coverage"] = std::to_string(character_coverage);
  args["model_type"] = model_type;
  args["model_prefix"] = "";
  if (!args.count("minloglevel")) args["minloglevel"] = "1";
  std::string joined;
  for (const std::string& f : files) joined += (joined.empty() ? "" : ",") + f;
  if (!joined.empty()) args["input"] = joined;
  std::vector<const char*> kv;
  for (const auto& [k, v] : args) {
    kv.push_back(k.c_str());
    kv.push_back(v.c_str());
  }
  std::vector<const char*> s;
  std::vector<size_t> lens;
  for (const std::string& t : sentences) {
    s.push_back(t.data());
    lens.push_back(t.size());
  }
  const Plugin& p = plugin();
  char* out = nullptr;
  size_t out_len = 0;
  char err[1024] = {0};
  MC_CHECK(p.train(kv.data(), args.size(), s.data(), lens.data(), s.size(), &out, &out_len, err,
                   sizeof err) == 0,
           Runtime, kWho, ": training failed: ", err);
  std::string proto(out, out_len);
  p.free_buffer(out);
  return proto;
}

TransformPtr make_sentencepiece_tokenizer(const std::string& model, bool from_file, bool out_int) {
  return std::make_shared<SentencePieceTokenizer>(model, from_file, out_int);
}

}  // namespace mycel::data
