#include "tilemm/spec.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "tilemm/errors.hpp"
#include "tilemm/kernel_names.hpp"
#include "tilemm/npy.hpp"
#include "tilemm/output_paths.hpp"
#include "tilemm/sweep.hpp"
#include "tilemm/utf8.hpp"

namespace tilemm {
namespace fs = std::filesystem;

const std::vector<std::string>& problem_keys() {
  static const std::vector<std::string> keys = {
      "name",   "m",        "n",       "k",    "precision", "layout",  "trans_a",     "trans_b",
      "alpha",  "beta",     "kernels", "tile", "team_size", "split_k", "split_tiles", "repeats",
      "warmup", "warmup_s", "seed",    "a",    "b",         "c",       "c_out"};
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

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// " (did you mean 'x'?)" for the closest candidate within two edits, "" otherwise.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = 3;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

std::string join(const std::vector<std::string>& words, const std::string& sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) out += (i ? sep : "") + words[i];
  return out;
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

/// "FILE:LINE:COLUMN: " of a place in a spec file (yaml-cpp counts from 0).
std::string place(const std::string& path, const YAML::Mark& mark) {
  return path + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": ";
}

/// Nodes a spec may hold, aliases followed: a few lines of YAML aliases can name billions.
constexpr std::size_t kMaxNodes = 1000000;

/// What every spec must be as a YAML document, whatever its keys: no key twice in one mapping
/// (yaml-cpp would keep the first silently), text in UTF-8 (the results are JSON), no alias to a
/// node that holds it (`x: &a [*a]` is a node inside itself), and at most kMaxNodes nodes.
void check_document(const std::string& path, const YAML::Node& node,
                    std::vector<YAML::Node>& ancestors, std::size_t& nodes_left) {
  const auto where = [&](const YAML::Node& at) {
    return place(path, at.Mark());
  };
  if (nodes_left-- == 0) {
    throw InputError(path + ": more than " + std::to_string(kMaxNodes) +
                     " YAML nodes, counting each alias as a copy of what it names");
  }
  for (const auto& above : ancestors) {
    if (above.is(node)) throw InputError(where(node) + "a YAML alias to a node that holds it");
  }
  ancestors.push_back(node);
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      if (!is_valid_utf8(node.Scalar())) {
        throw InputError(where(node) + "text that is not UTF-8 (spec files are UTF-8)");
      }
      break;
    case YAML::NodeType::Sequence:
      for (const auto& item : node) check_document(path, item, ancestors, nodes_left);
      break;
    case YAML::NodeType::Map: {
      std::map<std::string, YAML::Mark> seen;
      for (const auto& entry : node) {
        check_document(path, entry.first, ancestors, nodes_left);
        if (entry.first.IsScalar()) {
          const auto [first, fresh] = seen.emplace(entry.first.Scalar(), entry.first.Mark());
          if (!fresh) {
            throw InputError(where(entry.first) + "key '" + entry.first.Scalar() +
                             "' given twice in one mapping (first on line " +
                             std::to_string(first->second.line + 1) + "); give it once");
          }
        }
        check_document(path, entry.second, ancestors, nodes_left);
      }
      break;
    }
    default:
      break;
  }
  ancestors.pop_back();
}

bool is_plain_scalar(const YAML::Node& node) {
  // yaml-cpp tags quoted scalars "!" and plain ones "?": `m: "16"` is a string, not a number.
  return node.IsScalar() && node.Tag() != "!";
}

/// Reads one problem (merged with `defaults:`) and knows how to word an error about it.
class ProblemReader {
 public:
  ProblemReader(const std::string& file, const YAML::Node& problem, const YAML::Node& defaults,
                int index)
      : file_(file), problem_(problem), defaults_(defaults), index_(index) {
    label_ = index < 0 ? "defaults" : "problem #" + std::to_string(index + 1);
  }

  [[noreturn]] void error(const YAML::Node& at, const std::string& key,
                          const std::string& what) const {
    std::ostringstream os;
    os << file_;
    if (at.IsDefined() && at.Mark().line >= 0) {
      os << ":" << at.Mark().line + 1 << ":" << at.Mark().column + 1;
    }
    os << ": " << label_;
    if (!key.empty()) os << ": key '" << key << "'";
    os << ": " << what;
    throw InputError(os.str());
  }

