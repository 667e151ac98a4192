// sprof/perfdata/perf_file_format.hpp
//
// The perf.data file format as perf writes it (tools/perf/Documentation/perf.data-file-format.txt
// in the kernel tree, and perf 6.1's files on this machine): the facts sprof's reader needs,
// written down once. All fields are in the byte order of the machine that recorded (sprof reads
// little-endian files only, like the x86-64 machines it runs on).
//
//   file header (104 bytes): magic "PERFILE2", header size, size of one attrs entry, and three
//     sections {offset, size}: attrs, data, event_types (unused); then a 256-bit feature bitmap.
//   attrs: entries of `attr_size` bytes, each a perf_event_attr (its own `size` field says how
//     much of it the writer knew) followed by a section {offset, size} of the event's u64 ids.
//   data: perf records, the kernel's (PERF_RECORD_SAMPLE, MMAP2, ...) and perf's own (types 64
//     and up, below), each starting with a perf_event_header whose `size` covers the record.
//   features: right after the data section, one section {offset, size} per bit set in the
//     bitmap, in bit order, each pointing at that feature's bytes.
//
// A pipe-mode file (`perf record -o -`) has a 16-byte header and carries attrs and features as
// records instead; sprof reads file mode only and says so.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sprof::perfdata::format {

// "PERFILE2" read as a little-endian u64; the byte-swapped value means a big-endian file.
inline constexpr uint64_t kMagic = 0x32454c4946524550ULL;
inline constexpr uint64_t kMagicSwapped = 0x50455246494c4532ULL;
// "PERFFILE": the version-1 format of perfs before 2011.
inline constexpr uint64_t kMagicVersion1 = 0x454c494646524550ULL;

inline constexpr size_t kFileHeaderBytes = 104;  // magic .. feature bitmap
inline constexpr size_t kPipeHeaderBytes = 16;   // magic, size
inline constexpr size_t kSectionBytes = 16;      // struct perf_file_section
inline constexpr size_t kFeatureBits = 256;

// perf_event_attr's first published size (PERF_ATTR_SIZE_VER0): an attr never has fewer bytes;
// `size` 0 in a file means this size.
inline constexpr uint32_t kAttrSizeVer0 = 64;

// Feature bits (enum in tools/perf/util/header.h).
namespace feature {
enum : uint32_t {
  kTracingData = 1,
  kBuildId = 2,
  kHostname = 3,
  kOsRelease = 4,
  kVersion = 5,
  kArch = 6,
  kNrCpus = 7,
  kCpuDesc = 8,
  kCpuId = 9,
  kTotalMem = 10,
  kCmdline = 11,
  kEventDesc = 12,
  kCpuTopology = 13,
  kNumaTopology = 14,
  kBranchStack = 15,
  kPmuMappings = 16,
  kGroupDesc = 17,
  kAuxtrace = 18,
  kStat = 19,
  kCache = 20,
  kSampleTime = 21,
  kMemTopology = 22,
  kClockId = 23,
  kDirFormat = 24,
  kBpfProgInfo = 25,
  kBpfBtf = 26,
  kCompressed = 27,
  kCpuPmuCaps = 28,
  kClockData = 29,
  kHybridTopology = 30,
  kPmuCaps = 31,
};
}  // namespace feature

// Record types perf itself writes into the data section (enum perf_user_event_type in
// tools/lib/perf/include/perf/event.h); the kernel's types are below 64.
namespace record {
enum : uint32_t {
  kHeaderAttr = 64,
  kHeaderEventType = 65,
  kHeaderTracingData = 66,  // pipe mode; `size` bytes of tracing data follow the record
  kHeaderBuildId = 67,
  kFinishedRound = 68,
  kIdIndex = 69,
  kAuxtraceInfo = 70,
  kAuxtrace = 71,  // `size` (the u64 after the header) bytes of AUX data follow the record
  kAuxtraceError = 72,
  kThreadMap = 73,
  kCpuMap = 74,
  kStatConfig = 75,
  kStat = 76,
  kStatRound = 77,
  kEventUpdate = 78,
  kTimeConv = 79,
  kHeaderFeature = 80,
  kCompressed = 81,
  kFinishedInit = 82,
};
}  // namespace record

// "FINISHED_INIT" for kFinishedInit; nullptr for a type perf does not define.
inline const char* user_record_name(uint32_t type) {
  static constexpr const char* kNames[] = {"HEADER_ATTR",
                                           "HEADER_EVENT_TYPE",
                                           "HEADER_TRACING_DATA",
                                           "HEADER_BUILD_ID",
                                           "FINISHED_ROUND",
                                           "ID_INDEX",
                                           "AUXTRACE_INFO",
                                           "AUXTRACE",
                                           "AUXTRACE_ERROR",
                                           "THREAD_MAP",
                                           "CPU_MAP",
                                           "STAT_CONFIG",
                                           "STAT",
                                           "STAT_ROUND",
                                           "EVENT_UPDATE",
                                           "TIME_CONV",
                                           "HEADER_FEATURE",
                                           "COMPRESSED",
                                           "FINISHED_INIT"};
  if (type < record::kHeaderAttr || type > record::kFinishedInit) return nullptr;
  return kNames[type - record::kHeaderAttr];
}

// struct perf_record_header_build_id (HEADER_BUILD_ID entries and records): header (8), pid
// (s32), build_id[20] + size (u8, valid with kBuildIdSizeMisc) + 3 reserved, filename
// NUL-terminated and padded.
inline constexpr size_t kBuildIdRecordFixedBytes = 8 + 4 + 24;
inline constexpr size_t kBuildIdMaxBytes = 20;
inline constexpr uint16_t kBuildIdSizeMisc = 1u << 15;  // PERF_RECORD_MISC_BUILD_ID_SIZE

}  // namespace sprof::perfdata::format
