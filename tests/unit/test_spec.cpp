// Problem specs: defaults, sweeps, tiles and scalars, and every kind of bad input refused with a
// message that names the file, the problem and the key (their matrix files: test_spec_inputs.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>

#include "spec_testing.hpp"
#include "temp_dir.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/kernel_names.hpp"
#include "tilemm/output_paths.hpp"
#include "tilemm/spec.hpp"

namespace tilemm::test {
namespace {

TEST(Spec, MinimalProblemGetsDefaults) {
  TempDir dir;
  const auto problems = load(dir, kHead + "    m: 3\n    n: 4\n    k: 5\n");
  ASSERT_EQ(problems.size(), 1u);
  const Problem& p = problems[0];
  EXPECT_EQ(p.origin.name, "p");
  EXPECT_EQ(p.origin.line, 2);
  EXPECT_EQ(p.m, 3);
  EXPECT_EQ(p.n, 4);
  EXPECT_EQ(p.k, 5);
  EXPECT_EQ(p.precision, Precision::Double);
  EXPECT_EQ(p.layout, Layout::Right);
  EXPECT_EQ(p.trans_a, Trans::N);
  EXPECT_EQ(p.alpha, 1.0);
  EXPECT_EQ(p.beta, 0.0);
  EXPECT_EQ(p.repeats, 10);
  EXPECT_EQ(p.warmup, 2);
  EXPECT_EQ(p.seed, 42u);
  ASSERT_EQ(p.runs.size(), kernel_names().size());
  for (std::size_t i = 0; i < p.runs.size(); ++i) EXPECT_EQ(p.runs[i].kernel, kernel_names()[i]);
}

TEST(Spec, ListsExpandToTheProduct) {
  TempDir dir;
  const auto problems = load(dir, kHead +
                                      "    m: [8, 16, 32]\n    n: 4\n    k: [1, 2]\n"
                                      "    precision: [float, double]\n    layout: [right, left]\n"
                                      "    kernels: [naive, tiled]\n    tile: [8, 16x8x4]\n"
                                      "    team_size: [1, 2]\n");
  ASSERT_EQ(problems.size(), 3u * 2 * 2 * 2);
  EXPECT_EQ(problems.front().m, 8);
  EXPECT_EQ(problems.back().m, 32);
  EXPECT_EQ(problems.back().layout, Layout::Left);
  // naive once; tiled for each tile and team size.
  ASSERT_EQ(problems[0].runs.size(), 1u + 2 * 2);
  EXPECT_EQ(problems[0].runs[0].kernel, "naive");
  EXPECT_EQ(problems[0].runs[1].launch.tile->to_string(), "8x8x8");
  EXPECT_EQ(problems[0].runs[1].launch.team_size, 1);
  EXPECT_EQ(problems[0].runs[4].launch.tile->to_string(), "16x8x4");
  EXPECT_EQ(problems[0].runs[4].launch.team_size, 2);
}

TEST(Spec, DefaultsApplyAndProblemsOverride) {
  TempDir dir;
  const auto problems =
      load(dir,
           "defaults:\n  repeats: 3\n  precision: float\n  m: 5\n  n: 5\n  k: 5\n"
           "problems:\n  - name: a\n  - name: b\n    repeats: 7\n    kernels: naive\n");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].repeats, 3);
  EXPECT_EQ(problems[0].precision, Precision::Float);
  EXPECT_EQ(problems[1].repeats, 7);
  ASSERT_EQ(problems[1].runs.size(), 1u);
  EXPECT_EQ(problems[1].runs[0].kernel, "naive");
}

