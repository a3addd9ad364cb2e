#include "data/mindrecord_format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "base/error.h"
#include "base/utf8.h"

namespace mycel::data::mindrecord {

namespace {

using ojson = nlohmann::ordered_json;
using nlohmann::json;

[[noreturn]] void bad(const std::string& what) { throw std::runtime_error(what); }

// ---- Header ------------------------------------------------------------------------------

// An array in the header, or an empty one where MindSpore wrote null (an empty list dumps
// as null from its json).
const ojson& list_at(const ojson& j, const char* key) {
  static const ojson empty = ojson::array();
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return empty;
  if (!it->is_array()) bad(str("header field '", key, "' is not a list"));
  return *it;
}

uint64_t uint_at(const ojson& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) bad(str("header field '", key, "'"));
  return it->get<uint64_t>();
}

int64_t int_at(const ojson& j, const char* key) {
  uint64_t v = uint_at(j, key);
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    bad(str("header field '", key, "' is too large"));
  return static_cast<int64_t>(v);
}

std::vector<FieldSpec> parse_schema(const ojson& schema) {
  if (!schema.is_object() || schema.empty()) bad("the schema is not an object of fields");
  std::vector<FieldSpec> fields;
  for (auto it = schema.begin(); it != schema.end(); ++it) {
    FieldSpec f;
    f.name = it.key();
    const ojson& spec = it.value();
    auto type = spec.is_object() ? spec.find("type") : spec.end();
    if (type == spec.end() || !type->is_string() ||
        !field_type_from_name(type->get<std::string>(), &f.type))
      bad(str("field '", f.name, "' has no known type"));
    if (auto shape = spec.find("shape"); shape != spec.end()) {
      if (!shape->is_array()) bad(str("field '", f.name, "' has a bad shape"));
      f.has_shape = true;
      for (const ojson& d : *shape) {
        if (!d.is_number_integer()) bad(str("field '", f.name, "' has a bad shape"));
        f.shape.push_back(d.get<int64_t>());
      }
    }
    fields.push_back(std::move(f));
  }
  return fields;
}

Page parse_page(const ojson& p, size_t position) {
  if (!p.is_object()) bad("a page is not an object");
  Page page;
  page.id = int_at(p, "page_id");
  page.shard_id = int_at(p, "shard_id");
  auto type = p.find("page_type");
  if (type == p.end() || !type->is_string()) bad("a page has no page_type");
  if (*type == "BLOB_DATA") {
    page.blob = true;
  } else if (*type != "RAW_DATA") {
    bad(str("page ", page.id, " has the unknown type ", type->dump()));
  }
  page.type_id = int_at(p, "page_type_id");
  page.start_row = int_at(p, "start_row_id");
  page.end_row = int_at(p, "end_row_id");
  page.size = uint_at(p, "page_size");
  for (const ojson& g : list_at(p, "row_group_ids")) {
    if (!g.is_object()) bad("a row group is not an object");
    page.row_groups.emplace_back(int_at(g, "id"), uint_at(g, "offset"));
  }
  if (page.id != static_cast<int64_t>(position)) bad(str("page ", page.id, " is out of order"));
  if (page.start_row > page.end_row) bad(str("page ", page.id, " has its rows reversed"));
  return page;
}

// ---- Integers: MindSpore's compressed arrays -----------------------------------------------
// [element count u32 big-endian][2 bits a element: its byte width, 1 << code][each element,
// little-endian, in the fewest bytes of 1, 2, 4, 8 that hold it].

int width_code(int64_t v) {
  if (v >= INT8_MIN && v <= INT8_MAX) return 0;
  if (v >= INT16_MIN && v <= INT16_MAX) return 1;
  if (v >= INT32_MIN && v <= INT32_MAX) return 2;
  return 3;
}

template <class T>
std::string compress_ints(const char* data, size_t n) {
  std::string out(4 + (n + 3) / 4, '\0');
  for (int b = 0; b < 4; ++b)
    out[static_cast<size_t>(b)] = static_cast<char>((n >> (24 - 8 * b)) & 0xFF);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    int code = width_code(static_cast<int64_t>(v));
    out[4 + i / 4] = static_cast<char>(static_cast<uint8_t>(out[4 + i / 4]) |
                                       (code << (2 * (3 - static_cast<int>(i % 4)))));
    auto u = static_cast<uint64_t>(static_cast<int64_t>(v));
    for (int b = 0; b < (1 << code); ++b) out.push_back(static_cast<char>((u >> (8 * b)) & 0xFF));
  }
  return out;
}

