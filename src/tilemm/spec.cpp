// A spec file becomes problems in one direction: the YAML document is checked; each problem's keys
// are read and checked against each other (with the headers of the matrix files it names, whose
// shapes fix extents); its sweep is expanded; the matrix files' dtypes and values are checked; and
// last the files its results would write. The stages other than the keys live beside this file:
// spec_document.cpp reads the file as one YAML document, spec_yaml.cpp reads YAML values and words
// the errors, sweep.cpp expands sweeps, spec_inputs.cpp checks the matrix files and
// output_paths.cpp the files written.
#include "tilemm/spec.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "tilemm/errors.hpp"
#include "tilemm/kernel_names.hpp"
#include "tilemm/kernels/ozaki/moduli.hpp"
#include "tilemm/output_paths.hpp"
#include "tilemm/spec_document.hpp"
#include "tilemm/spec_inputs.hpp"
#include "tilemm/spec_yaml.hpp"
#include "tilemm/sweep.hpp"

namespace tilemm {

const std::vector<std::string>& problem_keys() {
  static const std::vector<std::string> keys = {
      "name", "m", "n", "k", "size", "precision", "layout", "trans_a", "trans_b", "alpha", "beta",
      "kernels", "tile", "team_size", "split_k", "split_tiles", "moduli", "repeats", "warmup",
      "warmup_s", "seed", "a", "b", "c", "c_out",
      // A run over MPI ranks (distributed/summa.hpp):
      "grid", "block", "panel", "comm", "distribution"};
  return keys;
}

namespace {

const std::vector<std::string> kTopKeys = {"problems", "defaults", "description"};
constexpr std::int64_t kMaxExtent = std::numeric_limits<std::int32_t>::max();
// Results (kernel runs) one spec file may expand to. A sweep is a product of lists, so a few short
// lines can ask for billions of results: the file is refused before they are built, rather than
// filling the memory (tests/fuzz/corpus/spec/regression-sweep-explosion.yaml). Each result costs
// several kernel runs, so a real study this large is split over several files.
constexpr std::int64_t kMaxResults = 100000;

/// Every key of `map` (a problem, or `defaults:` when `allow_name` is false) is a problem key.
void check_keys(const ProblemReader& r, const YAML::Node& map, bool allow_name) {
  const auto& keys = problem_keys();
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    if (!allow_name && key == "name") {
      r.error(entry.first, key, "a problem's own key: each problem names itself, not defaults");
    }
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      r.error(entry.first, key,
              "unknown key" + suggestion(key, keys) + "; known keys: " + join(keys));
    }
  }
}

/// A problem with its origin and name, once its keys are known to be problem keys.
Problem read_origin(ProblemReader& r, const std::string& file, const YAML::Node& node, int index) {
  if (!node.IsMap()) {
    r.error(node, "", "must be a mapping of keys (name, m, n, k, ...), got " + describe_node(node));
  }
  Problem base;
  base.origin.file = file;
  base.origin.index = index;
  base.origin.line = node.Mark().line + 1;
  base.origin.name = r.name();  // first, so that every later error names the problem
  check_keys(r, node, /*allow_name=*/true);
  return base;
}

/// The keys that take one value, and no list: transposes, scalars, repetitions and the seed.
void read_single_values(const ProblemReader& r, Problem& base) {
  const auto trans = [&](const std::string& key) {
    return r.one<std::string>(key, r.words({"N", "T"}), "N") == "N" ? Trans::N : Trans::T;
  };
  base.trans_a = trans("trans_a");
  base.trans_b = trans("trans_b");
  base.alpha = r.one<double>("alpha", r.reals(), 1.0);
  base.beta = r.one<double>("beta", r.reals(), 0.0);
  base.repeats = static_cast<int>(r.one<std::int64_t>("repeats", r.integers(1, 1000000), 10));
  base.warmup = static_cast<int>(r.one<std::int64_t>("warmup", r.integers(0, 1000000), 2));
  base.warmup_s = r.one<double>(
      "warmup_s",
      [&r](const YAML::Node& n, const std::string& key) {
        const double seconds = r.real(n, key);
        if (seconds < 0 || seconds > 3600) {
          r.error(n, key, "must be seconds in [0, 3600], got " + n.Scalar());
        }
        return seconds;
      },
      0.0);
  base.seed = static_cast<std::uint64_t>(
      r.one<std::int64_t>("seed", r.integers(0, std::numeric_limits<std::int64_t>::max()), 42));
}

