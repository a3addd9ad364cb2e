// Text transforms of MindSpore's dataset.text, on str arrays, with ICU for the Unicode rules
// (character properties, scripts, case folding, normalization, regular expressions), as
// MindSpore's own kernels use it. Python classes: mycel/dataset/text_ops.py.
//
// Tokenizers take one str scalar and give a 1-d str array of its tokens; with_offsets adds
// two 1-d uint32 arrays, each token's first byte and one past its last byte in the UTF-8
// input. A string with no tokens gives [""] (and offsets [0], [0]), as MindSpore. The string
// maps (CaseFold, NormalizeUTF8, RegexReplace) apply to every element of a str array of any
// shape. A non-str input is a TypeError, a tokenizer input that is not 0-d a ValueError, text
// that is not UTF-8 a RuntimeError, each naming the transform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/transform.h"

namespace mycel::data {

// Each Unicode code point a token.
TransformPtr make_unicode_char_tokenizer(bool with_offsets);
// Tokens are the runs of non-whitespace (Unicode White_Space) characters.
TransformPtr make_whitespace_tokenizer(bool with_offsets);
// Tokens are the runs of characters of one Unicode script (ICU's uscript); whitespace runs are
// tokens too when keep_whitespace.
TransformPtr make_unicode_script_tokenizer(bool keep_whitespace, bool with_offsets);
// Splits at the matches of delim_pattern (ICU regex); a delimiter that matches
// keep_delim_pattern (when not empty) is kept as a token. Empty pieces are dropped.
TransformPtr make_regex_tokenizer(const std::string& delim_pattern,
                                  const std::string& keep_delim_pattern, bool with_offsets);
// Unicode NFKC_Casefold (case folding with compatibility normalization), as MindSpore's.
TransformPtr make_case_fold();
// Unicode normalization: form "NONE", "NFC", "NFKC", "NFD" or "NFKD".
TransformPtr make_normalize_utf8(const std::string& form);
// Replaces the matches of pattern (ICU regex) by replace ($1... groups); every match when
// replace_all, else the first.
TransformPtr make_regex_replace(const std::string& pattern, const std::string& replace,
                                bool replace_all);

// WordPiece: each input token (a str scalar or 1-d array of tokens) split greedily into the
// longest pieces found in `vocab`, pieces after the first prefixed by suffix_indicator. A
// token that cannot be split, or is longer than max_bytes_per_token, becomes unknown_token
// (the token itself when unknown_token is empty). Offsets are within each input token; a
// too-long token's are [0, max_bytes_per_token + 1), as MindSpore's.
TransformPtr make_wordpiece_tokenizer(std::vector<std::string> vocab,
                                      const std::string& suffix_indicator,
                                      int64_t max_bytes_per_token, const std::string& unknown_token,
                                      bool with_offsets);
// BERT's basic tokenizer: lower_case (case folding, NFD, accents removed) or normalization
// `form`; control characters become spaces; then split at whitespace (kept as tokens when
// keep_whitespace), punctuation, symbols and CJK ideographs (each a token). With
// preserve_unused_token, [CLS] [SEP] [UNK] [PAD] [MASK] [unusedN] stay whole (and unfolded).
// Offsets are into the normalized string.
TransformPtr make_basic_tokenizer(bool lower_case, bool keep_whitespace, const std::string& form,
                                  bool preserve_unused_token, bool with_offsets);
// BasicTokenizer then WordpieceTokenizer on each token; offsets into the normalized string.
TransformPtr make_bert_tokenizer(std::vector<std::string> vocab,
                                 const std::string& suffix_indicator, int64_t max_bytes_per_token,
                                 const std::string& unknown_token, bool lower_case,
                                 bool keep_whitespace, const std::string& form,
                                 bool preserve_unused_token, bool with_offsets);

}  // namespace mycel::data
