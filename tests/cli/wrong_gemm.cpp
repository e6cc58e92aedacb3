// A wrong BLAS, for the test that Freivalds' check trusts no library (tests/cli/CMakeLists.txt,
// cli.wrong_blas.*): LD_PRELOAD'ed, its dgemm_ and sgemm_ call the real ones (the next in the
// search order, through dlsym(RTLD_NEXT)) and then add 1 to C's first element.
#include <dlfcn.h>

namespace {

template <class Scalar>
using Gemm = void (*)(const char*, const char*, const int*, const int*, const int*, const Scalar*,
                      const Scalar*, const int*, const Scalar*, const int*, const Scalar*, Scalar*,
                      const int*);

template <class Scalar>
void wrong_gemm(const char* name, const char* ta, const char* tb, const int* m, const int* n,
                const int* k, const Scalar* alpha, const Scalar* a, const int* lda, const Scalar* b,
                const int* ldb, const Scalar* beta, Scalar* c, const int* ldc) {
  static const auto real = reinterpret_cast<Gemm<Scalar>>(::dlsym(RTLD_NEXT, name));
  real(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (*m > 0 && *n > 0) c[0] += 1;
}

}  // namespace

extern "C" void dgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                       const double* alpha, const double* a, const int* lda, const double* b,
                       const int* ldb, const double* beta, double* c, const int* ldc) {
  wrong_gemm("dgemm_", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

extern "C" void sgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b,
                       const int* ldb, const float* beta, float* c, const int* ldc) {
  wrong_gemm("sgemm_", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