  /// The value of `key` in the problem, else in `defaults:`; undefined if in neither.
  YAML::Node find(const std::string& key) const {
    if (problem_[key]) return problem_[key];
    if (defaults_.IsMap() && defaults_[key]) return defaults_[key];
    return YAML::Node(YAML::NodeType::Undefined);
  }
  bool in_problem(const std::string& key) const { return bool(problem_[key]); }

  void check_keys(const YAML::Node& map, bool allow_name) const {
    for (const auto& entry : map) {
      const std::string key = entry.first.Scalar();
      const auto& keys = problem_keys();
      if (!allow_name && key == "name") {
        error(entry.first, key, "a problem's own key: each problem names itself, not defaults");
      }
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        error(entry.first, key,
              "unknown key" + suggestion(key, keys) + "; known keys: " + join(keys));
      }
    }
  }

  std::string name() {
    const YAML::Node node = problem_["name"];
    if (!node) error(problem_, "name", "missing (every problem needs a name)");
    if (!node.IsScalar() || node.Scalar().empty()) {
      error(node, "name", "must be a non-empty string, got " + describe(node));
    }
    label_ = "problem '" + node.Scalar() + "' (#" + std::to_string(index_ + 1) + ")";
    return node.Scalar();
  }

  /// A key that may hold one value or a list of values (a sweep).
  template <class T, class Parse>
  std::vector<T> list(const std::string& key, Parse parse, std::vector<T> fallback) const {
    const YAML::Node node = find(key);
    if (!node) return fallback;
    std::vector<T> out;
    if (node.IsSequence()) {
      if (node.size() == 0) error(node, key, "the list is empty");
      for (const auto& item : node) out.push_back(parse(item, key));
    } else {
      out.push_back(parse(node, key));
    }
    return out;
  }

  template <class T, class Parse>
  T one(const std::string& key, Parse parse, T fallback) const {
    const YAML::Node node = find(key);
    if (!node) return fallback;
    if (node.IsSequence()) error(node, key, "takes one value, not a list");
    return parse(node, key);
  }

