// The GPU telemetry's summary of its samples, and a monitor that cannot open NVML: results without
// telemetry, and a reason in the context. (The readings themselves are checked on a GPU:
// cli.gpu_telemetry.)
#include <gtest/gtest.h>

#include <cstdlib>

#include "tilemm/gpu_monitor.hpp"

namespace tilemm::test {
namespace {

TEST(GpuTelemetry, SummaryOfSamples) {
  EXPECT_FALSE(summarize({}).has_value());
  const std::vector<GpuSample> samples = {
      {1980, 690.0, 0},
      {1710, 701.5, clock_event::kSwPowerCap},
      {1830, -1, clock_event::kSwPowerCap | 0x20},  // no power reading; a software thermal slowdown
      {1620, 699.0, 0x80},                          // the hardware power brake
      {-1, -1, -1},                                 // NVML answered nothing
  };
  const auto t = summarize(samples);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->samples, 5);
  EXPECT_DOUBLE_EQ(t->sm_clock_mhz, 0.5 * (1710 + 1830));  // of the four clocks read
  EXPECT_DOUBLE_EQ(t->sm_clock_mhz_min, 1620);             // not the unanswered one
  EXPECT_DOUBLE_EQ(t->power_w, 699.0);                     // the median of the three readings
  EXPECT_DOUBLE_EQ(t->power_capped, 0.5);                  // of the four event readings
  EXPECT_DOUBLE_EQ(t->slowdown, 0.5);
}

TEST(GpuTelemetry, PartsNeverRead) {
  const auto t = summarize({{1500, -1, -1}, {1530, -1, -1}});
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->sm_clock_mhz, 1515);
  EXPECT_LT(t->power_w, 0);
  EXPECT_LT(t->power_capped, 0);
  EXPECT_LT(t->slowdown, 0);
}

TEST(GpuMonitor, UnavailableSaysWhyAndWatchesNothing) {
  const GpuMonitor monitor("no-such-bus-id");  // no NVML, or no GPU there
  EXPECT_FALSE(monitor.available());
  ASSERT_EQ(monitor.facts().size(), 1u);
  EXPECT_EQ(monitor.facts()[0].first, "gpu_telemetry");
  EXPECT_EQ(monitor.facts()[0].second.rfind("unavailable: ", 0), 0u) << monitor.facts()[0].second;
  GpuMonitor::Watch watch(&monitor);
  EXPECT_FALSE(watch.finish().has_value());
  GpuMonitor::Watch on_cpu(nullptr);
  EXPECT_FALSE(on_cpu.finish().has_value());
}

TEST(GpuMonitor, TurnedOff) {
  setenv("TILEMM_GPU_TELEMETRY", "off", 1);
  const GpuMonitor monitor("no-such-bus-id");
  unsetenv("TILEMM_GPU_TELEMETRY");
  EXPECT_FALSE(monitor.available());
  EXPECT_EQ(monitor.facts().at(0).second, "unavailable: off (TILEMM_GPU_TELEMETRY=off)");
}

}  // namespace
}  // namespace tilemm::test
