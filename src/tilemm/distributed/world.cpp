#include "tilemm/distributed/world.hpp"

#include <cstdlib>

#include "tilemm/errors.hpp"

#ifdef TILEMM_HAVE_MPI
#include <mpi.h>
#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's extensions: MPIX_Query_cuda_support
#endif
#endif

namespace tilemm::distributed {
namespace {

bool g_failure_agreed = false;
bool g_device_buffers = false;

#ifdef TILEMM_HAVE_MPI
/// Whether a launcher started this process: Open MPI's mpirun, or a PMI or PMIx launcher such as
/// srun. A process started by hand never starts MPI, as MPI's singleton start would spawn a
/// daemon a plain run has no use for.
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name)) return true;
  }
  return false;
}

bool mpi_running() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

/// The kind (exit status) and message of a failure.
std::pair<int, std::string> describe(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    return {kExitInputError, e.what()};
  } catch (const std::exception& e) {
    return {kExitRuntimeError, e.what()};
  } catch (...) {
    return {kExitRuntimeError, "an unknown failure"};
  }
}
#endif

}  // namespace

MpiScope::MpiScope([[maybe_unused]] int& argc, [[maybe_unused]] char**& argv) {
#ifdef TILEMM_HAVE_MPI
  if (!launched_by_mpi()) return;
  // Funneled: only the main thread calls MPI, while Kokkos' OpenMP threads compute.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  started_ = true;
#endif
}

MpiScope::~MpiScope() {
#ifdef TILEMM_HAVE_MPI
  if (started_ && mpi_running()) MPI_Finalize();
#endif
}

void request_device_buffers() {
#ifdef TILEMM_HAVE_MPI
  if (!mpi_running()) return;
#ifdef OMPI_HAVE_MPI_EXT_CUDA
  if (MPIX_Query_cuda_support() != 1) {
    throw InputError(
        "--gpu-aware-mpi: this MPI is not CUDA-aware (Open MPI's MPIX_Query_cuda_support() says "
        "so): it cannot take GPU buffers; leave the flag out to stage GPU data through host "
        "memory, or broadcast with NCCL (comm: nccl)");
  }
#endif
  g_device_buffers = true;
#endif
}

bool device_buffers() {
  return g_device_buffers;
}

int rank() {
  int r = 0;
#ifdef TILEMM_HAVE_MPI
  if (mpi_running()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
#endif
  return r;
}

int size() {
  int s = 1;
#ifdef TILEMM_HAVE_MPI
  if (mpi_running()) MPI_Comm_size(MPI_COMM_WORLD, &s);
#endif
  return s;
}

bool any_rank(bool value) {
#ifdef TILEMM_HAVE_MPI
  if (size() > 1) {
    int mine = value ? 1 : 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any != 0;
  }
#endif
  return value;
}

double max_over_ranks(double value) {
#ifdef TILEMM_HAVE_MPI
  if (size() > 1) {
    double most = 0;
    MPI_Allreduce(&value, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return most;
  }
#endif
  return value;
}

std::pair<double, int> max_and_rank(double value) {
#ifdef TILEMM_HAVE_MPI
  if (size() > 1) {
    struct {
      double value;
      int rank;
    } mine{value, rank()}, most{};
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    return {most.value, most.rank};
  }
#endif
  return {value, 0};
}

void barrier() {
#ifdef TILEMM_HAVE_MPI
  if (size() > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void check_all_ranks(std::exception_ptr error) {
#ifdef TILEMM_HAVE_MPI
  if (size() > 1) {
    const int ranks = size(), me = rank();
    int mine = error ? me : ranks, first = ranks;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == ranks) return;
    auto [kind, message] = me == first ? describe(error) : std::pair<int, std::string>{};
    int length = static_cast<int>(message.size());
    MPI_Bcast(&kind, 1, MPI_INT, first, MPI_COMM_WORLD);
    MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
    message.resize(length);
    MPI_Bcast(message.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
    g_failure_agreed = true;
    if (me == first) std::rethrow_exception(error);
    message = "on rank " + std::to_string(first) + ": " + message;
    if (kind == kExitInputError) throw InputError(message);
    throw RuntimeFailure(message);
  }
#endif
  if (error) std::rethrow_exception(error);
}

bool failure_agreed() {
  return g_failure_agreed;
}

void abort_all(int status) {
#ifdef TILEMM_HAVE_MPI
  if (mpi_running()) MPI_Abort(MPI_COMM_WORLD, status);
#endif
  std::_Exit(status);
}

std::vector<std::string> gather_text(const std::string& text) {
  std::vector<std::string> all{text};
#ifdef TILEMM_HAVE_MPI
  const int ranks = size();
  if (ranks == 1) return all;
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(ranks), offsets(ranks);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string joined(rank() == 0 ? total : 0, '\0');
  MPI_Gatherv(text.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(),
              MPI_CHAR, 0, MPI_COMM_WORLD);
  all.clear();
  if (rank() != 0) return all;
  for (int r = 0; r < ranks; ++r) all.push_back(joined.substr(offsets[r], lengths[r]));
#endif
  return all;
}

}  // namespace tilemm::distributed
