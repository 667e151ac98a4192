#include "sprof/report/load.hpp"

#include "sprof/presymbolicate/presymbolicate.hpp"
#include "sprof/profile/processed_writer.hpp"

namespace sprof::report {

Result<ReportProfile> report_profile_from_gecko(const profile::Profile& profile,
                                                symbolicator::Symbolicator& symbolicator,
                                                const ReadOptions& options) {
  const presymbolicate::Presymbolication named =
      presymbolicate::presymbolicate(profile, symbolicator);
  return read_processed_profile(profile::processed_json_string(profile, named.symbols), options);
}

}  // namespace sprof::report
