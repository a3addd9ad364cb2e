// The text corpora of MindSpore's dataset API whose files are not plain lines or CSV records
// (those reuse text_file_source and csv_source, sources.h): CoNLL-style token tables
// (CoNLL2000Dataset, UDPOSDataset), CLUE's JSON lines (CLUEDataset), SQuAD's JSON
// (SQuADDataset), parallel text (Multi30kDataset, IWSLT2016/2017Dataset) and IMDB's review
// folders (IMDBDataset). Each factory reads and checks its files at construction (an error
// there names the dataset class, the file and the line); rows are then random access and
// thread-safe. file_of_rows() gives each row's file (its pair, for parallel text), so the
// Python classes can order rows as MindSpore's file readers do (sources_text_corpora.py).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/source.h"

namespace mycel::data {

// A token table: sentences separated by blank lines, one token per line, its fields separated
// by `delim` (runs of spaces and tabs when delim is ' '). Each of `columns` is one field: a 1-d
// str array of the sentence's tokens. A line with another number of fields is a RuntimeError
// naming file:line. `name` is the dataset class, for messages.
SourcePtr token_table_source(std::string_view name, const std::vector<std::string>& files,
                             char delim, const std::vector<std::string>& columns);

// A CLUE column: `name`, read from the JSON key path `key` ("target/span1_index": a nested
// key). Strings give str scalars, integers int64 scalars, floats float32 scalars, booleans
// bool scalars, arrays of strings 1-d str arrays.
struct JsonColumn {
  std::string name;
  std::string key;
};

// CLUEDataset: one JSON object per non-blank line of `files`, as `columns`. A line that is not
// a JSON object, or lacks a key, is a RuntimeError naming file:line and the key.
SourcePtr json_lines_source(std::string_view name, const std::vector<std::string>& files,
                            const std::vector<JsonColumn>& columns);

// SQuADDataset: one row per question of the SQuAD JSON `files` (data[].paragraphs[].qas[]).
// Columns "context", "question" (str scalars), "text" (1-d str: the answers) and
// "answer_start" (1-d uint32). A question without answers (SQuAD 2.0's unanswerable ones)
// gives text [""] and answer_start [0xFFFFFFFF] (-1 as uint32).
SourcePtr squad_source(const std::vector<std::string>& files);

// How a parallel-text file holds its sentences: one per line (Multi30k), one per line that
// is not an XML tag line (IWSLT's train.tags files: lines starting with '<' are metadata), or
// one per <seg ...>...</seg> element (IWSLT's dev/test .xml files).
enum class ParallelFormat { Lines, TagLines, XmlSegments };

// Multi30kDataset / IWSLT: `pairs` of files (source language, target language), pair f read
// as formats[f]; row k of a pair is sentence k of both files, columns `columns` (two str scalars).
// The two files of a pair must hold as many sentences (RuntimeError naming both otherwise).
// Sentences are stripped of surrounding spaces; empty lines are skipped in Lines format.
SourcePtr parallel_text_source(std::string_view name,
                               const std::vector<std::pair<std::string, std::string>>& pairs,
                               const std::vector<ParallelFormat>& formats,
                               const std::vector<std::string>& columns);

// `source` with only its columns `keep` (indices, in that order); rows and files unchanged.
// SST2Dataset's test split drops the file's "index" column this way.
SourcePtr select_columns_source(SourcePtr source, const std::vector<int>& keep);

// IMDBDataset over dataset_dir (aclImdb): for each usage ("train", "test"; "all": both, train
// first) the sorted .txt files of <usage>/pos (label 1) then <usage>/neg (label 0). Columns
// "text" (the file's text, str) and "label" (uint32 scalar). A missing folder is a ValueError;
// files are read when their row is.
SourcePtr imdb_source(const std::string& dataset_dir, const std::string& usage);

}  // namespace mycel::data
