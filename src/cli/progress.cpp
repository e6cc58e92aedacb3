#include "progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "tilemm/distributed/block_cyclic.hpp"
#include "tilemm/distributed/world.hpp"

namespace tilemm::cli {
namespace {

/// 2 m n k: the flops of one product.
double flops_of(const Problem& p) {
  return 2.0 * double(p.m) * double(p.n) * double(p.k);
}

/// The kernel executions of one kernel run, the first (validated) one included, when its warm-up
/// runs are counted and not timed.
double executions(const Problem& p) {
  return 1.0 + p.warmup + p.repeats;
}

/// "0:42", "12:05", "1:02:03" into `text`.
void format_duration(char (&text)[32], double seconds) {
  const long s = std::lround(std::max(seconds, 0.0));
  if (s < 3600) {
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  }
}

/// The columns of the terminal on stderr; 0 when it does not say.
int terminal_columns() {
  winsize size{};
  return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

/// How an MPI run of several ranks spreads a problem: " summa 2x2 block=256 panel=256", or
/// " replicated on 4 ranks"; "" for a run of one process.
std::string describe_spread(const Problem& p) {
  const int ranks = distributed::size();
  if (ranks == 1) return "";
  if (p.distribution.spread == Spread::Replicated) {
    return " replicated on " + std::to_string(ranks) + " ranks";
  }
  const auto [rows, cols] = distributed::grid_of(p, ranks);
  const auto [block, panel] = distributed::block_and_panel(p);
  return " summa " + std::to_string(rows) + "x" + std::to_string(cols) +
         " block=" + std::to_string(block) + " panel=" + std::to_string(panel);
}

}  // namespace

ProgressMode progress_mode(bool quiet) {
  if (quiet) return ProgressMode::Off;
  return ::isatty(STDERR_FILENO) ? ProgressMode::Live : ProgressMode::Log;
}

std::string describe_problem(const Problem& p) {
  std::string kernels;
  for (const auto& run : p.runs) kernels += " " + run.kernel;
  return p.origin.name + " m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
         " k=" + std::to_string(p.k) + " " + to_string(p.precision) + " " + to_string(p.layout) +
         " op=" + to_string(p.trans_a) + to_string(p.trans_b) + describe_spread(p) + ":" + kernels;
}

Progress::Progress(ProgressMode mode, const std::vector<Plan>& plans) : mode_(mode), plans_(plans) {
  for (const Plan& plan : plans_) {
    const Problem& p = *plan.problem;
    for (const auto& run : p.runs) work_[run.kernel].flops_left += flops_of(p) * executions(p);
    warmup_seconds_left_ += p.warmup_s * double(p.runs.size());
  }
  if (mode_ != ProgressMode::Live) return;
  // A small stack: under `ulimit -v` the plan counted the memory of the threads already there.
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, std::size_t(256) << 10);
  ticking_ = pthread_create(&ticker_, &attributes, &Progress::tick_entry, this) == 0;
  pthread_attr_destroy(&attributes);
}

Progress::~Progress() {
  stop();
}

void Progress::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    clear();
  }
  wake_.notify_all();
  if (ticking_) pthread_join(ticker_, nullptr);
  ticking_ = false;
}

void* Progress::tick_entry(void* self) {
  static_cast<Progress*>(self)->tick();
  return nullptr;
}

void Progress::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::seconds(1));
    if (!stopping_ && line_shown_) show();
  }
}

void Progress::problem_started(std::size_t index) {
  if (mode_ == ProgressMode::Off) return;
  std::lock_guard<std::mutex> lock(mutex_);
  clear();
  problem_ = index;
  phase_ = Phase::Idle;
  // One write for the whole line (std::cerr writes each << at once), so that a log that other
  // processes write to too never holds it in pieces.
  std::cerr << ("[" + std::to_string(index + 1) + "/" + std::to_string(plans_.size()) + "] " +
                describe_problem(*plans_[index].problem) + "\n")
            << std::flush;
}

