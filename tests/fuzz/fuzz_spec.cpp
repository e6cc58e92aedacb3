// libFuzzer target: the YAML problem-spec loader, tilemm::load_spec, the way the CLI calls it.
//
// load_spec reads a path, so each input is written to spec.yaml in a scratch folder made once per
// process (under $TMPDIR). A few valid .npy files wait beside it, so that inputs naming them
// (`a: a.npy`) reach the matrix-file checks. Inputs may name any other file too: load_spec then
// reads that file's .npy header, which is what it does for a user.
//
// The contract under test: every input is loaded or refused with tilemm::InputError. Any other
// exception escaping (std::bad_alloc, std::out_of_range, a yaml-cpp exception), a crash or a
// sanitizer report is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tilemm/errors.hpp"
#include "tilemm/npy.hpp"
#include "tilemm/output_paths.hpp"
#include "tilemm/spec.hpp"

namespace {

std::filesystem::path g_folder;
std::string g_spec;

void remove_folder() {
  std::error_code ignored;
  std::filesystem::remove_all(g_folder, ignored);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::string pattern = (std::filesystem::temp_directory_path() / "tilemm-fuzz-spec.XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  g_folder = pattern;
  g_spec = (g_folder / "spec.yaml").string();
  std::atexit(remove_folder);
  // The matrix files the seeds name: a (3x2 double), af (3x2 float), b (2x4 double, Fortran
  // order), c (3x4 double), empty (0x3 double, which numpy can write and tilemm refuses).
  const std::vector<double> d(12, 0.5);
  const std::vector<float> f(12, 0.5f);
  tilemm::npy::write((g_folder / "a.npy").string(), d.data(), 3, 2, false);
  tilemm::npy::write((g_folder / "af.npy").string(), f.data(), 3, 2, false);
  tilemm::npy::write((g_folder / "b.npy").string(), d.data(), 2, 4, true);
  tilemm::npy::write((g_folder / "c.npy").string(), d.data(), 3, 4, false);
  tilemm::npy::write((g_folder / "empty.npy").string(), d.data(), 0, 3, false);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(g_spec, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();
  }
  std::vector<tilemm::Problem> problems;
  try {
    problems = tilemm::load_spec(g_spec);
  } catch (const tilemm::InputError&) {
    return 0;  // refused with a message: the expected outcome for most inputs
  }
  // What the CLI does next with a loaded spec before it plans: describe the problems, expand the
  // output path template of every result.
  for (const auto& p : problems) {
    if (p.origin.where().empty() || p.runs.empty() || p.m < 1 || p.n < 1 || p.k < 1) std::abort();
    if (p.c_out.empty()) continue;
    for (const auto& run : p.runs) {
      if (tilemm::expand_path_template(p.c_out, p, run, "openmp").empty()) std::abort();
    }
  }
  return 0;
}
