// tests/support/perf_data_writer.hpp
//
// Writes perf.data files in memory, laid out as perf.data-file-format.txt (kernel tree,
// tools/perf/Documentation) describes and perf 6.1 writes them: a 104-byte header, the attrs
// entries (perf_event_attr + ids section), the ids, the data section of records, then the feature
// table and the features. Records come from record_builder.hpp, so the reader is tested on the
// same bytes the kernel and perf produce, without perf installed. `pipe_bytes` writes the same
// content in pipe mode (`perf record -o -`): attrs and features as records before the data.
//
// Tests that need a broken file take the bytes and break them (the offsets of the header fields
// are public below).
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "record_builder.hpp"
#include "sprof/core/build_id.hpp"

namespace sprof::test {

class PerfDataWriter {
 public:
  // Offsets of header fields, for tests that corrupt them.
  static constexpr size_t kHeaderSizeOffset = 8;
  static constexpr size_t kAttrSizeOffset = 16;
  static constexpr size_t kAttrsOffset = 24;
  static constexpr size_t kDataOffset = 40;
  static constexpr size_t kDataSizeOffset = 48;
  static constexpr size_t kFeaturesOffset = 72;

  // Feature bits (tools/perf/util/header.h).
  static constexpr uint32_t kBuildIdFeature = 2, kHostname = 3, kOsRelease = 4, kVersion = 5,
                            kArch = 6, kNrCpus = 7, kCmdline = 11, kSampleTime = 21,
                            kClockData = 29, kCompressed = 27;
  // perf's own record types.
  static constexpr uint32_t kFinishedRound = 68, kIdIndex = 69, kThreadMap = 73, kFinishedInit = 82,
                            kAuxtrace = 71, kHeaderAttr = 64, kHeaderFeature = 80,
                            kHeaderBuildId = 67;

  // An event; returns its index. `attr.size` 0 becomes sizeof(perf_event_attr). `extra_attr_bytes`
  // makes the attr look like one from a newer perf: that many more bytes, filled with `fill`.
  size_t add_event(perf_event_attr attr, std::vector<uint64_t> ids, size_t extra_attr_bytes = 0,
                   uint8_t fill = 0) {
    if (attr.size == 0) attr.size = sizeof attr;
    Event e;
    e.attr.assign(reinterpret_cast<const uint8_t*>(&attr),
                  reinterpret_cast<const uint8_t*>(&attr) + sizeof attr);
    e.attr.insert(e.attr.end(), extra_attr_bytes, fill);
    uint32_t size = static_cast<uint32_t>(e.attr.size());
    std::memcpy(e.attr.data() + offsetof(perf_event_attr, size), &size, sizeof size);
    e.ids = std::move(ids);
    events_.push_back(std::move(e));
    return events_.size() - 1;
  }

  void add_record(const std::vector<uint8_t>& record) {
    data_.insert(data_.end(), record.begin(), record.end());
  }
  void add_bytes(const std::vector<uint8_t>& raw) {
    data_.insert(data_.end(), raw.begin(), raw.end());
  }
  void finished_round() { add_record(user_record(kFinishedRound, {})); }
  // PERF_RECORD_THREAD_MAP with these pids (-1: a CPU-wide recording).
  void thread_map(const std::vector<int64_t>& pids) {
    ByteWriter w;
    w.put(uint64_t{pids.size()});
    for (int64_t p : pids) {
      w.put(p);
      for (int i = 0; i < 16; ++i) w.put(uint8_t{0});
    }
    add_record(user_record(kThreadMap, w.bytes()));
  }

  void feature_bytes(uint32_t bit, std::vector<uint8_t> bytes) {
    features_[bit] = std::move(bytes);
  }
  void feature_string(uint32_t bit, const std::string& s) { feature_bytes(bit, header_string(s)); }
  void feature_strings(uint32_t bit, const std::vector<std::string>& list) {
    ByteWriter w;
    w.put(static_cast<uint32_t>(list.size()));
    for (const auto& s : list) w.put_bytes(header_string(s));
    feature_bytes(bit, w.bytes());
  }
  void build_id(const std::string& path, const BuildId& id, bool kernel = false) {
    auto& bytes = features_[kBuildIdFeature];
    const auto entry = build_id_entry(0, path, id, kernel);
    bytes.insert(bytes.end(), entry.begin(), entry.end());
  }

  // struct perf_record_header_build_id; `type` 0 in the feature section, 67 as a record.
  static std::vector<uint8_t> build_id_entry(uint32_t type, const std::string& path,
                                             const BuildId& id, bool kernel) {
    ByteWriter w;
    w.put(int32_t{-1});
    uint8_t padded[20] = {};
    std::memcpy(padded, id.bytes().data(), std::min<size_t>(id.bytes().size(), 20));
    w.put_bytes(padded).put(static_cast<uint8_t>(id.bytes().size()));
    w.put(uint8_t{0}).put(uint8_t{0}).put(uint8_t{0});
    std::vector<uint8_t> name(path.begin(), path.end());
    name.resize((path.size() + 1 + 63) / 64 * 64, 0);  // perf pads names to 64 bytes
    w.put_bytes(name);
    const uint16_t misc = static_cast<uint16_t>(
        (1u << 15) | (kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER));
    return with_header(type, misc, w.bytes());
  }

