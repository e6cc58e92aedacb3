// What the CLI says on stderr while a run goes on and when it ends. Each problem as it starts
// ("[2/12] square m=1024 ..."); then on a terminal one line rewritten in place (the problem and
// kernel, the warm-up or timed run, the time so far and an estimate of the time left), and in a
// log a line per finished kernel; at the end one line that sums the results up.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <pthread.h>

#include "tilemm/runner.hpp"

namespace tilemm::cli {

/// How the progress shows: not at all (-q, and ranks other than 0 of an MPI run), as a line
/// rewritten in place (stderr is a terminal), or as lines added to a log.
enum class ProgressMode { Off, Live, Log };

/// The mode for stderr as it is: Live on a terminal, else Log; Off when `quiet`.
ProgressMode progress_mode(bool quiet);

/// "square m=1024 n=1024 k=1024 double right op=NN: naive tiled", with how an MPI run of several
/// ranks spreads it (" summa 2x2 block=256 panel=256").
std::string describe_problem(const Problem& p);

class Progress final : public RunObserver {
 public:
  Progress(ProgressMode mode, const std::vector<Plan>& plans);
  ~Progress() override;
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Plan `index` starts: its line, "[i/N] ...".
  void problem_started(std::size_t index);
  void kernel_started(std::size_t run) override;
  void warmed_up(int done) override;
  void timed(int done, int total, double seconds) override;
  /// A kernel's result: `print` (the table's row) runs with the live line out of its way; a log
  /// then gets the kernel's line.
  void finished(const Result& r, const std::function<void()>& print);
  /// Clears the live line for good (also done on destruction).
  void stop();

 private:
  enum class Phase { Idle, First, Warmup, Timed };
  /// Seconds one run of `kernel` takes on `flops` multiply-adds, from the kernels done so far; -1
  /// before any.
  double seconds_of_run(const std::string& kernel, double flops) const;
  /// Seconds the run still needs, or -1 while nothing is known to estimate from.
  double seconds_left() const;
  /// "problem 2/12, kernel 3/5 register-tiled: timed run 4/10"
  std::string status() const;
  /// "0:42 elapsed, about 3:10 left"
  void format_clock(char (&text)[96]) const;
  void draw(bool force);  // the live line, with its status made anew; with mutex_ held
  void show();            // the live line with the status made last; with mutex_ held
  void clear();           // with mutex_ held
  static void* tick_entry(void* self);
  void tick();  // the ticker thread's loop

  using Clock = std::chrono::steady_clock;
  ProgressMode mode_;
  const std::vector<Plan>& plans_;
  Clock::time_point start_ = Clock::now();
  std::size_t problem_ = 0, run_ = 0;
  Phase phase_ = Phase::Idle;
  int warm_done_ = 0, timed_done_ = 0, timed_total_ = 0;
  double timed_seconds_ = 0;  // of the kernel's timed runs so far
  Clock::time_point kernel_start_, warmup_start_, last_draw_;
  /// Per kernel name: the work of its runs not started yet (flops times the runs each makes), and
  /// the seconds and flops of its timed runs done.
  struct KernelWork {
    double flops_left = 0;
    double seconds_done = 0, flops_done = 0;
  };
  std::map<std::string, KernelWork> work_;
  double warmup_seconds_left_ = 0;  // the warmup_s of the runs not started yet
  bool line_shown_ = false;
  std::string status_;  // of the last draw()

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  pthread_t ticker_{};  // redraws the live line every second, on a terminal
  bool ticking_ = false;
};

/// The line that sums a run up: its results, how many passed, failed and were noisy, and the files
/// written.
class Summary {
 public:
  explicit Summary(std::size_t expected) : expected_(expected) {}
  void add(const Result& r);
  /// "tilemm: 10 results: 9 pass, 1 fail (odd-rectangular naive), 2 noisy; wrote r.json, r.csv";
  /// `files` are the --json and --csv files given ("-": standard output).
  std::string line(const std::vector<std::string>& files) const;

 private:
  std::size_t expected_, results_ = 0, passed_ = 0, noisy_ = 0, c_files_ = 0;
  std::vector<std::string> failed_;  // "name kernel" of each failed result
};

}  // namespace tilemm::cli