TEST(Spec, TilePerKernel) {
  TempDir dir;
  const auto problems = load(dir, kHead +
                                      "    m: 4\n    n: 4\n    k: 4\n    kernels: all\n"
                                      "    tile: {tiled: [8, 4], register-tiled: 64x64x8/4x4}\n");
  int tiled = 0, register_tiled = 0;
  for (const auto& run : problems[0].runs) {
    tiled += run.kernel == "tiled";
    if (run.kernel == "register-tiled") {
      ++register_tiled;
      EXPECT_EQ(run.launch.tile->to_string(), "64x64x8/4x4");
    }
  }
  EXPECT_EQ(tiled, 2);
  EXPECT_EQ(register_tiled, 1);
}

TEST(Spec, ScalarsAndTranspose) {
  TempDir dir;
  const auto problems =
      load(dir, kHead +
                    "    m: 4\n    n: 4\n    k: 4\n    alpha: -1.5e0\n    beta: 2\n"
                    "    trans_a: T\n    trans_b: N\n    seed: 123\n    warmup: 0\n");
  EXPECT_EQ(problems[0].alpha, -1.5);
  EXPECT_EQ(problems[0].beta, 2.0);
  EXPECT_EQ(problems[0].trans_a, Trans::T);
  EXPECT_EQ(problems[0].seed, 123u);
  EXPECT_EQ(problems[0].warmup, 0);
}

TEST(Spec, RefusesBadFiles) {
  EXPECT_THROW(load_spec("/nonexistent/spec.yaml"), InputError);
  TempDir dir;
  try {
    load_spec(dir.path(""));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("folder"), std::string::npos);
  }
  expect_error("problems: [\n  - name: x\n", {"invalid YAML"});
  expect_error("- 1\n- 2\n", {"mapping"});
  expect_error("description: nothing\n", {"problems"});
  expect_error("problems: []\n", {"problems"});
  expect_error("problem:\n  - name: x\n",
               {"unknown top-level key 'problem'", "did you mean 'problems'"});
  expect_error("defaults:\n  name: x\nproblems:\n  - name: p\n    m: 1\n    n: 1\n    k: 1\n",
               {"defaults", "key 'name'", "a problem's own key"});
}

TEST(Spec, RefusesBadProblems) {
  const std::string mnk = "    m: 4\n    n: 4\n    k: 4\n";
  expect_error("problems:\n  - 5\n", {"problem #1", "mapping"});
  expect_error("problems:\n  - m: 4\n", {"problem #1", "key 'name'", "missing"});
  expect_error(kHead + "    n: 4\n    k: 4\n", {"problem 'p'", "key 'm'", "missing"});
  expect_error(kHead + mnk + "    tiles: 8\n",
               {"problem 'p'", "key 'tiles'", "did you mean 'tile'"});
  expect_error(kHead + mnk + "    precison: float\n",
               {"key 'precison'", "did you mean 'precision'"});
}

TEST(Spec, RefusesBadExtents) {
  for (const std::string bad :
       {"0", "-5", "1.5", "99999999999", "abc", "\"16\"", "1e3", "[]", "{a: 1}", "[4, x]"}) {
    expect_error(kHead + "    m: " + bad + "\n    n: 4\n    k: 4\n", {"problem 'p'", "key 'm'"});
  }
  expect_error(kHead + "    m: 4\n    n: 4\n    k: 0\n", {"key 'k'", "[1, 2147483647]"});
}

