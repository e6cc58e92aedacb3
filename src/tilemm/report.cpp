#include "tilemm/report.hpp"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "tilemm/utf8.hpp"

namespace tilemm {
namespace {

std::string csv_field(const nlohmann::ordered_json& value) {
  if (value.is_null()) return "";
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (!value.is_string()) return value.dump();
  const std::string s = value.get<std::string>();
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_line(const nlohmann::ordered_json& row) {
  std::string line;
  for (const auto& column : result_columns()) {
    line += (line.empty() ? "" : ",") + csv_field(row[column]);
  }
  return line + "\n";
}

/// `text` with each byte that is not part of a UTF-8 character written as \xNN.
std::string escape_non_utf8(std::string_view text) {
  std::string kept;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t length = 1;  // of the UTF-8 character at i, when one is there
    while (length <= 4 && i + length <= text.size() && !is_valid_utf8(text.substr(i, length))) {
      ++length;
    }
    if (length <= 4 && i + length <= text.size()) {
      kept.append(text.substr(i, length));
      i += length;
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(text[i++]));
      kept += escaped;
    }
  }
  return kept;
}

/// Makes every text in `value` UTF-8 (escape_non_utf8), which JSON requires.
void keep_utf8(nlohmann::ordered_json& value) {
  if (value.is_string()) {
    auto& text = value.get_ref<std::string&>();
    if (!is_valid_utf8(text)) text = escape_non_utf8(text);
  } else if (value.is_structured()) {
    for (auto& item : value) keep_utf8(item);
  }
}

/// The JSON document closes with its status, last, so that a file grows in place: the status
/// "running" is rewritten with each row, and the final one once the run has ended.
std::string json_tail(const std::string& status) {
  nlohmann::ordered_json text = status;
  keep_utf8(text);
  return "\n  ],\n  \"status\": " + text.dump() + "\n}\n";
}

std::string file_head(ResultsFile::Format format, const RunContext& context) {
  if (format == ResultsFile::Format::Csv) {
    std::string header;
    for (const auto& column : result_columns()) header += (header.empty() ? "" : ",") + column;
    return header + "\n";
  }
  nlohmann::ordered_json doc;
  doc["schema"] = "tilemm.results/1";
  doc["context"] = context_json(context);
  std::string head = doc.dump(2);
  head.erase(head.rfind('}'));  // the document stays open for its results and status
  return head.substr(0, head.find_last_not_of('\n') + 1) + ",\n  \"results\": [";
}

std::string data_source(const Problem& p) {
  if (!p.a && !p.b && !p.c) return "random";
  std::string s;
  if (p.a) s += "a=" + p.a->path + " ";
  if (p.b) s += "b=" + p.b->path + " ";
  if (p.c) s += "c=" + p.c->path + " ";
  return s + "(others random)";
}

}  // namespace

std::string launch_text(const LaunchConfig& launch, const Problem& p) {
  const Tiling& t = launch.tile;
  if (t.bm == 0) return "";
  std::string text = t.to_string();
  if (!launch.instruction.empty()) text += " " + launch.instruction;
  if (launch.split_k > 1) {
    text += " k/" + std::to_string(launch.split_k);
    if (launch.split_tiles < tiles_of(t, p.m, p.n)) {
      text += " on " + std::to_string(launch.split_tiles);
    }
  }
  return text;
}

const std::vector<std::string>& result_columns() {
  // clang-format off
  static const std::vector<std::string> columns = {
      "name",         "kernel",       "backend",      "m",            "n",
      "k",            "precision",    "layout",       "trans_a",      "trans_b",
      "alpha",        "beta",         "tile",         "team_size",    "split_k",
      "split_tiles",  "vector_length", "scratch_bytes", "repeats",     "warmup",
      "warmup_s",     "warmup_runs",  "time_min_s",   "time_median_s", "time_max_s",
      "time_mean_s",  "gflops",       "gflops_best",  "error",        "tolerance",
      "verdict",      "seed",         "data",         "c_out",        "spec",
      "device",       "hostname",     "utc_time",     "gpu_samples",  "gpu_sm_clock_mhz",
      "gpu_sm_clock_mhz_min", "gpu_power_w", "gpu_power_capped", "gpu_slowdown", "time_stddev_s",
      "noisy",        "threads",      "kokkos_version", "git_hash",
      "freivalds_error", "reference_valid",
      "ranks",        "grid",         "block",        "panel",        "comm",
      "distribution", "comm_exposed", "gflops_per_rank", "slowest_rank", "instruction"};
  // clang-format on
  return columns;
}

