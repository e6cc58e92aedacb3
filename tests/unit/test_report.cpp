// Results out: the row schema (the contract users' scripts read), CSV and JSON files, statistics,
// tiles and path templates.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "temp_dir.hpp"
#include "tilemm/atomic_file.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/output_paths.hpp"
#include "tilemm/report.hpp"

namespace tilemm::test {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Problem sample_problem() {
  Problem p;
  p.origin = {"inputs/x.yaml", "odd, \"quoted\"", 0, 3};
  p.m = 17;
  p.n = 31;
  p.k = 13;
  p.precision = Precision::Float;
  p.layout = Layout::Left;
  p.trans_a = Trans::T;
  p.alpha = 1.5;
  p.beta = -0.5;
  return p;
}

Result sample_result(const Problem& p) {
  Result r;
  r.problem = &p;
  r.kernel = "tiled";
  r.backend = "openmp";
  r.launch.tile = {16, 16, 16};
  r.launch.team_size = 2;
  r.launch.vector_length = 1;
  r.launch.scratch_bytes = 3072;
  r.time = TimeStats::of({0.004, 0.002, 0.003});
  r.gflops = 2.0 * 17 * 31 * 13 / 0.003 * 1e-9;
  r.error = 1e-7;
  r.tolerance = 15 * 1.1920929e-07;
  r.passed = true;
  return r;
}

TEST(Report, ContractColumnsAreAllPresent) {
  const auto& columns = result_columns();
  for (const char* key : {"name", "kernel", "backend", "m", "n", "k", "precision", "layout",
                          "trans_a", "trans_b", "alpha", "beta", "tile", "time_min_s",
                          "time_median_s", "time_max_s", "gflops", "error", "verdict"}) {
    EXPECT_NE(std::find(columns.begin(), columns.end(), key), columns.end()) << key;
  }
  const Problem p = sample_problem();
  RunContext context;
  const auto row = result_row(sample_result(p), context);
  std::vector<std::string> keys;
  for (const auto& item : row.items()) keys.push_back(item.key());
  // JSON rows and CSV share the columns, in order; the JSON adds the raw times last.
  std::vector<std::string> json_keys = columns;
  json_keys.push_back("times_s");
  EXPECT_EQ(keys, json_keys);
  EXPECT_EQ(row["tile"], "16x16x16");
  EXPECT_EQ(row["trans_a"], "T");
  EXPECT_EQ(row["verdict"], "pass");
  EXPECT_DOUBLE_EQ(row["time_median_s"].get<double>(), 0.003);
}

// The GPU's columns are null on a CPU (no telemetry), and each part NVML never gave is null.
TEST(Report, GpuTelemetryColumns) {
  const Problem p = sample_problem();
  Result r = sample_result(p);
  const char* columns[] = {"gpu_samples", "gpu_sm_clock_mhz", "gpu_sm_clock_mhz_min",
                           "gpu_power_w", "gpu_power_capped", "gpu_slowdown"};
  auto row = result_row(r, RunContext{});
  for (const char* key : columns) EXPECT_TRUE(row[key].is_null()) << key;
  r.gpu = GpuTelemetry{12, 1905, 1635, 698.5, 0.75, 0};
  row = result_row(r, RunContext{});
  EXPECT_EQ(row["gpu_samples"], 12);
  EXPECT_DOUBLE_EQ(row["gpu_sm_clock_mhz"].get<double>(), 1905);
  EXPECT_DOUBLE_EQ(row["gpu_sm_clock_mhz_min"].get<double>(), 1635);
  EXPECT_DOUBLE_EQ(row["gpu_power_w"].get<double>(), 698.5);
  EXPECT_DOUBLE_EQ(row["gpu_power_capped"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(row["gpu_slowdown"].get<double>(), 0);
  r.gpu = GpuTelemetry{3};  // samples, but NVML answered none of them
  row = result_row(r, RunContext{});
  EXPECT_EQ(row["gpu_samples"], 3);
  for (const char* key : columns) {
    if (std::string(key) != "gpu_samples") EXPECT_TRUE(row[key].is_null()) << key;
  }
}

// A row's utc_time is when its result was done; a result made without one takes the run's.
TEST(Report, RowTimeIsTheResults) {
  const Problem p = sample_problem();
  Result r = sample_result(p);
  RunContext context;
  context.utc_time = "2026-11-25T12:00:00Z";
  EXPECT_EQ(result_row(r, context)["utc_time"], "2026-11-25T12:00:00Z");
  r.utc_time = "2026-11-25T13:30:05Z";
  EXPECT_EQ(result_row(r, context)["utc_time"], "2026-11-25T13:30:05Z");
}

TEST(Report, NonFiniteErrorIsNullInJson) {
  const Problem p = sample_problem();
  Result r = sample_result(p);
  r.error = HUGE_VAL;
  r.passed = false;
  const auto row = result_row(r, RunContext{});
  EXPECT_TRUE(row["error"].is_null());
  EXPECT_EQ(row["verdict"], "fail");
}

TEST(Report, FilesHoldEveryFinishedRowAndTheStatus) {
  TempDir dir;
  const Problem p = sample_problem();
  RunContext context;
  context.hostname = "node1";
  ResultsFile json(dir.path("r.json"), ResultsFile::Format::Json, context);
  ResultsFile csv(dir.path("r.csv"), ResultsFile::Format::Csv, context);
  auto doc = nlohmann::json::parse(read_all(dir.path("r.json")));
  EXPECT_EQ(doc["status"], "running");
  EXPECT_EQ(doc["results"].size(), 0u);

  json.add(sample_result(p));
  csv.add(sample_result(p));
  json.add(sample_result(p));
  csv.add(sample_result(p));
  doc = nlohmann::json::parse(read_all(dir.path("r.json")));
  EXPECT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["context"]["hostname"], "node1");
  json.finish("interrupted");
  EXPECT_EQ(nlohmann::json::parse(read_all(dir.path("r.json")))["status"], "interrupted");

  std::istringstream lines(read_all(dir.path("r.csv")));
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(header.substr(0, 24), "name,kernel,backend,m,n,");
  // The name holds a comma and quotes: RFC 4180 quoting.
  EXPECT_EQ(row.substr(0, 36), "\"odd, \"\"quoted\"\"\",tiled,openmp,17,31");
}

// A second writer of a results file, in this process or another (job arrays given one file), is
// refused while the first holds it; the first's file is untouched.
TEST(Report, SecondWriterIsRefused) {
  TempDir dir;
  const Problem p = sample_problem();
  RunContext context;
  {
    ResultsFile first(dir.path("r.json"), ResultsFile::Format::Json, context);
    first.add(sample_result(p));
    EXPECT_THROW(ResultsFile(dir.path("r.json"), ResultsFile::Format::Json, context), FileInUse);
    EXPECT_THROW(ResultsFile(dir.path("r.json"), ResultsFile::Format::Csv, context), FileInUse);
    EXPECT_EQ(nlohmann::json::parse(read_all(dir.path("r.json")))["results"].size(), 1u);
  }
  ResultsFile next(dir.path("r.json"), ResultsFile::Format::Json, context);  // free again
  EXPECT_EQ(nlohmann::json::parse(read_all(dir.path("r.json")))["results"].size(), 0u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path("")), {}), 1);
}

