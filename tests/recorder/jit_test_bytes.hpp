// Builds jitdump files byte by byte for tests (format: tools/perf/Documentation/
// jitdump-specification.txt), host byte order like a real JIT writes them.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace sprof::test {

class JitDumpWriter {
 public:
  JitDumpWriter() {
    put<uint32_t>(0x4A695444);  // magic 'JiTD'
    put<uint32_t>(1);           // version
    put<uint32_t>(40);          // total_size of the header
    put<uint32_t>(62);          // elf_mach: EM_X86_64
    put<uint32_t>(0);           // pad1
    put<uint32_t>(1234);        // pid
    put<uint64_t>(1);           // timestamp
    put<uint64_t>(0);           // flags
  }

  // A record with its 16-byte header {id, total_size, timestamp} in front of `body`.
  void record(uint32_t id, const std::vector<uint8_t>& body) {
    put<uint32_t>(id);
    put<uint32_t>(static_cast<uint32_t>(16 + body.size()));
    put<uint64_t>(2);
    bytes_.insert(bytes_.end(), body.begin(), body.end());
  }

  // JIT_CODE_LOAD: pid, tid, vma, code_addr, code_size, code_index, name\0, code bytes.
  void code_load(uint64_t addr, uint64_t size, uint64_t index, const std::string& name) {
    std::vector<uint8_t> body;
    append<uint32_t>(body, 1234);
    append<uint32_t>(body, 1235);
    append<uint64_t>(body, addr);
    append<uint64_t>(body, addr);
    append<uint64_t>(body, size);
    append<uint64_t>(body, index);
    body.insert(body.end(), name.begin(), name.end());
    body.push_back(0);
    body.insert(body.end(), size, 0x90);  // the code: nops
    record(0, body);
  }

  // JIT_CODE_MOVE: pid, tid, vma, old_code_addr, new_code_addr, code_size, code_index.
  void code_move(uint64_t old_addr, uint64_t new_addr, uint64_t size, uint64_t index) {
    std::vector<uint8_t> body;
    append<uint32_t>(body, 1234);
    append<uint32_t>(body, 1235);
    append<uint64_t>(body, new_addr);
    append<uint64_t>(body, old_addr);
    append<uint64_t>(body, new_addr);
    append<uint64_t>(body, size);
    append<uint64_t>(body, index);
    record(1, body);
  }

  struct LineEntry {
    uint64_t addr;
    uint32_t line;
    std::string file;  // "\xff": the previous entry's file (perf's JVMTI agent)
  };
  // JIT_CODE_DEBUG_INFO: code_addr, nr_entry, then {code_addr, line, discrim, file\0} each.
  // `nr_entry` defaults to the number of `entries`; a test may lie.
  void debug_info(uint64_t code_addr, const std::vector<LineEntry>& entries,
                  std::optional<uint64_t> nr_entry = std::nullopt) {
    std::vector<uint8_t> body;
    append<uint64_t>(body, code_addr);
    append<uint64_t>(body, nr_entry.value_or(entries.size()));
    for (const LineEntry& e : entries) {
      append<uint64_t>(body, e.addr);
      append<uint32_t>(body, e.line);
      append<uint32_t>(body, 0);  // discrim
      body.insert(body.end(), e.file.begin(), e.file.end());
      body.push_back(0);
    }
    record(2, body);
  }

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::string text() const { return std::string(bytes_.begin(), bytes_.end()); }

 private:
  template <typename T>
  static void append(std::vector<uint8_t>& out, T v) {
    uint8_t b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    out.insert(out.end(), b, b + sizeof v);
  }
  template <typename T>
  void put(T v) {
    append(bytes_, v);
  }

  std::vector<uint8_t> bytes_;
};

}  // namespace sprof::test
