#include "tilemm/types.hpp"

#include <cctype>
#include <regex>

#include "tilemm/problem.hpp"

namespace tilemm {

std::string to_string(Precision p) {
  return p == Precision::Float ? "float" : "double";
}
std::string to_string(Layout l) {
  return l == Layout::Right ? "right" : "left";
}
std::string to_string(Trans t) {
  return t == Trans::N ? "N" : "T";
}

std::string to_string(Spread s) {
  return s == Spread::Summa ? "summa" : "replicated";
}

std::string lower_case(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::optional<Tiling> Tiling::parse(const std::string& text) {
  static const std::regex square(R"(\s*(\d{1,4})\s*)");
  static const std::regex full(
      R"(\s*(\d{1,4})x(\d{1,4})x(\d{1,4})(?:/(\d{1,3})x(\d{1,3})(?:/s(\d))?)?\s*)");
  // A tile is at most "9999x9999x9999/999x999"; std::regex recurses once per character and
  // overflows the stack on long input (tests/fuzz/corpus/spec/regression-tile-long-text.yaml).
  if (text.size() > 64) return std::nullopt;
  std::smatch match;
  Tiling t;
  if (std::regex_match(text, match, square)) {
    t.bm = t.bn = t.bk = std::stoi(match[1]);
  } else if (std::regex_match(text, match, full)) {
    t.bm = std::stoi(match[1]);
    t.bn = std::stoi(match[2]);
    t.bk = std::stoi(match[3]);
    if (match[4].matched) {
      t.tm = std::stoi(match[4]);
      t.tn = std::stoi(match[5]);
    }
    if (match[6].matched) t.stages = std::stoi(match[6]);
    if (match[6].matched && t.stages < 2) return std::nullopt;  // stages in flight: 2 or more
  } else {
    return std::nullopt;
  }
  const bool positive = t.bm > 0 && t.bn > 0 && t.bk > 0 && t.tm > 0 && t.tn > 0;
  if (!positive || t.bm % t.tm != 0 || t.bn % t.tn != 0) return std::nullopt;
  return t;
}

std::string Tiling::to_string() const {
  std::string s = std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk);
  if (has_thread_tile() || stages > 0) s += "/" + std::to_string(tm) + "x" + std::to_string(tn);
  if (stages > 0) s += "/s" + std::to_string(stages);
  return s;
}

std::string Origin::where() const {
  std::string s = file + ": problem '" + name + "' (#" + std::to_string(index + 1);
  if (line > 0) s += ", line " + std::to_string(line);
  return s + ")";
}

}  // namespace tilemm
