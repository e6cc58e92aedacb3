// tilemm-bench: Google Benchmark over tilemm's kernels, KokkosBlas::gemm included.
//
//   tilemm-bench [--backend NAME] [--spec FILE]... [--sizes LIST] [--kernels LIST]
//                [--precisions LIST] [--layouts LIST] [--benchmark_*=...] [--kokkos-*=...]
//
// Each benchmark times one kernel on one problem with manual time: the seconds of fenced kernel
// runs, C reset before each outside the clock. Counters: FLOP/s (2 m n k per product), bytes (the
// least traffic a product needs: A and B read once, C written once and read too when beta != 0),
// intensity (FLOP per byte), and the last run's validation errors with their tolerance, judged as
// the CLI judges them (the error against the double-precision KokkosBlas::gemm, and Freivalds'
// check, which trusts no library: with a wrong BLAS, kokkos-kernels fails and the reference it gave
// is set aside). Problems come from the CLI's YAML specs (one source of truth for a study) or from
// --sizes; the other options narrow either. Kokkos is initialized once around the whole run. The
// run's context goes into the JSON of --benchmark_out; the console gets a line of it. Exit status
// as the CLI's: 0, 1 when a result failed validation, 2 for bad input, 3 for a runtime failure.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <regex>
#include <utility>

#include "tilemm/context.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/gpu_monitor.hpp"
#include "tilemm/kernel_names.hpp"
#include "tilemm/kokkos_args.hpp"
#include "tilemm/report.hpp"
#include "tilemm/runner.hpp"
#include "tilemm/selection.hpp"
#include "tilemm/spec.hpp"
#include "tilemm/validate.hpp"

// The CPU affinity in the context is the process's as it started (context.hpp).
TILEMM_READ_CPU_AFFINITY_AT_START

namespace {

struct Options {
  std::string backend;
  std::vector<std::string> specs;
  std::vector<std::string> sizes;
  tilemm::Selection selection;  // --kernels, --precisions, --layouts
};

/// Square problems (N) or m x n x k ones (MxNxK) from --sizes, in every precision and layout the
/// filters allow, with every kernel.
std::vector<tilemm::Problem> problems_from_sizes(const Options& o) {
  static const std::regex size(R"((\d{1,9})(?:x(\d{1,9})x(\d{1,9}))?)");
  std::vector<tilemm::Problem> problems;
  for (const auto& text : o.sizes) {
    std::smatch match;
    if (!std::regex_match(text, match, size) || std::stoll(match[1]) < 1 ||
        (match[2].matched && (std::stoll(match[2]) < 1 || std::stoll(match[3]) < 1))) {
      throw tilemm::InputError("--sizes: '" + text + "' is not N or MxNxK with extents >= 1");
    }
    for (const auto precision : {tilemm::Precision::Float, tilemm::Precision::Double}) {
      for (const auto layout : {tilemm::Layout::Right, tilemm::Layout::Left}) {
        tilemm::Problem p;
        p.origin = {"--sizes", "gemm", static_cast<int>(problems.size()), 0};
        p.m = std::stoll(match[1]);
        p.n = match[2].matched ? std::stoll(match[2]) : p.m;
        p.k = match[3].matched ? std::stoll(match[3]) : p.m;
        p.precision = precision;
        p.layout = layout;
        for (const auto& kernel : tilemm::kernel_names()) {
          if (tilemm::kernel_takes(kernel, precision)) p.runs.push_back({kernel, {}});
        }
        problems.push_back(p);
      }
    }
  }
  return problems;
}

/// The problems of the specs or of --sizes, narrowed by the filters; the files read in `inputs`.
std::vector<tilemm::Problem> problems_of(const Options& o, std::vector<tilemm::InputFile>& inputs) {
  std::vector<tilemm::Problem> all;
  for (const auto& spec : o.specs) {
    auto loaded = tilemm::load_spec(spec, &inputs);
    all.insert(all.end(), loaded.begin(), loaded.end());
  }
  if (o.specs.empty()) all = problems_from_sizes(o);
  return tilemm::select(std::move(all), o.selection);
}

/// The problem being benchmarked stays allocated while consecutive benchmarks share it.
class Sessions {
 public:
  explicit Sessions(std::string backend) : backend_(std::move(backend)) {}
  tilemm::Session& of(const tilemm::Plan& plan) {
    if (current_ != &plan) {
      session_.reset();  // free one problem's matrices before the next one's are allocated
      session_ = tilemm::prepare(plan, backend_);
      current_ = &plan;
    }
    return *session_;
  }
  void clear() {
    session_.reset();
    current_ = nullptr;
  }