// Bytes that are not UTF-8 in the environment or the host name are kept, escaped, in both files.
TEST(Report, NonUtf8TextIsEscaped) {
  TempDir dir;
  const Problem p = sample_problem();
  RunContext context;
  context.hostname = "node\xff";
  context.environment = {{"OMP_PLACES", "caf\xc3"}, {"OMP_SCHEDULE", "gr\xc3\xbc\xc3\x9f"}};
  ResultsFile json(dir.path("r.json"), ResultsFile::Format::Json, context);
  ResultsFile csv(dir.path("r.csv"), ResultsFile::Format::Csv, context);
  json.add(sample_result(p));
  csv.add(sample_result(p));
  json.finish("failed: '\xfe'");
  const auto doc = nlohmann::json::parse(read_all(dir.path("r.json")));
  EXPECT_EQ(doc["context"]["hostname"], "node\\xff");
  EXPECT_EQ(doc["context"]["environment"]["OMP_PLACES"], "caf\\xc3");
  EXPECT_EQ(doc["context"]["environment"]["OMP_SCHEDULE"], "gr\xc3\xbc\xc3\x9f");  // UTF-8 kept
  EXPECT_EQ(doc["results"][0]["hostname"], "node\\xff");
  EXPECT_EQ(doc["status"], "failed: '\\xfe'");
  EXPECT_NE(read_all(dir.path("r.csv")).find(",node\\xff,"), std::string::npos);
}