  std::int64_t integer(const YAML::Node& node, const std::string& key, std::int64_t min,
                       std::int64_t max) const {
    const std::string range =
        "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    if (!is_plain_scalar(node)) error(node, key, "must be " + range + ", got " + describe(node));
    const std::string& text = node.Scalar();
    std::size_t digits_from = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
    const bool all_digits =
        text.size() > digits_from && std::all_of(text.begin() + digits_from, text.end(),
                                                 [](char c) { return c >= '0' && c <= '9'; });
    if (!all_digits) error(node, key, "must be " + range + ", got '" + text + "'");
    errno = 0;
    const long long value = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE || value < min || value > max) {
      error(node, key, "must be " + range + ", got " + text);
    }
    return value;
  }

  double real(const YAML::Node& node, const std::string& key) const {
    if (!is_plain_scalar(node)) error(node, key, "must be a number, got " + describe(node));
    const std::string& text = node.Scalar();
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    // strtod flags an underflow as ERANGE too: a subnormal (1e-310) is taken, one that rounds to
    // zero (1e-400) is not, and an overflow is infinite.
    const bool to_zero = errno == ERANGE && value == 0;
    if (text.empty() || *end != '\0' || to_zero || !std::isfinite(value)) {
      error(node, key, "must be a finite number, got '" + text + "'");
    }
    return value;
  }

  std::string word(const YAML::Node& node, const std::string& key,
                   const std::vector<std::string>& allowed) const {
    if (!node.IsScalar()) {
      error(node, key, "must be one of " + join(allowed) + ", got " + describe(node));
    }
    const std::string& text = node.Scalar();
    if (std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
      error(
          node, key,
          "unknown value '" + text + "'" + suggestion(text, allowed) + "; one of " + join(allowed));
    }
    return text;
  }

  std::string path(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar() || node.Scalar().empty()) {
      error(node, key, "must be a file path, got " + describe(node));
    }
    const fs::path p(node.Scalar());
    if (p.is_absolute()) return p.string();
    return (fs::path(file_).parent_path() / p).lexically_normal().string();
  }

  Tiling tile(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) {
      error(node, key,
            "must be a tile such as 16, \"64x64x16\" or \"128x128x8/8x8\", got " + describe(node));
    }
    const auto tiling = Tiling::parse(node.Scalar());
    if (!tiling) {
      error(node, key,
            "'" + node.Scalar() +
                "' is not a tile: write T (a TxTxT tile), BMxBNxBK, or BMxBNxBK/TMxTN");
    }
    return *tiling;
  }

  NpySource npy(const std::string& key) const {
    const YAML::Node node = find(key);
    NpySource src;
    src.path = path(node, key);
    npy::Header header;
    try {
      header = npy::read_header(src.path);
    } catch (const std::exception& e) {
      error(node, key, "'" + src.path + "': " + e.what());
    }
    src.rows = header.shape[0];
    src.cols = header.shape[1];
    // numpy writes empty arrays; extents are at least 1 here as when the spec gives them.
    if (src.rows == 0 || src.cols == 0) {
      error(node, key,
            "'" + src.path + "' holds a " + std::to_string(src.rows) + " x " +
                std::to_string(src.cols) + " array; a matrix needs at least 1 row and 1 column");
    }
    src.fortran_order = header.fortran_order;
    dtypes_[key] = header.descr;
    return src;
  }

  /// Refuses a file holding a NaN or Inf, which would fail every result of the problem after the
  /// problems before it had run. Each file is read once per spec (`scanned`: path -> the first
  /// element that is not finite, -1 for none).
  void check_finite(const std::string& key, const NpySource& src,
                    std::map<std::string, std::int64_t>& scanned) const {
    const YAML::Node node = find(key);
    auto it = scanned.find(src.path);
    if (it == scanned.end()) {
      try {
        it = scanned.emplace(src.path, npy::first_non_finite(src.path, npy::read_header(src.path)))
                 .first;
      } catch (const std::exception& e) {
        error(node, key, "'" + src.path + "': " + e.what());
      }
    }
    const std::int64_t e = it->second;
    if (e < 0) return;
    const auto [row, col] = npy::file_order_position(e, src.rows, src.cols, src.fortran_order);
    error(node, key,
          "'" + src.path + "' holds a NaN or Inf at row " + std::to_string(row) + ", column " +
              std::to_string(col) + " (element " + std::to_string(e) +
              " in file order); tilemm multiplies finite matrices");
  }

  const std::string& dtype_of(const std::string& key) const { return dtypes_.at(key); }

 private:
  const std::string& file_;
  YAML::Node problem_;
  YAML::Node defaults_;
  int index_;
  std::string label_;
  mutable std::map<std::string, std::string> dtypes_;
};

