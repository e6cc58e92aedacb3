#include "tilemm/spec_yaml.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "tilemm/errors.hpp"
#include "tilemm/kernel_names.hpp"
#include "tilemm/utf8.hpp"

namespace tilemm {
namespace {

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

/// Nodes a spec may hold, aliases followed: a few lines of YAML aliases can name billions.
constexpr std::size_t kMaxNodes = 1000000;

/// check_yaml_document below `node`: `ancestors` are the nodes that hold it, `nodes_left` how many
/// more the document may have.
void check_node(const std::string& path, const YAML::Node& node, std::vector<YAML::Node>& ancestors,
                std::size_t& nodes_left) {
  const auto where = [&](const YAML::Node& at) {
    return spec_place(path, at.Mark());
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
      for (const auto& item : node) check_node(path, item, ancestors, nodes_left);
      break;
    case YAML::NodeType::Map: {
      std::map<std::string, YAML::Mark> seen;
      for (const auto& entry : node) {
        check_node(path, entry.first, ancestors, nodes_left);
        if (entry.first.IsScalar()) {
          const auto [first, fresh] = seen.emplace(entry.first.Scalar(), entry.first.Mark());
          if (!fresh) {
            throw InputError(where(entry.first) + "key '" + entry.first.Scalar() +
                             "' given twice in one mapping (first on line " +
                             std::to_string(first->second.line + 1) + "); give it once");
          }
        }
        check_node(path, entry.second, ancestors, nodes_left);
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

}  // namespace

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
  // A library's name for the kernel that calls it: cuBLAS, OpenBLAS... are `kokkos-kernels`.
  const std::string meant = kernel_meant_by(word);
  if (best.empty() && std::find(candidates.begin(), candidates.end(), meant) != candidates.end()) {
    return " (did you mean '" + meant + "'? it calls the vendor BLAS: cuBLAS, OpenBLAS, ...)";
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

std::string join(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) out += (i ? sep : "") + words[i];
  return out;
}

std::string describe_node(const YAML::Node& node) {
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

std::string spec_place(const std::string& path, const YAML::Mark& mark) {
  // yaml-cpp counts lines and columns from 0.
  return path + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": ";
}

void check_yaml_document(const std::string& path, const YAML::Node& root) {
  std::vector<YAML::Node> ancestors;
  std::size_t nodes_left = kMaxNodes;
  check_node(path, root, ancestors, nodes_left);
}

ProblemReader::ProblemReader(const std::string& file, const YAML::Node& problem,
                             const YAML::Node& defaults, int index)
    : file_(file), problem_(problem), defaults_(defaults), index_(index) {
  label_ = index < 0 ? "defaults" : "problem #" + std::to_string(index + 1);
}

void ProblemReader::error(const YAML::Node& at, const std::string& key,
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

YAML::Node ProblemReader::find(const std::string& key) const {
  if (problem_[key]) return problem_[key];
  if (defaults_.IsMap() && defaults_[key]) return defaults_[key];
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string ProblemReader::name() {
  const YAML::Node node = problem_["name"];
  if (!node) error(problem_, "name", "missing (every problem needs a name)");
  if (!node.IsScalar() || node.Scalar().empty()) {
    error(node, "name", "must be a non-empty string, got " + describe_node(node));
  }
  label_ = "problem '" + node.Scalar() + "' (#" + std::to_string(index_ + 1) + ")";
  return node.Scalar();
}

std::int64_t ProblemReader::integer(const YAML::Node& node, const std::string& key,
                                    std::int64_t min, std::int64_t max) const {
  const std::string range =
      "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (!is_plain_scalar(node)) error(node, key, "must be " + range + ", got " + describe_node(node));
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

double ProblemReader::real(const YAML::Node& node, const std::string& key) const {
  if (!is_plain_scalar(node)) error(node, key, "must be a number, got " + describe_node(node));
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

std::string ProblemReader::word(const YAML::Node& node, const std::string& key,
                                const std::vector<std::string>& allowed) const {
  if (!node.IsScalar()) {
    error(node, key, "must be one of " + join(allowed) + ", got " + describe_node(node));
  }
  const std::string& text = node.Scalar();
  if (std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
    error(node, key,
          "unknown value '" + text + "'" + suggestion(text, allowed) + "; one of " + join(allowed));
  }
  return text;
}

std::string ProblemReader::path(const YAML::Node& node, const std::string& key) const {
  namespace fs = std::filesystem;
  if (!node.IsScalar() || node.Scalar().empty()) {
    error(node, key, "must be a file path, got " + describe_node(node));
  }
  const fs::path p(node.Scalar());
  if (p.is_absolute()) return p.string();
  return (fs::path(file_).parent_path() / p).lexically_normal().string();
}

Tiling ProblemReader::tile(const YAML::Node& node, const std::string& key) const {
  if (!node.IsScalar()) {
    error(
        node, key,
        "must be a tile such as 16, \"64x64x16\" or \"128x128x8/8x8\", got " + describe_node(node));
  }
  const auto tiling = Tiling::parse(node.Scalar());
  if (!tiling) {
    error(node, key,
          "'" + node.Scalar() +
              "' is not a tile: write T (a TxTxT tile), BMxBNxBK, or BMxBNxBK/TMxTN");
  }
  return *tiling;
}

}  // namespace tilemm