namespace {

/// `value` as a column's value, or null (an empty CSV field) where the result has none.
template <class T>
nlohmann::ordered_json value_or_null(bool has, const T& value) {
  return has ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
}

/// The launch's columns: null for a kernel that leaves the launch to Kokkos.
void add_launch_columns(nlohmann::ordered_json& row, const Result& r) {
  const bool launched = r.launch.tile.bm > 0;
  row["tile"] = value_or_null(launched, r.tile_text());
  row["team_size"] = value_or_null(launched, r.launch.team_size);
  row["split_k"] = value_or_null(launched, r.launch.split_k);
  row["split_tiles"] = value_or_null(launched, r.launch.split_tiles);
  row["vector_length"] = value_or_null(launched, r.launch.vector_length);
  row["scratch_bytes"] = value_or_null(launched, r.launch.scratch_bytes);
}

/// The GPU during the timed runs (gpu_monitor.hpp): null on a CPU, without NVML, and for a part
/// that NVML never gave (negative).
void add_gpu_columns(nlohmann::ordered_json& row, const Result& r) {
  const auto gpu = [&r](double GpuTelemetry::*part) {
    return value_or_null(r.gpu && (*r.gpu).*part >= 0, r.gpu ? (*r.gpu).*part : 0.0);
  };
  row["gpu_samples"] = value_or_null(r.gpu.has_value(), r.gpu ? r.gpu->samples : 0);
  row["gpu_sm_clock_mhz"] = gpu(&GpuTelemetry::sm_clock_mhz);
  row["gpu_sm_clock_mhz_min"] = gpu(&GpuTelemetry::sm_clock_mhz_min);
  row["gpu_power_w"] = gpu(&GpuTelemetry::power_w);
  row["gpu_power_capped"] = gpu(&GpuTelemetry::power_capped);
  row["gpu_slowdown"] = gpu(&GpuTelemetry::slowdown);
}

/// A product over the ranks of an MPI run (distributed/summa.hpp); null for one process.
void add_distributed_columns(nlohmann::ordered_json& row, const Result& r) {
  const DistributedFigures d = r.distributed.value_or(DistributedFigures{});
  const bool many = r.distributed.has_value();
  const bool summa = many && d.block > 0;  // a replicated run has no grid, block or panel
  row["ranks"] = value_or_null(many, d.ranks);
  row["grid"] = value_or_null(summa, d.grid);
  row["block"] = value_or_null(summa, d.block);
  row["panel"] = value_or_null(summa, d.panel);
  row["comm"] = value_or_null(many, d.comm);
  row["distribution"] = value_or_null(many, to_string(d.distribution));
  row["comm_exposed"] = value_or_null(many && d.comm_exposed >= 0, d.comm_exposed);
  // A replicated run's figure is already one rank's (the slowest).
  row["gflops_per_rank"] =
      value_or_null(many, d.distribution == Spread::Replicated ? r.gflops : r.gflops / d.ranks);
  row["slowest_rank"] = value_or_null(d.slowest_rank >= 0, d.slowest_rank);
}

}  // namespace

