// The first stage of reading a spec file: its bytes, read once and bounded, and the one YAML
// document they hold, checked as a document whatever its keys (spec_yaml.hpp). The keys are read
// from it by spec.cpp.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace tilemm {

/// The bytes of the spec file at `path`, read once (a named pipe too); at most 64 MiB. Throws
/// InputError.
std::string read_spec_bytes(const std::string& path);

/// The YAML document held in `bytes` of the spec file at `path`: one document, checked by
/// check_yaml_document. Throws InputError.
YAML::Node load_spec_document(const std::string& path, const std::string& bytes);

}  // namespace tilemm
