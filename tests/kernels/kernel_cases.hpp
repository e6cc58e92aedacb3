// The cases of the kernel tests (test_kernels.cpp, test_register_tiled.cpp, test_tensor_tiled.cpp):
// a kernel, a shape, a layout and ops, a precision, alpha and beta, a launch. check_case runs one
// on the backend under test (backend_dispatch.hpp) and checks C against a host reference in long
// double; kernel_cases.cpp holds the runs and the reference.
#pragma once

#include <cstdint>
#include <string>

#include "tilemm/types.hpp"

namespace tilemm::test {

struct Shape {
  int m, n, k;
};
struct Scaling {
  double alpha, beta;
};

struct Case {
  std::string kernel;
  Shape shape;
  Layout layout;
  Trans ta, tb;
  Precision precision;
  Scaling scaling;
  LaunchRequest launch;
  std::uint64_t seed = 7;
  bool shifted = false;  // A and B one scalar past the start of their memory: off 16 bytes
  bool wide = false;  // A's and B's elements scaled by powers of two from 2^-binades to 2^binades
  int binades = 30;
  /// Rows of op(A) and columns of op(B) of zeros, zeros scattered, rows of op(A) of subnormals
  /// (2^-1060 times the random values) and B scaled by 2^1000, so that C stays normal.
  bool zeros_and_subnormals = false;
};

/// The case in one line, for failure messages.
std::string describe(const Case& c);

/// Runs case c on the backend under test and checks C against R = alpha op(A) op(B) + beta C0 in
/// long double, element by element, with the componentwise bound |C - R| <= (K + 2) eps (|alpha|
/// |op(A)| |op(B)| + |beta| |C0|); tilemm's own validation must pass the result too.
void check_case(const Case& c);

/// check_case in both layouts and all four op combinations.
void check_layouts_and_ops(const std::string& kernel, Shape shape, Precision precision,
                           Scaling scaling, const LaunchRequest& launch);
/// Case c in both layouts and every op.
void check_layouts_and_ops(Case c);

/// Whether `kernel` can launch with this tile and team size on the backend under test.
bool fits(const std::string& kernel, const Tiling& tile, int team);

/// The backend under test's concurrency.
int concurrency();

/// Runs the case four times and expects the same C bit for bit: a race shows as results that
/// differ between runs of the same inputs.
void expect_repeatable(const std::string& kernel, const Tiling& tile, int team,
                       Shape shape = {100, 37, 129}, int split = 0);

}  // namespace tilemm::test
