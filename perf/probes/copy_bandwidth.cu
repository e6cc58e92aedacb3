// Device-to-device copy bandwidth: the memory roof of perf/plot.py's roofline for a GPU.
// A 2 GiB buffer (far above any L2) is copied to another, counted as STREAM counts a copy: bytes
// read plus bytes written, over the time.
//   memcpy  cudaMemcpyAsync, device to device
//   kernel  STREAM's Copy (b[i] = a[i]) as a grid-stride loop of 16-byte loads and stores
// Each is run once untimed, then kReps times, each run timed alone with CUDA events; the target
// is poisoned before and checked element by element after. Prints JSON: every time and the GB/s
// of the median and the best run.
// Build: nvcc -O3 -arch=sm_90 -o copy_bandwidth copy_bandwidth.cu
// Run:   ./copy_bandwidth [SOURCE_GIT_HASH] > result.json
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    const cudaError_t status = (call);                                                     \
    if (status != cudaSuccess) {                                                           \
      std::fprintf(stderr, "copy_bandwidth: %s: %s\n", #call, cudaGetErrorString(status)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

using Word = unsigned long long;
constexpr std::size_t kBytes = std::size_t(2) << 30;
constexpr std::size_t kWords = kBytes / sizeof(Word);
constexpr int kReps = 20;

__device__ Word pattern(std::size_t i) {
  return i * 0x9E3779B97F4A7C15ull + 1;
}

__device__ std::size_t first_index() {
  return blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
}
__device__ std::size_t grid_stride() {
  return std::size_t(gridDim.x) * blockDim.x;
}

__global__ void fill(Word* x) {
  for (std::size_t i = first_index(); i < kWords; i += grid_stride()) x[i] = pattern(i);
}

__global__ void copy(const ulonglong2* __restrict__ a, ulonglong2* __restrict__ b) {
  for (std::size_t i = first_index(); i < kWords / 2; i += grid_stride()) b[i] = a[i];
}

__global__ void count_wrong(const Word* x, Word* wrong) {
  Word mine = 0;
  for (std::size_t i = first_index(); i < kWords; i += grid_stride()) mine += x[i] != pattern(i);
  if (mine) atomicAdd(wrong, mine);
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int runtime = 0, driver = 0;
  CHECK(cudaRuntimeGetVersion(&runtime));
  CHECK(cudaDriverGetVersion(&driver));
  const int blocks = prop.multiProcessorCount * 8, threads = 256;

  Word *a, *b, *wrong;
  CHECK(cudaMalloc(&a, kBytes));
  CHECK(cudaMalloc(&b, kBytes));
  CHECK(cudaMalloc(&wrong, sizeof(Word)));
  fill<<<blocks, threads>>>(a);
  CHECK(cudaGetLastError());
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  std::printf("{\n  \"program\": \"perf/probes/copy_bandwidth.cu\",\n");
  std::printf("  \"source_git\": \"%s\",\n", argc > 1 ? argv[1] : "");
  std::printf("  \"device\": \"%s\",\n  \"multiprocessors\": %d,\n", prop.name,
              prop.multiProcessorCount);
  std::printf("  \"cuda_runtime\": %d,\n  \"cuda_driver\": %d,\n", runtime, driver);
  std::printf("  \"bytes_per_buffer\": %zu,\n  \"bytes_counted_per_copy\": %zu,\n", kBytes,
              2 * kBytes);
  std::printf("  \"reps\": %d,\n  \"methods\": [\n", kReps);
  const char* names[] = {"memcpy", "kernel"};
  bool all_right = true;
  for (int method = 0; method < 2; ++method) {
    CHECK(cudaMemset(b, 0xff, kBytes));  // poison
    std::vector<float> ms(kReps);
    for (int rep = -1; rep < kReps; ++rep) {  // rep -1: untimed
      CHECK(cudaEventRecord(start));
      if (method == 0) {
        CHECK(cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice));
      } else {
        copy<<<blocks, threads>>>(reinterpret_cast<const ulonglong2*>(a),
                                  reinterpret_cast<ulonglong2*>(b));
        CHECK(cudaGetLastError());
      }
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      if (rep >= 0) CHECK(cudaEventElapsedTime(&ms[rep], start, stop));
    }
    CHECK(cudaMemset(wrong, 0, sizeof(Word)));
    count_wrong<<<blocks, threads>>>(b, wrong);
    Word wrong_host = 0;
    CHECK(cudaMemcpy(&wrong_host, wrong, sizeof(Word), cudaMemcpyDeviceToHost));
    all_right = all_right && wrong_host == 0;
    std::vector<float> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const double median_ms = (sorted[(kReps - 1) / 2] + sorted[kReps / 2]) / 2.0;
    const auto gb_per_s = [](double t_ms) {
      return 2.0 * kBytes / (t_ms * 1e-3) / 1e9;
    };
    std::printf("    {\"name\": \"%s\", \"ms\": [", names[method]);
    for (int rep = 0; rep < kReps; ++rep) std::printf("%s%.4f", rep ? ", " : "", ms[rep]);
    std::printf(
        "], \"ms_median\": %.4f, \"gb_per_s_median\": %.1f, \"gb_per_s_best\": %.1f, "
        "\"wrong_elements\": %llu}%s\n",
        median_ms, gb_per_s(median_ms), gb_per_s(sorted[0]), wrong_host, method == 0 ? "," : "");
  }
  std::printf("  ]\n}\n");
  return all_right ? 0 : 1;
}