void Progress::kernel_started(std::size_t run) {
  if (mode_ == ProgressMode::Off) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const Problem& p = *plans_[problem_].problem;
  run_ = run;
  phase_ = Phase::First;
  warm_done_ = timed_done_ = 0;
  timed_total_ = p.repeats;
  timed_seconds_ = 0;
  kernel_start_ = warmup_start_ = Clock::now();
  // This run's work is now the current kernel's, estimated from its own runs as they come.
  work_[p.runs[run].kernel].flops_left -= flops_of(p) * executions(p);
  warmup_seconds_left_ -= p.warmup_s;
  draw(/*force=*/true);
}

void Progress::warmed_up(int done) {
  if (mode_ == ProgressMode::Off) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (phase_ == Phase::First) warmup_start_ = Clock::now();
  warm_done_ = done;
  phase_ = Phase::Warmup;
  draw(/*force=*/false);
}

void Progress::timed(int done, int total, double seconds) {
  if (mode_ == ProgressMode::Off) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const bool first = phase_ != Phase::Timed;
  phase_ = Phase::Timed;
  timed_done_ = done;
  timed_total_ = total;
  timed_seconds_ += seconds;
  draw(/*force=*/first);
}

void Progress::finished(const Result& r, const std::function<void()>& print) {
  std::lock_guard<std::mutex> lock(mutex_);
  clear();
  print();
  if (mode_ == ProgressMode::Off) return;
  const Problem& p = *r.problem;
  KernelWork& work = work_[r.kernel];
  for (const double t : r.time.times) work.seconds_done += t;
  work.flops_done += flops_of(p) * double(r.time.times.size());
  phase_ = Phase::Idle;
  if (mode_ != ProgressMode::Log) return;
  char figures[96];
  std::snprintf(figures, sizeof figures, "%s%s, %.4g GFLOP/s, %.3g s", r.passed ? "pass" : "FAIL",
                r.time.noisy() ? " (noisy)" : "", r.gflops,
                std::chrono::duration<double>(Clock::now() - kernel_start_).count());
  char clock[96];
  format_clock(clock);
  std::cerr << status() + ": " + figures + "; " + clock + "\n" << std::flush;
}

void Progress::format_clock(char (&text)[96]) const {
  char elapsed[32], left[32];
  format_duration(elapsed, std::chrono::duration<double>(Clock::now() - start_).count());
  const double seconds = seconds_left();
  format_duration(left, seconds);
  std::snprintf(text, sizeof text, seconds < 0 ? "%s elapsed" : "%s elapsed, about %s left",
                elapsed, left);
}

double Progress::seconds_of_run(const std::string& kernel, double flops) const {
  // This kernel's own rate where it has run, else the rate of all kernels done so far.
  double seconds = 0, done = 0;
  const auto own = work_.find(kernel);
  if (own != work_.end() && own->second.flops_done > 0) {
    seconds = own->second.seconds_done;
    done = own->second.flops_done;
  } else {
    for (const auto& [name, work] : work_) {
      seconds += work.seconds_done;
      done += work.flops_done;
    }
  }
  return done > 0 ? flops * seconds / done : -1;
}

double Progress::seconds_left() const {
  double left = warmup_seconds_left_;
  for (const auto& [kernel, work] : work_) {
    if (work.flops_left <= 0) continue;
    const double seconds = seconds_of_run(kernel, work.flops_left);
    if (seconds < 0) return -1;
    left += seconds;
  }
  if (phase_ == Phase::Idle) return left;
  const Problem& p = *plans_[problem_].problem;
  // The current kernel: its own timed runs so far tell best how long the next ones take.
  const double run = timed_done_ > 0 ? timed_seconds_ / timed_done_
                                     : seconds_of_run(p.runs[run_].kernel, flops_of(p));
  if (run < 0) return -1;
  const auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  if (phase_ == Phase::Timed) return left + (timed_total_ - timed_done_) * run;
  const double warmup = std::max(p.warmup * run, p.warmup_s);
  const double warmed = phase_ == Phase::Warmup ? since(warmup_start_) : 0;
  return left + (phase_ == Phase::First ? run : 0) + std::max(warmup - warmed, 0.0) +
         p.repeats * run;
}

