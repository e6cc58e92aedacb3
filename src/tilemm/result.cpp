#include "tilemm/result.hpp"

#include <algorithm>
#include <numeric>

namespace tilemm {

TimeStats TimeStats::of(std::vector<double> samples) {
  TimeStats t;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  t.min = samples.front();
  t.max = samples.back();
  t.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  t.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  return t;
}

}  // namespace tilemm
