// Fuzz target: a Gecko profile as `sprof load` and `sprof symbolicate` read it (any JSON file a
// user names): the overview (format, the page's summary, the libs' locations),
// the format check, and the reader back into the profile model. A profile the reader accepts must
// be one the writer and the presymbolication pass can handle.
#include "sprof/profile/gecko_writer.hpp"
#include "sprof/profile/native_symbols.hpp"
#include "sprof/profile/profile_overview.hpp"
#include "sprof/profile/profile_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  (void)sprof::profile::read_profile_overview(json);
  (void)sprof::profile::detect_profile_format(json);
  if (auto profile = sprof::profile::read_gecko_json(json)) {
    (void)sprof::profile::native_addresses(*profile);
    (void)sprof::profile::gecko_json_string(*profile);
  }
  return 0;
}