std::string Progress::status() const {
  const Problem& p = *plans_[problem_].problem;
  std::string text = "problem " + std::to_string(problem_ + 1) + "/" +
                     std::to_string(plans_.size()) + ", kernel " + std::to_string(run_ + 1) + "/" +
                     std::to_string(p.runs.size()) + " " + p.runs[run_].kernel;
  if (phase_ == Phase::Idle) return text;
  const auto warm_seconds = std::chrono::duration<double>(Clock::now() - warmup_start_).count();
  const bool warming = phase_ == Phase::Warmup &&
                       (warm_done_ < p.warmup || (p.warmup_s > 0 && warm_seconds < p.warmup_s));
  char step[96];
  if (phase_ == Phase::First) {
    std::snprintf(step, sizeof step, "first run and check");
  } else if (warming && p.warmup_s > 0) {
    std::snprintf(step, sizeof step, "warm-up run %d (%.1f of %.1f s)", warm_done_ + 1,
                  warm_seconds, p.warmup_s);
  } else if (warming) {
    std::snprintf(step, sizeof step, "warm-up run %d/%d", warm_done_ + 1, p.warmup);
  } else if (timed_done_ < timed_total_) {
    std::snprintf(step, sizeof step, "timed run %d/%d", timed_done_ + 1, timed_total_);
  } else {
    std::snprintf(step, sizeof step, "check");
  }
  return text + ": " + step;
}

void Progress::draw(bool force) {
  if (mode_ != ProgressMode::Live || phase_ == Phase::Idle) return;
  const auto now = Clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  status_ = status();
  show();
}

void Progress::show() {
  // Text only, no allocation: the ticker thread calls this too, and a thread that allocates gets
  // an arena of the heap's own, tens of MiB of address space that the plan did not count.
  char clock[96], line[512];
  format_clock(clock);
  int length = std::snprintf(line, sizeof line, "\r%s; %s", status_.c_str(), clock);
  length = std::min(length, int(sizeof line) - 8);
  // A line wider than the terminal would wrap, and the next one could not be written over it.
  const int columns = terminal_columns();
  if (columns > 1) length = std::min(length, columns);  // "\r" and columns - 1 characters
  std::memcpy(line + length, "\033[K", 3);
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, line, std::size_t(length) + 3);
  line_shown_ = true;
}

void Progress::clear() {
  if (!line_shown_) return;
  std::cerr << "\r\033[K" << std::flush;
  line_shown_ = false;
}

void Summary::add(const Result& r) {
  ++results_;
  if (r.passed) {
    ++passed_;
  } else {
    failed_.push_back(r.problem->origin.name + " " + r.kernel);
  }
  if (r.time.noisy()) ++noisy_;
  if (!r.c_out.empty()) ++c_files_;
}

std::string Summary::line(const std::vector<std::string>& files) const {
  std::string text = "tilemm: " + std::to_string(results_) +
                     (results_ < expected_ ? " of " + std::to_string(expected_) : "") +
                     (results_ == 1 && results_ == expected_ ? " result: " : " results: ") +
                     std::to_string(passed_) + " pass, " + std::to_string(failed_.size()) + " fail";
  if (!failed_.empty()) {
    // The first few by name: after a failure, the table need not be searched.
    std::string names;
    for (std::size_t i = 0; i < failed_.size() && i < 3; ++i) names += (i ? ", " : "") + failed_[i];
    text += " (" + names + (failed_.size() > 3 ? ", ..." : "") + ")";
  }
  text += ", " + std::to_string(noisy_) + " noisy; ";
  std::vector<std::string> written;
  for (const auto& file : files) {
    if (!file.empty()) written.push_back(file == "-" ? "standard output" : file);
  }
  if (c_files_ > 0) written.push_back(std::to_string(c_files_) + " C files (c_out)");
  if (written.empty()) return text + "no result files (--json, --csv)\n";
  std::string list;
  for (std::size_t i = 0; i < written.size(); ++i) list += (i ? ", " : "") + written[i];
  return text + "wrote " + list + "\n";
}

}  // namespace tilemm::cli
