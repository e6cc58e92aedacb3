#include "tilemm/output_paths.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace tilemm {
namespace {

/// A tile as a file name takes it: "128x128x8/8x8" is "128x128x8-8x8", so that a thread tile does
/// not open a folder.
std::string tile_in_file_name(const Tiling& tile) {
  std::string text = tile.to_string();
  std::replace(text.begin(), text.end(), '/', '-');
  return text;
}

std::map<std::string, std::string> placeholder_values(const Problem& problem, const KernelRun& run,
                                                      const std::string& backend) {
  return {
      {"name", problem.origin.name},
      {"kernel", run.kernel},
      {"backend", backend},
      {"m", std::to_string(problem.m)},
      {"n", std::to_string(problem.n)},
      {"k", std::to_string(problem.k)},
      {"precision", to_string(problem.precision)},
      {"layout", to_string(problem.layout)},
      {"tile", run.launch.tile ? tile_in_file_name(*run.launch.tile) : "default"},
      {"team_size", run.launch.team_size ? std::to_string(run.launch.team_size) : "default"},
      {"split_k", run.launch.split_k ? std::to_string(run.launch.split_k) : "default"},
      {"split_tiles", run.launch.split_tiles ? std::to_string(run.launch.split_tiles) : "default"}};
}

/// Replaces each {key} with lookup(key); throws on an unknown key or a '{' without '}'.
template <class Lookup>
std::string substitute(const std::string& text, Lookup lookup) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      out += text[i];
      continue;
    }
    const std::size_t close = text.find('}', i);
    if (close == std::string::npos) throw std::invalid_argument("'{' without a closing '}'");
    out += lookup(text.substr(i + 1, close - i - 1));
    i = close;
  }
  return out;
}

}  // namespace

void check_path_template(const std::string& path_template) {
  const auto known = placeholder_values(Problem{}, KernelRun{}, "");
  substitute(path_template, [&](const std::string& key) {
    if (!known.count(key)) {
      throw std::invalid_argument("unknown placeholder {" + key +
                                  "}; known: {name} {kernel} {backend} {m} {n} {k} {precision} "
                                  "{layout} {tile} {team_size} {split_k} {split_tiles}");
    }
    return std::string();
  });
}

std::string expand_path_template(const std::string& path_template, const Problem& problem,
                                 const KernelRun& run, const std::string& backend) {
  const auto values = placeholder_values(problem, run, backend);
  return substitute(path_template, [&](const std::string& key) { return values.at(key); });
}

}  // namespace tilemm