TEST(Spec, RefusesBadValues) {
  const std::string mnk = "    m: 4\n    n: 4\n    k: 4\n";
  expect_error(kHead + mnk + "    precision: flaot\n", {"key 'precision'", "did you mean 'float'"});
  expect_error(kHead + mnk + "    precision: half\n", {"key 'precision'", "float, double"});
  expect_error(kHead + mnk + "    layout: row\n", {"key 'layout'", "right, left"});
  expect_error(kHead + mnk + "    trans_a: X\n", {"key 'trans_a'"});
  expect_error(kHead + mnk + "    trans_b: [N, T]\n", {"key 'trans_b'", "one value"});
  expect_error(kHead + mnk + "    kernels: [naive, tild]\n",
               {"key 'kernels'", "did you mean 'tiled'"});
  expect_error(kHead + mnk + "    alpha: x\n", {"key 'alpha'", "finite number"});
  expect_error(kHead + mnk + "    beta: .nan\n", {"key 'beta'", "finite number"});
  expect_error(kHead + mnk + "    repeats: 0\n", {"key 'repeats'"});
  expect_error(kHead + mnk + "    warmup: -1\n", {"key 'warmup'"});
  expect_error(kHead + mnk + "    seed: -1\n", {"key 'seed'"});
  expect_error(kHead + mnk + "    team_size: 0\n", {"key 'team_size'"});
  expect_error(kHead + mnk + "    kernels: [naive]\n    team_size: 64\n",
               {"key 'team_size'", "none of the kernels [naive]"});
  expect_error(kHead + mnk + "    warmup_s: -0.5\n", {"key 'warmup_s'", "[0, 3600]"});
  expect_error(kHead + mnk + "    warmup_s: soon\n", {"key 'warmup_s'", "finite number"});
  expect_error(kHead + mnk + "    split_k: 0\n", {"key 'split_k'", "[1, 4096]"});
  expect_error(kHead + mnk + "    kernels: [naive]\n    split_k: 2\n",
               {"key 'split_k'", "only 'register-tiled' and 'tensor-tiled' split K"});
  expect_error(kHead + mnk + "    split_k: 2\n    split_tiles: 0\n", {"key 'split_tiles'"});
  expect_error(kHead + mnk + "    kernels: [naive]\n    split_tiles: 2\n",
               {"key 'split_tiles'", "only 'register-tiled' and 'tensor-tiled' split K"});
  expect_error(kHead + mnk + "    kernels: [register-tiled]\n    split_tiles: 2\n",
               {"key 'split_tiles'", "no split_k"});
  // alpha and beta are applied in the problem's precision.
  expect_error(kHead + mnk + "    precision: [double, float]\n    alpha: 1e39\n",
               {"key 'alpha'", "range of float"});
  expect_error(kHead + mnk + "    alpha: 1e309\n", {"key 'alpha'", "finite number"});
  expect_error(kHead + mnk + "    alpha: 1e-400\n", {"key 'alpha'", "finite number"});  // to zero
}

// split_tiles sweeps with each split_k above 1; with split_k 1 nothing is split, once. warmup_s is
// read as seconds.
TEST(Spec, SplitTilesAndWarmupTime) {
  TempDir dir;
  const auto problems =
      load(dir, kHead +
                    "    m: 4\n    n: 4\n    k: 4\n    kernels: register-tiled\n"
                    "    split_k: [1, 3]\n    split_tiles: [2, 5]\n    warmup_s: 1.5\n");
  ASSERT_EQ(problems.size(), 1u);
  const auto& runs = problems[0].runs;
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].launch.split_k, 1);
  EXPECT_EQ(runs[0].launch.split_tiles, 0);
  EXPECT_EQ(runs[1].launch.split_k, 3);
  EXPECT_EQ(runs[1].launch.split_tiles, 2);
  EXPECT_EQ(runs[2].launch.split_tiles, 5);
  EXPECT_EQ(problems[0].warmup_s, 1.5);
}