// A write that fails (here past a file-size limit, as `ulimit -f` sets, the signal ignored as
// tilemm ignores it; a full disk fails the same way) leaves the file as it was and says why.
TEST(Report, FailedAppendLeavesTheFileWhole) {
  TempDir dir;
  const std::string path = dir.path("g.json");
  GrowingFile file(path, "[1", "]\n");
  file.append(", 2", "]\n");
  rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit tight = saved;
  tight.rlim_cur = 16;
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &tight), 0);
  try {
    file.append(", 3, 4, 5, 6, 7, 8, 9", "]\n");
    ADD_FAILURE() << "an append past the limit did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write '" + path + "': File too large"),
              std::string::npos)
        << e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous_handler);
  EXPECT_EQ(read_all(path), "[1, 2]\n");
  file.append(", 3", "]\n");
  EXPECT_EQ(read_all(path), "[1, 2, 3]\n");
}

TEST(Report, UnwritablePathsAreReported) {
  EXPECT_THROW(check_writable("/nonexistent-folder/r.json"), std::runtime_error);
  TempDir dir;
  EXPECT_THROW(check_writable(dir.path("")), std::runtime_error);  // a folder
  EXPECT_NO_THROW(check_writable(dir.path("fine.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.path("fine.json")));  // the check leaves nothing
}

// Through symbolic links a write replaces the file they name, as the shell's > does, and the links
// stay: a link that names a file not made yet included.
TEST(Report, WritesGoThroughLinks) {
  namespace fs = std::filesystem;
  TempDir dir;
  fs::create_directory(dir.path("sub"));
  fs::create_symlink("sub/r.json", dir.path("dangling.json"));
  fs::create_symlink("dangling.json", dir.path("chained.json"));
  EXPECT_EQ(written_file(dir.path("chained.json")), dir.path("sub/r.json"));
  EXPECT_NO_THROW(check_writable(dir.path("chained.json")));
  write_file_atomically(dir.path("chained.json"), [](std::ostream& out) { out << "first"; });
  EXPECT_TRUE(fs::is_symlink(dir.path("chained.json")));
  EXPECT_TRUE(fs::is_symlink(dir.path("dangling.json")));
  EXPECT_EQ(read_all(dir.path("sub/r.json")), "first");
  write_file_atomically(dir.path("dangling.json"), [](std::ostream& out) { out << "second"; });
  EXPECT_EQ(read_all(dir.path("sub/r.json")), "second");
  EXPECT_TRUE(fs::is_symlink(dir.path("dangling.json")));

  fs::create_symlink("no-such-folder/r.json", dir.path("nowhere.json"));
  EXPECT_THROW(check_writable(dir.path("nowhere.json")), std::runtime_error);
  fs::create_symlink("loop-b", dir.path("loop-a"));
  fs::create_symlink("loop-a", dir.path("loop-b"));
  EXPECT_EQ(written_file(dir.path("loop-a")), dir.path("loop-a"));
  EXPECT_THROW(check_writable(dir.path("loop-a")), std::runtime_error);
}

TEST(TimeStats, MedianOfOddAndEvenCounts) {
  const auto odd = TimeStats::of({5, 1, 3});
  EXPECT_EQ(odd.min, 1);
  EXPECT_EQ(odd.median, 3);
  EXPECT_EQ(odd.max, 5);
  EXPECT_EQ(odd.mean, 3);
  EXPECT_EQ(TimeStats::of({4, 1, 3, 2}).median, 2.5);
}

TEST(TimeStats, SpreadAndRawTimes) {
  const auto t = TimeStats::of({5, 1, 3});
  EXPECT_DOUBLE_EQ(t.stddev, 2);                       // sample standard deviation (n - 1)
  EXPECT_EQ(t.times, (std::vector<double>{5, 1, 3}));  // in run order
  EXPECT_EQ(TimeStats::of({2}).stddev, 0);
  EXPECT_EQ(TimeStats::of({}).stddev, 0);
}

// Noisy: at least 3 timed runs whose standard deviation is above 5% of their mean.
TEST(TimeStats, NoisyRule) {
  EXPECT_FALSE(TimeStats::of({1.0, 1.01, 0.99}).noisy());  // 1%
  EXPECT_TRUE(TimeStats::of({1.0, 1.2, 0.9}).noisy());     // 15%
  EXPECT_FALSE(TimeStats::of({1.0, 2.0}).noisy());         // too few runs to tell
}

TEST(Report, SpreadAndRunColumns) {
  const Problem p = sample_problem();
  Result r = sample_result(p);
  RunContext context;
  context.host_threads = 4;
  context.kokkos_version = "3.4.1";
  context.git_hash = "abc1234";
  auto row = result_row(r, context);
  EXPECT_DOUBLE_EQ(row["time_stddev_s"].get<double>(), 0.001);
  EXPECT_EQ(row["noisy"], true);  // 0.001 / 0.003: 33%
  EXPECT_EQ(row["times_s"], nlohmann::ordered_json({0.004, 0.002, 0.003}));
  EXPECT_EQ(row["threads"], 4);
  EXPECT_EQ(row["kokkos_version"], "3.4.1");
  EXPECT_EQ(row["git_hash"], "abc1234");
  r.time = TimeStats::of({0.003, 0.003, 0.003});
  EXPECT_EQ(result_row(r, context)["noisy"], false);
  std::ostringstream table;
  Table out(table);
  out.row(sample_result(p));  // 33%: noisy
  EXPECT_NE(table.str().find("PASS noisy"), std::string::npos) << table.str();
}

TEST(Tiling, ParsesAndPrints) {
  EXPECT_EQ(Tiling::parse("16")->to_string(), "16x16x16");
  EXPECT_EQ(Tiling::parse("64x32x8")->to_string(), "64x32x8");
  const auto t = Tiling::parse("128x128x8/8x8");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->tm, 8);
  EXPECT_EQ(t->to_string(), "128x128x8/8x8");
  const auto staged = Tiling::parse("128x64x8/64x32/s3");  // tensor-tiled's copy stages
  ASSERT_TRUE(staged);
  EXPECT_EQ(staged->stages, 3);
  EXPECT_EQ(staged->to_string(), "128x64x8/64x32/s3");
  EXPECT_FALSE(*staged == *Tiling::parse("128x64x8/64x32"));
  for (const char* bad : {"", "0", "x", "8x8", "8x8x8/3x2", "-4", "8x8x8/", "99999", "8x8x8/s3",
                          "8x8x8/4x4/s1", "8x8x8/4x4/s", "8x8x8/4x4/3"}) {
    EXPECT_FALSE(Tiling::parse(bad)) << bad;
  }
}

// A standard stream or a process's descriptor resolves to what it holds (a batch job's log), which
// the results would replace: refused, links to one included. "-" is standard output.
TEST(OutputPaths, DescriptorsAreRefused) {
  TempDir dir;
  std::filesystem::create_directory_symlink("/proc/self/fd", dir.path("fds"));
  std::filesystem::create_symlink("/dev/stdout", dir.path("log.json"));
  for (const std::string& path :
       {std::string("/dev/stdout"), std::string("/dev/stderr"), std::string("/dev/fd/1"),
        std::string("/proc/self/fd/1"), std::string("/proc/1/fd/3"),
        std::string("/proc/thread-self/fd/1"), dir.path("fds") + "/1", dir.path("log.json")}) {
    EXPECT_THROW(check_output_files({}, path, "", {}, "serial"), InputError) << path;
  }
  EXPECT_NO_THROW(check_output_files({}, "-", dir.path("r.csv"), {}, "serial"));
  EXPECT_NO_THROW(check_output_files({}, dir.path("r.json"), "-", {}, "serial"));
  EXPECT_THROW(check_output_files({}, "-", "-", {}, "serial"), InputError);
}

TEST(OutputPaths, PlaceholdersExpand) {
  Problem p = sample_problem();
  KernelRun run{"tiled", {Tiling{8, 8, 8}, 2}};
  EXPECT_EQ(expand_path_template("out/{name}-{kernel}-{backend}-{m}x{n}x{k}-{precision}-{layout}-"
                                 "{tile}-{team_size}.npy",
                                 p, run, "cuda"),
            "out/odd, \"quoted\"-tiled-cuda-17x31x13-float-left-8x8x8-2.npy");
  // A thread tile's '/' would open a folder: it is written '-'.
  const KernelRun register_tiled{"register-tiled", {Tiling{128, 128, 8, 8, 8}, 0}};
  EXPECT_EQ(expand_path_template("out/{kernel}-{tile}-{team_size}.npy", p, register_tiled, "cuda"),
            "out/register-tiled-128x128x8-8x8-default.npy");
  EXPECT_THROW(check_path_template("{kernel"), std::invalid_argument);
  EXPECT_THROW(check_path_template("{m}{bogus}"), std::invalid_argument);
  EXPECT_NO_THROW(check_path_template("plain.npy"));
}

}  // namespace
}  // namespace tilemm::test
