#include "sprof/perfdata/file_events.hpp"

#include <algorithm>
#include <cstring>

#include "sprof/core/byte_reader.hpp"

namespace sprof::perfdata {

namespace {

Result<FileEvent> parse_entry(std::span<const uint8_t> entry, size_t index,
                              const std::string& file) {
  const auto malformed = [&](const std::string& what) {
    return fail(Errc::kMalformed,
                file + ": event " + std::to_string(index) + " of the attrs section: " + what);
  };
  FileEvent e;
  uint32_t attr_bytes = 0;
  std::memcpy(&attr_bytes, entry.data() + offsetof(perf_event_attr, size), sizeof attr_bytes);
  if (attr_bytes == 0) attr_bytes = format::kAttrSizeVer0;
  const size_t room = entry.size() - format::kSectionBytes;
  if (attr_bytes < format::kAttrSizeVer0 || attr_bytes > room) {
    return malformed("its perf_event_attr claims " + std::to_string(attr_bytes) +
                     " bytes, the entry has room for " + std::to_string(room));
  }
  e.recorded_attr_bytes = attr_bytes;
  std::memcpy(&e.attr, entry.data(), std::min<size_t>(attr_bytes, sizeof e.attr));
  e.attr.size = static_cast<uint32_t>(std::min<size_t>(attr_bytes, sizeof e.attr));
  return e;
}

}  // namespace

Result<std::vector<FileEvent>> read_file_events(ByteSource& source, const FileHeader& header) {
  // The header checked that the attrs section lies inside the file; bounded by its size.
  SPROF_TRY(std::vector<uint8_t> attrs, read_range(source, header.attrs.offset, header.attrs.size,
                                                   source.size(), "the attrs section"));
  const size_t count = static_cast<size_t>(header.attrs.size / header.attr_entry_bytes);
  std::vector<FileEvent> events;
  uint64_t total_ids = 0;
  for (size_t i = 0; i < count; ++i) {
    const auto entry = std::span<const uint8_t>(attrs).subspan(
        i * header.attr_entry_bytes, static_cast<size_t>(header.attr_entry_bytes));
    SPROF_TRY(FileEvent e, parse_entry(entry, i, source.name()));
    ByteReader r(entry.subspan(entry.size() - format::kSectionBytes));
    const uint64_t ids_offset = r.u64();
    const uint64_t ids_bytes = r.u64();
    total_ids += ids_bytes / 8;
    if (total_ids > kMaxEventIds) {
      return fail(Errc::kTooLarge, source.name() + ": the events claim more than " +
                                       std::to_string(kMaxEventIds) + " ids");
    }
    SPROF_TRY(std::vector<uint8_t> ids,
              read_range(source, ids_offset, ids_bytes / 8 * 8, kMaxEventIds * 8,
                         "the ids of event " + std::to_string(i)));
    e.ids.resize(ids.size() / 8);
    if (!ids.empty()) std::memcpy(e.ids.data(), ids.data(), ids.size());
    events.push_back(std::move(e));
  }
  return events;
}

}  // namespace sprof::perfdata
