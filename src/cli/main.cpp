// tilemm [options] SPEC.yaml...
//
// spec -> problems -> plan (every launch and memory need checked) -> run -> validate -> report.
// Exit status: 0 all results validated, 1 a validation failed, 2 usage or input error, 3 runtime
// failure; 128 + signal number when SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGXCPU or SIGPIPE stopped
// the run (finished results are kept).
//
// Under an MPI launcher (mpirun, srun) with several ranks, each problem is one product over all
// of them (distributed/summa.hpp): every rank reads the specs and runs, rank 0 alone prints and
// writes the results, and a failure on any rank ends every rank with its status and message.
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "listings.hpp"
#include "progress.hpp"
#include "tilemm/atomic_file.hpp"
#include "tilemm/context.hpp"
#include "tilemm/distributed/block_cyclic.hpp"
#include "tilemm/distributed/world.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/kokkos_args.hpp"
#include "tilemm/output_paths.hpp"
#include "tilemm/report.hpp"
#include "tilemm/runner.hpp"
#include "tilemm/selection.hpp"
#include "tilemm/spec.hpp"
#include "tilemm/utf8.hpp"
#include "tilemm/vendor_library.hpp"

// The CPU affinity the results record is the process's as it started, before the OpenMP runtime
// pins the main thread.
TILEMM_READ_CPU_AFFINITY_AT_START

namespace {

tilemm::StopFlag g_stop = 0;
/// Set once every rank has agreed how the run ended: a signal from then on changes nothing.
volatile std::sig_atomic_t g_run_over = 0;
/// Whether this process prints the notes of a signal: every process but ranks 1, 2, ... of an MPI
/// run, which the launcher passes the same signal to.
volatile std::sig_atomic_t g_signal_notes = 1;

extern "C" void on_signal(int signum) {
  g_stop = signum;
  // A second signal ends the process at once. SIGPIPE (the reader of stdout gone, as in `tilemm
  // ... | head`) comes again at every write of the table: from then on the table is dropped,
  // and the result files are finished as for SIGTERM. SIGXCPU comes again every second past a
  // CPU-time limit, until the hard limit kills the process: only the first counts.
  std::signal(signum, signum == SIGPIPE || signum == SIGXCPU ? SIG_IGN : SIG_DFL);
  // A kernel run cannot be cut short and may take minutes: say at once that the signal was heard.
  // write(2) is async-signal-safe; errno is kept for the code the signal interrupted.
  static const char note[] =
      "tilemm: signal received: stopping after the current kernel run (send it again to stop at "
      "once)\n";
  // Quiet once the run is over, or its failure agreed: the launcher's teardown of an MPI run may
  // signal a rank then (when another rank has ended), and no kernel run is left to stop after.
  if (!g_signal_notes || g_run_over || tilemm::distributed::failure_agreed()) return;
  const int saved_errno = errno;
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, note, sizeof note - 1);
  errno = saved_errno;
}

/// The name of a signal that stops a run.
const char* signal_name(int signum) {
  switch (signum) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGPIPE:
      return "SIGPIPE";
  }
  return "a signal";
}

/// Set when tilemm chooses its exit status (main's return).
std::atomic<bool> g_status_chosen{false};

/// A library may end the process itself: the OpenMP runtime (libgomp: "Thread creation failed")
/// exits with status 1, which to a batch job means a failed validation; so does Kokkos when its
/// tools cannot start. An exit tilemm did not choose says so, and leaves with the status of a
/// runtime failure instead. Status 0 is left as it is: Kokkos ends the process so after printing
/// the help of --kokkos-tools-help. Registered first, the handler runs after the destructors of
/// statics made later, and its _Exit skips the rest (libraries' own exit work).
extern "C" void on_exit_not_chosen(int status, void*) {
  if (g_status_chosen || status == 0) return;
  std::fflush(stdout);
  std::fprintf(stderr,
               "tilemm: runtime failure: a library ended the process with exit status %d before "
               "tilemm finished (its message, if it left one, is above); results finished before "
               "it, if any, are in the result files, whose JSON status stays 'running'; exit "
               "status %d\n",
               status, tilemm::kExitRuntimeError);
  std::_Exit(tilemm::kExitRuntimeError);
}

struct Options {
  std::vector<std::string> specs;
  std::string backend;
  std::string json, csv;
  bool quiet = false;
  bool list_backends = false, list_kernels = false, list_specs = false;
  bool gpu_aware_mpi = false;
  tilemm::Selection selection;  // --problems, --kernels, --precisions, --layouts
};

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

/// What the context says of this rank of an MPI run: "host: device", and on a GPU its number.
std::string rank_text(const tilemm::RunContext& context) {
  std::string text = context.hostname + ": " + context.backend.device;
  for (const auto& [key, value] : context.backend.details) {
    if (key == "cuda_device_id") text += " (CUDA device " + value + ")";
  }
  return text;
}

