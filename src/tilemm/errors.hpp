// Failures and the exit status each one maps to (the CLI's contract with batch scripts).
#pragma once

#include <iostream>
#include <stdexcept>
#include <string>

namespace tilemm {

enum ExitStatus : int {
  kExitOk = 0,                // every result validated
  kExitValidationFailed = 1,  // at least one result failed validation
  kExitInputError = 2,        // usage, spec file, .npy file or a launch that cannot fit
  kExitRuntimeError = 3,      // not enough memory, a backend failure, an unwritable result file
};

/// Bad input: a spec, a .npy file, a command-line option. The message names the file, the problem
/// and the key.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The input is valid but cannot run here: not enough memory, the backend failed.
class RuntimeFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs a program's body and turns what escapes it into the exit-status contract, the message on
/// stderr: InputError is a usage or input error, anything else a runtime failure.
template <class Body>
int exit_status_of(const char* program, Body&& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return kExitInputError;
  } catch (const std::exception& e) {
    std::cerr << program << ": runtime failure: " << e.what() << "\n";
    return kExitRuntimeError;
  }
}

}  // namespace tilemm