template <class T>
Array decompress_ints(std::string_view in, DataType dt, const std::string& name) {
  if (in.size() < 4) bad(str("field '", name, "': a compressed integer array is cut short"));
  uint64_t n = 0;
  for (int b = 0; b < 4; ++b) n = (n << 8) | static_cast<uint8_t>(in[static_cast<size_t>(b)]);
  uint64_t map_bytes = (n + 3) / 4;
  if (map_bytes > in.size() - 4 || n > in.size())
    bad(str("field '", name, "': a compressed integer array claims ", n, " elements"));
  Array out = Array::empty(dt, {static_cast<int64_t>(n)});
  T* dst = out.mutable_data<T>();
  size_t at = 4 + map_bytes;
  for (uint64_t i = 0; i < n; ++i) {
    int code = (static_cast<uint8_t>(in[4 + i / 4]) >> (2 * (3 - i % 4))) & 3;
    size_t w = size_t{1} << code;
    if (w > in.size() - at) bad(str("field '", name, "': a compressed integer array overruns"));
    uint64_t u = 0;
    for (size_t b = 0; b < w; ++b)
      u |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + b])) << (8 * b);
    int64_t v = w == 8 ? static_cast<int64_t>(u)
                       : static_cast<int64_t>(u << (64 - 8 * w)) >> (64 - 8 * w);  // sign-extend
    if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
      bad(str("field '", name, "': a compressed value does not fit ", data_type_name(dt)));
    dst[i] = static_cast<T>(v);
    at += w;
  }
  if (at != in.size()) bad(str("field '", name, "': bytes after a compressed integer array"));
  return out;
}

bool is_int_array(const FieldSpec& f) {
  return f.has_shape && (f.type == FieldType::Int32 || f.type == FieldType::Int64);
}

// A blob field's stored bytes (integer arrays compressed when `compress`).
std::string field_blob(const FieldSpec& f, const Array& v, bool compress) {
  const char* p = static_cast<const char*>(v.raw());
  if (compress && is_int_array(f)) {
    auto n = static_cast<size_t>(v.numel());
    return f.type == FieldType::Int32 ? compress_ints<int32_t>(p, n) : compress_ints<int64_t>(p, n);
  }
  return std::string(p, v.nbytes());
}

// A blob field's value from its stored bytes: arrays take the schema shape (its -1, if any,
// resolved from the element count; check_schema allows one), bytes a 1-d uint8 array.
Array field_value(const FieldSpec& f, std::string_view bytes, bool compress) {
  Array flat;
  if (compress && is_int_array(f)) {
    flat = f.type == FieldType::Int32 ? decompress_ints<int32_t>(bytes, DataType::Int32, f.name)
                                      : decompress_ints<int64_t>(bytes, DataType::Int64, f.name);
    bytes = std::string_view(static_cast<const char*>(flat.raw()), flat.nbytes());
  }
  size_t elem = f.type == FieldType::Bytes ? 1 : field_elem_size(f.type);
  if (bytes.size() % elem)
    bad(str("field '", f.name, "' holds ", bytes.size(), " bytes, not whole elements"));
  auto n = static_cast<int64_t>(bytes.size() / elem);
  Shape shape{n};
  if (f.has_shape) {
    shape = f.shape;
    int64_t known = 1;  // the fixed dimensions' product (fits in 64 bits: check_schema)
    for (int64_t d : f.shape)
      if (d != -1) known *= d;
    auto neg = std::find(shape.begin(), shape.end(), int64_t{-1});
    if (neg != shape.end() ? n % known != 0 : known != n)
      bad(str("field '", f.name, "' holds ", n, " elements, which do not fit its shape"));
    if (neg != shape.end()) *neg = n / known;
  }
  Array out = Array::empty(field_data_type(f.type), shape);
  if (!bytes.empty()) std::memcpy(out.mutable_raw(), bytes.data(), bytes.size());
  return out;
}

// A MessagePack map of scalars, read by SAX: anything nested is refused before the parser can
// recurse on it (a crafted record of nested arrays would otherwise exhaust the stack).
struct FlatMap : nlohmann::json_sax<json> {
  std::vector<std::pair<std::string, json>> items;
  std::string key_;
  int depth = 0;
  std::string error;

