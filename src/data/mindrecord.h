// MindRecord in MindSpore's shard format (mindspore.mindrecord), written by FileWriter and read
// by MindDataset and FileReader; the layout is in docs/mindrecord-format.md, its pieces in
// mindrecord_format.h (header, pages, records) and mindrecord_index.h (the SQLite index).
//
// Writer: each write_raw_data call splits its rows into contiguous runs, one per shard (as
// MindSpore), whose records go to pages of the shard files written under temporary names next
// to the destination; commit() writes each shard's header and its `.db` index (with mycel's
// checksums and set id), fsyncs and renames them in place. A crash leaves only temporary
// files or a set missing shards or mixing two commits' set ids, which the reader refuses.
//
// Reader: opens every shard of every set it reads (header, index, page table, all checked at
// open) and reads records with pread (thread-safe), checking each record's structure and, in
// files mycel wrote, its CRC-32. Corruption is a RuntimeError "MindDataset: <file> is
// truncated or corrupt (...)".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data/array.h"
#include "data/source.h"

namespace mycel::data {

// The field types of a MindRecord schema (MindSpore's names: "int32", ..., "string", "bytes").
enum class FieldType : uint8_t { Int32, Int64, Float32, Float64, String, Bytes };

std::string_view field_type_name(FieldType t);
bool field_type_from_name(std::string_view name, FieldType* out);

// One schema field. `shape` is only for numeric fields (has_shape): an array of that shape,
// one dimension may be -1 (resolved per row). Numeric fields without a shape are scalars.
struct FieldSpec {
  std::string name;
  FieldType type = FieldType::Int32;
  bool has_shape = false;
  Shape shape;
};

// Checks a schema (non-empty, at most 100 fields, names of [0-9a-zA-Z_], distinct, shapes only
// for numeric fields with positive dimensions and at most one -1): a ValueError starting with
// `op` otherwise.
void check_schema(const std::vector<FieldSpec>& fields, std::string_view op);

// A row value for `field`, checked and normalised: numeric values must hold the field's dtype
// and an element count that fits the field's shape (numpy reshape rules; the result has the
// resolved shape, a 0-d array for scalars); strings are one-element String arrays (0-d
// result); bytes are uint8 arrays (1-d result). A TypeError/ValueError naming op, the field
// and `where` (e.g. "row 3") otherwise.
Array check_field_value(const FieldSpec& field, const Array& value, std::string_view op,
                        std::string_view where);

class MindRecordWriter {
 public:
  // file_name for one shard, else file_name0 .. file_name{N-1} (suffixes zero-padded to the
  // width of N-1, as MindSpore); each gets its index `<file>.db`. overwrite=false: a
  // RuntimeError if any of them exists (now and again at commit). A ValueError if shard_num is
  // outside [1, 1000] or the directory is missing.
  MindRecordWriter(std::string file_name, int64_t shard_num, bool overwrite);
  ~MindRecordWriter();  // an uncommitted writer removes its temporary files
  MindRecordWriter(const MindRecordWriter&) = delete;
  MindRecordWriter& operator=(const MindRecordWriter&) = delete;

  // Before any write: the header's room (16 KiB to 128 MiB, a multiple of 4; default 16 MiB)
  // and the page size (32 KiB to 256 MiB, a multiple of 4; default 32 MiB), MindSpore's.
  void set_header_size(int64_t bytes);
  void set_page_size(int64_t bytes);
  // Before any write: the schema (checked by check_schema), once; returns the schema id (0).
  int64_t add_schema(std::vector<FieldSpec> fields, std::string desc);
  // Before any write: fields to index (in the schema, scalar or string). Without a call, every
  // scalar and string field is indexed (MindSpore's default).
  void add_index(std::vector<std::string> fields);
  // Appends rows (one Array per schema field, in schema order): shard k takes the k-th
  // contiguous run of them, or all go to `shard` when it is >= 0 (open_for_append copies a
  // set shard by shard). Every row is checked before any is written.
  void write(const std::vector<Row>& rows, int64_t shard = -1);
  // Writes the headers and indexes and renames every shard to its final name. The writer is
  // done afterwards.
  void commit();

  const std::vector<std::string>& paths() const { return paths_; }
  const std::vector<FieldSpec>& schema() const { return fields_; }