/// The run's context; in an MPI run of several ranks, with each rank's host and device (a
/// collective).
tilemm::RunContext gather_run_context(const std::string& backend,
                                      std::vector<tilemm::InputFile> inputs,
                                      const std::vector<std::string>& command_line) {
  tilemm::RunContext context = tilemm::gather_context(backend, std::move(inputs), command_line);
  if (tilemm::distributed::size() > 1) {
    context.ranks = tilemm::distributed::gather_text(rank_text(context));
  }
  return context;
}

/// The problems of every spec file, checked with the files their results go to, on every rank:
/// a failure on any rank ends them all. Rank 0 of an MPI run prints and writes the results; the
/// others compute and stay quiet (their options say so from here on). `inputs` gets each file
/// read, with its SHA-256. What reads a matrix file whole, its SHA-256 and the scan of its values,
/// rank 0 does alone: the others read its header here and their own blocks later.
std::vector<tilemm::Problem> load_problems(Options& options, const std::string& backend,
                                           std::vector<tilemm::InputFile>* inputs) {
  const bool first = tilemm::distributed::rank() == 0;
  if (!first) {
    options.json.clear();
    options.csv.clear();
    options.quiet = true;
  }
  std::vector<tilemm::Problem> problems;
  tilemm::distributed::on_all_ranks([&] {
    tilemm::cli::check_specs_exist(options.specs);
    for (const auto& spec : options.specs) {
      auto loaded = tilemm::load_spec(spec, first ? inputs : nullptr, /*scan_values=*/first);
      problems.insert(problems.end(), loaded.begin(), loaded.end());
    }
    problems = tilemm::select(std::move(problems), options.selection);
    if (first) {
      tilemm::check_output_files(options.specs, options.json, options.csv, problems, backend);
    }
  });
  return problems;
}

/// Runs the planned problems, reporting each result as it comes. Returns the exit status.
int run_all(const std::vector<tilemm::Plan>& plans, const std::string& backend,
            const Options& options, const tilemm::RunContext& context) {
  using tilemm::ResultsFile;
  std::vector<std::unique_ptr<ResultsFile>> files;
  const auto open = [&](const std::string& option, const std::string& path,
                        ResultsFile::Format format) {
    if (path.empty()) return;
    try {
      files.push_back(std::make_unique<ResultsFile>(path, format, context));
    } catch (const tilemm::FileInUse& e) {
      throw tilemm::InputError(option + ": " + e.what());  // another job's file, not this run's
    }
  };
  // With results on standard output ("-"), stdout holds that file alone and the table goes to
  // stderr.
  const bool results_on_stdout = options.json == "-" || options.csv == "-";
  std::ostream nowhere(nullptr);  // the table of ranks other than 0 of an MPI run
  tilemm::Table table(tilemm::distributed::rank() != 0 ? nowhere
                      : results_on_stdout              ? std::cerr
                                                       : std::cout);
  bool all_passed = true;
  tilemm::cli::Progress progress(tilemm::cli::progress_mode(options.quiet), plans);
  std::size_t expected = 0;
  for (const auto& plan : plans) expected += plan.launches.size();
  tilemm::cli::Summary summary(expected);
  const auto on_result = [&](const tilemm::Result& r) {
    progress.finished(r, [&] { table.row(r); });
    try {
      for (auto& f : files) f->add(r);
    } catch (const std::exception& e) {
      throw tilemm::RuntimeFailure(e.what());  // the results file, not the run, failed
    }
    all_passed = all_passed && r.passed;
    summary.add(r);
  };
  try {
    open("--json", options.json, ResultsFile::Format::Json);
    open("--csv", options.csv, ResultsFile::Format::Csv);
    for (std::size_t i = 0; i < plans.size(); ++i) {
      progress.problem_started(i);
      if (!tilemm::run(plans[i], backend, on_result, &g_stop, &progress)) break;
    }
  } catch (const std::exception& e) {
    // Each file records the failure if it still can; the failure itself is what the user sees.
    for (auto& f : files) {
      try {
        f->finish("failed: " + first_line(e.what()));
      } catch (const std::exception&) {
      }
    }
    throw;
  }
  progress.stop();
  const std::string summary_line = options.quiet ? "" : summary.line({options.json, options.csv});
  // A signal to any rank of an MPI run stopped every rank (runner.cpp): all end as that rank does.
  const auto [signum, rank] = tilemm::distributed::max_and_rank(g_stop);
  g_run_over = 1;
  if (signum > 0) {
    for (auto& f : files) f->finish("interrupted");
    if (g_signal_notes) {
      std::cerr << "tilemm: stopped by signal " << int(signum) << " (" << signal_name(int(signum))
                << (rank > 0 ? ", on rank " + std::to_string(rank) : "")
                << "); finished results are kept\n"
                << summary_line;
    }
    return 128 + int(signum);
  }
  for (auto& f : files) f->finish("complete");
  std::cerr << summary_line;
  return all_passed ? tilemm::kExitOk : tilemm::kExitValidationFailed;
}