nlohmann::ordered_json result_row(const Result& r, const RunContext& context) {
  const Problem& p = *r.problem;
  nlohmann::ordered_json row;
  row["name"] = p.origin.name;
  row["kernel"] = r.kernel;
  row["backend"] = r.backend;
  row["m"] = p.m;
  row["n"] = p.n;
  row["k"] = p.k;
  row["precision"] = to_string(p.precision);
  row["layout"] = to_string(p.layout);
  row["trans_a"] = to_string(p.trans_a);
  row["trans_b"] = to_string(p.trans_b);
  row["alpha"] = p.alpha;
  row["beta"] = p.beta;
  add_launch_columns(row, r);
  row["repeats"] = p.repeats;
  row["warmup"] = p.warmup;
  row["warmup_s"] = p.warmup_s;
  row["warmup_runs"] = r.warmup_runs;
  row["time_min_s"] = r.time.min;
  row["time_median_s"] = r.time.median;
  row["time_max_s"] = r.time.max;
  row["time_mean_s"] = r.time.mean;
  row["gflops"] = r.gflops;
  row["gflops_best"] = r.gflops_best;
  // JSON has no Inf: an error that is not finite (NaN or Inf in C) is written as null.
  row["error"] = value_or_null(std::isfinite(r.error), r.error);
  row["tolerance"] = r.tolerance;
  row["verdict"] = r.passed ? "pass" : "fail";
  row["seed"] = p.seed;
  row["data"] = data_source(p);
  row["c_out"] = value_or_null(!r.c_out.empty(), r.c_out);
  row["spec"] = p.origin.file;
  row["device"] = context.backend.device;
  row["hostname"] = context.hostname;
  // When this result was done; a long sweep's rows are hours apart, and a site's power or job logs
  // line up with them. (The context's utc_time is when the run began.)
  row["utc_time"] = r.utc_time.empty() ? context.utc_time : r.utc_time;
  add_gpu_columns(row, r);
  // Columns added later go last, so that scripts reading columns by position keep working.
  row["time_stddev_s"] = r.time.stddev;
  row["noisy"] = r.time.noisy();
  // What tells apart the runs of a study (a thread-scaling one, a Kokkos upgrade) row by row.
  row["threads"] = context.host_threads;
  row["kokkos_version"] = context.kokkos_version;
  row["git_hash"] = context.git_hash;
  // Freivalds' check of the same C, which trusts no library (validate.hpp); null as `error` is.
  row["freivalds_error"] = value_or_null(std::isfinite(r.freivalds_error), r.freivalds_error);
  row["reference_valid"] = r.reference_valid;
  add_distributed_columns(row, r);
  // The matrix instruction of a kernel that uses one (tensor-tiled), else null.
  row["instruction"] = value_or_null(!r.launch.instruction.empty(), r.launch.instruction);
  // In the JSON only (a CSV row holds no list): every timed run, in run order.
  row["times_s"] = r.time.times;
  keep_utf8(row);
  return row;
}

nlohmann::ordered_json context_json(const RunContext& c) {
  nlohmann::ordered_json j;
  j["tilemm_version"] = c.tilemm_version;
  j["git_hash"] = c.git_hash;
  j["kokkos_version"] = c.kokkos_version;
  j["kokkos_kernels_version"] = c.kokkos_kernels_version;
  j["kokkos_arch"] = c.kokkos_arch;
  j["kokkos_backends"] = c.kokkos_backends;
  j["backend"] = c.backend.name;
  j["concurrency"] = c.backend.concurrency;
  j["host_threads"] = c.host_threads;
  j["device"] = c.backend.device;
  j["memory_kind"] = c.backend.memory_kind;
  j["memory_bytes"] = c.backend.memory_total;
  for (const auto& [key, value] : c.backend.details) j[key] = value;
  j["compiler"] = c.compiler;
  j["build_type"] = c.build_type;
  nlohmann::ordered_json env = nlohmann::ordered_json::object();
  for (const auto& [key, value] : c.environment) env[key] = value;
  j["environment"] = env;
  j["utc_time"] = c.utc_time;
  j["hostname"] = c.hostname;
  j["cpu_affinity"] = c.cpu_affinity;
  if (!c.slurm_job_id.empty()) {
    j["slurm"] = {{"job_id", c.slurm_job_id}, {"job_nodelist", c.slurm_job_nodelist}};
  }
  if (!c.ranks.empty()) j["ranks"] = c.ranks;
  j["command_line"] = c.command_line;
  if (!c.selection.empty()) {
    nlohmann::ordered_json selection = nlohmann::ordered_json::object();
    for (const auto& [option, values] : c.selection) selection[option.substr(2)] = values;
    j["selection"] = selection;
  }
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  for (const auto& input : c.inputs) {
    nlohmann::ordered_json entry = {{"file", input.path}, {"sha256", input.sha256}};
    if (!input.description.empty()) entry["description"] = input.description;
    inputs.push_back(entry);
  }
  j["inputs"] = inputs;
  j["validation"] =
      "error = max |C - R| / (|alpha| ||op(A)(i,:)|| ||op(B)(:,j)|| + |beta| |C0| + (1 + |alpha|) "
      "eta / eps) against a double-precision KokkosBlas::gemm R; freivalds_error = max |C x - "
      "(alpha A (B x) + beta C0 x)| / (|x|^T of each element's bound), three random x, in long "
      "double on the host; pass when both are <= (k + 2) * eps(precision)";
  j["kokkos_configuration"] = c.kokkos_configuration;
  if (!c.kokkos_kernels_configuration.empty()) {
    j["kokkos_kernels_configuration"] = c.kokkos_kernels_configuration;
  }
  keep_utf8(j);
  return j;
}

