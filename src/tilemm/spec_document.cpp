#include "tilemm/spec_document.hpp"

#include <yaml-cpp/eventhandler.h>

#include <sstream>
#include <vector>

#include "tilemm/errors.hpp"
#include "tilemm/input_file.hpp"
#include "tilemm/spec_yaml.hpp"
#include "tilemm/utf8.hpp"

namespace tilemm {

namespace {

// Bytes of a spec file: far more than the largest sweep needs, and a bound on what a device or an
// endless pipe given as a spec can make tilemm read.
constexpr std::size_t kMaxSpecBytes = std::size_t(64) << 20;

/// Records where each document of a YAML stream starts, and nothing else.
struct DocumentStarts : YAML::EventHandler {
  std::vector<YAML::Mark> marks;
  void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

/// Refuses a stream of several documents: only the first would run. The stream is walked two
/// documents at most, because yaml-cpp's parser does not consume a stray ',' at the top level and
/// would return the same empty document for ever (YAML::LoadAll never ends on such input); a second
/// document that starts where the first did is that case, and is refused as invalid YAML.
void check_single_document(const std::string& path, const std::string& bytes) {
  std::istringstream stream(bytes);
  YAML::Parser parser(stream);
  DocumentStarts starts;
  while (starts.marks.size() < 2 && parser.HandleNextDocument(starts)) {
  }
  if (starts.marks.size() < 2) return;
  const YAML::Mark& first = starts.marks[0];
  const YAML::Mark& second = starts.marks[1];
  if (second.pos == first.pos) {
    throw InputError(spec_place(path, second) + "invalid YAML: unexpected '" +
                     bytes.substr(second.pos, 1) + "' outside a flow collection");
  }
  throw InputError(spec_place(path, second) +
                   "a second YAML document ('---'); a spec file holds one: give each its own file");
}

}  // namespace

std::string read_spec_bytes(const std::string& path) {
  if (!is_valid_utf8(path)) throw InputError(path + ": a file name that is not UTF-8");
  std::string bytes;
  try {
    const InputStream in(path);
    in.read(bytes, kMaxSpecBytes + 1);
  } catch (const std::runtime_error& e) {
    throw InputError(path + ": " + e.what());
  }
  if (bytes.size() > kMaxSpecBytes) {
    throw InputError(path + ": longer than " + std::to_string(kMaxSpecBytes >> 20) +
                     " MiB; split the study over several spec files");
  }
  return bytes;
}

YAML::Node load_spec_document(const std::string& path, const std::string& bytes) {
  YAML::Node root;
  try {
    check_single_document(path, bytes);
    root = YAML::Load(bytes);
  } catch (const YAML::ParserException& e) {
    throw InputError(spec_place(path, e.mark) + "invalid YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ": cannot read: " + e.what());
  }
  check_yaml_document(path, root);
  return root;
}

}  // namespace tilemm
