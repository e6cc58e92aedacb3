// Reading a spec file's YAML: the checks every document must pass whatever its keys, and
// ProblemReader, which reads one problem's values and words every error about them with the file,
// the line, the problem and the key.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tilemm/types.hpp"

namespace tilemm {

/// " (did you mean 'x'?)" for the closest candidate within two edits, "" otherwise.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates);

std::string join(const std::vector<std::string>& words, const std::string& sep = ", ");

/// A node as an error message names it: its text, "a list", "a mapping" or "nothing".
std::string describe_node(const YAML::Node& node);

/// "FILE:LINE:COLUMN: " of a place in a spec file.
std::string spec_place(const std::string& path, const YAML::Mark& mark);

/// What every spec must be as a YAML document, whatever its keys: no key twice in one mapping
/// (yaml-cpp would keep the first silently), text in UTF-8 (the results are JSON), no alias to a
/// node that holds it (`x: &a [*a]` is a node inside itself), and a bounded number of nodes (a few
/// lines of aliases can name billions). Throws InputError.
void check_yaml_document(const std::string& path, const YAML::Node& root);

/// Reads one problem (merged with `defaults:`) and knows how to word an error about it.
class ProblemReader {
 public:
  /// `index` is the problem's place in `problems:`; -1 reads `defaults:` itself.
  ProblemReader(const std::string& file, const YAML::Node& problem, const YAML::Node& defaults,
                int index);

  /// Throws InputError: "FILE:LINE:COLUMN: problem 'NAME' (#I): key 'KEY': WHAT".
  [[noreturn]] void error(const YAML::Node& at, const std::string& key,
                          const std::string& what) const;

  /// The value of `key` in the problem, else in `defaults:`; undefined if in neither.
  YAML::Node find(const std::string& key) const;
  bool in_problem(const std::string& key) const { return bool(problem_[key]); }

  /// The problem's `name`; every error after this call names the problem by it.
  std::string name();

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

  /// A key that holds one value.
  template <class T, class Parse>
  T one(const std::string& key, Parse parse, T fallback) const {
    const YAML::Node node = find(key);
    if (!node) return fallback;
    if (node.IsSequence()) error(node, key, "takes one value, not a list");
    return parse(node, key);
  }

  // The values a key may hold, each parsed from one node.
  std::int64_t integer(const YAML::Node& node, const std::string& key, std::int64_t min,
                       std::int64_t max) const;
  double real(const YAML::Node& node, const std::string& key) const;
  std::string word(const YAML::Node& node, const std::string& key,
                   const std::vector<std::string>& allowed) const;
  /// A file path, resolved against the spec file's folder.
  std::string path(const YAML::Node& node, const std::string& key) const;
  Tiling tile(const YAML::Node& node, const std::string& key) const;

  // The same as parsers for one() and list().
  auto integers(std::int64_t min, std::int64_t max) const {
    return [this, min, max](const YAML::Node& n, const std::string& key) {
      return integer(n, key, min, max);
    };
  }
  auto words(std::vector<std::string> allowed) const {
    return [this, allowed](const YAML::Node& n, const std::string& key) {
      return word(n, key, allowed);
    };
  }
  auto reals() const {
    return [this](const YAML::Node& n, const std::string& key) {
      return real(n, key);
    };
  }

 private:
  const std::string& file_;
  YAML::Node problem_;
  YAML::Node defaults_;
  int index_;
  std::string label_;
};

}  // namespace tilemm