ResultsFile::ResultsFile(const std::string& path, Format format, const RunContext& context)
    : format_(format), context_(context) {
  const std::string tail = format == Format::Json ? json_tail("running") : "";
  if (path == "-") {
    text_ = file_head(format, context);
  } else {
    file_ = std::make_unique<GrowingFile>(path, file_head(format, context), tail);
  }
}

void ResultsFile::add(const Result& r) {
  const auto row = result_row(r, context_);
  const std::string text =
      format_ == Format::Json ? (has_rows_ ? ",\n    " : "\n    ") + row.dump() : csv_line(row);
  if (file_) {
    file_->append(text, format_ == Format::Json ? json_tail("running") : "");
  } else {
    text_ += text;
  }
  has_rows_ = true;
}

void ResultsFile::finish(const std::string& status) {
  const std::string tail = format_ == Format::Json ? json_tail(status) : "";
  if (file_) {
    if (!tail.empty()) file_->append("", tail);
  } else if (!text_.empty()) {  // empty once written: the document goes out once
    std::cout << text_ + tail << std::flush;
    text_.clear();
  }
}

void Table::row(const Result& r) {
  const Problem& p = *r.problem;
  char line[512];
  if (!header_printed_) {
    // Under MPI, each result's ranks and grid (replicated: the whole problem on every rank).
    ranks_ = r.distributed.has_value();
    std::snprintf(line, sizeof(line),
                  "%-16s %-15s %-7s %6s %6s %6s %-6s %-6s %-2s %s%-25s %11s %10s %9s %9s %s\n",
                  "name", "kernel", "backend", "m", "n", "k", "prec", "layout", "op",
                  ranks_ ? "ranks grid       " : "", "tile", "median_ms", "GFLOP/s", "error", "tol",
                  "check");
    out_ << line;
    header_printed_ = true;
  }
  const std::string op = to_string(p.trans_a) + to_string(p.trans_b);
  const std::string launched = launch_text(r.launch, p);
  const std::string tile = launched.empty() ? "-" : launched;
  char spread[32] = "";
  if (ranks_) {
    const DistributedFigures d = r.distributed.value_or(DistributedFigures{});
    const std::string grid = d.distribution == Spread::Replicated ? "replicated" : d.grid;
    std::snprintf(spread, sizeof spread, "%5d %-11s ", d.ranks, grid.c_str());
  }
  // A noisy timing (TimeStats::noisy) is marked beside the verdict.
  const std::string check =
      std::string(r.passed ? "PASS" : "FAIL") + (r.time.noisy() ? " noisy" : "");
  std::snprintf(
      line, sizeof(line),
      "%s %-15s %-7s %6lld %6lld %6lld %-6s %-6s %-2s %s%-25s %11.4f %10.2f %9.2e %9.2e %s\n",
      fit_utf8(p.origin.name, 16).c_str(), r.kernel.c_str(), r.backend.c_str(),
      static_cast<long long>(p.m), static_cast<long long>(p.n), static_cast<long long>(p.k),
      to_string(p.precision).c_str(), to_string(p.layout).c_str(), op.c_str(), spread, tile.c_str(),
      r.time.median * 1e3, r.gflops, r.error, r.tolerance, check.c_str());
  out_ << line << std::flush;
}

}  // namespace tilemm
