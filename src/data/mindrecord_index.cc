#include "data/mindrecord_index.h"

#include <sqlite3.h>

#include <memory>
#include <stdexcept>

#include "base/error.h"
#include "base/file.h"

#include <unistd.h>

namespace mycel::data::mindrecord {

namespace {

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StmtCloser {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;
using Stmt = std::unique_ptr<sqlite3_stmt, StmtCloser>;

std::string sql_type(FieldType t) {
  switch (t) {
    case FieldType::Int32:
    case FieldType::Int64:
      return "INTEGER";
    case FieldType::Float32:
    case FieldType::Float64:
      return "NUMERIC";
    default:
      return "TEXT";
  }
}

// MindSpore's column of an index field (names are [0-9a-zA-Z_] already): name_<schema id>.
std::string column_of(const FieldSpec& f) { return f.name + "_0"; }

class Writer {
 public:
  Writer(const std::string& path) : path_(path) {
    sqlite3* db = nullptr;
    int rc =
        sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    db_.reset(db);
    check(rc, "open");
  }
  void exec(const std::string& sql) {
    char* msg = nullptr;
    int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &msg);
    std::string text = msg ? msg : "";
    sqlite3_free(msg);
    MC_CHECK(rc == SQLITE_OK, Runtime, "FileWriter: cannot write the index ", path_, ": ", text,
             ".");
  }
  Stmt prepare(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    check(sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &s, nullptr), "prepare");
    return Stmt(s);
  }
  void step(sqlite3_stmt* s) {
    check(sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR, "insert");
    sqlite3_reset(s);
  }
  void check(int rc, const char* what) {
    MC_CHECK(rc == SQLITE_OK, Runtime, "FileWriter: cannot ", what, " the index ", path_, ": ",
             db_ ? sqlite3_errmsg(db_.get()) : "out of memory", ".");
  }
  void close() { check(sqlite3_close(db_.release()), "close"); }

 private:
  std::string path_;
  Db db_;
};

[[noreturn]] void bad(const std::string& what) { throw std::runtime_error(what); }

int64_t column_int(sqlite3_stmt* s, int c, const char* name) {
  if (sqlite3_column_type(s, c) != SQLITE_INTEGER)
    bad(str("index column ", name, " is not an integer"));
  return sqlite3_column_int64(s, c);
}

uint64_t column_offset(sqlite3_stmt* s, int c, const char* name) {
  int64_t v = column_int(s, c, name);
  if (v < 0) bad(str("index column ", name, " is negative"));
  return static_cast<uint64_t>(v);
}

}  // namespace

void write_index(const std::string& path, const std::string& shard_name,
                 const std::vector<FieldSpec>& index_fields, const std::vector<IndexRow>& rows,
                 const std::vector<std::vector<IndexValue>>& values, const Checksums& sums) {
  ::unlink(path.c_str());
  Writer w(path);
  // The file is written under a temporary name, synced and renamed by the caller: no journal.
  w.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
  std::string create =
      "CREATE TABLE INDEXES(  ROW_ID               INT  NOT NULL, PAGE_ID_RAW          INT  NOT "
      "NULL, PAGE_OFFSET_RAW      INT  NOT NULL, PAGE_OFFSET_RAW_END  INT  NOT NULL, "
      "ROW_GROUP_ID         INT  NOT NULL, PAGE_ID_BLOB         INT  NOT NULL, PAGE_OFFSET_BLOB  "
      "   INT  NOT NULL, PAGE_OFFSET_BLOB_END INT  NOT NULL";
  std::string insert =
      "INSERT INTO INDEXES (ROW_ID,ROW_GROUP_ID,PAGE_ID_RAW,PAGE_OFFSET_RAW,PAGE_OFFSET_RAW_END,"
      "PAGE_ID_BLOB,PAGE_OFFSET_BLOB,PAGE_OFFSET_BLOB_END";
  std::string params = "?,?,?,?,?,?,?,?";
  std::string key = ", PRIMARY KEY(ROW_ID";
  for (size_t k = 0; k < index_fields.size(); ++k) {
    const FieldSpec& f = index_fields[k];
    create += str(",INC_", k, " INT, ", column_of(f), " ", sql_type(f.type));
    insert += str(",INC_", k, ",", column_of(f));
    params += ",?,?";
    key += str(",INC_", k);
  }
  w.exec("BEGIN TRANSACTION;");
  w.exec(create + key + "));");
  w.exec("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL);");
  {
    Stmt s = w.prepare("INSERT INTO SHARD_NAME (NAME) VALUES (?);");
    w.check(sqlite3_bind_text(s.get(), 1, shard_name.c_str(), -1, SQLITE_TRANSIENT), "bind");
    w.step(s.get());
  }
  {
    Stmt s = w.prepare(insert + ") VALUES(" + params + ");");
    for (size_t r = 0; r < rows.size(); ++r) {
      const IndexRow& x = rows[r];
      int64_t ints[] = {x.row_id,
                        x.group_id,
                        x.raw_page,
                        static_cast<int64_t>(x.raw_off),
                        static_cast<int64_t>(x.raw_end),
                        x.blob_page,
                        static_cast<int64_t>(x.blob_off),
                        static_cast<int64_t>(x.blob_end)};
      int c = 1;
      for (int64_t v : ints) w.check(sqlite3_bind_int64(s.get(), c++, v), "bind");
      for (size_t k = 0; k < index_fields.size(); ++k) {
        const IndexValue& v = values[r][k];
        w.check(sqlite3_bind_int64(s.get(), c++, 0), "bind");
        switch (index_fields[k].type) {
          case FieldType::Int32:
          case FieldType::Int64:
            w.check(sqlite3_bind_int64(s.get(), c++, v.i), "bind");
            break;
          case FieldType::Float32:
          case FieldType::Float64:
            w.check(sqlite3_bind_double(s.get(), c++, v.f), "bind");
            break;
          default:
            w.check(sqlite3_bind_text(s.get(), c++, v.s.data(), static_cast<int>(v.s.size()),
                                      SQLITE_TRANSIENT),
                    "bind");
        }
      }
      w.step(s.get());
    }
  }
  w.exec("CREATE TABLE MYCEL_SET(DATASET_ID TEXT NOT NULL, HEADER_CRC32 INTEGER NOT NULL);");
  w.exec(
      "CREATE TABLE MYCEL_CRC(ROW_ID INTEGER PRIMARY KEY, RAW_CRC32 INTEGER NOT NULL, "
      "BLOB_CRC32 INTEGER NOT NULL);");
  {
    Stmt s = w.prepare("INSERT INTO MYCEL_SET VALUES (?, ?);");
    w.check(sqlite3_bind_text(s.get(), 1, sums.dataset_id.c_str(), -1, SQLITE_TRANSIENT), "bind");
    w.check(sqlite3_bind_int64(s.get(), 2, sums.header_crc), "bind");
    w.step(s.get());
  }
  {
    Stmt s = w.prepare("INSERT INTO MYCEL_CRC VALUES (?, ?, ?);");
    for (size_t r = 0; r < rows.size(); ++r) {
      w.check(sqlite3_bind_int64(s.get(), 1, static_cast<int64_t>(r)), "bind");
      w.check(sqlite3_bind_int64(s.get(), 2, sums.raw_crc[r]), "bind");
      w.check(sqlite3_bind_int64(s.get(), 3, sums.blob_crc[r]), "bind");
      w.step(s.get());
    }
  }
  w.exec("END TRANSACTION;");
  w.close();
}

