#include "tilemm/output_paths.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <stdexcept>

#include "tilemm/atomic_file.hpp"
#include "tilemm/errors.hpp"

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
  const Distribution& d = problem.distribution;
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
      {"split_tiles", run.launch.split_tiles ? std::to_string(run.launch.split_tiles) : "default"},
      {"grid", d.grid_rows > 0 ? std::to_string(d.grid_rows) + "x" + std::to_string(d.grid_cols)
                               : "default"},
      {"block", d.block > 0 ? std::to_string(d.block) : "default"},
      {"panel", d.panel > 0 ? std::to_string(d.panel) : "default"},
      {"comm", d.comm},
      {"distribution", to_string(d.spread)}};
}

/// "{name} {kernel} ...": every placeholder, for messages.
std::string placeholder_list() {
  std::string list;
  for (const auto& [key, value] : placeholder_values(Problem{}, KernelRun{}, "")) {
    list += (list.empty() ? "{" : " {") + key + "}";
  }
  return list;
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
                                  "}; known: " + placeholder_list());
    }
    return std::string();
  });
}

std::string expand_path_template(const std::string& path_template, const Problem& problem,
                                 const KernelRun& run, const std::string& backend) {
  const auto values = placeholder_values(problem, run, backend);
  return substitute(path_template, [&](const std::string& key) { return values.at(key); });
}

void check_sweep_outputs(const std::vector<Problem>& sweep) {
  // One file per result: a template that maps two results to one path would lose one of them.
  // The placeholders whose values tell the two results apart are the ones to add.
  std::map<std::string, std::map<std::string, std::string>> seen;  // path -> its placeholders
  for (const auto& problem : sweep) {
    if (problem.c_out.empty()) continue;
    for (const auto& run : problem.runs) {
      const std::string path = expand_path_template(problem.c_out, problem, run, "backend");
      auto values = placeholder_values(problem, run, "backend");
      const auto [first, inserted] = seen.emplace(path, values);
      if (inserted) continue;
      std::string differ;
      for (const auto& [key, value] : values) {
        if (first->second.at(key) != value) differ += (differ.empty() ? "{" : " or {") + key + "}";
      }
      throw std::invalid_argument("'" + problem.c_out +
                                  "' names one file for several results of this sweep; add " +
                                  differ + " (placeholders: " + placeholder_list() + ")");
    }
  }
}

namespace {

/// A file as the file system resolves it, so that two spellings of one file compare equal (a link
/// that names a file not made yet included: the write makes that file).
std::filesystem::path file_identity(const std::string& path) {
  std::error_code ec;
  // Absolute first: of a relative path none of whose parts exists yet, weakly_canonical keeps
  // the path as given, and "r.out" would differ from "./r.out".
  const auto file = std::filesystem::absolute(written_file(path)).lexically_normal();
  std::filesystem::path resolved = std::filesystem::weakly_canonical(file, ec);
  return ec ? file : resolved;
}

/// Whether a write to `path` would go to a standard stream or a process's open file: /dev/stdout,
/// /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N, or a link to one. Such a path resolves to whatever
/// the descriptor holds, in a batch job the job's log, which the write would replace.
bool names_a_descriptor(const std::string& path) {
  static const std::regex descriptor(
      "/dev/(stdin|stdout|stderr|fd(/.*)?)"
      "|/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/fd(/.*)?");
  std::error_code ec;
  std::filesystem::path file = std::filesystem::absolute(path, ec);
  for (int hop = 0; hop <= 40; ++hop) {  // 40: Linux's own limit on links in a lookup
    // The path as written, and with its folder resolved (a link to /dev/fd or /proc/self/fd).
    const auto folder = std::filesystem::weakly_canonical(file.parent_path(), ec);
    if (std::regex_match(file.lexically_normal().string(), descriptor) ||
        (!ec && std::regex_match((folder / file.filename()).string(), descriptor))) {
      return true;
    }
    if (!std::filesystem::is_symlink(file, ec)) return false;
    const std::filesystem::path next = std::filesystem::read_symlink(file, ec);
    if (ec) return false;
    file = next.is_absolute() ? next : file.parent_path() / next;
  }
  return false;
}

}  // namespace

// Within a sweep the spec reader has refused a `c_out` clash already (check_sweep_outputs); across
// problems, spec files and the --json and --csv files it is caught here.
void check_output_files(const std::vector<std::string>& spec_files, const std::string& json,
                        const std::string& csv, const std::vector<Problem>& problems,
                        const std::string& backend) {
  std::map<std::filesystem::path, std::string> inputs;  // file -> what reads it
  for (const auto& spec : spec_files) inputs.emplace(file_identity(spec), "a spec file");
  for (const auto& p : problems) {
    for (const auto& [key, source] : {std::pair{"a", &p.a}, {"b", &p.b}, {"c", &p.c}}) {
      if (*source) {
        inputs.emplace(file_identity((*source)->path),
                       "key '" + std::string(key) + "' of " + p.origin.where());
      }
    }
  }
  std::map<std::filesystem::path, std::string> outputs;  // file -> what writes it
  // Throws InputError, worded by `who` (the option or the problem and key), when `path` is taken.
  const auto claim = [&](const std::string& path, const std::string& who) {
    if (names_a_descriptor(path)) {
      throw InputError(who + ": '" + path +
                       "' names a standard stream or a process's file descriptor, whose file " +
                       "(a batch job's log) the results would replace" +
                       (who[0] == '-' ? "; for standard output give '-'" : ""));
    }
    const auto file = file_identity(path);
    if (const auto input = inputs.find(file); input != inputs.end()) {
      throw InputError(who + ": '" + path + "' is " + input->second +
                       ": the results would overwrite an input");
    }
    const auto [writer, first] = outputs.emplace(file, who);
    if (!first) {
      throw InputError(who + ": '" + path + "' is also the file of " +
                       (writer->second == who
                            ? std::string("this problem: is its spec file given twice?")
                            : writer->second) +
                       "; give each result a file of its own");
    }
    try {
      check_writable(path);
    } catch (const std::exception& e) {
      throw InputError(who + ": " + e.what());
    }
  };
  if (json == "-" && csv == "-") {
    throw InputError(
        "--csv: '-' (standard output) is also the file of --json; give one of them "
        "a file");
  }
  // "-" is standard output, no file (ResultsFile).
  if (!json.empty() && json != "-") claim(json, "--json");
  if (!csv.empty() && csv != "-") claim(csv, "--csv");
  for (const auto& p : problems) {
    if (p.c_out.empty()) continue;
    for (const auto& run : p.runs) {
      claim(expand_path_template(p.c_out, p, run, backend), p.origin.where() + ": key 'c_out'");
    }
  }
}

}  // namespace tilemm