Precision parse_precision(const std::string& s) {
  return s == "float" ? Precision::Float : Precision::Double;
}
Layout parse_layout(const std::string& s) {
  return s == "right" ? Layout::Right : Layout::Left;
}
Trans parse_trans(const std::string& s) {
  return s == "N" ? Trans::N : Trans::T;
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

/// The shape of op(X) for a stored matrix of rows x cols.
std::pair<std::int64_t, std::int64_t> op_shape(const NpySource& s, Trans t) {
  return t == Trans::N ? std::make_pair(s.rows, s.cols) : std::make_pair(s.cols, s.rows);
}

/// Reads problem #index and expands its sweep; `results_left` is what the file may still expand to,
/// `scanned` the matrix files whose values were read already (ProblemReader::check_finite).
std::vector<Problem> read_problem(const std::string& file, const YAML::Node& node,
                                  const YAML::Node& defaults, int index, std::int64_t& results_left,
                                  std::map<std::string, std::int64_t>& scanned) {
  ProblemReader r(file, node, defaults, index);
  if (!node.IsMap()) {
    r.error(node, "", "must be a mapping of keys (name, m, n, k, ...), got " + describe(node));
  }
  Problem base;
  base.origin.file = file;
  base.origin.index = index;
  base.origin.line = node.Mark().line + 1;
  base.origin.name = r.name();  // first, so that every later error names the problem
  r.check_keys(node, /*allow_name=*/true);

  auto integer = [&](std::int64_t min, std::int64_t max) {
    return [&r, min, max](const YAML::Node& n, const std::string& key) {
      return r.integer(n, key, min, max);
    };
  };
  auto word = [&](std::vector<std::string> allowed) {
    return [&r, allowed](const YAML::Node& n, const std::string& key) {
      return r.word(n, key, allowed);
    };
  };

  const auto trans = word({"N", "T"});
  base.trans_a = parse_trans(r.one<std::string>("trans_a", trans, "N"));
  base.trans_b = parse_trans(r.one<std::string>("trans_b", trans, "N"));
  auto real = [&](const YAML::Node& n, const std::string& key) {
    return r.real(n, key);
  };
  base.alpha = r.one<double>("alpha", real, 1.0);
  base.beta = r.one<double>("beta", real, 0.0);
  base.repeats = static_cast<int>(r.one<std::int64_t>("repeats", integer(1, 1000000), 10));
  base.warmup = static_cast<int>(r.one<std::int64_t>("warmup", integer(0, 1000000), 2));
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
      r.one<std::int64_t>("seed", integer(0, std::numeric_limits<std::int64_t>::max()), 42));

  // Matrices from .npy files fix (and may supply) the extents they cover.
  std::map<std::string, std::int64_t> from_files;  // "m", "n", "k" -> extent
  std::map<std::string, std::string> from_which;
  auto fix = [&](const std::string& extent, std::int64_t value, const std::string& key) {
    auto [it, inserted] = from_files.emplace(extent, value);
    if (!inserted && it->second != value) {
      r.error(r.find(key), key,
              "its shape gives " + extent + " = " + std::to_string(value) + " but '" +
                  from_which[extent] + "' gives " + extent + " = " + std::to_string(it->second));
    }
    from_which.emplace(extent, key);
  };
  if (r.find("a")) {
    base.a = r.npy("a");
    const auto [rows, cols] = op_shape(*base.a, base.trans_a);
    fix("m", rows, "a");
    fix("k", cols, "a");
  }
  if (r.find("b")) {
    base.b = r.npy("b");
    const auto [rows, cols] = op_shape(*base.b, base.trans_b);
    fix("k", rows, "b");
    fix("n", cols, "b");
  }
  if (r.find("c")) {
    base.c = r.npy("c");
    fix("m", base.c->rows, "c");
    fix("n", base.c->cols, "c");
  }

  auto extents = [&](const std::string& key) {
    const auto fixed = from_files.find(key);
    if (fixed == from_files.end()) {
      if (!r.find(key)) {
        r.error(node, key, "missing (give " + key + ", or a matrix file that fixes it)");
      }
      return r.list<std::int64_t>(key, integer(1, kMaxExtent), {});
    }
    const auto values = r.list<std::int64_t>(key, integer(1, kMaxExtent), {fixed->second});
    if (values.size() != 1 || values[0] != fixed->second) {
      r.error(r.find(key), key,
              "'" + from_which[key] + "' has " + key + " = " + std::to_string(fixed->second) +
                  "; the two must agree");
    }
    return values;
  };
  Sweep sweep;
  sweep.m = extents("m");
  sweep.n = extents("n");
  sweep.k = extents("k");

  const auto precisions = r.list<std::string>("precision", word({"float", "double"}), {"double"});
  for (const auto& p : precisions) sweep.precisions.push_back(parse_precision(p));
  for (const auto& l : r.list<std::string>("layout", word({"right", "left"}), {"right"})) {
    sweep.layouts.push_back(parse_layout(l));
  }

  std::vector<std::string> kernels;
  const YAML::Node kernels_node = r.find("kernels");
  if (!kernels_node || (kernels_node.IsScalar() && kernels_node.Scalar() == "all")) {
    kernels = kernel_names();
  } else {
    auto allowed = kernel_names();
    allowed.push_back("all");
    kernels = r.list<std::string>("kernels", word(allowed), {});
    if (std::find(kernels.begin(), kernels.end(), "all") != kernels.end()) kernels = kernel_names();
  }
  sweep.kernels = kernels;
  sweep.tiles = read_tiles(r, kernels);
  sweep.team_sizes = r.list<std::int64_t>("team_size", integer(1, 4096), {0});
  if (r.in_problem("team_size") &&
      std::none_of(kernels.begin(), kernels.end(),
                   [](const std::string& k) { return kernel_is_tiled(k); })) {
    r.error(r.find("team_size"), "team_size",
            "only kernels with tiles take a team size, and none of the kernels [" + join(kernels) +
                "] has one");
  }
  sweep.split_ks = r.list<std::int64_t>("split_k", integer(1, 4096), {0});
  sweep.split_tiles = r.list<std::int64_t>("split_tiles", integer(1, kMaxExtent), {0});
  const bool any_split =
      std::find(kernels.begin(), kernels.end(), "register-tiled") != kernels.end();
  for (const std::string key : {"split_k", "split_tiles"}) {
    if (!any_split && r.in_problem(key)) {
      r.error(r.find(key), key,
              "only 'register-tiled' splits K, and it is not among the kernels [" + join(kernels) +
                  "]");
    }
  }
  if (any_split && r.find("split_tiles") && !r.find("split_k")) {
    r.error(r.find("split_tiles"), "split_tiles",
            "names the tiles whose K a split_k splits, and this problem has no split_k");
  }

  // The runs of one problem, then the results they make over the sweep, both counted before any
  // problem is built: a few short lists can ask for billions of either.
  const auto too_many = [&](std::int64_t results) {
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
  };
  base.runs = expand_runs(sweep, kMaxResults);
  const std::int64_t results = count_results(sweep, base.runs.size(), kMaxResults);
  if (results > results_left) too_many(results);
  results_left -= results;

  // Every .npy must hold the problem's precision: a file is never converted silently.
  for (const char* key : {"a", "b", "c"}) {
    if (!r.find(key)) continue;
    const std::string want_float = "<f4", got = r.dtype_of(key);
    for (const auto& p : precisions) {
      const std::string want = p == "float" ? want_float : "<f8";
      if (got != want) {
        r.error(r.find(key), key,
                "holds dtype '" + got + "' but the problem's precision is " + p + " (needs '" +
                    want + "')");
      }
    }
  }

  // alpha and beta are applied in the problem's precision: a double beyond float's range would be
  // infinity there and fail validation, blaming the kernel for the spec.
  if (std::find(precisions.begin(), precisions.end(), "float") != precisions.end()) {
    for (const auto& [key, value] :
         {std::pair{"alpha", base.alpha}, std::pair{"beta", base.beta}}) {
      if (std::fabs(value) > FLT_MAX) {
        r.error(r.find(key), key,
                "is beyond the range of float (about 3.4e38 in magnitude), and the problem's "
                "precision is float");
      }
    }
  }

  // Last of the checks of the files, as it reads every value.
  if (base.a) r.check_finite("a", *base.a, scanned);
  if (base.b) r.check_finite("b", *base.b, scanned);
  if (base.c) r.check_finite("c", *base.c, scanned);

  if (r.find("c_out")) {
    const YAML::Node c_out = r.find("c_out");
    base.c_out = r.path(c_out, "c_out");
    try {
      check_path_template(base.c_out);
    } catch (const std::invalid_argument& e) {
      r.error(c_out, "c_out", e.what());
    }
  }

  const std::vector<Problem> expanded = expand_problems(base, sweep);

  try {
    check_sweep_outputs(expanded);
  } catch (const std::invalid_argument& e) {
    r.error(r.find("c_out"), "c_out", e.what());
  }
  return expanded;
}

}  // namespace

