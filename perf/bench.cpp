// tilemm-bench: Google Benchmark over tilemm's kernels, KokkosBlas::gemm included.
//
//   tilemm-bench [--backend NAME] [--spec FILE]... [--sizes LIST] [--kernels LIST]
//                [--precisions LIST] [--layouts LIST] [--benchmark_*=...] [--kokkos-*=...]
//
// Each benchmark times one kernel on one problem with manual time: the seconds of fenced kernel
// runs, C reset before each outside the clock. Counters: FLOP/s (2 m n k per product), bytes (the
// least traffic a product needs: A and B read once, C written once and read too when beta != 0),
// intensity (FLOP per byte), and the last run's validation error against the double-precision
// KokkosBlas::gemm with its tolerance. Problems come from the CLI's YAML specs (one source of
// truth for a study) or from --sizes; the other options narrow either. Kokkos is initialized once
// around the whole run. Exit status as the CLI's: 0, 1 when a result failed validation, 2 for bad
// input, 3 for a runtime failure.
#include <benchmark/benchmark.h>

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
#include "tilemm/spec.hpp"
#include "tilemm/validate.hpp"

namespace {

struct Options {
  std::string backend;
  std::vector<std::string> specs;
  std::vector<std::string> sizes;
  std::vector<std::string> kernels, precisions, layouts;
};

bool allowed(const std::vector<std::string>& filter, const std::string& value) {
  return filter.empty() || std::find(filter.begin(), filter.end(), value) != filter.end();
}

void check_values(const std::string& option, const std::vector<std::string>& values,
                  const std::vector<std::string>& known) {
  for (const auto& v : values) {
    if (!allowed(known, v)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw tilemm::InputError(option + ": unknown value '" + v + "'; one of " + list);
    }
  }
}

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
        for (const auto& kernel : tilemm::kernel_names()) p.runs.push_back({kernel, {}});
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
  std::vector<tilemm::Problem> kept;
  for (auto& p : all) {
    if (!allowed(o.precisions, to_string(p.precision)) || !allowed(o.layouts, to_string(p.layout)))
      continue;
    std::vector<tilemm::KernelRun> runs;
    for (const auto& run : p.runs) {
      if (allowed(o.kernels, run.kernel)) runs.push_back(run);
    }
    p.runs = runs;
    if (!p.runs.empty()) kept.push_back(p);
  }
  return kept;
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

/// Registers a benchmark for each kernel run of each planned problem, timed by the run's own
/// clock (manual time) and with the CLI's counters; a result past its tolerance clears
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
        if (!(error <= tolerance)) {  // NaN fails too
          all_passed = false;
          char message[96];  // %g: errors and tolerances are near 1e-7 or 1e-16
          std::snprintf(message, sizeof message, "validation failed: error %g > tolerance %g",
                        error, tolerance);
          state.SkipWithError(message);
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
  app.add_option("--kernels", o.kernels, "only these kernels (comma separated)")->delimiter(',');
  app.add_option("--precisions", o.precisions, "only float, double")->delimiter(',');
  app.add_option("--layouts", o.layouts, "only right, left")->delimiter(',');
  app.footer(
      "Google Benchmark's flags pass through: --benchmark_filter=REGEX, --benchmark_out=FILE,\n"
      "--benchmark_out_format=json, --benchmark_repetitions=N, --benchmark_min_time=SECONDS, ...\n"
      "Kokkos' flags too: --kokkos-num-threads=N, --kokkos-device-id=N.");

  // Google Benchmark takes its flags out of argv first; --help is answered with ours.
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
  check_values("--kernels", o.kernels, tilemm::kernel_names());
  check_values("--precisions", o.precisions, {"float", "double"});
  check_values("--layouts", o.layouts, {"right", "left"});
  std::vector<tilemm::InputFile> inputs;
  const std::vector<tilemm::Problem> problems = problems_of(o, inputs);
  if (problems.empty()) throw tilemm::InputError("no problem is left after the filters");

  Kokkos::ScopeGuard kokkos(kokkos_args.argc(), kokkos_args.argv());
  tilemm::check_host_threads();

  const std::string backend = o.backend.empty() ? tilemm::default_backend() : o.backend;
  tilemm::check_backend(backend);
  const std::vector<tilemm::Plan> plans = tilemm::plan(problems, backend);
  add_context(tilemm::gather_context(backend, std::move(inputs),
                                     std::vector<std::string>(argv, argv + argc)));

  Sessions sessions(backend);
  bool all_passed = true;
  register_benchmarks(plans, backend, sessions, all_passed);
  benchmark::RunSpecifiedBenchmarks();
  sessions.clear();  // before Kokkos finalizes
  benchmark::Shutdown();
  return all_passed ? tilemm::kExitOk : tilemm::kExitValidationFailed;
}

}  // namespace

int main(int argc, char** argv) {
  return tilemm::exit_status_of("tilemm-bench", [&] { return run_benchmarks(argc, argv); });
}
