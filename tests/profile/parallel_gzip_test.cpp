#include "parallel_gzip.hpp"

#include <doctest/doctest.h>
#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

using sprof::Errc;
using sprof::Error;
using sprof::Result;
using sprof::profile::detail::ParallelGzip;

namespace {

// JSON-like text (compresses, with matches that reach across blocks) with a pseudo-random
// number in each record so that no two blocks are alike.
std::string sample_input(size_t size) {
  std::string out;
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  while (out.size() < size) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    out += "{\"stack\":" + std::to_string(state >> 40) + ",\"time\":" + std::to_string(out.size()) +
           "},";
  }
  out.resize(size);
  return out;
}

// Bytes that deflate cannot shrink, so blocks come out larger than they went in.
std::string random_bytes(size_t size) {
  std::string out(size, '\0');
  uint64_t state = 1;
  for (auto& c : out) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    c = static_cast<char>(state);
  }
  return out;
}

// Compresses `input`, fed in pieces of `piece` bytes (0: one write).
std::string gzip(const std::string& input, unsigned threads, size_t block_size, size_t piece) {
  std::string out;
  ParallelGzip gz(
      [&](std::string_view bytes) -> Result<void> {
        out += bytes;
        return sprof::ok();
      },
      {.threads = threads, .block_size = block_size});
  CHECK(gz.threads() == threads);
  if (piece == 0) piece = input.size() + 1;
  for (size_t at = 0; at < input.size(); at += piece) {
    REQUIRE(gz.write(std::string_view(input).substr(at, piece)).has_value());
  }
  REQUIRE(gz.finish().has_value());
  return out;
}

struct Inflated {
  std::string data;
  bool stream_end = false;
  size_t unused_input = 0;  // bytes after the end of the first gzip member
};

// zlib's inflate in gzip-only mode (windowBits 15 + 16), which checks the header, the CRC-32
// and ISIZE in the trailer, and stops at the end of the first member.
Inflated gunzip(const std::string& bytes) {
  Inflated result;
  z_stream stream{};
  REQUIRE(inflateInit2(&stream, 15 + 16) == Z_OK);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  char buffer[1 << 15];
  for (;;) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    const int rc = inflate(&stream, Z_NO_FLUSH);
    result.data.append(buffer, sizeof buffer - stream.avail_out);
    if (rc == Z_STREAM_END) {
      result.stream_end = true;
      break;
    }
    if (rc != Z_OK) break;  // corrupt, a CRC or length mismatch, or truncated (Z_BUF_ERROR)
  }
  result.unused_input = stream.avail_in;
  inflateEnd(&stream);
  return result;
}

uint32_t le32(const std::string& bytes, size_t at) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) {
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return value;
}

void check_round_trip(const std::string& input, unsigned threads, size_t block_size, size_t piece) {
  CAPTURE(input.size());
  CAPTURE(threads);
  CAPTURE(block_size);
  CAPTURE(piece);
  const std::string out = gzip(input, threads, block_size, piece);
  const Inflated inflated = gunzip(out);
  CHECK(inflated.stream_end);
  CHECK(inflated.unused_input == 0);  // one member, nothing behind it
  CHECK(inflated.data == input);
  // The trailer, checked here too and not only by inflate.
  REQUIRE(out.size() >= 18);
  const uint32_t crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(input.data()), static_cast<uInt>(input.size())));
  CHECK(le32(out, out.size() - 8) == crc);
  CHECK(le32(out, out.size() - 4) == static_cast<uint32_t>(input.size()));
}

}  // namespace

TEST_CASE("parallel gzip round-trips inputs below, at and across block boundaries") {
  constexpr size_t kBlock = 4096;
  const std::string text = sample_input(5 * kBlock + 100);
  for (unsigned threads : {0U, 1U, 3U}) {
    for (size_t size : {size_t{0}, size_t{1}, kBlock - 1, kBlock, kBlock + 1, 2 * kBlock,
                        3 * kBlock + 17, 5 * kBlock + 100}) {
      // One write, pieces smaller than a block, and pieces that straddle block boundaries.
      for (size_t piece : {size_t{0}, size_t{1000}, size_t{kBlock + 333}}) {
        check_round_trip(text.substr(0, size), threads, kBlock, piece);
      }
    }
  }
}

TEST_CASE("parallel gzip round-trips incompressible input and the default block size") {
  for (unsigned threads : {0U, 2U}) {
    check_round_trip(random_bytes(3 * 4096 + 5), threads, 4096, 1000);
    check_round_trip(sample_input((size_t{5} << 20) / 2), threads, size_t{1} << 20, 65536);
  }
}

TEST_CASE("parallel gzip writes zlib's header for level 1 and compresses") {
  const std::string input = sample_input(100000);
  const std::string out = gzip(input, 2, 8192, 0);
  // 1f 8b, deflate, no flags, mtime 0, XFL 4 ("fastest"), OS 3 (Unix): the 10 bytes zlib's own
  // gzip wrapper writes at level 1.
  REQUIRE(out.size() > 10);
  CHECK(out.substr(0, 10) == std::string("\x1f\x8b\x08\0\0\0\0\0\x04\x03", 10));
  CHECK(out.size() < input.size() / 3);
}

TEST_CASE("an empty input gives an empty gzip member") {
  const std::string out = gzip("", 1, 4096, 0);
  const Inflated inflated = gunzip(out);
  CHECK(inflated.stream_end);
  CHECK(inflated.data.empty());
  CHECK(le32(out, out.size() - 8) == 0);
  CHECK(le32(out, out.size() - 4) == 0);
}

TEST_CASE("parallel gzip output does not depend on the number of threads") {
  const std::string input = sample_input(20 * 4096 + 7);
  const std::string one = gzip(input, 1, 4096, 3000);
  CHECK(gzip(input, 0, 4096, 3000) == one);
  CHECK(gzip(input, 4, 4096, 3000) == one);
  CHECK(gzip(input, 4, 4096, 0) == one);
}

TEST_CASE("an output error stops compression and comes back from write or finish") {
  for (unsigned threads : {0U, 2U}) {
    CAPTURE(threads);
    for (int fail_at : {0, 1, 3}) {  // the header, the first block, a later block or the trailer
      CAPTURE(fail_at);
      int calls = 0;
      int calls_after_error = 0;
      ParallelGzip gz(
          [&](std::string_view) -> Result<void> {
            if (calls++ >= fail_at) {
              if (calls - 1 > fail_at) ++calls_after_error;
              return sprof::fail(Errc::kIo, "write /x: No space left on device");
            }
            return sprof::ok();
          },
          {.threads = threads, .block_size = 1024});
      const std::string input = random_bytes(4 * 1024);
      Result<void> result = sprof::ok();
      for (size_t at = 0; at < input.size() && result; at += 500) {
        result = gz.write(std::string_view(input).substr(at, 500));
      }
      if (result) result = gz.finish();
      REQUIRE_FALSE(result.has_value());
      CHECK(result.error().code == Errc::kIo);
      CHECK(result.error().message == "write /x: No space left on device");
      CHECK(calls_after_error == 0);
      // Later calls repeat the error rather than writing on.
      CHECK_FALSE(gz.write("more").has_value());
    }
  }
}
