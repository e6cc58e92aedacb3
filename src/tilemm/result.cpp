#include "tilemm/result.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tilemm {

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

TimeStats TimeStats::of(std::vector<double> samples) {
  TimeStats t;
  t.times = samples;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  t.min = samples.front();
  t.max = samples.back();
  t.median = median_of(samples);
  t.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double squares = 0;
    for (double s : samples) squares += (s - t.mean) * (s - t.mean);
    t.stddev = std::sqrt(squares / static_cast<double>(n - 1));
  }
  return t;
}

bool TimeStats::noisy() const {
  return static_cast<int>(times.size()) >= kNoisyMinRuns && stddev > kNoisyVariation * mean;
}

}  // namespace tilemm