/// The values of extent `key` (m, n or k): listed in the spec, or fixed by a matrix file, or both
/// when they agree.
std::vector<std::int64_t> read_extent(const ProblemReader& r, const YAML::Node& node,
                                      const std::string& key, const MatrixHeaders& headers) {
  const auto fixed = headers.extents.find(key);
  if (fixed == headers.extents.end()) {
    if (!r.find(key)) {
      r.error(node, key, "missing (give " + key + ", size, or a matrix file that fixes it)");
    }
    return r.list<std::int64_t>(key, r.integers(1, kMaxExtent), {});
  }
  const auto values = r.list<std::int64_t>(key, r.integers(1, kMaxExtent), {fixed->second});
  if (values.size() != 1 || values[0] != fixed->second) {
    r.error(r.find(key), key,
            "'" + headers.fixed_by.at(key) + "' has " + key + " = " +
                std::to_string(fixed->second) + "; the two must agree");
  }
  return values;
}

/// `size`: m = n = k, each value listed one square problem (where lists of m, n and k would make
/// every combination of them). It takes the place of m, n and k, and of matrix files' extents.
std::vector<std::int64_t> read_sizes(const ProblemReader& r, const MatrixHeaders& headers) {
  const YAML::Node node = r.find("size");
  if (!node) return {};
  for (const std::string key : {"m", "n", "k"}) {
    if (r.find(key)) {
      r.error(r.find(key), key, "given beside 'size', which sets m = n = k: give one or the other");
    }
  }
  if (!headers.extents.empty()) {
    r.error(node, "size", "the problem's matrix files fix its extents: give m, n and k");
  }
  return r.list<std::int64_t>("size", r.integers(1, kMaxExtent), {});
}

/// `kernels`: a name, a list of names, or "all" (the default).
std::vector<std::string> read_kernels(const ProblemReader& r) {
  const YAML::Node node = r.find("kernels");
  if (!node || (node.IsScalar() && node.Scalar() == "all")) return kernel_names();
  auto allowed = kernel_names();
  allowed.push_back("all");
  const auto kernels = r.list<std::string>("kernels", r.words(allowed), {});
  if (std::find(kernels.begin(), kernels.end(), "all") != kernels.end()) return kernel_names();
  return kernels;
}

/// Tiles per kernel: `tile: 32`, `tile: [16, 32]`, or `tile: {tiled: 32, ...}`.
std::map<std::string, std::vector<Tiling>> read_tiles(const ProblemReader& r,
                                                      const std::vector<std::string>& kernels) {
  std::map<std::string, std::vector<Tiling>> tiles;
  const YAML::Node node = r.find("tile");
  if (!node) return tiles;
  auto parse = [&](const YAML::Node& n, const std::string& key) {
    return r.tile(n, key);
  };
  if (node.IsMap()) {
    for (const auto& entry : node) {
      const std::string kernel = entry.first.Scalar();
      if (!kernel_is_tiled(kernel)) {
        r.error(entry.first, "tile",
                "'" + kernel + "' is not a kernel that takes a tile" +
                    suggestion(kernel, tiled_kernel_names()) +
                    "; kernels with tiles: " + join(tiled_kernel_names()));
      }
      // In `defaults:` a map may name kernels some problems leave out; in the problem, it means
      // one.
      if (r.in_problem("tile") &&
          std::find(kernels.begin(), kernels.end(), kernel) == kernels.end()) {
        r.error(
            entry.first, "tile",
            "'" + kernel + "' is not among the kernels [" + join(kernels) + "] of this problem");
      }
      std::vector<Tiling>& list = tiles[kernel];
      if (entry.second.IsSequence()) {
        // An empty list would leave the kernel without a run, silently.
        if (entry.second.size() == 0) r.error(entry.second, "tile", "the list is empty");
        for (const auto& item : entry.second) list.push_back(parse(item, "tile"));
      } else {
        list.push_back(parse(entry.second, "tile"));
      }
    }
    return tiles;
  }
  const auto list = r.list<Tiling>("tile", parse, {});
  bool any_tiled = false;
  for (const auto& k : kernels) {
    if (kernel_is_tiled(k)) {
      tiles[k] = list;
      any_tiled = true;
    }
  }
  if (!any_tiled && r.in_problem("tile")) {
    r.error(node, "tile", "none of the kernels [" + join(kernels) + "] takes a tile");
  }
  return tiles;
}