TEST(Spec, OzakiRunsInDoubleWithItsModuli) {
  TempDir dir;
  const auto problems =
      load(dir, kHead +
                    "    m: 4\n    n: 4\n    k: 4\n    precision: [float, double]\n"
                    "    kernels: [naive, ozaki]\n    moduli: [16, 20]\n");
  ASSERT_EQ(problems.size(), 2u);
  ASSERT_EQ(problems[0].runs.size(), 1u);  // float: naive alone
  EXPECT_EQ(problems[0].runs[0].kernel, "naive");
  ASSERT_EQ(problems[1].runs.size(), 3u);
  EXPECT_EQ(problems[1].runs[1].kernel, "ozaki");
  EXPECT_EQ(problems[1].runs[1].launch.moduli, 16);
  EXPECT_EQ(problems[1].runs[2].launch.moduli, 20);
  // kernels: all leaves ozaki out of float problems; a problem of float alone that names it is
  // refused, and so is a count of moduli without ozaki, or past what it has.
  const auto all = load(dir, kHead + "    m: 4\n    n: 4\n    k: 4\n    precision: float\n");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].runs.size(), kernel_names().size() - 1);
  expect_error(kHead + "    m: 4\n    n: 4\n    k: 4\n    precision: float\n    kernels: ozaki\n",
               {"key 'precision'", "'ozaki' runs in double only"});
  expect_error(kHead + "    m: 4\n    n: 4\n    k: 4\n    kernels: naive\n    moduli: 20\n",
               {"key 'moduli'", "only 'ozaki' takes a count of moduli"});
  expect_error(kHead + "    m: 4\n    n: 4\n    k: 4\n    kernels: ozaki\n    moduli: 33\n",
               {"key 'moduli'"});
}