  bool value(json v) {
    if (depth != 1) return fail("a raw record must be a map of scalars");
    items.emplace_back(std::move(key_), std::move(v));
    return true;
  }
  bool fail(const std::string& why) {
    error = why;
    return false;
  }
  bool null() override { return value(nullptr); }
  bool boolean(bool v) override { return value(v); }
  bool number_integer(number_integer_t v) override { return value(v); }
  bool number_unsigned(number_unsigned_t v) override { return value(v); }
  bool number_float(number_float_t v, const string_t&) override { return value(v); }
  bool string(string_t& v) override { return value(v); }
  bool binary(binary_t& v) override { return value(json::binary(v)); }
  bool start_object(std::size_t) override {
    return ++depth == 1 ? true : fail("a raw record must be a map of scalars");
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool end_object() override {
    --depth;
    return true;
  }
  bool start_array(std::size_t) override { return fail("a raw record must be a map of scalars"); }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    return fail(e.what());
  }
};

}  // namespace

// ---- Shared helpers ------------------------------------------------------------------------

size_t field_elem_size(FieldType t) {
  switch (t) {
    case FieldType::Int32:
    case FieldType::Float32:
      return 4;
    case FieldType::Int64:
    case FieldType::Float64:
      return 8;
    case FieldType::String:
    case FieldType::Bytes:
      return 0;
  }
  return 0;
}

DataType field_data_type(FieldType t) {
  switch (t) {
    case FieldType::Int32:
      return DataType::Int32;
    case FieldType::Int64:
      return DataType::Int64;
    case FieldType::Float32:
      return DataType::Float32;
    case FieldType::Float64:
      return DataType::Float64;
    case FieldType::String:
      return DataType::String;
    case FieldType::Bytes:
      return DataType::UInt8;
  }
  return DataType::UInt8;
}

uint64_t load_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

void append_u64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::vector<int> blob_fields(const std::vector<FieldSpec>& fields) {
  std::vector<int> out;
  for (size_t k = 0; k < fields.size(); ++k)
    if (fields[k].type == FieldType::Bytes || fields[k].has_shape)
      out.push_back(static_cast<int>(k));
  std::sort(out.begin(), out.end(), [&](int a, int b) {
    return fields[static_cast<size_t>(a)].name < fields[static_cast<size_t>(b)].name;
  });
  return out;
}

bool compresses_integers(const std::vector<FieldSpec>& fields) {
  return std::any_of(fields.begin(), fields.end(), is_int_array);
}

// ---- Header ------------------------------------------------------------------------------

std::string header_json(const Header& h) {
  ojson schema = ojson::object();
  for (const FieldSpec& f : h.fields) {
    ojson spec = {{"type", std::string(field_type_name(f.type))}};
    if (f.has_shape) spec["shape"] = f.shape;
    schema[f.name] = spec;
  }
  ojson blobs = ojson::array();
  for (int k : blob_fields(h.fields)) blobs.push_back(h.fields[static_cast<size_t>(k)].name);
  ojson index = ojson::array();
  for (const std::string& f : h.index_fields)
    index.push_back({{"index_field", f}, {"schema_id", 0}});
  ojson pages = ojson::array();
  for (const Page& p : h.pages) {
    ojson groups = ojson::array();
    for (const auto& [id, offset] : p.row_groups)
      groups.push_back({{"id", id}, {"offset", offset}});
    pages.push_back({{"end_row_id", p.end_row},
                     {"page_id", p.id},
                     {"page_size", p.size},
                     {"page_type", p.blob ? "BLOB_DATA" : "RAW_DATA"},
                     {"page_type_id", p.type_id},
                     {"row_group_ids", groups},
                     {"shard_id", p.shard_id},
                     {"start_row_id", p.start_row}});
  }
  // MindSpore's key order; its empty lists come out as null.
  ojson j;
  j["header_size"] = h.header_size;
  j["index_fields"] = index.empty() ? ojson(nullptr) : index;
  j["page"] = pages.empty() ? ojson(nullptr) : pages;
  j["page_size"] = h.page_size;
  j["compression_size"] = h.compression_size;
  j["schema"] = ojson::array(
      {{{"blob_fields", blobs}, {"desc", h.desc}, {"schema", schema}, {"schema_id", 0}}});
  j["shard_addresses"] = h.shard_addresses;
  j["shard_id"] = h.shard_id;
  j["statistics"] = nullptr;
  j["version"] = h.version;
  return j.dump();
}