  // A record of perf's own with `body` after the header.
  static std::vector<uint8_t> user_record(uint32_t type, const std::vector<uint8_t>& body) {
    return with_header(type, 0, body);
  }

  std::vector<uint8_t> file_bytes() const {
    constexpr size_t kHeader = 104;
    const size_t attr_entry = attr_bytes() + 16;
    const size_t attrs_at = kHeader;
    size_t ids_at = attrs_at + attr_entry * events_.size();
    std::vector<uint8_t> attrs, ids;
    for (const auto& e : events_) {
      std::vector<uint8_t> entry = e.attr;
      entry.resize(attr_bytes(), 0);
      ByteWriter section;
      section.put(uint64_t{ids_at + ids.size()}).put(uint64_t{e.ids.size() * 8});
      entry.insert(entry.end(), section.bytes().begin(), section.bytes().end());
      attrs.insert(attrs.end(), entry.begin(), entry.end());
      for (uint64_t id : e.ids) append(ids, id);
    }
    const size_t data_at = ids_at + ids.size();
    const size_t table_at = data_at + data_.size();
    size_t feature_at = table_at + features_.size() * 16;
    std::vector<uint8_t> table, feature_data;
    uint64_t bits[4] = {};
    for (const auto& [bit, bytes] : features_) {
      bits[bit / 64] |= uint64_t{1} << (bit % 64);
      append(table, uint64_t{feature_at + feature_data.size()});
      append(table, uint64_t{bytes.size()});
      feature_data.insert(feature_data.end(), bytes.begin(), bytes.end());
    }
    std::vector<uint8_t> out;
    append(out, uint64_t{0x32454c4946524550ULL});  // "PERFILE2"
    append(out, uint64_t{kHeader});
    append(out, uint64_t{attr_entry});
    append(out, uint64_t{attrs_at});
    append(out, uint64_t{attrs.size()});
    append(out, uint64_t{data_at});
    append(out, uint64_t{data_.size()});
    append(out, uint64_t{0});
    append(out, uint64_t{0});
    for (uint64_t b : bits) append(out, b);
    for (const auto& part : {std::cref(attrs), std::cref(ids), std::cref(data_), std::cref(table),
                             std::cref(feature_data)}) {
      out.insert(out.end(), part.get().begin(), part.get().end());
    }
    return out;
  }

  std::vector<uint8_t> pipe_bytes() const {
    std::vector<uint8_t> out;
    append(out, uint64_t{0x32454c4946524550ULL});
    append(out, uint64_t{16});
    for (const auto& e : events_) {
      std::vector<uint8_t> body = e.attr;
      for (uint64_t id : e.ids) append(body, id);
      const auto r = with_header(kHeaderAttr, 0, body);
      out.insert(out.end(), r.begin(), r.end());
    }
    for (const auto& [bit, bytes] : features_) {
      if (bit == kBuildIdFeature) continue;  // pipe mode: build-ids come as records, if at all
      std::vector<uint8_t> body;
      append(body, uint64_t{bit});
      body.insert(body.end(), bytes.begin(), bytes.end());
      const auto r = with_header(kHeaderFeature, 0, body);
      out.insert(out.end(), r.begin(), r.end());
    }
    out.insert(out.end(), data_.begin(), data_.end());
    return out;
  }

 private:
  struct Event {
    std::vector<uint8_t> attr;
    std::vector<uint64_t> ids;
  };

  size_t attr_bytes() const {
    size_t n = sizeof(perf_event_attr);
    for (const auto& e : events_) n = std::max(n, e.attr.size());
    return n;
  }
  template <typename T>
  static void append(std::vector<uint8_t>& out, T v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), p, p + sizeof v);
  }
  // struct perf_header_string: u32 length (padded to 64 bytes, as perf writes), NUL-terminated.
  static std::vector<uint8_t> header_string(const std::string& s) {
    const uint32_t len = static_cast<uint32_t>((s.size() + 1 + 63) / 64 * 64);
    std::vector<uint8_t> out;
    append(out, len);
    out.insert(out.end(), s.begin(), s.end());
    out.resize(4 + len, 0);
    return out;
  }
  static std::vector<uint8_t> with_header(uint32_t type, uint16_t misc,
                                          const std::vector<uint8_t>& body) {
    std::vector<uint8_t> padded = body;
    padded.resize((padded.size() + 7) / 8 * 8, 0);
    perf_event_header h{};
    h.type = type;
    h.misc = misc;
    h.size = static_cast<uint16_t>(sizeof h + padded.size());
    std::vector<uint8_t> out(reinterpret_cast<const uint8_t*>(&h),
                             reinterpret_cast<const uint8_t*>(&h) + sizeof h);
    out.insert(out.end(), padded.begin(), padded.end());
    return out;
  }

  std::vector<Event> events_;
  std::vector<uint8_t> data_;
  std::map<uint32_t, std::vector<uint8_t>> features_;
};

}  // namespace sprof::test
