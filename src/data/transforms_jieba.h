// dataset.text.JiebaTokenizer: Chinese word segmentation by Jieba's algorithm (as the cppjieba
// library MindSpore wraps describes it), written here from that description:
//
// - MP (maximum probability): the dictionary (mp_path: lines "word freq [tag]") gives each
//   word the weight log(freq / total). The sentence's DAG has an edge i -> j for each
//   dictionary word spanning characters [i, j] (and i -> i for every character); dynamic
//   programming from the right picks the route of largest total weight (a character not in
//   the dictionary weighs the dictionary's smallest weight).
// - HMM: a 4-state (B, E, M, S) hidden Markov model (hmm_path: start, transition and emission
//   log probabilities) labels each character by Viterbi; a word ends at E or S. Runs of ASCII
//   letters (and digits after them), numbers (digits and '.') and other single ASCII
//   characters are tokens of their own, not labelled.
// - MIX: MP, then each run of single-character words (other than single-character user
//   words) re-cut by HMM.
//
// The separators space, tab, newline, "，" and "。" are words of their own and split the
// sentence into the pieces the mode cuts. User words (add_word/add_dict) join the dictionary with
// log(freq / total), or, without a frequency (freq < 0 here), the median dictionary weight. The
// transform takes a str scalar and gives the words (1-d str; with_offsets: uint32 byte offsets as
// the other tokenizers). Missing or malformed model files are errors at construction naming the
// file and line.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "data/transform.h"

namespace mycel::data {

TransformPtr make_jieba_tokenizer(const std::string& hmm_path, const std::string& mp_path,
                                  const std::string& mode, bool with_offsets,
                                  const std::vector<std::pair<std::string, double>>& user_words);

}  // namespace mycel::data
