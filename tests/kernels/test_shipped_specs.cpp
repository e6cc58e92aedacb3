// Every shipped spec (inputs/*.yaml) planned on the backend under test, as the CLI plans a spec
// before anything runs: each kernel run gets a launch the backend can run, and a problem is refused
// only where it needs more memory than the backend has (summa-scaling.yaml's n = 32768 on a host of
// less than 40 GiB). The GPU specs are planned on CPU backends too: a CPU build runs them as it
// runs any spec. The CLI runs the small shipped specs (cli.shipped.*).
#include <gtest/gtest.h>

#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "backend_dispatch.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/plan.hpp"
#include "tilemm/spec.hpp"

namespace tilemm::test {
namespace {

TEST(ShippedSpecs, PlanOnTheBackend) {
  int specs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TILEMM_INPUTS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    ++specs;
    const std::vector<Problem> problems = load_spec(entry.path().string());
    for (const Problem& p : problems) {
      // One problem at a time, so that a problem refused for its memory leaves the others planned;
      // plan() finds every launch before it compares the memory.
      try {
        const std::vector<Plan> plans = plan({p}, backend_name());
        ASSERT_EQ(plans.size(), 1u);
        EXPECT_EQ(plans[0].launches.size(), p.runs.size()) << p.origin.where();
      } catch (const RuntimeFailure& e) {
        EXPECT_NE(std::string(e.what()).find(" memory; "), std::string::npos) << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
  EXPECT_GE(specs, 10);
}

}  // namespace
}  // namespace tilemm::test