Header parse_header(std::string_view text, std::string_view who) {
  ojson j;
  try {
    j = ojson::parse(text);
  } catch (const ojson::exception& e) {
    bad(str("the header is not JSON: ", e.what()));
  }
  if (!j.is_object()) bad("the header is not a JSON object");
  Header h;
  auto version = j.find("version");
  if (version == j.end() || !version->is_string() || (*version != "3.0" && *version != "2.0"))
    bad(str("unsupported header version ", version == j.end() ? "(none)" : version->dump()));
  h.version = version->get<std::string>();
  h.header_size = uint_at(j, "header_size");
  h.page_size = uint_at(j, "page_size");
  if (h.header_size < kMinHeaderSize || h.header_size > kMaxHeaderSize ||
      h.page_size < kMinPageSize || h.page_size > kMaxPageSize)
    bad(str("header_size ", h.header_size, " or page_size ", h.page_size, " is out of range"));
  if (j.contains("compression_size")) h.compression_size = uint_at(j, "compression_size");
  const ojson& schemas = list_at(j, "schema");
  if (schemas.size() != 1 || !schemas[0].is_object() || !schemas[0].contains("schema"))
    bad("the header must hold one schema");
  const ojson& s0 = schemas[0];
  h.fields = parse_schema(s0["schema"]);
  if (auto d = s0.find("desc"); d != s0.end() && d->is_string()) h.desc = d->get<std::string>();
  try {
    check_schema(h.fields, who);
  } catch (const Error& e) {
    MC_THROW(Value, "has an invalid schema in its header: ", e.message());
  }
  // The blob layout is the schema's blob fields by name; a header saying otherwise would
  // mislabel every blob.
  std::vector<std::string> want, got;
  for (int k : blob_fields(h.fields)) want.push_back(h.fields[static_cast<size_t>(k)].name);
  for (const ojson& b : list_at(s0, "blob_fields")) {
    if (!b.is_string()) bad("a blob field name is not a string");
    got.push_back(b.get<std::string>());
  }
  std::sort(got.begin(), got.end());
  if (got != want) bad("the header's blob_fields do not match its schema");
  for (const ojson& f : list_at(j, "index_fields"))
    if (f.is_object() && f.contains("index_field") && f["index_field"].is_string())
      h.index_fields.push_back(f["index_field"].get<std::string>());
  const ojson& pages = list_at(j, "page");
  for (size_t k = 0; k < pages.size(); ++k) h.pages.push_back(parse_page(pages[k], k));
  for (const ojson& a : list_at(j, "shard_addresses")) {
    if (!a.is_string() || a.get<std::string>().empty() ||
        a.get<std::string>().find('/') != std::string::npos)
      bad("a shard address is not a file name");
    h.shard_addresses.push_back(a.get<std::string>());
  }
  if (h.shard_addresses.empty() || static_cast<int64_t>(h.shard_addresses.size()) > kMaxReadShards)
    bad(str("the header names ", h.shard_addresses.size(), " shards"));
  if (j.contains("shard_id")) h.shard_id = int_at(j, "shard_id");
  if (h.shard_id >= static_cast<int64_t>(h.shard_addresses.size()))
    bad(str("shard_id ", h.shard_id, " is not one of the ", h.shard_addresses.size(), " shards"));
  for (const Page& p : h.pages)
    if (p.shard_id != h.shard_id || p.size > h.page_size)
      bad(str("page ", p.id, " is not a page of this shard, or overfills page_size"));
  return h;
}

// ---- Rows --------------------------------------------------------------------------------

IndexValue scalar_value(const FieldSpec& f, const Array& v) {
  IndexValue x;
  switch (f.type) {
    case FieldType::Int32:
      x.i = v.data<int32_t>()[0];
      break;
    case FieldType::Int64:
      x.i = v.data<int64_t>()[0];
      break;
    case FieldType::Float32:
      x.f = static_cast<double>(v.data<float>()[0]);
      break;
    case FieldType::Float64:
      x.f = v.data<double>()[0];
      break;
    default:
      x.s = v.str()[0];
  }
  return x;
}

std::string encode_raw(const std::vector<FieldSpec>& fields, const Row& row) {
  json j = json::object();
  for (size_t k = 0; k < fields.size(); ++k) {
    const FieldSpec& f = fields[k];
    if (f.type == FieldType::Bytes || f.has_shape) continue;
    IndexValue x = scalar_value(f, row[k]);
    if (f.type == FieldType::String) {
      j[f.name] = std::move(x.s);
    } else if (field_data_type(f.type) == DataType::Int32 ||
               field_data_type(f.type) == DataType::Int64) {
      j[f.name] = x.i;
    } else {
      j[f.name] = x.f;
    }
  }
  if (j.empty()) j["id"] = 0;  // MindSpore's dummy when every field is a blob
  std::vector<uint8_t> bytes = json::to_msgpack(j);
  return std::string(bytes.begin(), bytes.end());
}

