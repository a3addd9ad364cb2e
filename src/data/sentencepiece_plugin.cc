// The sentencepiece side of dataset.text's SentencePiece support (data/transforms_sentencepiece.h):
// a plugin, libmycel_sentencepiece.so, that mycel loads with dlopen on first use.
//
// Why a plugin: Debian's libsentencepiece carries its own copy of protobuf-lite and exports
// its symbols, which clash with libprotobuf's (the checkpoint and ONNX code link that) when
// both are in one link map: the process crashes in protobuf's static initialisation. Loaded
// with RTLD_LOCAL (and RTLD_DEEPBIND), the plugin and sentencepiece resolve their protobuf
// symbols among themselves. The plugin exports a small C interface only.
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#define MYCEL_SP_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

void set_error(char* err, size_t n, const std::string& msg) {
  if (n > 0) std::snprintf(err, n, "%s", msg.c_str());
}

class Sentences : public sentencepiece::SentenceIterator {
 public:
  Sentences(const char* const* s, const size_t* lens, size_t n) : s_(s), lens_(lens), n_(n) {
    load();
  }
  bool done() const override { return i_ >= n_; }
  void Next() override {
    ++i_;
    load();
  }
  const std::string& value() const override { return cur_; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  void load() {
    if (i_ < n_) cur_.assign(s_[i_], lens_[i_]);
  }
  const char* const* s_;
  const size_t* lens_;
  size_t n_, i_ = 0;
  std::string cur_;
};

}  // namespace

// Trains a model with the trainer arguments kv (n_kv key/value pairs, flattened) on the
// sentences (or on the "input" files named in kv when n_sent is 0). On success returns 0 and
// the serialized ModelProto in *out (free with mycel_sp_free_buffer); else the message in err.
MYCEL_SP_EXPORT int mycel_sp_train(const char* const* kv, size_t n_kv, const char* const* sentences,
                                   const size_t* lens, size_t n_sent, char** out, size_t* out_len,
                                   char* err, size_t err_n) {
  try {
    std::unordered_map<std::string, std::string> args;
    for (size_t i = 0; i < n_kv; ++i) args[kv[2 * i]] = kv[2 * i + 1];
    Sentences it(sentences, lens, n_sent);
    std::string proto;
    sentencepiece::util::Status st = sentencepiece::SentencePieceTrainer::Train(
        args, args.count("input") ? nullptr : &it, &proto);
    if (!st.ok()) {
      set_error(err, err_n, st.ToString());
      return 1;
    }
    *out = static_cast<char*>(std::malloc(proto.size() + 1));
    if (*out == nullptr) {
      set_error(err, err_n, "out of memory");
      return 1;
    }
    std::memcpy(*out, proto.data(), proto.size());
    *out_len = proto.size();
    return 0;
  } catch (const std::exception& e) {
    set_error(err, err_n, e.what());
    return 1;
  }
}

MYCEL_SP_EXPORT void mycel_sp_free_buffer(char* p) { std::free(p); }

// A processor loaded from a serialized proto, or from the file named by model (from_file);
// null with the message in err on failure. Free with mycel_sp_free.
MYCEL_SP_EXPORT void* mycel_sp_load(const char* model, size_t len, int from_file, char* err,
                                    size_t err_n) {
  try {
    auto* sp = new sentencepiece::SentencePieceProcessor();
    std::string m(model, len);
    sentencepiece::util::Status st = from_file ? sp->Load(m) : sp->LoadFromSerializedProto(m);
    if (!st.ok()) {
      set_error(err, err_n, st.ToString());
      delete sp;
      return nullptr;
    }
    return sp;
  } catch (const std::exception& e) {
    set_error(err, err_n, e.what());
    return nullptr;
  }
}

MYCEL_SP_EXPORT void mycel_sp_free(void* h) {
  delete static_cast<sentencepiece::SentencePieceProcessor*>(h);
}

// Encodes text: emit(ctx, piece, size, id) per piece in order (as_ids: the piece is null).
MYCEL_SP_EXPORT int mycel_sp_encode(void* h, const char* text, size_t len, int as_ids,
                                    void (*emit)(void*, const char*, size_t, int), void* ctx,
                                    char* err, size_t err_n) {
  try {
    const auto* sp = static_cast<const sentencepiece::SentencePieceProcessor*>(h);
    std::string t(text, len);
    if (as_ids) {
      std::vector<int> ids;
      sentencepiece::util::Status st = sp->Encode(t, &ids);
      if (!st.ok()) {
        set_error(err, err_n, st.ToString());
        return 1;
      }
      for (int id : ids) emit(ctx, nullptr, 0, id);
      return 0;
    }
    std::vector<std::string> pieces;
    sentencepiece::util::Status st = sp->Encode(t, &pieces);
    if (!st.ok()) {
      set_error(err, err_n, st.ToString());
      return 1;
    }
    for (const std::string& p : pieces) emit(ctx, p.data(), p.size(), -1);
    return 0;
  } catch (const std::exception& e) {
    set_error(err, err_n, e.what());
    return 1;
  }
}
