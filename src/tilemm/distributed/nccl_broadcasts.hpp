// SUMMA's panel broadcasts through NCCL, between GPUs, where the build has NCCL (TILEMM_HAVE_NCCL):
// a NCCL communicator along each process row and column, made from the MPI ones; the broadcasts
// of a step run on a stream of their own, after the panels' copies on the kernels' stream (the
// Kokkos CUDA stream) and before the local product that reads them, which waits for them there, so
// that the host never blocks and the next step's broadcasts overlap this step's product.
#pragma once

#ifdef TILEMM_HAVE_NCCL
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "tilemm/distributed/grid.hpp"
#include "tilemm/errors.hpp"

namespace tilemm::distributed {

/// Throws RuntimeFailure naming `what` when a CUDA or NCCL call failed.
inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw RuntimeFailure(std::string(what) + ": " + cudaGetErrorString(status));
  }
}
inline void check_nccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) {
    throw RuntimeFailure(std::string(what) + ": " + ncclGetErrorString(status));
  }
}

/// A NCCL communicator over the ranks of the MPI communicator `comm` (a collective of it).
/// The broadcasts run while the local product runs, and every multiprocessor that NCCL's blocks
/// hold is one the product's teams cannot use; so the communicator asks NCCL for its efficiency
/// policy, the fewest blocks that keep its bandwidth. NCCL_CTA_POLICY, NCCL_MIN_CTAS and
/// NCCL_MAX_CTAS in the environment override it, as NCCL documents (the results' context records
/// them).
inline ncclComm_t nccl_comm_of(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id;
  if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
  ncclComm_t nccl = nullptr;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  config.CTAPolicy = NCCL_CTA_POLICY_EFFICIENCY;
#endif
  check_nccl(ncclCommInitRankConfig(&nccl, size, id, rank, &config), "ncclCommInitRankConfig");
  return nccl;
}

/// Whether every rank of `world` has a GPU of its own, `device` here (a collective): no two ranks
/// on one host share one, as NCCL needs. Ranks are told apart by host name and PCI bus id, so a
/// GPU that CUDA_VISIBLE_DEVICES numbers 0 in each of several ranks counts as several GPUs.
inline bool gpus_of_their_own(MPI_Comm world, int device) {
  constexpr int kLength = 320;
  char mine[kLength] = {};
  gethostname(mine, 255);
  const std::size_t host = std::strlen(mine);
  mine[host] = '/';
  check_cuda(cudaDeviceGetPCIBusId(mine + host + 1, kLength - int(host) - 2, device),
             "cudaDeviceGetPCIBusId");
  int ranks = 1;
  MPI_Comm_size(world, &ranks);
  std::vector<char> all(std::size_t(ranks) * kLength);
  MPI_Allgather(mine, kLength, MPI_CHAR, all.data(), kLength, MPI_CHAR, world);
  std::set<std::string> seen;
  for (int r = 0; r < ranks; ++r) seen.insert(std::string(all.data() + std::size_t(r) * kLength));
  return int(seen.size()) == ranks;
}

class NcclBroadcasts {
 public:
  NcclBroadcasts(const ProcessGrid& grid, cudaStream_t compute) : compute_(compute) {
    // NVLink multicast stays off unless the user asks for it: on shared hosts it must.
    setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
    row_ = nccl_comm_of(grid.row_comm());
    col_ = nccl_comm_of(grid.col_comm());
    // The broadcasts' stream takes the highest priority, so that their blocks start as soon as
    // the product's running blocks leave room, not after every block of the product has started.
    int lowest = 0, highest = 0;
    check_cuda(cudaDeviceGetStreamPriorityRange(&lowest, &highest),
               "cudaDeviceGetStreamPriorityRange");
    check_cuda(cudaStreamCreateWithPriority(&comm_, cudaStreamNonBlocking, highest),
               "cudaStreamCreateWithPriority");
    check_cuda(cudaEventCreateWithFlags(&packed_, cudaEventDisableTiming), "cudaEventCreate");
    for (auto& event : arrived_) {
      check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
    }
  }
  ~NcclBroadcasts() {
    cudaStreamSynchronize(comm_);
    for (auto& event : arrived_) cudaEventDestroy(event);
    cudaEventDestroy(packed_);
    cudaStreamDestroy(comm_);
    ncclCommDestroy(row_);
    ncclCommDestroy(col_);
  }
  NcclBroadcasts(const NcclBroadcasts&) = delete;
  NcclBroadcasts& operator=(const NcclBroadcasts&) = delete;

  /// Broadcasts `a` along the process row from grid column `a_root` and `b` down the process
  /// column from grid row `b_root`, in place, into `slot`, once the kernels' stream has done what
  /// it holds now (the panels' copies, and the product that last read this slot).
  template <class Scalar>
  void post(int slot, Scalar* a, std::size_t a_count, int a_root, Scalar* b, std::size_t b_count,
            int b_root) {
    const ncclDataType_t type = sizeof(Scalar) == 4 ? ncclFloat32 : ncclFloat64;
    check_cuda(cudaEventRecord(packed_, compute_), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(comm_, packed_, 0), "cudaStreamWaitEvent");
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    check_nccl(ncclBroadcast(a, a, a_count, type, a_root, row_, comm_), "ncclBroadcast");
    check_nccl(ncclBroadcast(b, b, b_count, type, b_root, col_, comm_), "ncclBroadcast");
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    check_cuda(cudaEventRecord(arrived_[slot], comm_), "cudaEventRecord");
  }

  /// Makes the kernels' stream wait for the broadcasts into `slot`; the host goes on.
  void receive(int slot) {
    check_cuda(cudaStreamWaitEvent(compute_, arrived_[slot], 0), "cudaStreamWaitEvent");
  }

 private:
  cudaStream_t compute_, comm_ = nullptr;
  ncclComm_t row_ = nullptr, col_ = nullptr;
  cudaEvent_t packed_ = nullptr;
  std::array<cudaEvent_t, 2> arrived_{};
};

}  // namespace tilemm::distributed
#endif
