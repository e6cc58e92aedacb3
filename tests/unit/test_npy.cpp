// The .npy reader and writer: files numpy wrote, round trips, and every malformed file refused.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "temp_dir.hpp"
#include "tilemm/npy.hpp"

namespace tilemm::test {
namespace {

const std::string kData = TILEMM_TEST_DATA_DIR;

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The reason a header is refused ("" if it is accepted).
std::string refusal(const std::string& bytes) {
  try {
    npy::parse(bytes.data(), bytes.size());
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string npy_file(const std::string& dict, std::size_t data_bytes) {
  std::string header = dict;
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + std::string(data_bytes, '\0');
}

TEST(Npy, ReadsNumpyCOrderFloat32) {
  const auto file = npy::read(kData + "/c_order_f4_3x4.npy");
  const auto& h = file.header;
  EXPECT_EQ(h.descr, "<f4");
  EXPECT_FALSE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(file.bytes, read_all(kData + "/c_order_f4_3x4.npy"));
  const auto v = npy::values(file);
  ASSERT_EQ(v.size(), 12u);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(v[i * 4 + j], i * 10 + j + 0.5);
}

TEST(Npy, ReadsNumpyFortranOrderFloat64) {
  const auto file = npy::read(kData + "/fortran_order_f8_3x4.npy");
  EXPECT_EQ(file.header.descr, "<f8");
  EXPECT_TRUE(file.header.fortran_order);
  const auto v = npy::values(file);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(v[i + j * 3], i * 10 + j + 0.5);  // column-major
}

TEST(Npy, RefusesWhatTilemmCannotMultiply) {
  EXPECT_THROW(npy::read(kData + "/int32_3x4.npy"), std::invalid_argument);
  EXPECT_THROW(npy::read(kData + "/f8_1d_5.npy"), std::invalid_argument);
  try {
    npy::read(kData + "/big_endian_f8_3x4.npy");
    FAIL() << "big-endian file accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("big-endian"), std::string::npos) << e.what();
  }
}

TEST(Npy, RoundTripsBothOrdersAndPrecisions) {
  TempDir dir;
  const std::vector<float> f = {1.5f, -2.25f, 3.0f, 1e-30f, 7.0f, -8.5f};
  npy::write(dir.path("f.npy"), f.data(), 2, 3, false);
  auto file = npy::read(dir.path("f.npy"));
  EXPECT_EQ(file.header.descr, "<f4");
  EXPECT_EQ(file.header.data_offset % 64, 0u);
  EXPECT_EQ(file.header.shape, (std::vector<std::int64_t>{2, 3}));
  auto v = npy::values(file);
  for (std::size_t i = 0; i < f.size(); ++i) EXPECT_EQ(v[i], f[i]);

  const std::vector<double> d = {1.0 / 3, -1e300, 2.0, 4.0};
  npy::write(dir.path("d.npy"), d.data(), 2, 2, true);
  file = npy::read(dir.path("d.npy"));
  EXPECT_TRUE(file.header.fortran_order);
  EXPECT_EQ(npy::values(file), d);
}

TEST(Npy, WriteReplacesAtomically) {
  TempDir dir;
  const std::vector<double> one = {1}, four = {1, 2, 3, 4};
  npy::write(dir.path("x.npy"), four.data(), 2, 2, false);
  npy::write(dir.path("x.npy"), one.data(), 1, 1, false);
  EXPECT_EQ(npy::read(dir.path("x.npy")).header.count(), 1);
  // No temporary file is left beside it.
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path("")))
    ++files;
  EXPECT_EQ(files, 1);
}

TEST(Npy, RefusesMalformedHeaders) {
  const std::string good =
      npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 48);
  EXPECT_EQ(refusal(good), "");
  EXPECT_NE(refusal("PK\x03\x04 not numpy at all"), "");
  EXPECT_NE(refusal(good.substr(0, 9)), "");   // cut inside the prefix
  EXPECT_NE(refusal(good.substr(0, 40)), "");  // cut inside the header
  EXPECT_NE(refusal(good.substr(0, good.size() - 1)).find("truncated"), std::string::npos);
  EXPECT_NE(refusal(npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 24)),
            "");
  EXPECT_NE(refusal(npy_file("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2, 3), }", 48)),
            "");
  EXPECT_NE(refusal(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, x), }", 48)),
            "");
  EXPECT_NE(refusal(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 1), }", 48)),
            "");
  EXPECT_NE(refusal(npy_file("{'descr': '<f8', 'shape': (2, 3), }", 48)), "");
  EXPECT_NE(
      refusal(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", 48)),
      "");
  EXPECT_NE(refusal(npy_file(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 3), }", 48)),
            "");
  // A header length that points past the file.
  std::string lying = good;
  lying[8] = '\xff';
  lying[9] = '\x7f';
  EXPECT_NE(refusal(lying), "");
  // Version 3 is read like version 2 (4-byte length).
  std::string v9 = good;
  v9[6] = 9;
  EXPECT_NE(refusal(v9).find("version"), std::string::npos);
}

TEST(Npy, TruncatedDataIsRefusedWithSizes) {
  TempDir dir;
  const std::vector<double> d(100, 1.0);
  npy::write(dir.path("t.npy"), d.data(), 10, 10, false);
  const std::string whole = read_all(dir.path("t.npy"));
  dir.write("cut.npy", whole.substr(0, whole.size() - 8));
  try {
    npy::read(dir.path("cut.npy"));
    FAIL() << "truncated file accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("800 bytes"), std::string::npos) << e.what();
  }
}

