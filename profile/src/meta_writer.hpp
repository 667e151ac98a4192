// Pieces of the profile JSON that both writers emit the same way: most of `meta` (with the marker
// schemas in the Gecko shape, which processed profiles before version 55 share, and sprof's own
// recording facts under `meta.sprof`), the category list, and the identity fields of a lib.
#pragma once

#include <vector>

#include "sprof/core/json_writer.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::profile::detail {

// The meta fields both formats share, in this order: processType, product, the machine (oscpu,
// platform, abi, CPUName, CPU counts), sampleUnits, categories, markerSchema and sprof's facts.
void write_shared_meta(JsonWriter& w, const Meta& meta);

// "categories": [...]; every category gets at least one subcategory.
void write_categories(JsonWriter& w, const std::vector<CategoryInfo>& categories);

// The fields that name a lib, without its address range: name, path, debugName, debugPath,
// breakpadId, codeId (null when unknown) and arch.
void write_lib_identity(JsonWriter& w, const Library& lib);

}  // namespace sprof::profile::detail
