// What the spec reader's tests share: loading a spec from text, and expecting its refusal.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "tilemm/errors.hpp"
#include "tilemm/spec.hpp"

namespace tilemm::test {

/// The problems of the spec `yaml`, written as spec.yaml in `dir`.
inline std::vector<Problem> load(const TempDir& dir, const std::string& yaml) {
  return load_spec(dir.write("spec.yaml", yaml));
}

/// Loads `yaml` and expects an InputError whose message contains every one of `parts`.
inline void expect_error(const std::string& yaml, std::initializer_list<std::string> parts) {
  TempDir dir;
  const std::string path = dir.write("spec.yaml", yaml);
  try {
    load_spec(path);
    ADD_FAILURE() << "accepted:\n" << yaml;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path), std::string::npos) << "no file name in: " << message;
    for (const auto& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
}

/// A spec up to the first problem's keys.
inline const std::string kHead = "problems:\n  - name: p\n";

}  // namespace tilemm::test
