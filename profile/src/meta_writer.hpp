// Pieces of the profile JSON that both writers emit the same way: the category list, the marker
// schemas (in the Gecko shape, which processed profiles before version 55 share), sprof's own
// recording facts under `meta.sprof`, and the identity fields of a lib.
#pragma once

#include <vector>

#include "sprof/core/json_writer.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::profile::detail {

// "categories": [...]; every category gets at least one subcategory.
void write_categories(JsonWriter& w, const std::vector<CategoryInfo>& categories);

// "markerSchema": [...], fields under `data` ({key, label, format} or static {label, value}).
void write_marker_schema(JsonWriter& w, const std::vector<MarkerSchema>& schemas);

// "sampleUnits": threadCPUDelta in ns. Without it the front end ignores `threadCPUDelta`.
void write_sample_units(JsonWriter& w);

// "sprof": {...}: `Meta::extra`.
void write_sprof_facts(JsonWriter& w, const Meta& meta);

// The fields that name a lib, without its address range: name, path, debugName, debugPath,
// breakpadId, codeId (null when unknown) and arch.
void write_lib_identity(JsonWriter& w, const Library& lib);

}  // namespace sprof::profile::detail