// Regression (tests/fuzz/corpus/npy/regression-shape-bytes-wrap.npy): a float64 shape whose byte
// count passes 2^64 wrapped round to 64 bytes, so a 64-byte file passed the size check and
// read_data then asked for 2^61 doubles.
TEST(Npy, ShapeWhoseByteCountPasses64BitsIsRefused) {
  const std::string lying =
      npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2147352580, 1073807362), }", 64);
  const std::string why = refusal(lying);
  EXPECT_NE(why.find("truncated"), std::string::npos) << why;
  EXPECT_NE(why.find("more than 2^64 bytes"), std::string::npos) << why;
  // The largest float32 array the format allows does not wrap: its real size is named.
  const std::string big = refusal(npy_file(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483647, 2147483647), }", 16));
  EXPECT_NE(big.find("promises 18446744056529682436 bytes"), std::string::npos) << big;
}

// Issue 40: a file longer than its header's array, or with bytes after the header's dictionary, is
// not what numpy wrote: refused with the reason, rather than read in part.
TEST(Npy, RefusesTrailingDataAndHeaderJunk) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string longer = refusal(npy_file(dict, 56));
  EXPECT_NE(longer.find("more data than the header says"), std::string::npos) << longer;
  EXPECT_NE(longer.find("promises 48 bytes"), std::string::npos) << longer;
  const std::string junk = refusal(npy_file(dict + " x", 48));
  EXPECT_NE(junk.find("bytes after the dictionary"), std::string::npos) << junk;
  EXPECT_EQ(refusal(npy_file(dict + "  \t ", 48)), "");  // padding is not junk

  // The same through a file: the reader stops one byte past the array, however long the file.
  TempDir dir;
  dir.write("long.npy", npy_file(dict, 48) + std::string(1 << 20, '\0'));
  try {
    npy::read(dir.path("long.npy"));
    FAIL() << "longer file accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("more data"), std::string::npos) << e.what();
  }
  // A header that claims far more than the file holds allocates no more than the file.
  dir.write("lying.npy", npy_file("{'descr': '<f8', 'fortran_order': False, "
                                  "'shape': (2147483647, 2147483647), }",
                                  48));
  EXPECT_THROW(npy::read(dir.path("lying.npy")), std::invalid_argument);
}

TEST(Npy, CountRefusesAShapeThatOverflows) {
  npy::Header h;
  h.shape = {2147483647, 2147483647, 2147483647};
  EXPECT_THROW(h.count(), std::invalid_argument);
  h.shape = {3, 4};
  EXPECT_EQ(h.count(), 12);
}

TEST(Npy, FindsTheFirstNonFiniteElementInFileOrderAndTheLargest) {
  TempDir dir;
  std::vector<double> d(300000, 0.25);  // more than one piece of the reader
  npy::write(dir.path("finite.npy"), d.data(), 600, 500, false);
  EXPECT_EQ(npy::scan(npy::read(dir.path("finite.npy"))).first_non_finite, -1);
  d[250000] = -3.5;  // the largest magnitude, in the second piece
  EXPECT_EQ(npy::scan(npy::read(dir.path("finite.npy"))).largest, 0.25);
  npy::write(dir.path("finite.npy"), d.data(), 600, 500, false);
  EXPECT_EQ(npy::scan(npy::read(dir.path("finite.npy"))).largest, 3.5);
  d[299998] = std::numeric_limits<double>::infinity();
  d[200001] = std::numeric_limits<double>::quiet_NaN();
  npy::write(dir.path("late.npy"), d.data(), 600, 500, true);
  EXPECT_EQ(npy::scan(npy::read(dir.path("late.npy"))).first_non_finite, 200001);
  std::vector<float> f(6, 1.0f);
  f[4] = -std::numeric_limits<float>::infinity();
  npy::write(dir.path("f.npy"), f.data(), 2, 3, false);
  EXPECT_EQ(npy::scan(npy::read(dir.path("f.npy"))).first_non_finite, 4);
}

// Regression (tests/fuzz/corpus/spec/regression-matrix-is-a-folder.yaml): a folder named as a
// matrix is refused by name, and a device unopened. A pipe is read once, no further than its header
// says.
TEST(Npy, ReadsAPipeOnceAndRefusesAFolder) {
  TempDir dir;
  try {
    npy::read(dir.path(""));
    FAIL() << "folder accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("it is a folder"), std::string::npos) << e.what();
  }
  try {
    npy::read("/dev/zero");  // a device: refused unopened
    FAIL() << "a device accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file or a pipe"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(npy::read(dir.path("missing.npy")), std::runtime_error);
  const std::vector<double> d = {1, 2, 3, 4, 5, 6};
  npy::write(dir.path("d.npy"), d.data(), 2, 3, false);
  ASSERT_EQ(::mkfifo(dir.path("pipe.npy").c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(dir.path("pipe.npy")) << read_all(dir.path("d.npy")); });
  const npy::File file = npy::read(dir.path("pipe.npy"));
  writer.join();
  EXPECT_EQ(npy::values(file), d);
}

}  // namespace
}  // namespace tilemm::test
