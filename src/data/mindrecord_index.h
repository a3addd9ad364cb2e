// The SQLite index of a MindRecord shard (`<shard>.db`, libsqlite3), MindSpore's layout:
//   INDEXES(ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, ROW_GROUP_ID,
//           PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END, then per index field f:
//           INC_<i> INT, f_0 <INTEGER|NUMERIC|TEXT>)   one row per record: where it lies
//   SHARD_NAME(NAME)                                   the shard file's name
// and two tables of mycel's own that MindSpore's reader never looks at, so that corruption
// of a file mycel wrote is caught (MindSpore's format has no checksums) and a set mixed from
// two commits is refused:
//   MYCEL_SET(DATASET_ID, HEADER_CRC32)                one row: the set's random id, and the
//                                                      CRC-32 of the shard's header bytes
//   MYCEL_CRC(ROW_ID, RAW_CRC32, BLOB_CRC32)           the CRC-32 of each record's two parts
// Files written by MindSpore have no MYCEL_* tables; their records are checked by structure
// only. Internal to src/data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/mindrecord.h"
#include "data/mindrecord_format.h"

namespace mycel::data::mindrecord {

// Where a record lies: page ids and byte offsets within the page; [off, end) spans the part's
// u64 length and its bytes.
struct IndexRow {
  int64_t row_id = 0;
  int64_t group_id = 0;
  int64_t raw_page = 0;
  uint64_t raw_off = 0, raw_end = 0;
  int64_t blob_page = 0;
  uint64_t blob_off = 0, blob_end = 0;
};

struct Checksums {
  bool present = false;  // the MYCEL_* tables exist (the file was written by mycel)
  std::string dataset_id;
  uint32_t header_crc = 0;
  std::vector<uint32_t> raw_crc, blob_crc;  // by row
};

// Writes a new database at `path` (an existing file is replaced). values[r][k] is index field
// k's value in row r. Throws a RuntimeError naming `path` on any SQLite failure.
void write_index(const std::string& path, const std::string& shard_name,
                 const std::vector<FieldSpec>& index_fields, const std::vector<IndexRow>& rows,
                 const std::vector<std::vector<IndexValue>>& values, const Checksums& sums);

// Reads the rows (by ROW_ID, which must run 0, 1, ...) and the checksums. A missing or
// unreadable database is a RuntimeError naming it; a malformed one throws std::runtime_error
// naming what is wrong.
void read_index(const std::string& path, std::string_view who, std::vector<IndexRow>* rows,
                Checksums* sums);

}  // namespace mycel::data::mindrecord