 private:
  std::string backend_;
  const tilemm::Plan* current_ = nullptr;
  std::unique_ptr<tilemm::Session> session_;
};

std::string benchmark_name(const tilemm::Problem& p, const std::string& kernel,
                           const std::string& backend) {
  return "gemm/" + kernel + "/" + backend + "/" + to_string(p.precision) + "/" +
         to_string(p.layout) + "/" + to_string(p.trans_a) + to_string(p.trans_b) +
         "/m:" + std::to_string(p.m) + "/n:" + std::to_string(p.n) + "/k:" + std::to_string(p.k);
}

/// The run's context (tilemm.results/1's `context`) in the benchmark JSON's context, as strings.
void add_context(const tilemm::RunContext& context) {
  const auto json = tilemm::context_json(context);
  for (const auto& [key, value] : json.items()) {
    benchmark::AddCustomContext(key, value.is_string() ? value.get<std::string>() : value.dump());
  }
}

/// Google Benchmark's console output with one line of the run's context in place of all of it (a
/// few kilobytes, Kokkos' configuration included), which goes into the JSON file alone.
class ConsoleWithoutContext final : public benchmark::ConsoleReporter {
 public:
  explicit ConsoleWithoutContext(std::string line)
      : ConsoleReporter(::isatty(STDOUT_FILENO) ? OO_Color : OO_None), line_(std::move(line)) {}
  bool ReportContext(const Context& context) override {
    name_field_width_ = context.name_field_width;
    printed_header_ = false;
    prev_counters_.clear();
    GetErrorStream() << line_ << std::flush;
    return true;
  }

 private:
  std::string line_;
};

/// "tilemm-bench: openmp, 2 threads, on AMD EPYC ...; kokkos-kernels calls OpenBLAS ...".
std::string context_line(const tilemm::RunContext& c) {
  std::string blas;
  for (const auto& [key, value] : c.backend.details) {
    if (key == "blas") blas = value;
  }
  return "tilemm-bench " + c.tilemm_version + " (git " + c.git_hash + "): " + c.backend.name +
         ", " + std::to_string(c.backend.concurrency) + " threads, on " + c.backend.device +
         (blas.empty() ? "" : "; kokkos-kernels calls " + blas) +
         "\n(the whole context goes into the JSON file of --benchmark_out)\n";
}

/// Whether Google Benchmark prints its console format: no --benchmark_format=json or csv.
bool console_format(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg.rfind("--benchmark_format=", 0) == 0) return arg == "--benchmark_format=console";
  }
  return true;
}

/// The verdict as the CLI gives it (tilemm::passes), and the message a failed one stops its
/// benchmark with: "validation failed: error E > tolerance T" (plot.py reads it), or
/// "validation failed: freivalds_error F > tolerance T" where Freivalds' check failed.
std::string failure_of(const tilemm::Session& session, double tolerance) {
  const double error = session.error(), freivalds = session.freivalds_error();
  if (tilemm::passes(error, freivalds, session.reference_valid(), tolerance)) return "";
  const bool freivalds_failed = !(freivalds <= tolerance);
  char message[128];  // %g: errors and tolerances are near 1e-7 or 1e-16
  std::snprintf(message, sizeof message, "validation failed: %s %g > tolerance %g",
                freivalds_failed ? "freivalds_error" : "error",
                freivalds_failed ? freivalds : error, tolerance);
  return message;
}

