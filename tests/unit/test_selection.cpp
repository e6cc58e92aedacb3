// Square sweeps by `size`, a spec's description, and narrowing the problems from the command line
// (--problems, --kernels, --precisions, --layouts): what is kept, and every name refused.
#include <gtest/gtest.h>

#include "spec_testing.hpp"
#include "temp_dir.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/selection.hpp"
#include "tilemm/spec.hpp"

namespace tilemm::test {
namespace {

TEST(Spec, SizeSetsMNKForEachValue) {
  TempDir dir;
  const auto problems =
      load(dir, kHead + "    size: [8, 16, 32]\n    precision: [float, double]\n");
  ASSERT_EQ(problems.size(), 3u * 2);  // not 3 x 3 x 3 x 2: one problem a size and precision
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const Problem& p = problems[i];
    EXPECT_EQ(p.m, 8 << (i / 2));
    EXPECT_EQ(p.n, p.m);
    EXPECT_EQ(p.k, p.m);
  }
  // From defaults too.
  EXPECT_EQ(load(dir, "defaults: {size: 4}\n" + kHead + "    kernels: naive\n")[0].k, 4);
}

TEST(Spec, RefusesSizeBesideExtentsOrFiles) {
  expect_error(kHead + "    size: 8\n    k: 8\n", {"problem 'p'", "key 'k'", "beside 'size'"});
  expect_error("defaults: {m: 8}\n" + kHead + "    size: 8\n", {"key 'm'", "beside 'size'"});
  expect_error(kHead + "    size: 0\n", {"key 'size'"});
  expect_error(kHead + "    n: 4\n    k: 4\n", {"key 'm'", "give m, size, or a matrix file"});
}

TEST(Spec, DescriptionIsRecordedWithTheSpec) {
  TempDir dir;
  const std::string path =
      dir.write("spec.yaml", "description: a study\n" + kHead + "    size: 4\n");
  std::vector<InputFile> inputs;
  load_spec(path, &inputs);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].description, "a study");
  EXPECT_EQ(read_description(path), "a study");
  expect_error("description: [a, b]\n" + kHead + "    size: 4\n", {"'description:' must be text"});
}

/// Two problems: "a" in float and double, every kernel; "b" in double, left, tiled and naive.
std::vector<Problem> two_problems(const TempDir& dir) {
  return load(dir,
              "problems:\n"
              "  - {name: a, size: 4, precision: [float, double]}\n"
              "  - {name: b, size: 4, layout: left, kernels: [tiled, naive]}\n");
}

TEST(Selection, KeepsWhatIsAsked) {
  TempDir dir;
  EXPECT_EQ(select(two_problems(dir), {}).size(), 3u);
  Selection s;
  s.kernels = {"naive", "kokkos-kernels"};
  s.precisions = {"double"};
  const auto kept = select(two_problems(dir), s);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].origin.name, "a");
  ASSERT_EQ(kept[0].runs.size(), 2u);
  EXPECT_EQ(kept[0].runs[1].kernel, "kokkos-kernels");
  ASSERT_EQ(kept[1].runs.size(), 1u);  // b has no kokkos-kernels
  EXPECT_EQ(kept[1].runs[0].kernel, "naive");
  Selection by_name;
  by_name.problems = {"b"};
  by_name.layouts = {"left"};
  EXPECT_EQ(select(two_problems(dir), by_name).size(), 1u);
  EXPECT_EQ(by_name.given().size(), 2u);
  EXPECT_EQ(by_name.given()[0].first, "--problems");
}

/// select() refuses `s` with a message holding every one of `parts`.
void expect_refused(const Selection& s, std::initializer_list<std::string> parts) {
  TempDir dir;
  try {
    select(two_problems(dir), s);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    for (const auto& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  }
}

TEST(Selection, RefusesNamesTheSpecsLack) {
  Selection s;
  s.problems = {"c"};
  expect_refused(s, {"--problems: no problem of the specs has 'c'", "they have: a, b"});
  s = {};
  s.kernels = {"cublas"};
  expect_refused(s, {"'cublas' is no kernel", "did you mean 'kokkos-kernels'", "--list-kernels"});
  s.kernels = {"tensor-tilde"};
  expect_refused(s, {"did you mean 'tensor-tiled'"});
  s = {};
  s.layouts = {"right", "up"};
  expect_refused(s, {"--layouts: no problem of the specs has 'up'"});
  s = {};
  s.problems = {"b"};
  s.precisions = {"float"};  // each is there, but not together
  expect_refused(s, {"--problems b, --precisions float", "all of these at once"});
}

}  // namespace
}  // namespace tilemm::test
