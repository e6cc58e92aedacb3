#include "listings.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include "tilemm/errors.hpp"
#include "tilemm/kernel_names.hpp"
#include "tilemm/spec.hpp"

namespace tilemm::cli {
namespace fs = std::filesystem;

namespace {

/// The installed specs' folder under the install prefix, the executable's folder under it and the
/// checkout's inputs/, fixed when tilemm was configured (src/CMakeLists.txt).
constexpr const char* kInstalledInputs = TILEMM_INSTALLED_INPUTS;
constexpr const char* kInstalledBin = TILEMM_INSTALLED_BINDIR;
constexpr const char* kCheckoutInputs = TILEMM_CHECKOUT_INPUTS;

bool is_folder(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

}  // namespace

std::string shipped_specs_folder() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::path(kInstalledBin).is_relative()) {
    // PREFIX/bin/tilemm: up from the executable's folder by as many steps as bin/ has.
    fs::path prefix = exe.parent_path();
    for (const auto& part : fs::path(kInstalledBin)) {
      if (!part.empty() && part != ".") prefix = prefix.parent_path();
    }
    const fs::path installed = prefix / kInstalledInputs;
    if (is_folder(installed)) return installed.lexically_normal().string();
  }
  return is_folder(kCheckoutInputs) ? fs::path(kCheckoutInputs).lexically_normal().string() : "";
}

void list_kernels(std::ostream& out) {
  static const std::vector<std::pair<std::string, std::string>> kernels = {
      {"naive", "one thread per element of C, A and B read from memory"},
      {"tiled", "a team per tile of C, tiles of A and B in team scratch"},
      {"register-tiled", "tiled, each thread's block of C in registers (the outer-product form)"},
      {"tensor-tiled", "register-tiled's tiles, each warp's product on the tensor cores on GPUs"},
      {"ozaki", "double from int8 products over a set of moduli (the Ozaki scheme II)"},
      {"kokkos-kernels",
       "KokkosBlas::gemm: the vendor BLAS (cuBLAS on CUDA, the linked BLAS on CPUs), the "
       "baseline"}};
  for (const auto& name : kernel_names()) {
    const auto it = std::find_if(kernels.begin(), kernels.end(),
                                 [&](const auto& k) { return k.first == name; });
    char line[160];
    std::snprintf(line, sizeof line, "%-16s %s\n", name.c_str(),
                  it == kernels.end() ? "" : it->second.c_str());
    out << line;
  }
}

bool list_specs(std::ostream& out) {
  const std::string folder = shipped_specs_folder();
  if (folder.empty()) return false;
  std::vector<fs::path> specs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".yaml") specs.push_back(entry.path());
  }
  std::sort(specs.begin(), specs.end());
  out << "The shipped specs, in " << folder << ":\n";
  for (const auto& spec : specs) {
    std::string description;
    try {
      description = read_description(spec.string());
    } catch (const std::exception& e) {
      description = std::string("(cannot be read: ") + e.what() + ")";
    }
    char line[512];
    std::snprintf(line, sizeof line, "  %-26s %s\n", spec.filename().string().c_str(),
                  description.c_str());
    out << line;
  }
  out << "Run one: tilemm " << (fs::path(folder) / "quickstart.yaml").string()
      << " (tilemm --help for the options)\n";
  return true;
}

std::string specs_hint() {
  const std::string folder = shipped_specs_folder();
  if (folder.empty()) return "tilemm --help";
  return "try: tilemm " + (fs::path(folder) / "quickstart.yaml").string() +
         "; tilemm --list-specs lists the shipped specs";
}

void check_specs_exist(const std::vector<std::string>& specs) {
  for (const auto& spec : specs) {
    std::error_code ec;
    if (fs::exists(spec, ec) || ec) continue;  // one that cannot be looked at is the reader's
    const std::string folder = shipped_specs_folder();
    const fs::path shipped = fs::path(folder) / fs::path(spec).filename();
    const bool is_shipped = !folder.empty() && fs::exists(shipped, ec);
    throw InputError(
        spec + ": no such file (" +
        (is_shipped ? "the shipped spec of that name: " + shipped.string() : specs_hint()) + ")");
  }
}

}  // namespace tilemm::cli