/// Registers a benchmark for each kernel run of each planned problem, timed by the run's own
/// clock (manual time) and with the CLI's counters; a result that fails the CLI's checks clears
/// `all_passed` and ends its benchmark with an error.
void register_benchmarks(const std::vector<tilemm::Plan>& plans, const std::string& backend,
                         Sessions& sessions, bool& all_passed) {
  for (const auto& plan : plans) {
    const tilemm::Problem& p = *plan.problem;
    const double flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
    const double bytes = double(p.scalar_bytes()) *
                         double(p.m * p.k + p.k * p.n + p.m * p.n * (p.beta != 0 ? 2 : 1));
    const double tolerance = tilemm::tolerance(p.precision, p.k);
    for (std::size_t r = 0; r < p.runs.size(); ++r) {
      const tilemm::LaunchConfig& launch = plan.launches[r];
      const std::string tile = tilemm::launch_text(launch, p);
      const auto body = [&, r, flops, bytes, tolerance, tile](benchmark::State& state) {
        tilemm::Session& session = sessions.of(plan);
        tilemm::GpuMonitor::Watch watch(tilemm::gpu_monitor(backend));
        for (auto _ : state) state.SetIterationTime(session.run(r));
        const auto gpu = watch.finish();
        const double error = session.error();
        state.counters["FLOP/s"] =
            benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
        state.counters["bytes"] = bytes;
        state.counters["intensity"] = flops / bytes;
        state.counters["error"] = error;
        state.counters["freivalds_error"] = session.freivalds_error();
        state.counters["reference_valid"] = session.reference_valid() ? 1 : 0;
        state.counters["tolerance"] = tolerance;
        if (gpu) {  // the CLI's gpu_* columns over the timed iterations, each where NVML gave it
          for (const auto& [name, value] :
               {std::pair{"gpu_sm_clock_mhz", gpu->sm_clock_mhz},
                std::pair{"gpu_sm_clock_mhz_min", gpu->sm_clock_mhz_min},
                std::pair{"gpu_power_w", gpu->power_w},
                std::pair{"gpu_power_capped", gpu->power_capped}}) {
            if (value >= 0) state.counters[name] = value;
          }
        }
        state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
        state.SetLabel(tile);
        const std::string failure = failure_of(session, tolerance);
        if (!failure.empty()) {
          all_passed = false;
          state.SkipWithError(failure.c_str());
        }
      };
      benchmark::RegisterBenchmark(benchmark_name(p, p.runs[r].kernel, backend).c_str(), body)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

int run_benchmarks(int argc, char** argv) {
  std::vector<std::string> ours;
  tilemm::KokkosArguments kokkos_args(argc, argv, ours);

  Options o;
  CLI::App app{"tilemm-bench: Google Benchmark over tilemm's kernels and KokkosBlas::gemm.",
               "tilemm-bench"};
  app.add_option("--backend", o.backend, "execution space: serial, openmp, cuda, ...");
  app.add_option("--spec", o.specs, "problem spec files (YAML), as for the tilemm CLI");
  o.sizes = {"256", "512", "1024"};
  app.add_option("--sizes", o.sizes, "without --spec: N (square) or MxNxK, comma separated")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--kernels", o.selection.kernels, "only these kernels (comma separated)")
      ->delimiter(',');
  app.add_option("--precisions", o.selection.precisions, "only float, double")->delimiter(',');
  app.add_option("--layouts", o.selection.layouts, "only right, left")->delimiter(',');
  app.footer(
      "Google Benchmark's flags pass through: --benchmark_filter=REGEX, --benchmark_out=FILE,\n"
      "--benchmark_out_format=json, --benchmark_repetitions=N, --benchmark_min_time=SECONDS, ...\n"
      "Kokkos' flags too: --kokkos-num-threads=N, --kokkos-device-id=N.");

  // Google Benchmark takes its flags out of argv first; --help is answered with ours.
  const bool console = console_format(ours);
  std::vector<char*> bench_argv = {argv[0]};
  for (auto& arg : ours) {
    if (arg == "--help" || arg == "-h") {
      std::cout << app.help();
      return tilemm::kExitOk;
    }
    bench_argv.push_back(arg.data());
  }
  int bench_argc = static_cast<int>(bench_argv.size());
  benchmark::Initialize(&bench_argc, bench_argv.data());
  std::vector<std::string> rest(bench_argv.begin() + 1, bench_argv.begin() + bench_argc);
  std::reverse(rest.begin(), rest.end());
  try {
    app.parse(rest);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? tilemm::kExitOk : tilemm::kExitInputError;
  }
  kokkos_args.check();  // after --help, which needs no Kokkos
  const std::string backend =
      o.backend.empty() ? tilemm::default_backend() : tilemm::lower_case(o.backend);
  tilemm::check_backend(backend);
  std::vector<tilemm::InputFile> inputs;
  const std::vector<tilemm::Problem> problems = problems_of(o, inputs);

  Kokkos::ScopeGuard kokkos(kokkos_args.argc(), kokkos_args.argv());
  tilemm::check_host_threads();

  const std::vector<tilemm::Plan> plans = tilemm::plan(problems, backend);
  auto context = tilemm::gather_context(backend, std::move(inputs),
                                        std::vector<std::string>(argv, argv + argc));
  context.selection = o.selection.given();
  add_context(context);

  Sessions sessions(backend);
  bool all_passed = true;
  register_benchmarks(plans, backend, sessions, all_passed);
  if (console) {
    ConsoleWithoutContext reporter(context_line(context));
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  sessions.clear();  // before Kokkos finalizes
  benchmark::Shutdown();
  return all_passed ? tilemm::kExitOk : tilemm::kExitValidationFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return tilemm::exit_status_of("tilemm-bench", [&] { return run_benchmarks(argc, argv); });
}