std::vector<Problem> load_spec(const std::string& path) {
  std::error_code ec;
  if (!is_valid_utf8(path)) throw InputError(path + ": a file name that is not UTF-8");
  if (!fs::exists(path, ec)) throw InputError(path + ": no such file");
  if (fs::is_directory(path, ec)) throw InputError(path + ": is a folder, not a spec file");
  {
    std::ifstream probe(path);
    if (!probe) throw InputError(path + ": cannot read: " + std::strerror(errno));
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::ParserException& e) {
    throw InputError(place(path, e.mark) + "invalid YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": cannot read: " + e.what());
  }
  {
    std::vector<YAML::Node> ancestors;
    std::size_t nodes_left = kMaxNodes;
    check_document(path, root, ancestors, nodes_left);
  }
  if (!root.IsMap()) {
    throw InputError(path + ": a spec file is a mapping with a 'problems:' list, got " +
                     describe(root));
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
    ProblemReader(path, defaults, {}, -1).check_keys(defaults, /*allow_name=*/false);
  }

  std::vector<Problem> out;
  std::int64_t results_left = kMaxResults;
  std::map<std::string, std::int64_t> scanned;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    auto expanded =
        read_problem(path, problems[i], defaults, static_cast<int>(i), results_left, scanned);
    out.insert(out.end(), expanded.begin(), expanded.end());
  }
  return out;
}

}  // namespace tilemm
