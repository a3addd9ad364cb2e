// The checkpoint reader (serialize/checkpoint.h) against protobuf's generated parser of
// checkpoint.proto: on files built with the generated classes both see the same entries;
// hostile sizes (dims whose product overflows, byte counts that do not match, lengths past
// the end of a nested message) are ValueErrors, never a crash or a huge allocation.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <string>

#include "serialize/checkpoint.h"
#include "src/serialize/checkpoint.pb.h"

namespace mycel::serialize {
namespace {

void append_u32(std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }
void append_u64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }

// A mycel file around the serialised values (docs/checkpoint-format.md).
std::string framed(const ckpt::Checkpoint& values) {
  std::string out = "\xca\x3e\x0cMYCELCKP";
  append_u32(out, 1);
  out += values.SerializePartialAsString();
  auto crc = static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<z_size_t>(out.size())));
  out += "\xc2\x3e\x18MYCELCKP";
  append_u32(out, 1);
  append_u64(out, static_cast<uint64_t>(values.value_size()));
  append_u32(out, crc);
  return out;
}

ckpt::Checkpoint::Value* add(ckpt::Checkpoint& c, const std::string& tag,
                             std::initializer_list<int64_t> dims, const std::string& type,
                             const std::string& content) {
  auto* v = c.add_value();
  v->set_tag(tag);
  for (int64_t d : dims) v->mutable_tensor()->add_dims(d);
  v->mutable_tensor()->set_tensor_type(type);
  v->mutable_tensor()->set_tensor_content(content);
  return v;
}

std::string error_of(const std::string& bytes) {
  try {
    parse_checkpoint(bytes);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    return e.message();
  }
  return "";
}

TEST(CheckpointReader, AgreesWithGeneratedParser) {
  ckpt::Checkpoint c;
  float w[6] = {1, 2, 3, 4, 5, 6.5f};
  add(c, "fc.weight", {2, 3}, "Float32", std::string(reinterpret_cast<char*>(w), sizeof w));
  add(c, "step", {}, "Int64", std::string(8, '\0'));
  add(c, "empty", {0, 4}, "Int16", "");
  std::string bytes = framed(c);

  ckpt::Checkpoint back;
  ASSERT_TRUE(back.ParseFromString(bytes));  // the header and footer are plain bytes fields
  std::vector<CheckpointEntry> entries = parse_checkpoint(bytes);
  ASSERT_EQ(entries.size(), static_cast<size_t>(back.value_size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& v = back.value(static_cast<int>(i));
    EXPECT_EQ(entries[i].name, v.tag());
    EXPECT_EQ(dtype_name(entries[i].tensor.dtype()), v.tensor().tensor_type());
    Shape shape(v.tensor().dims().begin(), v.tensor().dims().end());
    EXPECT_EQ(entries[i].tensor.shape(), shape);
    ASSERT_EQ(entries[i].tensor.nbytes(), v.tensor().tensor_content().size());
    EXPECT_EQ(std::memcmp(entries[i].tensor.raw_data(), v.tensor().tensor_content().data(),
                          entries[i].tensor.nbytes()),
              0);
  }
  EXPECT_EQ(back.mycel_header().substr(0, 8), "MYCELCKP");
  EXPECT_EQ(back.mycel_footer().size(), 24u);
}

TEST(CheckpointReader, HostileSizesAreValueErrors) {
  struct Case {
    std::initializer_list<int64_t> dims;
    const char* type;
    size_t bytes;
    const char* want;
  };
  const Case cases[] = {
      {{int64_t{1} << 32, int64_t{1} << 32, 4}, "Float32", 16, "does not fit in 64 bits"},
      {{INT64_MAX}, "Float64", 8, "does not fit in 64 bits"},
      {{int64_t{1} << 40}, "UInt8", 3, "has 3 bytes of content, but dims [1099511627776]"},
      {{-1}, "Float32", 4, "has a negative dim"},
      {{0, int64_t{1} << 62, 4}, "Float32", 0, "does not fit in 64 bits"},
      {{3}, "Int16", 5, "need 6"},
      {{2}, "NoSuchType", 16, "which is unknown"},
  };
  for (const Case& k : cases) {
    ckpt::Checkpoint c;
    add(c, "w", k.dims, k.type, std::string(k.bytes, '\1'));
    for (const std::string& bytes : {framed(c), c.SerializePartialAsString()})
      EXPECT_NE(error_of(bytes).find(k.want), std::string::npos) << error_of(bytes);
  }
}

TEST(CheckpointReader, EveryTruncationAndNestedOverrunIsAValueError) {
  ckpt::Checkpoint c;
  add(c, "a", {2}, "Int32", std::string(8, '\7'));
  add(c, "s", {0}, "str", std::string("x\0\0\0", 4));
  std::string bytes = framed(c);
  for (size_t cut = 0; cut < bytes.size(); ++cut)
    EXPECT_FALSE(error_of(bytes.substr(0, cut)).empty()) << cut;
  for (size_t pos = 0; pos < bytes.size(); ++pos) {  // a length byte raised past the end
    std::string bad = bytes;
    bad[pos] = static_cast<char>(0x7f);
    EXPECT_FALSE(error_of(bad).empty()) << pos;
  }
  EXPECT_EQ(parse_checkpoint(bytes)[1].text, "x");
}

TEST(CheckpointReader, SpecialFilesAreRefused) {
  try {
    load_checkpoint_file("/", "load_checkpoint");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  try {
    load_checkpoint_file("/dev/zero", "load_checkpoint");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

// The writer's pieces are the generated classes' serialisation: a value's frame and content
// are a Checkpoint holding that value, and a whole file parses with the generated parser.
TEST(CheckpointWriter, PiecesAreTheGeneratedSerialisation) {
  for (uint64_t n : {0u, 5u, 127u, 128u, 300000u}) {
    std::string content(n, '\0');
    for (uint64_t i = 0; i < n; ++i) content[i] = static_cast<char>(i * 7);
    ckpt::Checkpoint m;
    auto* v = m.add_value();
    v->set_tag("layer.é");
    for (int64_t d : {int64_t{1}, static_cast<int64_t>(n), int64_t{1} << 40})
      v->mutable_tensor()->add_dims(d);
    v->mutable_tensor()->set_tensor_type("UInt8");
    v->mutable_tensor()->set_tensor_content(content);
    EXPECT_EQ(checkpoint_value_frame("layer.é", "UInt8",
                                     {1, static_cast<int64_t>(n), int64_t{1} << 40}, n) +
                  content,
              m.SerializeAsString())
        << n;
  }
  std::string file = encode_checkpoint({{"w", false, "", Tensor::zeros({2, 3}, DType::Float32)}});
  ckpt::Checkpoint parsed;
  ASSERT_TRUE(parsed.ParseFromString(file));
  ASSERT_EQ(parsed.value_size(), 1);
  EXPECT_EQ(parsed.value(0).tag(), "w");
  EXPECT_EQ(parsed.value(0).tensor().tensor_type(), "Float32");
  EXPECT_EQ(parsed.mycel_header().substr(0, 8), "MYCELCKP");
  EXPECT_EQ(parse_checkpoint(file).size(), 1u);
}

}  // namespace
}  // namespace mycel::serialize