/// `team_size`, `split_k` and `split_tiles`, each only where one of the kernels takes it.
void read_launch_lists(const ProblemReader& r, Sweep& sweep) {
  const auto& kernels = sweep.kernels;
  sweep.team_sizes = r.list<std::int64_t>("team_size", r.integers(1, 4096), {0});
  if (r.in_problem("team_size") && std::none_of(kernels.begin(), kernels.end(), kernel_is_tiled)) {
    r.error(r.find("team_size"), "team_size",
            "only kernels with tiles take a team size, and none of the kernels [" + join(kernels) +
                "] has one");
  }
  sweep.split_ks = r.list<std::int64_t>("split_k", r.integers(1, 4096), {0});
  sweep.split_tiles = r.list<std::int64_t>("split_tiles", r.integers(1, kMaxExtent), {0});
  const bool any_split = std::any_of(kernels.begin(), kernels.end(), kernel_splits_k);
  for (const std::string key : {"split_k", "split_tiles"}) {
    if (!any_split && r.in_problem(key)) {
      r.error(
          r.find(key), key,
          "only 'register-tiled' and 'tensor-tiled' split K, and neither is among the kernels [" +
              join(kernels) + "]");
    }
  }
  if (any_split && r.find("split_tiles") && !r.find("split_k")) {
    r.error(r.find("split_tiles"), "split_tiles",
            "names the tiles whose K a split_k splits, and this problem has no split_k");
  }
  const bool ozaki = std::find(kernels.begin(), kernels.end(), "ozaki") != kernels.end();
  sweep.moduli = r.list<std::int64_t>("moduli", r.integers(1, kernels::ozaki::kMaxModuli), {0});
  if (!ozaki && r.in_problem("moduli")) {
    r.error(r.find("moduli"), "moduli",
            "only 'ozaki' takes a count of moduli, and it is not among the kernels [" +
                join(kernels) + "]");
  }
}

/// A problem that names ozaki among its kernels must run in double in one of its precisions
/// (ozaki runs in double only, and runs in the others are left out; `kernels: all` leaves it out).
void check_precisions(const ProblemReader& r, const Sweep& sweep) {
  const YAML::Node node = r.find("kernels");
  const bool named = node && !(node.IsScalar() && node.Scalar() == "all");
  const auto& kernels = sweep.kernels;
  if (!named || std::find(kernels.begin(), kernels.end(), "ozaki") == kernels.end()) return;
  for (const Precision precision : sweep.precisions) {
    if (kernel_takes("ozaki", precision)) return;
  }
  r.error(r.find("precision"), "precision",
          "kernel 'ozaki' runs in double only, and this problem runs in float alone");
}

