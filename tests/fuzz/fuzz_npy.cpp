// libFuzzer target: the .npy reader (tilemm::npy), on a header in memory and on a file.
//
// The contract under test: a malformed file is refused with std::invalid_argument (or
// std::runtime_error when it cannot be read); an accepted one holds a 2-D float32/float64 array
// that the file holds exactly, and values() returns exactly its elements. Any other exception
// escaping (std::bad_alloc or std::length_error from a claimed shape, std::out_of_range), a crash
// or a sanitizer report is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "tilemm/npy.hpp"

namespace {

std::string g_folder;
std::string g_file;

void remove_folder() {
  std::error_code ignored;
  std::filesystem::remove_all(g_folder, ignored);
}

/// Aborts (a crash for libFuzzer) when an accepted header promises what the file does not hold.
void check_accepted(const tilemm::npy::Header& h, std::size_t size) {
  const bool dtype_ok = h.descr == "<f4" || h.descr == "<f8";
  if (!dtype_ok || h.shape.size() != 2 || h.shape[0] < 0 || h.shape[1] < 0) std::abort();
  const auto elements = static_cast<std::size_t>(h.count());
  if (h.data_offset > size || elements != (size - h.data_offset) / h.item_bytes()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::string pattern = (std::filesystem::temp_directory_path() / "tilemm-fuzz-npy.XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  g_folder = pattern;
  g_file = g_folder + "/input.npy";
  std::atexit(remove_folder);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  bool accepted_in_memory = false;
  try {
    check_accepted(tilemm::npy::parse(bytes, size), size);
    accepted_in_memory = true;
  } catch (const std::invalid_argument&) {
  }

  {
    std::ofstream out(g_file, std::ios::binary | std::ios::trunc);
    out.write(bytes, static_cast<std::streamsize>(size));
    if (!out) std::abort();
  }
  try {
    const tilemm::npy::File file = tilemm::npy::read(g_file);
    check_accepted(file.header, size);
    if (!accepted_in_memory) std::abort();  // the file and the memory reader must agree
    if (file.bytes.size() != size) std::abort();
    const auto values = tilemm::npy::values(file);
    if (values.size() != static_cast<std::size_t>(file.header.count())) std::abort();
  } catch (const std::invalid_argument&) {
    if (accepted_in_memory) std::abort();
  } catch (const std::runtime_error&) {
  }
  return 0;
}
