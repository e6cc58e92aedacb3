// The ranks of a distributed run, as the stages before the kernels see them: MPI started and ended,
// this process's rank, and the few agreements every rank must reach together (whether to go on,
// whether any rank failed). Kokkos-free and MPI-free: in a build without MPI, or in a process that
// no MPI launcher started, there is one rank and every agreement is the rank's own value.
#pragma once

#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace tilemm::distributed {

/// Starts MPI for its lifetime when this build has MPI and a launcher (mpirun, mpiexec, srun)
/// started the process; otherwise does nothing, so that a plain run stays a one-process run.
class MpiScope {
 public:
  MpiScope(int& argc, char**& argv);
  ~MpiScope();
  MpiScope(const MpiScope&) = delete;
  MpiScope& operator=(const MpiScope&) = delete;

 private:
  bool started_ = false;
};

/// Asks that a distributed run hand MPI its GPU buffers rather than host copies of them (the CLI's
/// --gpu-aware-mpi, for an MPI built CUDA-aware). Throws InputError where MPI says it cannot take
/// GPU memory (Open MPI's MPIX_Query_cuda_support); an MPI that cannot say is trusted. Without MPI
/// it does nothing.
void request_device_buffers();
/// Whether request_device_buffers() was granted: SUMMA then broadcasts GPU data in place over MPI.
bool device_buffers();

/// This process's rank and the number of ranks (0 and 1 without MPI).
int rank();
int size();

/// Whether `value` is true on any rank (a collective: every rank calls it).
bool any_rank(bool value);
/// The largest `value` over the ranks (a collective).
double max_over_ranks(double value);
/// The largest `value` over the ranks, and the lowest rank that has it (a collective).
std::pair<double, int> max_and_rank(double value);
/// Waits until every rank has come here (a collective).
void barrier();

/// The agreement after a stage that may fail on some ranks only (a collective): when `error` is set
/// on any rank, every rank throws. The failing rank of lowest number rethrows its own error; the
/// others throw an error of the same kind (input error or runtime failure) with that rank's
/// message, so that every rank ends with the same exit status and no rank waits for the others.
void check_all_ranks(std::exception_ptr error);

/// Runs `stage` on every rank and agrees on its failure (check_all_ranks).
template <class Stage>
void on_all_ranks(Stage&& stage) {
  std::exception_ptr error;
  try {
    stage();
  } catch (...) {
    error = std::current_exception();
  }
  check_all_ranks(error);
}

/// Whether the failure that ends this process was agreed by every rank (check_all_ranks threw it).
bool failure_agreed();

/// Ends every rank at once with `status`: the last resort for a failure the others cannot learn
/// of, since they may be waiting in a collective.
[[noreturn]] void abort_all(int status);

/// Each rank's `text`, in rank order, on rank 0 (a collective; other ranks get an empty list).
std::vector<std::string> gather_text(const std::string& text);

}  // namespace tilemm::distributed
