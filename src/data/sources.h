// File sources of the data engine: MNIST/Fashion-MNIST idx files, CIFAR-10 binaries, an image
// folder (sources_image.cc), text and CSV files (sources_text.cc). Each factory finds, checks
// and indexes its files at construction, so a missing, truncated or malformed file is an error
// there (naming the dataset class and the file), and read(i) is random access and thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "data/source.h"

namespace mycel::data {

// MindSpore's MnistDataset / FashionMnistDataset (`name`, for messages) over dataset_dir:
// {train,t10k}-{images-idx3,labels-idx1}-ubyte, each plain or gzipped (.gz). usage is "train",
// "test" or "all" ("all": train then test, those whose images file is present). Columns
// "image" (uint8 [h, w, 1], a view of the loaded file) and "label" (uint32, 0-d). Loaded files
// are cached by path, mtime and size (a dataset re-created each epoch does not decompress
// again). Errors: ValueError for a missing directory or a bad usage, RuntimeError for a
// missing, unreadable, truncated or mismatched file.
SourcePtr mnist_source(std::string_view name, const std::string& dataset_dir,
                       const std::string& usage);

// MindSpore's Cifar10Dataset over dataset_dir (cifar-10-batches-bin): the sorted .bin files
// whose name holds "data_batch" (usage "train"), "test_batch" ("test") or either ("all").
// Records are a label byte and a 3x32x32 CHW image. Columns "image" (uint8 [32, 32, 3], HWC)
// and "label" (uint32, 0-d). RuntimeError for a missing, truncated or corrupt file.
SourcePtr cifar10_source(const std::string& dataset_dir, const std::string& usage);

// MindSpore's ImageFolderDataset: one sub-directory of dataset_dir per class, its files the
// class's images (those whose extension, dot included, is in `extensions`; all when empty).
// Labels: `class_indexing` (folder name -> id; only those folders are read), or, when it is
// empty, the sorted folder names numbered from 0; *class_indexing_out receives the mapping
// used. Rows in folder-name then file-name order. Columns "image" (the file's bytes, uint8
// [n]; decoded to uint8 HWC RGB by decode_image when `decode`) and "label" (int32, 0-d).
SourcePtr image_folder_source(const std::string& dataset_dir,
                              const std::vector<std::string>& extensions,
                              const std::map<std::string, int32_t>& class_indexing, bool decode,
                              std::map<std::string, int32_t>* class_indexing_out);

// MindSpore's TextFileDataset: the lines of `files`, in order, without their newline ("\n" or
// "\r\n"); empty lines are skipped, as MindSpore does. Column "text" (str, 0-d).
SourcePtr text_file_source(const std::vector<std::string>& files);

// A CSV column's type and the value an empty field takes (MindSpore's column_defaults).
struct CsvDefault {
  DataType type = DataType::String;  // Int32, Float32 or String
  int32_t i = 0;
  float f = 0;
  std::string s;
};

// MindSpore's CSVDataset: the records of `files` (RFC 4180: fields separated by `delim`,
// quoted fields may hold delimiters, newlines and doubled quotes). Column names are
// `column_names`, or when empty each file's first record (the header, skipped; the files must
// agree). Column types and empty-field values come from `defaults` (one per column), all str
// when empty. Columns are 0-d int32, float32 or str. A bad number or a record with the wrong
// number of fields is a RuntimeError naming file:line and the column.
SourcePtr csv_source(const std::vector<std::string>& files, char delim,
                     const std::vector<CsvDefault>& defaults,
                     const std::vector<std::string>& column_names);

// A TFRecordDataset column: the feature `name` read as `type` (int64 features convert to any
// numeric type, float features to float types, bytes features to str (one element per bytes
// value) or uint8/int8 (the bytes, concatenated)), reshaped to `shape` when has_shape (one -1
// inferred; [] a scalar), else 1-D. A type the feature cannot convert to, or a shape its
// values do not fill, is a RuntimeError naming the column, the file and the record.
struct TfColumn {
  std::string name;
  DataType type = DataType::Int64;
  std::vector<int64_t> shape;
  bool has_shape = false;
};

// MindSpore's TFRecordDataset: the tf.train.Example records of `files`, in order (GZIP or ZLIB
// files inflated when `compressed`), as `columns`; when `columns` is empty, every feature of
// the first record, sorted by name (int64 -> int64, float -> float32, bytes -> uint8).
// `select` (MindSpore's columns_list), when not empty, keeps those columns in its order (a
// name that is not a column is a ValueError). num_rows >= 0 keeps the first num_rows rows (a
// schema's numRows). *columns_out receives the columns used. Files are indexed at construction
// (record framing and length CRCs checked); a record's data CRC is checked when it is read.
SourcePtr tfrecord_source(const std::vector<std::string>& files, std::vector<TfColumn> columns,
                          const std::vector<std::string>& select, bool compressed, int64_t num_rows,
                          std::vector<TfColumn>* columns_out);

}  // namespace mycel::data
