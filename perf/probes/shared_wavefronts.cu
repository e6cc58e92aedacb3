// How many shared-memory wavefronts a warp's 16-byte reads (LDS.128) and 8-byte stores (STS.64)
// take, for the lane orders a register-tiled GEMM team can give its thread tiles (perf/ladder.md).
// Each kernel repeats one access pattern of a 256-thread team over a double panel of 8 rows of
// 128 + pad; ncu then gives wavefronts per instruction:
//   m=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
//   w=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
//   ncu --metrics $m,$w,${w/_ld/_st} ./shared_wavefronts
// Build: nvcc -O3 -arch=sm_90 -o shared_wavefronts shared_wavefronts.cu
#include <cstdio>

// A thread tile's first row and column and the distance between its strips of 2 doubles, in a
// 128 x 128 tile of 256 threads with 8 x 8 thread tiles (as register_tiled/kernel.hpp's place()).
struct Place {
  int m, n, stride_m, stride_n;
};
enum Order { kTileRows, kWarpRowMajor, kWarpInterleaved };
__device__ Place place(Order order, int t) {
  const int warp = t / 32, lane = t % 32;
  switch (order) {
    case kTileRows:  // the tree at e0b41bf: a 16 x 16 grid across the whole tile
      return {2 * (t / 16), 2 * (t % 16), 32, 32};
    case kWarpRowMajor:  // v13a: each warp a 4 x 8 grid, lane l at (l / 8, l % 8)
      return {(warp / 2) * 32 + (lane / 8) * 2, (warp % 2) * 64 + (lane % 8) * 2, 8, 16};
    default:  // CUTLASS's RowMajorInterleaved<2>: lane l at (2 (l / 16) + l % 2, (l / 2) % 8)
      return {(warp / 2) * 32 + (2 * (lane / 16) + lane % 2) * 2,
              (warp % 2) * 64 + ((lane / 2) % 8) * 2, 8, 16};
  }
}

constexpr int kRows = 8, kSteps = 4096;

// Reads of As (column fragments, along m) or Bs (along n): 4 strips of 2 doubles a step.
template <Order kOrder, bool kOfA>
__global__ void reads(double* out) {
  __shared__ double panel[kRows * (128 + 4)];
  const int ld = 128 + 4;
  for (int i = threadIdx.x; i < kRows * ld; i += blockDim.x) panel[i] = i;
  __syncthreads();
  const Place p = place(kOrder, threadIdx.x);
  const int first = kOfA ? p.m : p.n, stride = kOfA ? p.stride_m : p.stride_n;
  double2 sum = {0, 0};
  for (int step = 0; step < kSteps; ++step) {
    const int kk = step % kRows;
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      const double2 v = *reinterpret_cast<const double2*>(&panel[kk * ld + s * stride + first]);
      sum.x += v.x;
      sum.y += v.y;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum.x + sum.y;
}

// The transposed store of an A panel read row by row (op NN, A row-major): thread t holds
// A(t / 8 + 32 e, t % 8), e < 4, and stores it at As[t % 8][t / 8 + 32 e] with rows of 128 + pad.
template <int kPad>
__global__ void transposed_stores(double* out) {
  __shared__ double panel[kRows * (128 + 4)];
  const int ld = 128 + kPad, line = threadIdx.x / 8, pos = threadIdx.x % 8;
  for (int step = 0; step < kSteps; ++step) {
#pragma unroll
    for (int e = 0; e < 4; ++e) panel[pos * ld + line + 32 * e] = step + e;
    __syncwarp();
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = panel[threadIdx.x];
}

int main() {
  double* out;
  cudaMalloc(&out, 256 * sizeof(double));
  reads<kTileRows, true><<<1, 256>>>(out);
  reads<kTileRows, false><<<1, 256>>>(out);
  reads<kWarpRowMajor, true><<<1, 256>>>(out);
  reads<kWarpRowMajor, false><<<1, 256>>>(out);
  reads<kWarpInterleaved, true><<<1, 256>>>(out);
  reads<kWarpInterleaved, false><<<1, 256>>>(out);
  transposed_stores<4><<<1, 256>>>(out);
  transposed_stores<2><<<1, 256>>>(out);
  transposed_stores<1><<<1, 256>>>(out);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