/// The keys of a run over MPI ranks, each a value or a list: `grid` (PrxPc), `block`, `panel`,
/// `comm` and `distribution`; every combination of them.
std::vector<Distribution> read_distributions(const ProblemReader& r) {
  const auto grid = [&r](const YAML::Node& n, const std::string& key) {
    const std::string text = n.IsScalar() ? n.Scalar() : "";
    const auto x = text.find('x');
    const auto side = [&](const std::string& digits) {
      if (digits.empty() || digits.size() > 5 ||
          digits.find_first_not_of("0123456789") != std::string::npos || std::stoi(digits) < 1) {
        r.error(n, key, "must be rows x columns of ranks, such as 2x4, got " + describe_node(n));
      }
      return std::stoi(digits);
    };
    if (x == std::string::npos) side("");
    return std::pair{side(text.substr(0, x)), side(text.substr(x + 1))};
  };
  const auto grids = r.list<std::pair<int, int>>("grid", grid, {{0, 0}});
  const auto blocks = r.list<std::int64_t>("block", r.integers(1, kMaxExtent), {0});
  const auto panels = r.list<std::int64_t>("panel", r.integers(1, kMaxExtent), {0});
  const auto comms = r.list<std::string>("comm", r.words({"mpi", "nccl", "auto"}), {"auto"});
  const auto spreads =
      r.list<std::string>("distribution", r.words({"summa", "replicated"}), {"summa"});
  std::vector<Distribution> all;
  for (const auto& [rows, cols] : grids) {
    for (const auto block : blocks) {
      for (const auto panel : panels) {
        for (const auto& comm : comms) {
          for (const auto& spread : spreads) {
            all.push_back({rows, cols, block, panel, comm,
                           spread == "replicated" ? Spread::Replicated : Spread::Summa});
          }
        }
      }
    }
  }
  return all;
}

/// The keys that may list several values: extents, precisions, layouts, kernels and launches.
Sweep read_sweep(const ProblemReader& r, const YAML::Node& node, const MatrixHeaders& headers) {
  Sweep sweep;
  sweep.sizes = read_sizes(r, headers);
  if (sweep.sizes.empty()) {
    sweep.m = read_extent(r, node, "m", headers);
    sweep.n = read_extent(r, node, "n", headers);
    sweep.k = read_extent(r, node, "k", headers);
  }
  for (const auto& p : r.list<std::string>("precision", r.words({"float", "double"}), {"double"})) {
    sweep.precisions.push_back(p == "float" ? Precision::Float : Precision::Double);
  }
  for (const auto& l : r.list<std::string>("layout", r.words({"right", "left"}), {"right"})) {
    sweep.layouts.push_back(l == "right" ? Layout::Right : Layout::Left);
  }
  sweep.kernels = read_kernels(r);
  sweep.tiles = read_tiles(r, sweep.kernels);
  read_launch_lists(r, sweep);
  check_precisions(r, sweep);
  sweep.distributions = read_distributions(r);
  return sweep;
}

/// Takes the sweep's `results` from what the file may still expand to (`results_left`), or refuses
/// the problem when they are more.
void spend_results(const ProblemReader& r, const YAML::Node& node, std::int64_t results,
                   std::int64_t& results_left) {
  if (results <= results_left) {
    results_left -= results;
    return;
  }
  const std::string most = std::to_string(kMaxResults);
  const std::int64_t before = kMaxResults - results_left;  // the problems above this one
  r.error(node, "",
          "expands to " +
              (results > kMaxResults ? "more than " + most + " results"
               : results == 1        ? std::string("1 result")
                                     : std::to_string(results) + " results") +
              " (kernel runs times every combination of the listed values)" +
              (before > 0 ? ", after " + std::to_string(before) + " from the problems above it"
                          : std::string()) +
              "; a spec file may expand to at most " + most +
              " results in all: split the sweep over several files");
}

