// dataset.text's SentencePiece support through Google's sentencepiece library (Debian's
// libsentencepiece), as MindSpore's kernels use it:
//
// - train_sentencepiece: SentencePieceVocab.from_file / from_dataset. Trains a model (UNIGRAM,
//   BPE, CHAR or WORD) with MindSpore's trainer arguments (vocab_size, character_coverage,
//   model_type, minloglevel 1, then the user's params, which cannot override those four or
//   name the input/output) on the given text files or on the given sentences, and returns the
//   serialized ModelProto (nothing is written to disk).
// - make_sentencepiece_tokenizer: SentencePieceTokenizer. Loads a model from a serialized
//   proto (a vocab object) or from a .model file, and encodes one str scalar into its pieces
//   (1-d str) or their ids (1-d int32).
//
// Library errors (bad arguments, unreadable files, malformed protos) are mycel errors naming
// the operation and carrying the library's message.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/transform.h"

namespace mycel::data {

std::string train_sentencepiece(const std::vector<std::string>& files,
                                const std::vector<std::string>& sentences, int64_t vocab_size,
                                double character_coverage, const std::string& model_type,
                                const std::map<std::string, std::string>& params);

// `model` is the serialized proto (from_file false) or the path of a model file (true).
TransformPtr make_sentencepiece_tokenizer(const std::string& model, bool from_file, bool out_int);

}  // namespace mycel::data
