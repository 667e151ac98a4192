// heap/src/reader/heap_dump.cpp
#include "sprof/heap/heap_dump.hpp"

#include <cstddef>
#include <cstring>
#include <string>

#include "sprof/heap/record_decoder.hpp"

namespace sprof::heap {

std::vector<uint8_t> encode_dump_prefix(const RingHeader& header) {
  std::vector<uint8_t> out(sizeof(DumpPrefix) + sizeof(RingHeader));
  const DumpPrefix prefix{kDumpMagic, kDumpVersion, 0};
  std::memcpy(out.data(), &prefix, sizeof prefix);
  std::memcpy(out.data() + sizeof prefix, &header, sizeof header);
  return out;
}

Result<HeapDump> parse_heap_dump(std::span<const uint8_t> bytes) {
  if (bytes.size() < sizeof(DumpPrefix) + sizeof(RingHeader))
    return fail(Errc::kMalformed,
                "heap dump: " + std::to_string(bytes.size()) + " bytes is shorter than its header");
  DumpPrefix prefix;
  std::memcpy(&prefix, bytes.data(), sizeof prefix);
  if (prefix.magic != kDumpMagic) return fail(Errc::kMalformed, "heap dump: bad magic");
  if (prefix.version != kDumpVersion)
    return fail(Errc::kMalformed, "heap dump: unknown version " + std::to_string(prefix.version));
  HeapDump dump{};
  std::memcpy(&dump.header, bytes.data() + sizeof prefix, sizeof dump.header);
  const RingConfig& c = dump.header.config;
  // The dump holds no data area; check the configuration as if it had one.
  const uint64_t area = c.data_bytes <= kMaxDataBytes ? uint64_t{c.header_bytes} + c.data_bytes : 0;
  if (const char* problem = ring_config_problem(c, area))
    return fail(Errc::kMalformed, std::string("heap dump: ") + problem);
  dump.records = bytes.subspan(sizeof prefix + sizeof(RingHeader));
  return dump;
}

std::optional<std::span<const uint8_t>> front_record(std::span<const uint8_t> records) {
  RecordHeader h;
  if (records.size() < sizeof h) return std::nullopt;
  std::memcpy(&h, records.data(), sizeof h);
  if (h.size < sizeof h || h.size % kRecordAlign != 0 || h.size > records.size())
    return std::nullopt;
  return records.first(h.size);
}

Result<void> for_each_dump_record(const HeapDump& dump,
                                  const std::function<void(const HeapEvent&)>& visit,
                                  DumpReadStats& stats) {
  const DecodeLimits limits{dump.header.config.stack_copy_bytes};
  std::span<const uint8_t> rest = dump.records;
  while (!rest.empty()) {
    const std::optional<std::span<const uint8_t>> record = front_record(rest);
    if (!record) {
      if (rest.size() < sizeof(RecordHeader))
        return fail(Errc::kMalformed, "heap dump: truncated record header at the end");
      uint32_t size = 0;
      std::memcpy(&size, rest.data() + offsetof(RecordHeader, size), sizeof size);
      return fail(Errc::kMalformed, "heap dump: record size " + std::to_string(size) +
                                        " cannot be framed (" + std::to_string(rest.size()) +
                                        " bytes left)");
    }
    auto event = decode_record(*record, limits);
    if (event) {
      ++stats.records;
      visit(*event);
    } else {
      ++stats.malformed_records;
    }
    rest = rest.subspan(record->size());
  }
  return ok();
}

}  // namespace sprof::heap