/// Refuses an alpha or beta that float cannot hold when the sweep runs in float: they are applied
/// in the problem's precision, where a value beyond float's range is infinity and would fail
/// validation, blaming the kernel for the spec, and a nonzero one below the smallest normal float
/// is 0 or a subnormal that keeps a few of its digits.
void check_scalars_fit(const ProblemReader& r, const Problem& base,
                       const std::vector<Precision>& precisions) {
  for (const auto& [key, value] : {std::pair{"alpha", base.alpha}, std::pair{"beta", base.beta}}) {
    for (const Precision precision : precisions) {
      const bool is_float = precision == Precision::Float;
      if (is_float && std::fabs(value) > FLT_MAX) {
        r.error(r.find(key), key,
                "is beyond the range of float (about 3.4e38 in magnitude), and the problem's "
                "precision is float");
      }
      // A value that float rounds to 0 or to a subnormal would run as another value than the
      // results record, or with a fraction of its digits (inputs/README.md).
      if (is_float && value != 0 && std::fabs(value) < FLT_MIN) {
        r.error(r.find(key), key,
                "is nonzero and below the smallest normal float (about 1.2e-38): float would "
                "round it to 0 or hold it with fewer digits");
      }
    }
  }
}

/// Refuses a problem whose result can pass the largest value of its precision: where |alpha| k
/// max|A| max|B| + |beta| max|C0| (the largest magnitude any element of C, or any partial sum of a
/// kernel, can take, with a margin for rounding) passes it, the exact result may overflow to Inf in
/// every kernel, the baseline included, though the double reference holds it, and each would fail
/// for the spec's sake. Random values lie in [-1, 1); a matrix file's largest magnitude is known
/// once scanned (on every process but ranks 1, 2, ... of an MPI run, where rank 0 decides).
void check_result_range(const ProblemReader& r, const Problem& base, const Sweep& sweep,
                        const MatrixFiles& files) {
  const double a = largest_magnitude(base, "a", files), b = largest_magnitude(base, "b", files);
  const double c = base.beta == 0 ? 0 : largest_magnitude(base, "c", files);
  if (a < 0 || b < 0 || c < 0) return;
  // The deepest product: the k list's, or with `size` its largest value.
  const std::vector<std::int64_t>& depths = sweep.sizes.empty() ? sweep.k : sweep.sizes;
  const auto k = double(*std::max_element(depths.begin(), depths.end()));
  const double largest = std::fabs(base.alpha) * k * a * b + std::fabs(base.beta) * c;
  for (const Precision precision : sweep.precisions) {
    const bool is_float = precision == Precision::Float;
    const double limit = is_float ? FLT_MAX : DBL_MAX;
    const double eps = is_float ? FLT_EPSILON : DBL_EPSILON;
    if (!(largest * (1 + (k + 2) * eps) <= limit)) {
      char text[64];
      std::snprintf(text, sizeof text, "%.3g", largest);
      const std::string key = base.alpha != 1 || (!base.a && !base.b) ? "alpha"
                              : base.a                                ? "a"
                                                                      : "b";
      r.error(r.find(key), key,
              "|alpha| k max|A| max|B| + |beta| max|C| = " + std::string(text) +
                  " passes the largest " + to_string(precision) + " (about " +
                  (is_float ? "3.4e38" : "1.8e308") +
                  "): the result may overflow to Inf in every kernel, the baseline included; "
                  "scale alpha or the data down");
    }
  }
}

/// `c_out`, the template of the files the results' C go to, given to every problem of the sweep
/// once it is known to name a file of its own for each result. Read last, as it is checked against
/// the expanded sweep.
void read_outputs(const ProblemReader& r, std::vector<Problem>& problems) {
  const YAML::Node node = r.find("c_out");
  if (!node) return;
  const std::string c_out = r.path(node, "c_out");
  try {
    check_path_template(c_out);
    for (auto& problem : problems) problem.c_out = c_out;
    check_sweep_outputs(problems);
  } catch (const std::invalid_argument& e) {
    r.error(node, "c_out", e.what());
  }
}

