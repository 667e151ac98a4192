#include "sprof/convert/marker_schemas.hpp"

namespace sprof::convert {

namespace {

profile::MarkerSchemaField field(std::string key, std::string label, std::string format,
                                 bool searchable = false) {
  profile::MarkerSchemaField f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.format = std::move(format);
  f.searchable = searchable;
  return f;
}

// A static field: the front end turns the one labelled "Description" into the schema's
// description (docs/firefox-profiler-format.md, "Marker schemas").
profile::MarkerSchemaField description(std::string text) {
  profile::MarkerSchemaField f;
  f.label = "Description";
  f.value = std::move(text);
  return f;
}

profile::MarkerSchema schema(std::string name, std::string label,
                             std::vector<profile::MarkerSchemaField> data) {
  profile::MarkerSchema s;
  s.name = std::move(name);
  s.display = {"marker-chart", "marker-table", "timeline-overview"};
  s.table_label = label;
  s.tooltip_label = label;
  s.chart_label = std::move(label);
  s.data = std::move(data);
  return s;
}

}  // namespace

std::vector<profile::MarkerSchema> sprof_marker_schemas() {
  std::vector<profile::MarkerSchema> out;
  out.push_back(
      schema(kProcessStartMarkerType, "{marker.data.name} forked from {marker.data.ppid}",
             {field("pid", "Process ID", "pid"), field("ppid", "Parent process ID", "pid"),
              field("name", "Name", "string", true), description("A new process was forked.")}));
  out.push_back(
      schema(kExecMarkerType, "exec {marker.data.command}",
             {field("pid", "Process ID", "pid"), field("command", "Command line", "string", true),
              description("The process executed a new program (execve).")}));
  out.push_back(
      schema(kProcessExitMarkerType, "exit: {marker.data.status}",
             {field("pid", "Process ID", "pid"), field("status", "Status", "string", true),
              field("exitCode", "Exit code", "integer"), field("signal", "Signal", "integer"),
              description("The process ended. The status is known for the command "
                          "sprof launched; for other processes only the time.")}));
  out.push_back(
      schema(kThreadStartMarkerType, "{marker.data.tid}, created by {marker.data.creator}",
             {field("tid", "Thread ID", "tid"), field("creator", "Created by thread", "tid"),
              description("A new thread was created.")}));
  out.push_back(schema(kThreadExitMarkerType, "{marker.data.tid}",
                       {field("tid", "Thread ID", "tid"), description("The thread exited.")}));
  out.push_back(schema(kLostSamplesMarkerType, "{marker.data.count} records lost",
                       {field("count", "Lost records", "integer"),
                        description("The kernel dropped perf records (samples, or process and "
                                    "mapping events) because sprof's ring buffer was full.")}));
  out.push_back(schema(kThrottleMarkerType, "sampling throttled",
                       {description("The kernel throttled sampling because it took too much "
                                    "CPU time (perf_cpu_time_max_percent); samples are missing "
                                    "until it is unthrottled.")}));
  out.push_back(schema(kOnCpuMarkerType, "{marker.data.thread}",
                       {field("thread", "Thread", "string", true),
                        field("pid", "Process ID", "pid"), field("tid", "Thread ID", "tid"),
                        description("A recorded thread ran on this CPU, from its switch-in to "
                                    "its switch-out (--cswitch-markers).")}));
  out.push_back(schema(kUserMarkerType, "{marker.name}",
                       {description("A marker the program wrote (sprof/markers.h, or a "
                                    "samply-style marker-<pid>.txt file).")}));
  return out;
}

}  // namespace sprof::convert
