#include "tilemm/runner.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <new>
#include <vector>

#include "tilemm/distributed/replicated.hpp"
#include "tilemm/distributed/world.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/gpu_monitor.hpp"
#include "tilemm/output_paths.hpp"
#include "tilemm/system_info.hpp"
#include "tilemm/validate.hpp"

namespace tilemm {
namespace {

/// A failure inside a problem's setup or run, worded like the plan's refusal: which problem, why,
/// and for a failed allocation the memory the plan counted on. Kokkos reports a failed allocation
/// as std::bad_alloc or (3.x) std::runtime_error, with a traceback note after the first line.
RuntimeFailure run_failure(const Plan& plan, const std::string& backend, const std::exception& e) {
  const std::string what = e.what();
  const std::string why = what.substr(0, what.find('\n'));
  std::string text = plan.problem->origin.where() + ": " + why;
  if (dynamic_cast<const std::bad_alloc*>(&e) || why.find("allocat") != std::string::npos) {
    text += "; the problem needs about " + bytes_text(plan.bytes_needed) + " of " +
            describe_backend(backend).memory_kind + " and " +
            bytes_text(memory_available(backend)) +
            " are available (a limit tilemm cannot see may be lower)";
  }
  return RuntimeFailure(text);
}

/// Whether `stop` was raised, on any rank of an MPI run: every rank stops at the same point.
bool raised(const StopFlag* stop) {
  return distributed::any_rank(stop && *stop);
}

/// Runs kernel run `r` once for its error, warms it up (the problem's warm-up runs and seconds,
/// whichever last longer) and times its repeats, into `res`. Returns false when `stop` was raised
/// before every timed run was done.
bool time_kernel(Session& session, std::size_t r, const std::string& backend, const StopFlag* stop,
                 RunObserver* observer, Result& res) {
  const Problem& p = *res.problem;
  if (observer) observer->kernel_started(r);
  session.run(r);
  const double first_error = session.error(), first_freivalds = session.freivalds_error();
  const auto warmup_start = std::chrono::steady_clock::now();
  const auto warming = [&] {
    const std::chrono::duration<double> warm = std::chrono::steady_clock::now() - warmup_start;
    return res.warmup_runs < p.warmup || warm.count() < p.warmup_s;
  };
  // Every rank of an MPI run warms up as long as the one that needs longest.
  while (distributed::any_rank(warming()) && !raised(stop)) {
    session.run(r);
    ++res.warmup_runs;
    if (observer) observer->warmed_up(res.warmup_runs);
  }
  std::vector<double> samples;
  GpuMonitor::Watch watch(gpu_monitor(backend));
  for (int i = 0; i < p.repeats && !raised(stop); ++i) {
    samples.push_back(session.run(r));
    if (observer) observer->timed(i + 1, p.repeats, samples.back());
  }
  res.gpu = watch.finish();
  // A signal during the last timed run leaves every run done: that result is kept.
  if (int(samples.size()) < p.repeats) return false;
  // A race shows as an error that moves between runs: check the last timed run as well.
  res.error = std::max(first_error, session.error());
  res.freivalds_error = std::max(first_freivalds, session.freivalds_error());
  res.time = TimeStats::of(samples);
  return true;
}

}  // namespace

std::unique_ptr<Session> prepare(const Plan& plan, const std::string& name) {
  const BackendOps& b = backend_ops(name);
  try {
    // Over the ranks of an MPI run, one product (SUMMA) or the whole problem on each rank; else
    // the whole problem here.
    if (distributed::size() > 1) {
      if (plan.problem->distribution.spread == Spread::Replicated) {
        return std::make_unique<distributed::ReplicatedSession>(b.prepare(plan));
      }
      if (b.prepare_distributed) return b.prepare_distributed(plan);
    }
    return b.prepare(plan);
  } catch (const InputError&) {
    throw;  // a key of the problem the plan could not check (distributed/summa.hpp)
  } catch (const RuntimeFailure&) {
    throw;
  } catch (const std::exception& e) {
    throw run_failure(plan, name, e);
  }
}

bool run(const Plan& plan, const std::string& name,
         const std::function<void(const Result&)>& on_result, const StopFlag* stop,
         RunObserver* observer) {
  const Problem& p = *plan.problem;
  if (raised(stop)) return false;
  std::unique_ptr<Session> session;
  // A rank that fails to prepare (its allocation refused) ends every rank, with its message.
  distributed::on_all_ranks([&] { session = prepare(plan, name); });
  // Every rank learns the verdict on the reference (a collective check); rank 0 speaks for them.
  if (!session->reference_valid() && distributed::rank() == 0) {
    std::cerr << "tilemm: note: " << p.origin.where()
              << ": the reference from KokkosBlas::gemm fails Freivalds' check (a wrong BLAS?): "
                 "its results are judged by Freivalds' check alone\n";
  }
  const double flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
  for (std::size_t r = 0; r < p.runs.size(); ++r) {
    Result res;
    res.problem = &p;
    res.kernel = p.runs[r].kernel;
    res.backend = name;
    res.launch = plan.launches[r];
    res.tolerance = tolerance(p.precision, p.k);

    if (raised(stop)) return false;
    try {
      if (!time_kernel(*session, r, name, stop, observer, res)) return false;
      if (!p.c_out.empty()) {
        res.c_out = expand_path_template(p.c_out, p, p.runs[r], name);
        session->write_c(res.c_out);
      }
    } catch (const std::exception& e) {
      throw run_failure(plan, name, e);
    }
    if (const auto ran = session->launch(r)) res.launch = *ran;
    res.distributed = session->distributed(r, res.time.times.size());
    // SUMMA's local products run a launch of their own; a replicated run is the plan's launch.
    if (res.distributed && res.distributed->distribution != Spread::Replicated) {
      res.launch = res.distributed->local_launch;
    }
    res.utc_time = system_info::utc_now();
    // Both checks count, but a reference that fails Freivalds' check itself cannot fail a kernel.
    res.reference_valid = session->reference_valid();
    res.passed = passes(res.error, res.freivalds_error, res.reference_valid, res.tolerance);
    res.gflops = flops / res.time.median * 1e-9;
    res.gflops_best = flops / res.time.min * 1e-9;
    on_result(res);
  }
  return true;
}

}  // namespace tilemm
