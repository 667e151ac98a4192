#include "sprof/perfdata/file_features.hpp"

#include <linux/perf_event.h>

#include <cstring>

#include "sprof/core/byte_reader.hpp"

namespace sprof::perfdata {

namespace {

// No feature sprof reads is near this size (a system-wide recording's build-id list is tens of
// KB); tracing data, which can be, is never read.
constexpr uint64_t kMaxFeatureBytes = 64ull << 20;

// struct perf_header_string: u32 len, then `len` bytes holding a NUL-terminated string.
std::string read_string(ByteReader& r) {
  const uint32_t len = r.u32();
  const auto bytes = r.bytes(len);
  if (bytes.empty()) return {};  // also a failed read: no pointer to look at
  const auto* chars = reinterpret_cast<const char*>(bytes.data());
  return std::string(chars, strnlen(chars, bytes.size()));
}

// struct perf_header_string_list: u32 nr, then nr strings.
std::vector<std::string> read_string_list(ByteReader& r) {
  const uint32_t nr = r.u32();
  std::vector<std::string> out;
  // Each string takes at least its u32 length: `nr` cannot make us loop past the bytes.
  for (uint32_t i = 0; i < nr && r.ok() && r.remaining() >= 4; ++i) out.push_back(read_string(r));
  if (out.size() != nr) r.skip(r.remaining() + 1);
  return out;
}

void read_event_desc(ByteReader& r, FileFeatures& f) {
  const uint32_t nr = r.u32();
  const uint32_t attr_bytes = r.u32();
  for (uint32_t i = 0; i < nr && r.ok(); ++i) {
    r.skip(attr_bytes);
    const uint32_t nr_ids = r.u32();
    f.event_names.push_back(read_string(r));
    if (nr_ids > r.remaining() / 8) {
      r.skip(r.remaining() + 1);
      break;
    }
    r.skip(size_t{nr_ids} * 8);
  }
}

void read_build_ids(std::span<const uint8_t> bytes, FileFeatures& f) {
  size_t pos = 0;
  while (bytes.size() - pos >= sizeof(perf_event_header)) {
    perf_event_header h{};
    std::memcpy(&h, bytes.data() + pos, sizeof h);
    if (h.size < sizeof h || h.size > bytes.size() - pos) {
      f.unreadable.push_back("HEADER_BUILD_ID: an entry runs past the section; the rest skipped");
      return;
    }
    if (auto entry = parse_build_id_entry(bytes.subspan(pos, h.size))) {
      f.build_ids.push_back(std::move(*entry));
    }
    pos += h.size;
  }
}

// Decodes the feature `bit` from its bytes; false when they do not parse.
bool read_feature(uint32_t bit, std::span<const uint8_t> bytes, FileFeatures& f) {
  ByteReader r(bytes);
  switch (bit) {
    case format::feature::kHostname: f.hostname = read_string(r); break;
    case format::feature::kOsRelease: f.os_release = read_string(r); break;
    case format::feature::kVersion: f.perf_version = read_string(r); break;
    case format::feature::kArch: f.arch = read_string(r); break;
    case format::feature::kCpuDesc: f.cpu_desc = read_string(r); break;
    case format::feature::kNrCpus:
      f.cpus_available = r.u32();
      f.cpus_online = r.u32();
      break;
    case format::feature::kCmdline: f.command_line = read_string_list(r); break;
    case format::feature::kEventDesc: read_event_desc(r, f); break;
    case format::feature::kSampleTime:
      f.first_sample_ns = r.u64();
      f.last_sample_ns = r.u64();
      if (!r.ok()) f.first_sample_ns = f.last_sample_ns = std::nullopt;
      break;
    case format::feature::kClockData: {
      ClockReference c;
      const uint32_t version = r.u32();
      c.clockid = static_cast<int32_t>(r.u32());
      c.wall_ns = r.u64();
      c.clock_ns = r.u64();
      if (r.ok() && version == 1) f.clock = c;
      break;
    }
    case format::feature::kCompressed: f.compressed = true; break;
    case format::feature::kBuildId: read_build_ids(bytes, f); break;
    default: break;
  }
  return r.ok();
}

const char* feature_name(uint32_t bit) {
  switch (bit) {
    case format::feature::kBuildId: return "HEADER_BUILD_ID";
    case format::feature::kHostname: return "HEADER_HOSTNAME";
    case format::feature::kOsRelease: return "HEADER_OSRELEASE";
    case format::feature::kVersion: return "HEADER_VERSION";
    case format::feature::kArch: return "HEADER_ARCH";
    case format::feature::kNrCpus: return "HEADER_NRCPUS";
    case format::feature::kCpuDesc: return "HEADER_CPUDESC";
    case format::feature::kCmdline: return "HEADER_CMDLINE";
    case format::feature::kEventDesc: return "HEADER_EVENT_DESC";
    case format::feature::kSampleTime: return "HEADER_SAMPLE_TIME";
    case format::feature::kClockData: return "HEADER_CLOCK_DATA";
    case format::feature::kCompressed: return "HEADER_COMPRESSED";
    default: return "a feature";
  }
}

bool is_read(uint32_t bit) {
  switch (bit) {
    case format::feature::kBuildId:
    case format::feature::kHostname:
    case format::feature::kOsRelease:
    case format::feature::kVersion:
    case format::feature::kArch:
    case format::feature::kNrCpus:
    case format::feature::kCpuDesc:
    case format::feature::kCmdline:
    case format::feature::kEventDesc:
    case format::feature::kSampleTime:
    case format::feature::kClockData:
    case format::feature::kCompressed: return true;
    default: return false;
  }
}

}  // namespace

FileFeatures read_file_features(ByteSource& source, const FileHeader& header) {
  FileFeatures f;
  if (header.features.none()) return f;
  // One {offset, size} per set bit, in bit order.
  const uint64_t table_bytes = header.features.count() * format::kSectionBytes;
  auto table = read_range(source, header.feature_table_offset, table_bytes, table_bytes,
                          "the feature table");
  if (!table) {
    f.unreadable.push_back(table.error().message);
    return f;
  }
  ByteReader t(*table);
  for (uint32_t bit = 0; bit < format::kFeatureBits; ++bit) {
    if (!header.features[bit]) continue;
    const uint64_t offset = t.u64();
    const uint64_t size = t.u64();
    if (!is_read(bit)) continue;
    auto bytes = read_range(source, offset, size, kMaxFeatureBytes, feature_name(bit));
    if (!bytes) {
      f.unreadable.push_back(bytes.error().message);
      continue;
    }
    read_feature_bytes(bit, *bytes, f);
  }
  return f;
}

void read_feature_bytes(uint32_t bit, std::span<const uint8_t> bytes, FileFeatures& features) {
  if (!is_read(bit)) return;
  if (!read_feature(bit, bytes, features)) {
    features.unreadable.push_back(std::string(feature_name(bit)) + ": cut short or malformed");
  }
}

std::string joined_command_line(const FileFeatures& features) {
  std::string out;
  for (const auto& arg : features.command_line) {
    if (!out.empty()) out += ' ';
    out += arg;
  }
  return out;
}

}  // namespace sprof::perfdata