std::string encode_blob(const std::vector<FieldSpec>& fields, const Row& row, uint64_t* saved) {
  std::vector<int> blobs = blob_fields(fields);
  if (blobs.empty()) return std::string(4, '\0');  // MindSpore's dummy blob
  bool compress = compresses_integers(fields);
  std::string out;
  uint64_t plain = 0;
  for (int k : blobs) {
    const Array& v = row[static_cast<size_t>(k)];
    std::string b = field_blob(fields[static_cast<size_t>(k)], v, compress);
    plain += v.nbytes();
    if (blobs.size() == 1) {
      out = std::move(b);
      break;
    }
    plain += 8;
    for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((b.size() >> (8 * i)) & 0xFF));
    out += b;
  }
  if (plain > out.size()) *saved += plain - out.size();
  return out;
}

void decode_raw(const std::vector<FieldSpec>& fields, std::string_view raw,
                const std::vector<bool>& wanted, Row* values) {
  FlatMap map;
  bool ok =
      json::sax_parse(raw.begin(), raw.end(), &map, nlohmann::detail::input_format_t::msgpack);
  if (!ok || map.depth != 0)
    bad(map.error.empty() ? "the raw record is not a MessagePack map" : map.error);
  for (size_t k = 0; k < fields.size(); ++k) {
    const FieldSpec& f = fields[k];
    if (!wanted[k] || f.type == FieldType::Bytes || f.has_shape) continue;
    auto it = std::find_if(map.items.begin(), map.items.end(),
                           [&](const auto& kv) { return kv.first == f.name; });
    if (it == map.items.end()) bad(str("field '", f.name, "' is missing from the raw record"));
    const json& v = it->second;
    auto out_of = [&](const char* what) {
      bad(str("field '", f.name, "' (", field_type_name(f.type), ") holds ", what, " ", v.dump()));
    };
    switch (f.type) {
      case FieldType::Int32:
      case FieldType::Int64: {
        if (!v.is_number_integer()) out_of("the value");
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
          out_of("the out-of-range value");
        int64_t i = v.get<int64_t>();
        if (f.type == FieldType::Int32) {
          if (i < INT32_MIN || i > INT32_MAX) out_of("the out-of-range value");
          (*values)[k] = Array::scalar<int32_t>(static_cast<int32_t>(i));
        } else {
          (*values)[k] = Array::scalar<int64_t>(i);
        }
        break;
      }
      case FieldType::Float32:
      case FieldType::Float64: {
        if (!v.is_number()) out_of("the value");
        double d = v.get<double>();
        (*values)[k] = f.type == FieldType::Float32 ? Array::scalar<float>(static_cast<float>(d))
                                                    : Array::scalar<double>(d);
        break;
      }
      default: {
        if (!v.is_string()) out_of("the value");
        const std::string& s = v.get_ref<const std::string&>();
        MC_CHECK(valid_utf8(s), Value, "field '", f.name, "': the string is not valid UTF-8 text");
        (*values)[k] = Array::strings({s}, {});
      }
    }
  }
}

void decode_blob(const std::vector<FieldSpec>& fields, std::string_view blob,
                 const std::vector<bool>& wanted, Row* values) {
  std::vector<int> blobs = blob_fields(fields);
  if (blobs.empty()) return;
  bool compress = compresses_integers(fields);
  if (blobs.size() == 1) {
    auto k = static_cast<size_t>(blobs[0]);
    if (wanted[k]) (*values)[k] = field_value(fields[k], blob, compress);
    return;
  }
  size_t at = 0;
  for (int kk : blobs) {
    auto k = static_cast<size_t>(kk);
    if (blob.size() - at < 8) bad(str("field '", fields[k].name, "' is cut short in the blob"));
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i)
      n = (n << 8) | static_cast<uint8_t>(blob[at + static_cast<size_t>(i)]);
    at += 8;
    if (n > blob.size() - at) bad(str("field '", fields[k].name, "' overruns the blob"));
    if (wanted[k]) (*values)[k] = field_value(fields[k], blob.substr(at, n), compress);
    at += n;
  }
  if (at != blob.size()) bad(str("the blob has ", blob.size() - at, " bytes past its last field"));
}

}  // namespace mycel::data::mindrecord
