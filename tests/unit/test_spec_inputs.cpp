// Problem specs' matrix files (.npy): extents they fix, values they must hold, files refused, and
// the hash recorded of the bytes read.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>

#include "spec_testing.hpp"
#include "temp_dir.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/npy.hpp"
#include "tilemm/spec.hpp"
#include "tilemm/spec_inputs.hpp"

namespace tilemm::test {
namespace {

TEST(Spec, MatricesFromNpyFixAndCheckExtents) {
  TempDir dir;
  const std::vector<double> a(6, 1.0), b(12, 2.0), c(8, 0.5);
  npy::write(dir.path("a.npy"), a.data(), 3, 2, false);  // op(A) = A^T is 2 x 3: m=2, k=3
  npy::write(dir.path("b.npy"), b.data(), 3, 4, true);   // k=3, n=4
  npy::write(dir.path("c.npy"), c.data(), 2, 4, false);
  const auto problems =
      load(dir, kHead + "    a: a.npy\n    b: b.npy\n    c: c.npy\n    trans_a: T\n    beta: 1\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].m, 2);
  EXPECT_EQ(problems[0].n, 4);
  EXPECT_EQ(problems[0].k, 3);
  EXPECT_EQ(problems[0].a->path, dir.path("a.npy"));  // resolved against the spec's folder
  EXPECT_TRUE(problems[0].b->fortran_order);
}

// A result that may pass the precision's largest value (alpha k max|A| max|B| + |beta| max|C|) is
// refused by the key that makes it so, for random values (in [-1, 1)) and for a file's values,
// scanned; a product that stays within it runs.
TEST(Spec, RefusesAResultThatMayOverflowThePrecision) {
  const std::string mnk = "    m: 3\n    n: 4\n    k: 8\n";
  expect_error(kHead + mnk + "    precision: [double, float]\n    alpha: 3e38\n",
               {"key 'alpha'", "= 2.4e+39 passes the largest float"});
  expect_error(kHead + mnk + "    alpha: 1e308\n", {"key 'alpha'", "passes the largest double"});
  expect_error(kHead + mnk + "    precision: float\n    alpha: 1e37\n    beta: 3.4e38\n",
               {"key 'alpha'", "passes the largest float"});
  TempDir dir;
  EXPECT_EQ(load(dir, kHead + mnk + "    precision: float\n    alpha: 4e37\n").size(), 1u);
  std::vector<float> a(6, 1.0f);
  a[4] = -2e19f;  // (2e19)^2 = 4e38 a product, past float's range
  npy::write(dir.path("a.npy"), a.data(), 2, 3, false);
  npy::write(dir.path("b.npy"), a.data(), 3, 2, false);
  expect_error(kHead + "    a: " + dir.path("a.npy") + "\n    b: " + dir.path("b.npy") +
                   "\n    precision: float\n",
               {"key 'a'", "passes the largest float"});
  const std::vector<double> a64(a.begin(), a.end());
  npy::write(dir.path("a64.npy"), a64.data(), 2, 3, false);
  npy::write(dir.path("b64.npy"), a64.data(), 3, 2, false);
  EXPECT_EQ(load(dir, kHead + "    a: a64.npy\n    b: b64.npy\n").size(), 1u);  // in double
}

TEST(Spec, MatrixFilesMustBeFinite) {
  TempDir dir;
  std::vector<double> a(6, 1.0);
  a[5] = std::numeric_limits<double>::quiet_NaN();
  npy::write(dir.path("a.npy"), a.data(), 2, 3, false);
  const std::string spec = dir.write(
      "spec.yaml", "problems:\n  - {name: ok, m: 2, n: 2, k: 2}\n  - {name: p, a: a.npy, n: 4}\n");
  try {
    load_spec(spec);
    ADD_FAILURE() << "a NaN in a matrix file was accepted";
  } catch (const InputError& e) {
    const std::string message = e.what();
    for (const std::string& part :
         std::vector<std::string>{spec, "problem 'p'", "key 'a'", "a.npy' holds a NaN or Inf",
                                  "at row 1, column 2 (element 5 in file order)"}) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
}

TEST(Spec, RefusesBadMatrixFiles) {
  TempDir dir;
  const std::vector<double> a(6, 1.0);
  const std::vector<float> af(6, 1.0f);
  npy::write(dir.path("a.npy"), a.data(), 2, 3, false);
  npy::write(dir.path("af.npy"), af.data(), 2, 3, false);
  dir.write("junk.npy", "this is not numpy");
  auto expect = [&](const std::string& yaml, std::initializer_list<std::string> parts) {
    try {
      load_spec(dir.write("spec.yaml", yaml));
      ADD_FAILURE() << "accepted:\n" << yaml;
    } catch (const InputError& e) {
      for (const auto& part : parts) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      }
    }
  };
  expect(kHead + "    a: missing.npy\n    n: 2\n", {"key 'a'", "missing.npy"});
  expect(kHead + "    a: junk.npy\n    n: 2\n", {"key 'a'", "not a .npy"});
  expect(kHead + "    a: af.npy\n    n: 2\n", {"key 'a'", "'<f4'", "double"});
  expect(kHead + "    a: a.npy\n    m: 5\n    n: 2\n", {"key 'm'", "agree"});
  expect(kHead + "    a: a.npy\n    b: a.npy\n", {"key 'b'", "k = 2", "k = 3"});
  expect(kHead + "    a: a.npy\n    c: a.npy\n    n: 7\n", {"key 'n'"});
}

// Issue 40: with beta = 0 C is never read (as BLAS), so a `c` file holding NaN is not refused.
TEST(Spec, ScansCOnlyWhenBetaReadsIt) {
  TempDir dir;
  std::vector<double> c(6, 1.0);
  c[4] = std::numeric_limits<double>::quiet_NaN();
  npy::write(dir.path("c.npy"), c.data(), 2, 3, false);
  EXPECT_EQ(load(dir, kHead + "    c: c.npy\n    k: 4\n").size(), 1u);
  try {
    load(dir, kHead + "    c: c.npy\n    k: 4\n    beta: 1\n");
    ADD_FAILURE() << "a NaN in C read with beta = 1 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("NaN or Inf at row 1, column 1"), std::string::npos)
        << e.what();
  }
}

// Issue 40: each input is read once and the SHA-256 recorded is that of the bytes parsed, for the
// spec and for each matrix file, however many problems name it.
TEST(Spec, RecordsTheHashOfTheBytesRead) {
  TempDir dir;
  const std::vector<double> a(6, 1.5);
  npy::write(dir.path("a.npy"), a.data(), 2, 3, false);
  const std::string yaml = kHead + "    a: a.npy\n    n: 2\n  - name: q\n    a: a.npy\n    n: 3\n";
  std::vector<InputFile> inputs;
  load_spec(dir.write("spec.yaml", yaml), &inputs);
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].path, dir.path("spec.yaml"));
  EXPECT_EQ(inputs[1].path, dir.path("a.npy"));
  // sha256 of the empty string and of "abc" (FIPS 180-2), then the inputs' against their bytes.
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(inputs[0].sha256, sha256_hex(yaml));
  std::ifstream in(dir.path("a.npy"), std::ios::binary);
  const std::string matrix{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_EQ(inputs[1].sha256, sha256_hex(matrix));
}

// Regression (tests/fuzz/corpus/spec/regression-matrix-zero-rows.yaml): a .npy file of 0 rows gave
// a problem with m = 0, which a spec's own `m: 0` cannot.
TEST(Spec, RefusesAnEmptyMatrixFile) {
  TempDir dir;
  npy::write(dir.path("empty.npy"), static_cast<const double*>(nullptr), 0, 3, false);
  try {
    load(dir, kHead + "    a: empty.npy\n    n: 2\n");
    FAIL() << "empty matrix accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'a'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0 x 3 array"), std::string::npos) << e.what();
  }
}

TEST(Spec, RefusesAFolderAsAMatrix) {
  TempDir dir;
  try {
    load(dir, kHead + "    a: .\n    n: 2\n");
    FAIL() << "folder accepted as a matrix";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'a'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("it is a folder"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tilemm::test