  // For crash tests: called between commit's steps ("sealed <shard>" after a shard's temporary
  // files are complete and synced, "renamed <shard>" after their renames).
  void set_commit_hook(std::function<void(const std::string&)> hook) { hook_ = std::move(hook); }

  // Before commit: encrypt the shard and its index with `key` in `mode` (mindrecord_crypto.h;
  // "AES-GCM", "AES-CBC", "SM4-CBC"), under their temporary names, before the renames, so no
  // plain copy ever has a final name. One shard only, as MindSpore: a RuntimeError otherwise.
  void set_encryption(std::string key, std::string mode);

 private:
  struct Shard;
  void open_shards();
  void check_absent() const;
  void discard() noexcept;
  void append(Shard& sh, int64_t shard_id, const Row& row);
  void seal(Shard& sh, size_t k);

  std::string file_name_;
  bool overwrite_;
  std::vector<std::string> paths_;
  uint64_t header_size_, page_size_;
  std::vector<FieldSpec> fields_;
  bool has_schema_ = false;
  std::string desc_;
  std::vector<std::string> index_fields_;
  bool has_index_ = false;
  std::string dataset_id_;
  uint64_t compression_size_ = 0;
  std::vector<std::unique_ptr<Shard>> shards_;
  enum class State { New, Writing, Committed, Failed } state_ = State::New;
  std::function<void(const std::string&)> hook_;
  std::string enc_key_, enc_mode_;  // enc_key_ empty: not encrypted
};

// The rows of MindRecord files. `load_set`: files holds one file, and every shard of its set
// (the header's shard_addresses, in the same directory) is read; otherwise the rows of exactly
// the listed files are read, and each file's set must still be complete. Rows come set by set
// (in order of first mention), each set's shard by shard, each shard's by row id. All sets
// must share one schema.
class MindRecordReader {
 public:
  // who names the reader in messages ("MindDataset", "FileReader").
  MindRecordReader(const std::vector<std::string>& files, bool load_set,
                   std::string who = "MindDataset");
  ~MindRecordReader();
  MindRecordReader(const MindRecordReader&) = delete;
  MindRecordReader& operator=(const MindRecordReader&) = delete;

  const std::vector<FieldSpec>& schema() const { return fields_; }
  int64_t size() const { return total_; }
  const std::string& who() const { return who_; }
  // The fields `cols` (indices into schema()) of row i, decoded as check_field_value's
  // results. Thread-safe.
  Row read(int64_t i, const std::vector<int>& cols) const;
  // The file of each row, numbered in the order the files were opened.
  std::vector<int32_t> file_of_rows() const;
  // The index fields of the first file's header (the fields MindPage groups by).
  std::vector<std::string> index_fields() const;
  // What FileWriter.open_for_append needs of the first file's set: its sizes, description,
  // index fields and the paths of its shards (in shard order, beside the first file).
  struct SetInfo {
    int64_t header_size = 0, page_size = 0;
    std::string desc;
    std::vector<std::string> index_fields, shard_paths;
  };
  SetInfo set_info() const;

 private:
  struct File;
  std::string who_;
  std::vector<FieldSpec> fields_;
  std::vector<std::unique_ptr<File>> files_;
  std::vector<const File*> parts_;  // the files whose rows are read, in order
  std::vector<int64_t> starts_;     // first row of each part; back() == total_
  int64_t total_ = 0;
};

// MindDataset's source: the columns `columns` (all fields when empty) of a reader, then
// num_padded copies of `pad` (one Array per column, already checked).
class MindRecordSource : public RandomAccessSource {
 public:
  MindRecordSource(std::shared_ptr<const MindRecordReader> reader,
                   const std::vector<std::string>& columns, Row pad = {}, int64_t num_padded = 0);
  std::string_view name() const override { return reader_->who(); }
  int64_t size() const override { return reader_->size() + num_padded_; }
  std::vector<std::string> columns() const override;
  Row read(int64_t i) const override;
  // The reader's files, then one more for the padded rows.
  std::vector<int32_t> file_of_rows() const override;

  const std::shared_ptr<const MindRecordReader>& reader() const { return reader_; }
  // The schema fields of the output columns, in column order.
  std::vector<FieldSpec> column_fields() const;

 private:
  std::shared_ptr<const MindRecordReader> reader_;
  std::vector<int> cols_;
  Row pad_;
  int64_t num_padded_;
};

}  // namespace mycel::data