/// While it lives, what is written to stdout goes to stderr: Kokkos prints notes as it starts (a
/// warning when OMP_PROC_BIND is unset, Kokkos 3 on std::cout), and stdout holds the table alone.
class StdoutToStderr {
 public:
  StdoutToStderr() {
    flush();
    saved_ = ::dup(STDOUT_FILENO);
    if (saved_ >= 0) ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~StdoutToStderr() {
    flush();
    if (saved_ < 0) return;
    ::dup2(saved_, STDOUT_FILENO);
    ::close(saved_);
  }
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;

 private:
  static void flush() {
    std::cout.flush();
    std::fflush(stdout);
  }
  int saved_ = -1;  // the real stdout
};

/// An option's value that must not be empty: an empty one (an unset variable in a job script)
/// would write no file, or run on the default backend instead of the one the script meant.
CLI::Validator not_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) { return value.empty() ? "an empty " + what : std::string(); },
      "");
}

/// The command line's options and help text, read into `options`.
void add_options(CLI::App& app, Options& options) {
  app.add_option("specs", options.specs, "problem spec files (YAML)")->type_name("SPEC.yaml");
  app.add_option("--backend", options.backend,
                 "execution space to run on: serial, openmp, cuda, ... (default: Kokkos' default)")
      ->type_name("NAME")
      ->check(not_empty("backend name"));
  app.add_option("--json", options.json,
                 "write results and context as JSON to FILE ('-': stdout, at the end)")
      ->type_name("FILE")
      ->check(not_empty("file name"));
  app.add_option("--csv", options.csv, "write results as CSV to FILE ('-': stdout, at the end)")
      ->type_name("FILE")
      ->check(not_empty("file name"));
  app.add_flag("-q,--quiet", options.quiet, "no progress and no summary on stderr");
  app.add_flag("--list-backends", options.list_backends,
               "print the backends of this build and exit");
  app.add_flag("--gpu-aware-mpi", options.gpu_aware_mpi,
               "MPI runs on GPUs: hand MPI the GPU buffers (an MPI built CUDA-aware) instead of "
               "staging them through host memory");
  app.add_flag("--list-kernels", options.list_kernels, "print the kernels and exit");
  app.add_flag("--list-specs", options.list_specs,
               "print the shipped specs (installed, or the checkout's inputs/) and exit");
  app.set_version_flag("--version", tilemm::version_text());
  app.footer(
      "Kokkos options pass through: --kokkos-num-threads=N, --kokkos-device-id=N, --kokkos-help.\n"
      "Exit status: 0 all results validated, 1 a validation failed, 2 usage or input error,\n"
      "3 runtime failure (such as not enough memory), 128+N stopped by signal N.");
}

/// The options that narrow the specs to a part of them: each a comma-separated list, and may be
/// given again.
void add_selection_options(CLI::App& app, tilemm::Selection& selection) {
  for (const auto& [name, values, what] :
       {std::tuple{"--problems", &selection.problems, "only the problems of these names"},
        std::tuple{"--kernels", &selection.kernels, "only these kernels"},
        std::tuple{"--precisions", &selection.precisions, "only these precisions: float, double"},
        std::tuple{"--layouts", &selection.layouts, "only these layouts: right, left"}}) {
    app.add_option(name, *values, std::string(what) + " (comma separated)")
        ->type_name("LIST")
        ->delimiter(',')
        ->allow_extra_args(false);
  }
}

/// What --list-kernels, --list-specs and --list-backends print, before Kokkos starts; nothing
/// else runs then. Returns false when none of them was given.
bool print_lists(const Options& options) {
  if (options.list_kernels) tilemm::cli::list_kernels(std::cout);
  if (options.list_specs && !tilemm::cli::list_specs(std::cout)) {
    throw tilemm::InputError("--list-specs: no shipped specs beside this tilemm, nor a checkout");
  }
  if (options.list_backends) {
    for (const auto& name : tilemm::available_backends()) {
      std::cout << name << (name == tilemm::default_backend() ? " (default)" : "") << "\n";
    }
  }
  return options.list_kernels || options.list_specs || options.list_backends;
}