/// Reads problem #index and expands its sweep; `results_left` is what the file may still expand to,
/// `files` the matrix files read already (their values scanned with `scan_values`).
std::vector<Problem> read_problem(const std::string& file, const YAML::Node& node,
                                  const YAML::Node& defaults, int index, std::int64_t& results_left,
                                  MatrixFiles& files, bool scan_values) {
  ProblemReader r(file, node, defaults, index);
  Problem base = read_origin(r, file, node, index);
  read_single_values(r, base);
  // The headers come before the sweep's keys: a matrix file fixes the extents it covers.
  const MatrixHeaders headers = read_matrix_headers(r, base, files);
  const Sweep sweep = read_sweep(r, node, headers);

  base.runs = expand_runs(sweep, kMaxResults);
  spend_results(r, node, count_results(sweep, base.runs.size(), kMaxResults), results_left);
  std::vector<Problem> problems = expand_problems(base, sweep);

  check_matrix_dtypes(r, headers, sweep.precisions);
  check_scalars_fit(r, base, sweep.precisions);
  // Last of the input checks, as it reads every value.
  if (scan_values) check_matrices_finite(r, base, files);
  check_result_range(r, base, sweep, files);
  read_outputs(r, problems);
  return problems;
}

/// The spec's top level: only known keys, a non-empty `problems:` list, `defaults:` a mapping of
/// problem keys.
void check_top_level(const std::string& path, YAML::Node root) {
  if (!root.IsMap()) {
    throw InputError(path + ": a spec file is a mapping with a 'problems:' list, got " +
                     describe_node(root));
  }
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (std::find(kTopKeys.begin(), kTopKeys.end(), key) == kTopKeys.end()) {
      throw InputError(path + ":" + std::to_string(entry.first.Mark().line + 1) +
                       ": unknown top-level key '" + key + "'" + suggestion(key, kTopKeys) +
                       "; known keys: " + join(kTopKeys));
    }
  }
  const YAML::Node problems = root["problems"];
  if (!problems || !problems.IsSequence() || problems.size() == 0) {
    throw InputError(path + ": 'problems:' must be a non-empty list of problems");
  }
  const YAML::Node defaults = root["defaults"];
  if (defaults) {
    if (!defaults.IsMap()) throw InputError(path + ": 'defaults:' must be a mapping of keys");
    check_keys(ProblemReader(path, defaults, {}, -1), defaults, /*allow_name=*/false);
  }
}

/// The spec's `description:`, text or nothing.
std::string description_of(const std::string& path, const YAML::Node& root) {
  const YAML::Node node = root["description"];
  if (!node || node.IsNull()) return "";
  if (!node.IsScalar()) {
    throw InputError(spec_place(path, node.Mark()) + "'description:' must be text, got " +
                     describe_node(node));
  }
  return node.Scalar();
}

}  // namespace

std::string read_description(const std::string& path) {
  YAML::Node root = load_spec_document(path, read_spec_bytes(path));
  return root.IsMap() ? description_of(path, root) : "";
}

std::vector<Problem> load_spec(const std::string& path, std::vector<InputFile>* inputs,
                               bool scan_values) {
  const std::string bytes = read_spec_bytes(path);
  // Not const: for a missing key yaml-cpp's const operator[] gives a node that throws when used,
  // the other an undefined node.
  YAML::Node root = load_spec_document(path, bytes);
  check_top_level(path, root);
  const std::string description = description_of(path, root);
  const YAML::Node problems = root["problems"];
  const YAML::Node defaults = root["defaults"];
  std::vector<Problem> out;
  std::int64_t results_left = kMaxResults;
  MatrixFiles files;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    auto expanded = read_problem(path, problems[i], defaults, static_cast<int>(i), results_left,
                                 files, scan_values);
    out.insert(out.end(), expanded.begin(), expanded.end());
  }
  if (inputs) {
    inputs->push_back({path, sha256_hex(bytes), description});
    for (const auto& [file, read] : files)
      inputs->push_back({file, sha256_hex(read.file->bytes), ""});
  }
  return out;
}

}  // namespace tilemm