void read_index(const std::string& path, std::string_view who, std::vector<IndexRow>* rows,
                Checksums* sums) {
  ::close(open_regular_file(path, who));  // a FIFO or a directory: a ValueError, not a hang
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) bad(str("cannot open the index: ", db ? sqlite3_errmsg(db.get()) : "?"));
  auto prepare = [&](const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db.get(), sql, -1, &s, nullptr) != SQLITE_OK)
      bad(str("the index is not a MindRecord index (", sqlite3_errmsg(db.get()), ")"));
    return Stmt(s);
  };
  auto finish = [&](int step_rc) {
    if (step_rc != SQLITE_DONE)
      bad(str("the index cannot be read (", sqlite3_errmsg(db.get()), ")"));
  };
  Stmt s = prepare(
      "SELECT ROW_ID, ROW_GROUP_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, "
      "PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES ORDER BY ROW_ID;");
  rows->clear();
  int step;
  while ((step = sqlite3_step(s.get())) == SQLITE_ROW) {
    IndexRow x;
    x.row_id = column_int(s.get(), 0, "ROW_ID");
    if (x.row_id != static_cast<int64_t>(rows->size()))
      bad(str("the index has row ", x.row_id, " where row ", rows->size(), " belongs"));
    x.group_id = column_int(s.get(), 1, "ROW_GROUP_ID");
    x.raw_page = column_int(s.get(), 2, "PAGE_ID_RAW");
    x.raw_off = column_offset(s.get(), 3, "PAGE_OFFSET_RAW");
    x.raw_end = column_offset(s.get(), 4, "PAGE_OFFSET_RAW_END");
    x.blob_page = column_int(s.get(), 5, "PAGE_ID_BLOB");
    x.blob_off = column_offset(s.get(), 6, "PAGE_OFFSET_BLOB");
    x.blob_end = column_offset(s.get(), 7, "PAGE_OFFSET_BLOB_END");
    rows->push_back(x);
  }
  finish(step);
  *sums = Checksums{};
  Stmt t = prepare("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='MYCEL_SET';");
  if (sqlite3_step(t.get()) != SQLITE_ROW) finish(SQLITE_ERROR);
  if (sqlite3_column_int64(t.get(), 0) == 0) return;  // written by MindSpore
  sums->present = true;
  Stmt set = prepare("SELECT DATASET_ID, HEADER_CRC32 FROM MYCEL_SET;");
  if (sqlite3_step(set.get()) != SQLITE_ROW || sqlite3_column_type(set.get(), 0) != SQLITE_TEXT)
    bad("the index's MYCEL_SET table is empty or malformed");
  sums->dataset_id = reinterpret_cast<const char*>(sqlite3_column_text(set.get(), 0));
  sums->header_crc = static_cast<uint32_t>(column_int(set.get(), 1, "HEADER_CRC32"));
  Stmt crc = prepare("SELECT ROW_ID, RAW_CRC32, BLOB_CRC32 FROM MYCEL_CRC ORDER BY ROW_ID;");
  while ((step = sqlite3_step(crc.get())) == SQLITE_ROW) {
    if (column_int(crc.get(), 0, "ROW_ID") != static_cast<int64_t>(sums->raw_crc.size()))
      bad("the index's MYCEL_CRC rows are not 0, 1, ...");
    sums->raw_crc.push_back(static_cast<uint32_t>(column_int(crc.get(), 1, "RAW_CRC32")));
    sums->blob_crc.push_back(static_cast<uint32_t>(column_int(crc.get(), 2, "BLOB_CRC32")));
  }
  finish(step);
  if (sums->raw_crc.size() != rows->size())
    bad(str("the index has ", rows->size(), " rows but checksums for ", sums->raw_crc.size()));
}

}  // namespace mycel::data::mindrecord
