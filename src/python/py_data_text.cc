// Bindings of the text corpora sources (src/data/sources_text_corpora.h): factories in
// _mycel._data that return a Source. The Python classes (mycel/dataset/sources_text_corpora.py)
// find the files and check argument types; files are read and parsed without the GIL.
#include <pybind11/stl.h>

#include <map>
#include <string>
#include <vector>

#include "data/sources_text_corpora.h"
#include "data/transforms_jieba.h"
#include "data/transforms_sentencepiece.h"
#include "data/transforms_text.h"
#include "python/py_data.h"

namespace mycel::py {

void bind_data_text(pyb::module_& m) {
  m.def(
      "token_table_source",
      [](const std::string& name, const std::vector<std::string>& files, const std::string& delim,
         const std::vector<std::string>& columns) {
        MC_CHECK(delim.size() == 1, Value, name, ": the field delimiter must be one character.");
        pyb::gil_scoped_release nogil;
        return data::token_table_source(name, files, delim[0], columns);
      },
      pyb::arg("name"), pyb::arg("files"), pyb::arg("delim"), pyb::arg("columns"),
      "Sentences of token-per-line files (blank lines between sentences), one 1-d str column "
      "per field.");
  m.def(
      "json_lines_source",
      [](const std::string& name, const std::vector<std::string>& files,
         const std::vector<std::pair<std::string, std::string>>& columns) {
        std::vector<data::JsonColumn> cols;
        for (const auto& [n, k] : columns) cols.push_back({n, k});
        pyb::gil_scoped_release nogil;
        return data::json_lines_source(name, files, cols);
      },
      pyb::arg("name"), pyb::arg("files"), pyb::arg("columns"),
      "One JSON object per line; columns are (name, key path) pairs.");
  m.def(
      "squad_source",
      [](const std::vector<std::string>& files) {
        pyb::gil_scoped_release nogil;
        return data::squad_source(files);
      },
      pyb::arg("files"), "The questions of SQuAD JSON files.");
  m.def(
      "parallel_text_source",
      [](const std::string& name, const std::vector<std::pair<std::string, std::string>>& pairs,
         const std::vector<std::string>& formats, const std::vector<std::string>& columns) {
        std::vector<data::ParallelFormat> fs;
        for (const std::string& format : formats) {
          if (format == "tags") {
            fs.push_back(data::ParallelFormat::TagLines);
          } else if (format == "xml") {
            fs.push_back(data::ParallelFormat::XmlSegments);
          } else {
            MC_CHECK(format == "lines", Value, name, ": unknown parallel text format '", format,
                     "'.");
            fs.push_back(data::ParallelFormat::Lines);
          }
        }
        pyb::gil_scoped_release nogil;
        return data::parallel_text_source(name, pairs, fs, columns);
      },
      pyb::arg("name"), pyb::arg("pairs"), pyb::arg("formats"), pyb::arg("columns"),
      "Sentence k of each (source, target) file pair as a row; formats (one per pair) "
      "'lines', 'tags' (lines that are not XML tags) or 'xml' (<seg> elements).");
  m.def("select_columns_source", &data::select_columns_source, pyb::arg("source"), pyb::arg("keep"),
        "The source with only the columns at indices keep.");
  m.def(
      "imdb_source",
      [](const std::string& dataset_dir, const std::string& usage) {
        pyb::gil_scoped_release nogil;
        return data::imdb_source(dataset_dir, usage);
      },
      pyb::arg("dataset_dir"), pyb::arg("usage"),
      "The reviews of an aclImdb folder (usage 'train', 'test' or 'all').");

  // Text transforms (src/data/transforms_text.h, transforms_jieba.h); Python classes in
  // mycel/dataset/text_ops.py.
  m.def("UnicodeCharTokenizer", &data::make_unicode_char_tokenizer, pyb::arg("with_offsets"));
  m.def("WhitespaceTokenizer", &data::make_whitespace_tokenizer, pyb::arg("with_offsets"));
  m.def("UnicodeScriptTokenizer", &data::make_unicode_script_tokenizer, pyb::arg("keep_whitespace"),
        pyb::arg("with_offsets"));
  m.def("RegexTokenizer", &data::make_regex_tokenizer, pyb::arg("delim_pattern"),
        pyb::arg("keep_delim_pattern"), pyb::arg("with_offsets"));
  m.def("CaseFold", &data::make_case_fold);
  m.def("NormalizeUTF8", &data::make_normalize_utf8, pyb::arg("form"));
  m.def("RegexReplace", &data::make_regex_replace, pyb::arg("pattern"), pyb::arg("replace"),
        pyb::arg("replace_all"));
  m.def("WordpieceTokenizer", &data::make_wordpiece_tokenizer, pyb::arg("vocab"),
        pyb::arg("suffix_indicator"), pyb::arg("max_bytes_per_token"), pyb::arg("unknown_token"),
        pyb::arg("with_offsets"));
  m.def("BasicTokenizer", &data::make_basic_tokenizer, pyb::arg("lower_case"),
        pyb::arg("keep_whitespace"), pyb::arg("form"), pyb::arg("preserve_unused_token"),
        pyb::arg("with_offsets"));
  m.def("BertTokenizer", &data::make_bert_tokenizer, pyb::arg("vocab"),
        pyb::arg("suffix_indicator"), pyb::arg("max_bytes_per_token"), pyb::arg("unknown_token"),
        pyb::arg("lower_case"), pyb::arg("keep_whitespace"), pyb::arg("form"),
        pyb::arg("preserve_unused_token"), pyb::arg("with_offsets"));
  m.def(
      "JiebaTokenizer",
      [](const std::string& hmm_path, const std::string& mp_path, const std::string& mode,
         bool with_offsets, const std::vector<std::pair<std::string, double>>& user_words) {
        pyb::gil_scoped_release nogil;  // loading the dictionary takes a while
        return data::make_jieba_tokenizer(hmm_path, mp_path, mode, with_offsets, user_words);
      },
      pyb::arg("hmm_path"), pyb::arg("mp_path"), pyb::arg("mode"), pyb::arg("with_offsets"),
      pyb::arg("user_words"),
      "Jieba segmentation (mode MP, HMM or MIX); user_words are (word, freq) with freq < 0 "
      "for the default weight.");
  // SentencePiece (src/data/transforms_sentencepiece.h); Python classes in text_ops.py.
  m.def(
      "train_sentencepiece",
      [](const std::vector<std::string>& files, const std::vector<std::string>& sentences,
         int64_t vocab_size, double character_coverage, const std::string& model_type,
         const std::map<std::string, std::string>& params) {
        std::string proto;
        {
          pyb::gil_scoped_release nogil;  // training takes a while
          proto = data::train_sentencepiece(files, sentences, vocab_size, character_coverage,
                                            model_type, params);
        }
        return pyb::bytes(proto);
      },
      pyb::arg("files"), pyb::arg("sentences"), pyb::arg("vocab_size"),
      pyb::arg("character_coverage"), pyb::arg("model_type"), pyb::arg("params"),
      "Trains a SentencePiece model on text files or sentences; the serialized ModelProto.");
  m.def(
      "SentencePieceTokenizer",
      [](const pyb::bytes& model, bool from_file, bool out_int) {
        return data::make_sentencepiece_tokenizer(std::string(model), from_file, out_int);
      },
      pyb::arg("model"), pyb::arg("from_file"), pyb::arg("out_int"),
      "Encodes a string into pieces (str) or ids (int32) with a SentencePiece model (a "
      "serialized proto, or a file path when from_file).");
}

}  // namespace mycel::py
