// sprof/report/load.hpp
//
// A Gecko profile (written with --no-presymbolicate) holds raw addresses: it is read for a report
// by naming its frames with the symbolicator, exactly as `sprof symbolicate` would embed them,
// and reading the self-contained form. One path, so a report of either file of the same
// recording shows the same frames.
#pragma once

#include "sprof/core/result.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/report/report_profile.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::report {

Result<ReportProfile> report_profile_from_gecko(const profile::Profile& profile,
                                                symbolicator::Symbolicator& symbolicator,
                                                const ReadOptions& options = {});

}  // namespace sprof::report
