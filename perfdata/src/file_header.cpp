#include "sprof/perfdata/file_header.hpp"

#include <cstring>

#include "sprof/core/byte_reader.hpp"

namespace sprof::perfdata {

namespace {

// perf's header before the feature bitmap existed (perf 2.6.3x): accepted, with no features.
constexpr size_t kHeaderWithoutFeatures = 72;
// The smallest attrs entry: perf_event_attr version 0 and the ids section.
constexpr uint64_t kMinAttrEntryBytes = format::kAttrSizeVer0 + format::kSectionBytes;
// Far above any perf_event_attr yet (136 bytes in Linux 6.3): a larger entry is a corrupt header.
constexpr uint64_t kMaxAttrEntryBytes = 4096;

FileSection read_section(ByteReader& r) {
  FileSection s;
  s.offset = r.u64();
  s.size = r.u64();
  return s;
}

Unexpected malformed(const ByteSource& source, const std::string& what) {
  return fail(Errc::kMalformed, source.name() + ": " + what);
}

Result<void> check_magic(const ByteSource& source, std::span<const uint8_t> bytes) {
  if (bytes.empty()) return malformed(source, "the file is empty (0 bytes), not a perf.data file");
  uint64_t magic = 0;
  if (bytes.size() >= sizeof magic) std::memcpy(&magic, bytes.data(), sizeof magic);
  if (magic == format::kMagic) return ok();
  if (magic == format::kMagicSwapped) {
    return fail(Errc::kUnsupported, source.name() +
                                        ": a big-endian perf.data file (recorded on a "
                                        "big-endian machine); sprof reads "
                                        "little-endian files only");
  }
  if (magic == format::kMagicVersion1) {
    return fail(Errc::kUnsupported,
                source.name() +
                    ": a version-1 perf.data file (\"PERFFILE\", perf before 2011); "
                    "sprof reads version 2 (\"PERFILE2\")");
  }
  return malformed(source, "not a perf.data file (it does not start with \"PERFILE2\")");
}

}  // namespace

Result<FileHeader> read_file_header(ByteSource& source) {
  std::vector<uint8_t> bytes(
      static_cast<size_t>(std::min<uint64_t>(source.size(), format::kFileHeaderBytes)));
  SPROF_TRY_VOID(source.read(0, bytes));
  SPROF_TRY_VOID(check_magic(source, bytes));
  ByteReader r(bytes);
  r.skip(8);
  const uint64_t header_size = r.u64();
  if (r.ok() && header_size == format::kPipeHeaderBytes) {
    // Pipe mode: records right after the magic; attrs and features come as records.
    FileHeader h;
    h.pipe_mode = true;
    h.data = FileSection{format::kPipeHeaderBytes, source.size() - format::kPipeHeaderBytes};
    return h;
  }
  if (!r.ok() ||
      (header_size != format::kFileHeaderBytes && header_size != kHeaderWithoutFeatures) ||
      bytes.size() < header_size) {
    return malformed(source, "the file header is cut short or of unknown size (" +
                                 std::to_string(header_size) + " bytes)");
  }

  FileHeader h;
  h.attr_entry_bytes = r.u64();
  h.attrs = read_section(r);
  const FileSection data = read_section(r);
  read_section(r);  // event_types: unused since perf 3.x
  if (header_size == format::kFileHeaderBytes) {
    for (size_t word = 0; word < format::kFeatureBits / 64; ++word) {
      const uint64_t bits = r.u64();
      for (size_t bit = 0; bit < 64; ++bit) h.features[word * 64 + bit] = ((bits >> bit) & 1) != 0;
    }
  }
  if (!r.ok()) return malformed(source, "the file header is cut short");

  if (h.attr_entry_bytes < kMinAttrEntryBytes || h.attr_entry_bytes > kMaxAttrEntryBytes) {
    return malformed(source, "the size of an attrs entry (" + std::to_string(h.attr_entry_bytes) +
                                 " bytes) is not one perf writes");
  }
  if (h.attrs.size < h.attr_entry_bytes ||
      !range_within(h.attrs.offset, h.attrs.size, source.size())) {
    return malformed(source, "the attrs section (bytes " + std::to_string(h.attrs.offset) + "+" +
                                 std::to_string(h.attrs.size) +
                                 ") holds no event or runs past the end of the file");
  }

  const uint64_t file_size = source.size();
  if (data.offset > file_size) {
    return malformed(source, "the data section starts at byte " + std::to_string(data.offset) +
                                 ", past the end of the file (" + std::to_string(file_size) +
                                 " bytes)");
  }
  h.data = data;
  h.feature_table_offset = data.offset + data.size;
  const uint64_t available = file_size - data.offset;
  if (data.size == 0 && available > 0) {
    // perf writes the header again when it finishes; a perf that was killed leaves size 0.
    h.data.size = available;
    h.features.reset();
    h.notes.push_back("the header says the data section is empty but " + std::to_string(available) +
                      " bytes follow it (perf record did not finish?); they were read");
  } else if (data.size > available) {
    h.data.size = available;
    h.notes.push_back("the file is truncated: the data section should have " +
                      std::to_string(data.size) + " bytes, " + std::to_string(available) +
                      " are there; the records in them were read, the feature sections "
                      "(build-ids, host, command line) are missing");
    h.features.reset();
  }
  return h;
}

}  // namespace sprof::perfdata