TEST(Spec, TakesSubnormalScalars) {  // strtod reports these as a range error too
  TempDir dir;
  const auto problems = load(dir, kHead + "    m: 4\n    n: 4\n    k: 4\n    alpha: 1e-310\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].alpha, 1e-310);
}

TEST(Spec, RefusesDuplicateKeysAndTextNotInUtf8) {
  const std::string mnk = "    m: 4\n    n: 4\n    k: 4\n";
  expect_error(kHead + mnk + "    m: 100000\n",
               {":6:5:", "key 'm' given twice", "first on line 3"});
  expect_error("defaults:\n  repeats: 2\n  repeats: 3\n" + kHead + mnk, {"key 'repeats'"});
  expect_error(kHead + mnk + "problems:\n  - name: q\n", {"key 'problems' given twice"});
  expect_error(kHead + mnk + "    tile: {tiled: 8, tiled: 16}\n", {"key 'tiled' given twice"});
  expect_error("problems:\n  - name: caf\xe9\n" + mnk, {":2:", "not UTF-8"});
  expect_error("problems:\n  - name: \xc0\xaf\n" + mnk, {"not UTF-8"});  // an overlong '/'
  expect_error("problems: &a [*a]\n", {"alias to a node that holds it"});
  expect_error("defaults: {seed: 1, x: &b {y: *b}}\n" + kHead + mnk,
               {"alias to a node that holds it"});
  TempDir dir;  // UTF-8 proper is taken
  EXPECT_EQ(load(dir, "problems:\n  - name: caf\xc3\xa9 \xf0\x9f\x98\x80\n" + mnk)[0].origin.name,
            "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

TEST(Spec, RefusesBadTiles) {
  const std::string mnk = "    m: 4\n    n: 4\n    k: 4\n";
  expect_error(kHead + mnk + "    tile: abc\n", {"key 'tile'", "not a tile"});
  expect_error(kHead + mnk + "    tile: 0\n", {"key 'tile'"});
  expect_error(kHead + mnk + "    tile: 8x8\n", {"key 'tile'"});
  expect_error(kHead + mnk + "    tile: 64x64x8/3x8\n", {"key 'tile'"});  // 3 does not divide 64
  expect_error(kHead + mnk + "    kernels: naive\n    tile: 8\n", {"key 'tile'", "takes a tile"});
  expect_error(kHead + mnk + "    tile: {naive: 8}\n",
               {"key 'tile'", "'naive' is not a kernel that takes a tile; kernels with tiles: "});
  expect_error(kHead + mnk + "    kernels: [naive, tiled]\n    tile: {register-tiled: 8}\n",
               {"key 'tile'", "'register-tiled' is not among the kernels [naive, tiled]"});
  expect_error(kHead + mnk + "    tile: {tile: 8}\n",
               {"key 'tile'", "(did you mean 'tiled'?)", "kernels with tiles: "});
}

// Issue 40: an alpha or beta that the precision rounds to 0 or to a subnormal would run as
// another value than the results record.
TEST(Spec, RefusesScalarsThePrecisionCannotHold) {
  const std::string mnk = "    m: 3\n    n: 4\n    k: 5\n";
  expect_error(kHead + mnk + "    precision: float\n    alpha: 1e-50\n",
               {"key 'alpha'", "below the smallest normal float"});
  expect_error(kHead + mnk + "    precision: [double, float]\n    beta: 2e-45\n",
               {"key 'beta'", "below the smallest normal float"});
  TempDir dir;
  EXPECT_EQ(load(dir, kHead + mnk + "    precision: float\n    alpha: 1e-37\n").size(), 1u);
  EXPECT_EQ(load(dir, kHead + mnk + "    precision: float\n    beta: -0.0\n").size(), 1u);
}

// Issue 40: a stream of two YAML documents ran the first and dropped the second silently.
TEST(Spec, RefusesASecondDocument) {
  expect_error(kHead + "    m: 3\n    n: 4\n    k: 5\n---\n" + kHead + "    m: 3\n",
               {"spec.yaml:6:", "a second YAML document"});
  TempDir dir;
  EXPECT_EQ(load(dir, "---\n" + kHead + "    m: 3\n    n: 4\n    k: 5\n").size(), 1u);
}

// A ',' at the top level made yaml-cpp's LoadAll return the same empty document for ever.
TEST(Spec, RefusesAStrayCommaWithoutHanging) {
  expect_error(",\n", {"spec.yaml:1:1:", "invalid YAML", "','"});
  expect_error(kHead + "    m: 3\n,\n", {"spec.yaml:", "invalid YAML"});
}

TEST(Spec, OutputPathTemplates) {
  const std::string mnk = "    m: [4, 8]\n    n: 4\n    k: 4\n";
  expect_error(kHead + mnk + "    c_out: 'out/{kernel}_{m}_{nope}.npy'\n",
               {"key 'c_out'", "{nope}"});
  expect_error(kHead + mnk + "    c_out: 'out/{kernel}.npy'\n",
               {"key 'c_out'", "several results", "add {m} (placeholders: "});
  TempDir dir;
  const auto problems = load(dir, kHead + mnk + "    c_out: 'out/{name}_{kernel}_{m}.npy'\n");
  EXPECT_EQ(problems[0].c_out, dir.path("out/{name}_{kernel}_{m}.npy"));
}

// The keys of an MPI run have placeholders too: a sweep of them names the one it lacks.
TEST(Spec, OutputPathTemplatesOfMpiKeys) {
  const std::string one = "    m: 4\n    n: 4\n    k: 4\n    kernels: naive\n";
  for (const std::string key : {"grid", "block", "panel", "comm", "distribution"}) {
    const std::string values = key == "grid"           ? "[1x2, 2x1]"
                               : key == "comm"         ? "[mpi, auto]"
                               : key == "distribution" ? "[summa, replicated]"
                                                       : "[8, 16]";
    const std::string sweep = kHead + one + "    " + key + ": " + values + "\n";
    expect_error(sweep + "    c_out: 'c.npy'\n", {"key 'c_out'", "add {" + key + "} ("});
    TempDir dir;
    const auto problems = load(dir, sweep + "    c_out: 'c-{" + key + "}.npy'\n");
    ASSERT_EQ(problems.size(), 2u);
    EXPECT_NE(expand_path_template(problems[0].c_out, problems[0], problems[0].runs[0], "serial"),
              expand_path_template(problems[1].c_out, problems[1], problems[1].runs[0], "serial"));
  }
  TempDir dir;
  const auto grid = load(dir, kHead + one + "    grid: 2x4\n    c_out: 'c-{grid}-{block}.npy'\n");
  EXPECT_EQ(expand_path_template(grid[0].c_out, grid[0], grid[0].runs[0], "serial"),
            dir.path("c-2x4-default.npy"));
}

// Every shipped spec (inputs/) is read without a complaint.
TEST(Spec, ShippedSpecsLoad) {
  int specs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TILEMM_INPUTS_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_NO_THROW(load_spec(entry.path().string())) << entry.path();
    ++specs;
  }
  EXPECT_GE(specs, 10);
}

/// "[1, 2, ..., count]"
std::string one_to(int count) {
  std::string list = "[";
  for (int i = 1; i <= count; ++i) list += (i > 1 ? ", " : "") + std::to_string(i);
  return list + "]";
}

// Regression (tests/fuzz/corpus/spec/regression-sweep-explosion.yaml): three lists of a few hundred
// values made a sweep of billions of problems, built in memory before anything was checked.
TEST(Spec, RefusesASweepPastTheResultLimit) {
  expect_error(kHead + "    m: " + one_to(199) + "\n    n: " + one_to(199) +
                   "\n    k: " + one_to(199) + "\n",
               {"problem 'p'", "more than 100000 results", "split the sweep"});
  // Kernel runs count: 2 tiles x 3 team sizes x 3 tiled kernels + 3 others = 21 per problem, so
  // 100 x 47 problems (98700 results) load and 100 x 48 (100800) do not.
  const std::string runs = "    k: 1\n    tile: [8, 16]\n    team_size: [1, 2, 3]\n";
  TempDir dir;
  const auto loaded =
      load(dir, kHead + "    m: " + one_to(100) + "\n    n: " + one_to(47) + "\n" + runs);
  ASSERT_EQ(loaded.size(), 4700u);
  EXPECT_EQ(loaded[0].runs.size(), 21u);
  expect_error(kHead + "    m: " + one_to(100) + "\n    n: " + one_to(48) + "\n" + runs,
               {"more than 100000 results"});
  // The kernel runs of one problem alone: 1000 team sizes x 200 split_tiles are refused before
  // they are built.
  expect_error(kHead + "    m: 1\n    n: 1\n    k: 1\n    kernels: register-tiled\n" +
                   "    team_size: " + one_to(1000) +
                   "\n    split_k: 2\n    split_tiles: " + one_to(200) + "\n",
               {"problem 'p'", "expands to more than 100000 results"});
  // The limit is per file: exactly 100000 results load; one more problem is refused.
  const std::string full = "problems:\n  - {name: full, kernels: naive, m: " + one_to(100) +
                           ", n: " + one_to(100) + ", k: " + one_to(10) + "}\n";
  EXPECT_EQ(load(dir, full).size(), 100000u);
  expect_error(full + "  - {name: one-more, kernels: naive, m: 1, n: 1, k: 1}\n",
               {"problem 'one-more' (#2)", "expands to 1 result (kernel runs",
                "after 100000 from the problems above it"});
}

// Regression (tests/fuzz/corpus/spec/regression-tile-map-empty-list.yaml): an empty tile list in
// the per-kernel mapping left the kernel with no run at all, silently.
TEST(Spec, RefusesAnEmptyTileListPerKernel) {
  expect_error(kHead + "    m: 4\n    n: 4\n    k: 4\n    tile: {tiled: []}\n",
               {"key 'tile'", "the list is empty"});
}

// Regression (tests/fuzz/corpus/spec/regression-tile-long-text.yaml): the tile parser's std::regex
// recursed once per character and overflowed the stack on a long tile text.
TEST(Spec, RefusesALongTileTextWithoutParsingIt) {
  expect_error(
      kHead + "    m: 4\n    n: 4\n    k: 4\n    tile: \"" + std::string(100000, ' ') + "8\"\n",
      {"key 'tile'", "is not a tile"});
}

}  // namespace
}  // namespace tilemm::test