int run_cli(int argc, char** argv) {
  // Every argument may end up in the results (the command line is part of the context), and those
  // are JSON: text that is not UTF-8 is refused before anything runs.
  for (int i = 1; i < argc; ++i) {
    if (!tilemm::is_valid_utf8(argv[i])) {
      throw tilemm::InputError("argument " + std::to_string(i) +
                               " is not UTF-8 text (file names included)");
    }
  }
  std::vector<std::string> ours;
  tilemm::KokkosArguments kokkos_args(argc, argv, ours);

  Options options;
  CLI::App app{
      "tilemm: tiled dense matrix multiplication (GEMM) with Kokkos, validated against "
      "KokkosBlas::gemm and timed on any backend of the Kokkos build.",
      "tilemm"};
  add_options(app, options);
  add_selection_options(app, options.selection);
  std::vector<std::string> reversed(ours.rbegin(), ours.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    throw tilemm::InputError(std::string(e.what()) + " (try: tilemm --help)");
  }
  kokkos_args.check();  // after --help and --version, which need no Kokkos; before Kokkos starts
  tilemm::check_stacks();
  if (print_lists(options)) return tilemm::kExitOk;
  if (options.specs.empty() && kokkos_args.help()) {
    Kokkos::ScopeGuard kokkos(kokkos_args.argc(), kokkos_args.argv());  // prints Kokkos' help
    return tilemm::kExitOk;
  }
  if (options.specs.empty()) {
    std::cerr << "tilemm: error: no spec file given (" + tilemm::cli::specs_hint() + ")\n";
    return tilemm::kExitInputError;
  }

  // Everything about the input is checked before Kokkos starts or anything is computed.
  const std::string backend =
      options.backend.empty() ? tilemm::default_backend() : tilemm::lower_case(options.backend);
  tilemm::distributed::on_all_ranks([&] { tilemm::check_backend(backend); });
  if (options.gpu_aware_mpi) {
    tilemm::distributed::on_all_ranks([] { tilemm::distributed::request_device_buffers(); });
  }
  std::vector<tilemm::InputFile> inputs;
  const std::vector<tilemm::Problem> problems = load_problems(options, backend, &inputs);

  std::optional<Kokkos::ScopeGuard> kokkos;
  {
    const StdoutToStderr kokkos_notes;
    kokkos.emplace(kokkos_args.argc(), kokkos_args.argv());
  }
  tilemm::check_host_threads();

  std::vector<tilemm::Plan> plans;
  tilemm::distributed::on_all_ranks([&] { plans = tilemm::plan(problems, backend); });
  auto context =
      gather_run_context(backend, std::move(inputs), std::vector<std::string>(argv, argv + argc));
  context.selection = options.selection.given();
  if (tilemm::distributed::rank() == 0) {
    std::cerr << tilemm::vendor_library::thread_note(context.backend.details, backend,
                                                     context.backend.concurrency);
  }
  // What ends a batch job early stops the run as SIGTERM does: a closed terminal or ssh session
  // (SIGHUP), Slurm's warning before its time limit (--signal=USR1@T), a CPU-time limit (SIGXCPU).
  g_signal_notes = tilemm::distributed::rank() == 0;
  for (int signum : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGXCPU, SIGPIPE}) {
    std::signal(signum, on_signal);
  }
  // A file-size limit (ulimit -f) fails the write that passes it, as a full disk does, instead of
  // ending the process with a temporary file left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  return run_all(plans, backend, options, context);
}

/// run_cli on one rank. A failure that every rank of an MPI run agreed on is printed by rank 0
/// alone (with the failing rank's message); the others end with its status, quietly.
int run_rank(int argc, char** argv) {
  const auto quiet = [] {
    return tilemm::distributed::rank() != 0 && tilemm::distributed::failure_agreed();
  };
  try {
    return run_cli(argc, argv);
  } catch (const tilemm::InputError&) {
    if (quiet()) return tilemm::kExitInputError;
    throw;
  } catch (const std::exception&) {
    if (quiet()) return tilemm::kExitRuntimeError;
    throw;
  }
}

/// Opens /dev/null on each of the descriptors 0, 1 and 2 that is closed (a job script's
/// `tilemm spec.yaml --json r.json >&-`): otherwise the first file tilemm or a library opens takes
/// that descriptor, and the table, or a library's message, is written into it. open() takes the
/// lowest free descriptor, so going up from 0 fills each gap with its own.
void keep_standard_descriptors_open() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  keep_standard_descriptors_open();  // first: anything below may open a file
#ifdef __GLIBC__
  ::on_exit(on_exit_not_chosen, nullptr);  // glibc's: unlike atexit, the handler learns the status
#endif
  const tilemm::distributed::MpiScope mpi(argc, argv);
  const int status = tilemm::exit_status_of("tilemm", [&] { return run_rank(argc, argv); });
  g_status_chosen = true;
  // A failure the other ranks did not agree on may leave them waiting in a collective.
  if (status >= tilemm::kExitInputError && status < 128 && tilemm::distributed::size() > 1 &&
      !tilemm::distributed::failure_agreed()) {
    tilemm::distributed::abort_all(status);
  }
  return status;
}
