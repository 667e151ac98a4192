#include "sprof/perfdata/recorded_build_ids.hpp"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstring>

#include "sprof/core/byte_reader.hpp"
#include "sprof/elf/kernel_image.hpp"
#include "sprof/perfdata/perf_file_format.hpp"

namespace sprof::perfdata {

std::optional<RecordedBuildId> parse_build_id_entry(std::span<const uint8_t> record) {
  ByteReader r(record);
  perf_event_header h{};
  if (!r.read(h) || h.size < format::kBuildIdRecordFixedBytes + 1 || h.size > record.size()) {
    return std::nullopt;
  }
  const uint16_t cpumode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
  if (cpumode != PERF_RECORD_MISC_KERNEL && cpumode != PERF_RECORD_MISC_USER) return std::nullopt;
  r.skip(4);  // pid: -1 (the host) in every entry perf writes for the host
  const auto id_bytes = r.bytes(format::kBuildIdMaxBytes);
  size_t id_size = format::kBuildIdMaxBytes;
  const uint8_t stated_size = r.u8();
  // Before perf 5.11 the size was not recorded: the 20 bytes of a SHA-1 build-id.
  if ((h.misc & format::kBuildIdSizeMisc) != 0) id_size = std::min<size_t>(stated_size, id_size);
  r.skip(3);
  if (!r.ok() || id_size == 0) return std::nullopt;
  const auto name =
      record.subspan(format::kBuildIdRecordFixedBytes, h.size - format::kBuildIdRecordFixedBytes);
  const auto* chars = reinterpret_cast<const char*>(name.data());
  RecordedBuildId entry;
  entry.path.assign(chars, strnlen(chars, name.size()));
  if (entry.path.empty()) return std::nullopt;
  const auto id = id_bytes.first(id_size);
  entry.build_id = BuildId(std::vector<uint8_t>(id.begin(), id.end()));
  entry.kernel = cpumode == PERF_RECORD_MISC_KERNEL;
  return entry;
}

void RecordedBuildIds::add(RecordedBuildId entry) {
  auto& ids = by_path_[entry.path];
  if (std::find(ids.begin(), ids.end(), entry.build_id) == ids.end()) {
    ids.push_back(std::move(entry.build_id));
  }
}

const std::vector<BuildId>* RecordedBuildIds::find(const std::string& path) const {
  const auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : &it->second;
}

std::optional<BuildId> RecordedBuildIds::kernel() const {
  const auto* ids = find(std::string(elf::kKernelDebugName));
  if (ids == nullptr || ids->empty()) return std::nullopt;
  return ids->front();
}

}  // namespace sprof::perfdata
