#include "meta_writer.hpp"

namespace sprof::profile::detail {

namespace {

void write_schema_field(JsonWriter& w, const MarkerSchemaField& f) {
  w.begin_object();
  if (f.key.empty()) {
    w.field("label", f.label).field("value", f.value);  // static field: schema description
  } else {
    w.field("key", f.key);
    if (!f.label.empty()) w.field("label", f.label);
    w.field("format", f.format);
    if (f.searchable) w.field("searchable", true);
  }
  w.end_object();
}

void write_marker_schema(JsonWriter& w, const std::vector<MarkerSchema>& schemas) {
  // The Gecko shape lists fields under `data`; `fields` (the name since processed version 55)
  // fails a Gecko load.
  w.key("markerSchema").begin_array();
  for (const MarkerSchema& s : schemas) {
    w.begin_object().field("name", s.name);
    w.key("display").begin_array();
    for (const std::string& d : s.display) w.value(d);
    w.end_array();
    if (!s.tooltip_label.empty()) w.field("tooltipLabel", s.tooltip_label);
    if (!s.table_label.empty()) w.field("tableLabel", s.table_label);
    if (!s.chart_label.empty()) w.field("chartLabel", s.chart_label);
    w.key("data").begin_array();
    for (const MarkerSchemaField& f : s.data) write_schema_field(w, f);
    w.end_array().end_object();
  }
  w.end_array();
}

// Without it, the front end ignores `threadCPUDelta`.
void write_sample_units(JsonWriter& w) {
  w.key("sampleUnits").begin_object();
  w.field("time", "ms").field("eventDelay", "ms").field("threadCPUDelta", "ns");
  w.end_object();
}

void write_sprof_facts(JsonWriter& w, const Meta& meta) {
  w.key("sprof").begin_object();
  for (const auto& [key, value] : meta.extra) {
    w.key(key);
    std::visit([&](const auto& v) { w.value(v); }, value);
  }
  w.end_object();
}

}  // namespace

void write_shared_meta(JsonWriter& w, const Meta& meta) {
  w.field("processType", 0);
  w.field("product", meta.product);
  // The Share panel reads the channel to choose what an upload leaves out by default: only
  // "release", "beta" and "esr" profiles are sanitised (hidden threads, the time outside the
  // selection, URLs), anything else, a missing channel too, is taken for a Firefox Nightly and
  // uploaded whole. sprof's profiles are a released tool's, shared by people outside Mozilla.
  w.field("updateChannel", "release");
  // "X11" is the front end's "Unix"; with no `toolkit`, `oscpu` is shown verbatim.
  w.field("oscpu", meta.oscpu).field("platform", "X11").field("abi", meta.abi);
  w.field("CPUName", meta.cpu_name);
  w.field("logicalCPUs", meta.logical_cpus).field("physicalCPUs", meta.physical_cpus);
  if (meta.has_cpu_deltas) write_sample_units(w);
  write_categories(w, meta.categories);
  write_marker_schema(w, meta.marker_schema);
  write_sprof_facts(w, meta);
}

void write_categories(JsonWriter& w, const std::vector<CategoryInfo>& categories) {
  w.key("categories").begin_array();
  for (const CategoryInfo& c : categories) {
    w.begin_object().field("name", c.name).field("color", c.color);
    w.key("subcategories").begin_array();
    for (const std::string& s : c.subcategories) w.value(s);
    if (c.subcategories.empty()) w.value("Other");  // the front end requires at least one
    w.end_array().end_object();
  }
  w.end_array();
}

void write_lib_identity(JsonWriter& w, const Library& lib) {
  w.field("name", lib.name).field("path", lib.path);
  w.field("debugName", lib.debug_name).field("debugPath", lib.debug_path);
  w.field("breakpadId", lib.breakpad_id);
  w.key("codeId");
  if (lib.code_id.empty()) {
    w.null();
  } else {
    w.value(lib.code_id);
  }
  w.field("arch", lib.arch);
}

}  // namespace sprof::profile::detail
