// A structure-aware mutation of protobuf messages for the fuzz targets whose files are
// protobuf (checkpoint, MINDIR): parse, change one field through protobuf's reflection,
// re-serialise. The target then re-frames the bytes (header, footer, CRC-32), so that the
// mutation gets past the integrity checks and reaches the decoder.
//
// One call picks one place in the message tree at random and:
//   - an integer or float field: an "interesting" value (0, -1, 2^31, 2^62, INT64_MAX, ...) or
//     a small step; an enum: any number; a bool: flipped;
//   - a string or bytes field: libFuzzer's byte mutations (sizes change; names get non-UTF-8
//     bytes), or the value of another string field of the message (a node input naming
//     another node, a tensor name reused);
//   - a repeated field: an element removed, duplicated or two swapped;
//   - an optional field: cleared.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <random>
#include <string>
#include <vector>

#include "fuzz_common.h"

namespace mycel::fuzz {

namespace pbm {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// A place to mutate: field `f` of `msg`, element `index` (-1: the whole field).
struct Site {
  Message* msg;
  const FieldDescriptor* f;
  int index;
};

inline void collect(Message& msg, std::vector<Site>& sites, std::vector<std::string>& strings,
                    int depth) {
  if (depth > 32 || sites.size() > 100000) return;
  const Reflection* r = msg.GetReflection();
  const auto* d = msg.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    bool is_str = f->cpp_type() == FieldDescriptor::CPPTYPE_STRING;
    if (f->is_repeated()) {
      int n = r->FieldSize(msg, f);
      sites.push_back({&msg, f, -1});
      for (int k = 0; k < n; ++k) {
        if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
          collect(*r->MutableRepeatedMessage(&msg, f, k), sites, strings, depth + 1);
        else
          sites.push_back({&msg, f, k});
        if (is_str) strings.push_back(r->GetRepeatedString(msg, f, k));
      }
    } else if (r->HasField(msg, f) || f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
        collect(*r->MutableMessage(&msg, f), sites, strings, depth + 1);
      sites.push_back({&msg, f, 0});
      if (is_str && r->HasField(msg, f)) strings.push_back(r->GetString(msg, f));
    }
  }
}

inline void mutate_repeated(const Site& s, std::mt19937_64& rng) {
  const Reflection* r = s.msg->GetReflection();
  int n = r->FieldSize(*s.msg, s.f);
  if (n == 0) return;
  switch (rng() % 3) {
    case 0:  // remove one: swap it to the end and drop it
      r->SwapElements(s.msg, s.f, static_cast<int>(rng() % n), n - 1);
      r->RemoveLast(s.msg, s.f);
      break;
    case 1: {  // duplicate one (appended)
      int k = static_cast<int>(rng() % n);
      switch (s.f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_MESSAGE: {
          const Message& src = r->GetRepeatedMessage(*s.msg, s.f, k);
          r->AddMessage(s.msg, s.f)->CopyFrom(src);
          break;
        }
        case FieldDescriptor::CPPTYPE_STRING:
          r->AddString(s.msg, s.f, r->GetRepeatedString(*s.msg, s.f, k));
          break;
        case FieldDescriptor::CPPTYPE_INT64:
          r->AddInt64(s.msg, s.f, r->GetRepeatedInt64(*s.msg, s.f, k));
          break;
        case FieldDescriptor::CPPTYPE_INT32:
          r->AddInt32(s.msg, s.f, r->GetRepeatedInt32(*s.msg, s.f, k));
          break;
        default:
          break;
      }
      break;
    }
    default:
      r->SwapElements(s.msg, s.f, static_cast<int>(rng() % n), static_cast<int>(rng() % n));
  }
}

inline std::string mutate_string(std::string v, const std::vector<std::string>& strings,
                                 std::mt19937_64& rng) {
  if (!strings.empty() && rng() % 4 == 0) return strings[rng() % strings.size()];
  mutate_bytes(v, 16 + rng() % 256);
  return v;
}

inline void mutate_scalar(const Site& s, const std::vector<std::string>& strings,
                          std::mt19937_64& rng) {
  const Reflection* r = s.msg->GetReflection();
  Message* m = s.msg;
  const FieldDescriptor* f = s.f;
  bool rep = f->is_repeated();
  int k = s.index;
  int64_t v = rng() % 2 ? interesting_int(rng) : static_cast<int64_t>(rng() % 9) - 4;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
      rep ? r->SetRepeatedInt64(m, f, k, v) : r->SetInt64(m, f, v);
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      rep ? r->SetRepeatedUInt64(m, f, k, static_cast<uint64_t>(v))
          : r->SetUInt64(m, f, static_cast<uint64_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      rep ? r->SetRepeatedInt32(m, f, k, static_cast<int32_t>(v))
          : r->SetInt32(m, f, static_cast<int32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_UINT32:
      rep ? r->SetRepeatedUInt32(m, f, k, static_cast<uint32_t>(v))
          : r->SetUInt32(m, f, static_cast<uint32_t>(v));
      break;
    case FieldDescriptor::CPPTYPE_FLOAT:
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      static const double kFloats[] = {0.0,  -0.0,      1e308,      -1e308,   1e-310,
                                       3e38, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0};
      double d = rng() % 2 ? kFloats[rng() % 9] : static_cast<double>(v);
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT)
        rep ? r->SetRepeatedFloat(m, f, k, static_cast<float>(d))
            : r->SetFloat(m, f, static_cast<float>(d));
      else
        rep ? r->SetRepeatedDouble(m, f, k, d) : r->SetDouble(m, f, d);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      rep ? r->SetRepeatedBool(m, f, k, !r->GetRepeatedBool(*m, f, k))
          : r->SetBool(m, f, !r->GetBool(*m, f));
      break;
    case FieldDescriptor::CPPTYPE_ENUM:
      rep ? r->SetRepeatedEnumValue(m, f, k, static_cast<int>(v))
          : r->SetEnumValue(m, f, static_cast<int>(v));
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      if (rep)
        r->SetRepeatedString(m, f, k, mutate_string(r->GetRepeatedString(*m, f, k), strings, rng));
      else
        r->SetString(m, f, mutate_string(r->GetString(*m, f), strings, rng));
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (!rep && rng() % 2) r->ClearField(m, f);
      break;
  }
}

}  // namespace pbm

// Mutates one randomly chosen field of `msg` (see the top of this file).
inline void mutate_message(google::protobuf::Message& msg, std::mt19937_64& rng) {
  std::vector<pbm::Site> sites;
  std::vector<std::string> strings;
  pbm::collect(msg, sites, strings, 0);
  if (sites.empty()) return;
  const pbm::Site& s = sites[rng() % sites.size()];
  if (s.index < 0)
    pbm::mutate_repeated(s, rng);
  else if (!s.f->is_repeated() && s.f->is_optional() && rng() % 16 == 0)
    s.msg->GetReflection()->ClearField(s.msg, s.f);
  else
    pbm::mutate_scalar(s, strings, rng);
}

// One structure-aware mutation of a parsed file, serialised: one time in four its serialised
// bytes damaged (wire-level), otherwise one to three fields changed by mutate_message.
inline std::string mutate_serialized(google::protobuf::Message& msg, std::mt19937_64& rng) {
  std::string out;
  if (rng() % 4 == 0) {
    msg.SerializePartialToString(&out);
    mutate_bytes(out);
    return out;
  }
  int n = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < n; ++i) mutate_message(msg, rng);
  msg.SerializePartialToString(&out);
  return out;
}

}  // namespace mycel::fuzz
