// MindSpore's MindRecord shard format, the pieces the writer and the reader share
// (docs/mindrecord-format.md): the shard header (JSON, through nlohmann-json), the page table,
// a row's raw part (its scalar and string fields as a MessagePack map) and its blob part (its
// "bytes" fields and arrays, integer arrays in MindSpore's compressed form). The SQLite index
// is in mindrecord_index.h. Internal to src/data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/array.h"
#include "data/mindrecord.h"

namespace mycel::data::mindrecord {

// MindSpore's limits and defaults (bytes).
inline constexpr uint64_t kDefaultHeaderSize = 1ull << 24;
inline constexpr uint64_t kDefaultPageSize = 1ull << 25;
inline constexpr uint64_t kMinHeaderSize = 1ull << 14, kMaxHeaderSize = 1ull << 27;
inline constexpr uint64_t kMinPageSize = 1ull << 15, kMaxPageSize = 1ull << 28;
inline constexpr int64_t kMaxShards = 1000;      // a writer's
inline constexpr int64_t kMaxReadShards = 4096;  // a reader's
inline constexpr const char* kVersion = "3.0";   // written; "2.0" is read too

// One page of a shard: pages lie at header_size + id * page_size. A blob page holds one row
// group (rows start_row..end_row of the shard, each a u64 length and the blob); a raw page
// holds the raw parts of row groups, each group's rows contiguous from its offset.
struct Page {
  int64_t id = 0;
  int64_t shard_id = 0;
  bool blob = false;      // "BLOB_DATA", else "RAW_DATA"
  int64_t type_id = 0;    // a blob page's row group id
  int64_t start_row = 0;  // blob pages: the shard's rows [start_row, end_row)
  int64_t end_row = 0;
  std::vector<std::pair<int64_t, uint64_t>> row_groups;  // raw pages: (group id, offset)
  uint64_t size = 0;                                     // bytes used
};

// One shard's header.
struct Header {
  uint64_t header_size = kDefaultHeaderSize;
  uint64_t page_size = kDefaultPageSize;
  uint64_t compression_size = 0;  // bytes saved by integer compression (information)
  std::vector<FieldSpec> fields;  // in the file's order
  std::string desc;
  std::vector<std::string> index_fields;
  std::vector<Page> pages;
  std::vector<std::string> shard_addresses;  // file names of the set's shards
  int64_t shard_id = 0;
  std::string version = kVersion;
};

// The header as MindSpore writes it (one line of JSON, the schema in field order).
std::string header_json(const Header& h);
// Parses and checks a header (shapes, page table, shard list); throws std::runtime_error
// naming what is wrong, check_schema's ValueError for an impossible schema (`who` names the
// reader).
Header parse_header(std::string_view text, std::string_view who);

// The blob fields (bytes fields and arrays), by name in byte order: the blob's layout, as
// MindSpore derives it from its sorted schema.
std::vector<int> blob_fields(const std::vector<FieldSpec>& fields);
// Whether integer arrays are compressed: the schema has an int32 or int64 array.
bool compresses_integers(const std::vector<FieldSpec>& fields);

// A scalar or string field's value in one row (an index field's, a raw record's): an int, a
// float or a string, by the field's type.
struct IndexValue {
  int64_t i = 0;
  double f = 0;
  std::string s;
};
IndexValue scalar_value(const FieldSpec& f, const Array& v);

// A row's parts from its checked values (check_field_value's results, schema order). `saved`
// grows by the bytes integer compression saved.
std::string encode_raw(const std::vector<FieldSpec>& fields, const Row& row);
std::string encode_blob(const std::vector<FieldSpec>& fields, const Row& row, uint64_t* saved);

// The inverse: fills values[k] for each wanted field k from a row's MessagePack map and blob.
// Throws std::runtime_error naming the field for anything malformed.
void decode_raw(const std::vector<FieldSpec>& fields, std::string_view raw,
                const std::vector<bool>& wanted, Row* values);
void decode_blob(const std::vector<FieldSpec>& fields, std::string_view blob,
                 const std::vector<bool>& wanted, Row* values);

// A field's element size in bytes (0 for string and bytes) and its Array dtype.
size_t field_elem_size(FieldType t);
DataType field_data_type(FieldType t);

// Little-endian u64 at p (the lengths in pages and in the header's first 8 bytes).
uint64_t load_u64(const char* p);
void append_u64(std::string* out, uint64_t v);

}  // namespace mycel::data::mindrecord
