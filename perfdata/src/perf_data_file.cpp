#include "sprof/perfdata/perf_data_file.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>

#include "sprof/core/byte_reader.hpp"

namespace sprof::perfdata {

namespace {

// perf writes a few dozen records before the first kernel record; a file whose "prologue" goes
// on much longer is not what it claims.
constexpr size_t kMaxPrologueRecords = 1u << 16;

// PERF_RECORD_HEADER_ATTR: the header, a perf_event_attr of its own `size`, then the ids.
Result<FileEvent> parse_attr_record(std::span<const uint8_t> record, const std::string& file) {
  const auto body = record.subspan(sizeof(perf_event_header));
  FileEvent e;
  uint32_t attr_bytes = 0;
  if (body.size() >= offsetof(perf_event_attr, size) + sizeof attr_bytes) {
    std::memcpy(&attr_bytes, body.data() + offsetof(perf_event_attr, size), sizeof attr_bytes);
  }
  if (attr_bytes == 0) attr_bytes = format::kAttrSizeVer0;
  if (attr_bytes > body.size()) {
    return fail(Errc::kMalformed, file + ": a PERF_RECORD_HEADER_ATTR is shorter than its attr");
  }
  e.recorded_attr_bytes = attr_bytes;
  std::memcpy(&e.attr, body.data(), std::min<size_t>(attr_bytes, sizeof e.attr));
  e.attr.size = static_cast<uint32_t>(std::min<size_t>(attr_bytes, sizeof e.attr));
  const auto ids = body.subspan(attr_bytes);
  e.ids.resize(ids.size() / 8);
  if (!e.ids.empty()) std::memcpy(e.ids.data(), ids.data(), e.ids.size() * 8);
  return e;
}

// Reads the pipe-mode records before the first kernel record: events and features.
Result<void> read_pipe_prologue(ByteSource& source, PerfDataFile& file) {
  uint64_t at = file.header.data.offset;
  const uint64_t end = at + file.header.data.size;
  std::vector<uint8_t> record;
  for (size_t n = 0; n < kMaxPrologueRecords && end - at >= sizeof(perf_event_header); ++n) {
    perf_event_header h{};
    SPROF_TRY_VOID(source.read(at, std::span<uint8_t>(reinterpret_cast<uint8_t*>(&h), sizeof h)));
    if (h.type < format::record::kHeaderAttr) break;  // the kernel's records start
    if (h.size < sizeof h || h.size > end - at) {
      return fail(Errc::kMalformed, source.name() + ": the record at byte " + std::to_string(at) +
                                        " has an impossible size (" + std::to_string(h.size) + ")");
    }
    uint64_t payload = 0;  // bytes that follow the record without being part of it
    if (h.type == format::record::kHeaderAttr || h.type == format::record::kHeaderFeature ||
        h.type == format::record::kHeaderTracingData) {
      SPROF_TRY(record, read_range(source, at, h.size, h.size, "a pipe-mode record"));
      ByteReader r(std::span<const uint8_t>(record).subspan(sizeof h));
      if (h.type == format::record::kHeaderAttr) {
        SPROF_TRY(FileEvent e, parse_attr_record(record, source.name()));
        file.events.push_back(std::move(e));
      } else if (h.type == format::record::kHeaderFeature) {
        const uint64_t bit = r.u64();
        if (r.ok() && bit < format::kFeatureBits) {
          read_feature_bytes(static_cast<uint32_t>(bit),
                             record.size() > 16 ? std::span<const uint8_t>(record).subspan(16)
                                                : std::span<const uint8_t>(),
                             file.features);
        }
      } else {
        payload = r.u32();
      }
    }
    at += h.size;
    if (payload > end - at) break;
    at += payload;
  }
  if (file.events.empty()) {
    return fail(Errc::kMalformed,
                source.name() +
                    ": a pipe-mode perf.data without PERF_RECORD_HEADER_ATTR records "
                    "(no events)");
  }
  return ok();
}

}  // namespace

Result<PerfDataFile> open_perf_data(ByteSource& source) {
  PerfDataFile file;
  SPROF_TRY(file.header, read_file_header(source));
  if (file.header.pipe_mode) {
    SPROF_TRY_VOID(read_pipe_prologue(source, file));
    return file;
  }
  SPROF_TRY(file.events, read_file_events(source, file.header));
  if (file.events.empty()) return fail(Errc::kMalformed, source.name() + ": no events");
  file.features = read_file_features(source, file.header);
  return file;
}

}  // namespace sprof::perfdata
