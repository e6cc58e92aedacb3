// A wrong BLAS, for the tests that validation trusts no library (tests/cli/CMakeLists.txt):
// LD_PRELOAD'ed, its dgemm_ and sgemm_ call the real ones (the next in the search order, through
// dlsym(RTLD_NEXT)) and then add 1 to C's first element (cli.wrong_blas.*). Built with
// TILEMM_WRONG_GEMM_ULPS, its sgemm_ alone errs, subtly: it adds to each element of C twice the
// element check's threshold, 2 (k + 2) eps |alpha| ||op(A)(i,:)||_2 ||op(B)(:,j)||_2, a few float
// ulps times k (cli.blas_off_by_ulps), and its dgemm_, which computes the reference, is right.
#include <dlfcn.h>

#include <cfloat>
#include <cmath>
#include <vector>

namespace {

template <class Scalar>
using Gemm = void (*)(const char*, const char*, const int*, const int*, const int*, const Scalar*,
                      const Scalar*, const int*, const Scalar*, const int*, const Scalar*, Scalar*,
                      const int*);

#ifdef TILEMM_WRONG_GEMM_ULPS
/// C += 2 (k + 2) eps |alpha| ||op(A)(i,:)|| ||op(B)(:,j)|| for every element (column-major, as
/// BLAS has them).
void add_twice_the_threshold(const char* ta, const char* tb, int m, int n, int k, float alpha,
                             const float* a, int lda, const float* b, int ldb, float* c, int ldc) {
  const bool ta_t = *ta == 'T' || *ta == 't' || *ta == 'C' || *ta == 'c';
  const bool tb_t = *tb == 'T' || *tb == 't' || *tb == 'C' || *tb == 'c';
  std::vector<double> rows(m, 0), cols(n, 0);
  for (int i = 0; i < m; ++i) {
    for (int l = 0; l < k; ++l) {
      const double v = ta_t ? a[l + std::size_t(i) * lda] : a[i + std::size_t(l) * lda];
      rows[i] += v * v;
    }
  }
  for (int j = 0; j < n; ++j) {
    for (int l = 0; l < k; ++l) {
      const double v = tb_t ? b[j + std::size_t(l) * ldb] : b[l + std::size_t(j) * ldb];
      cols[j] += v * v;
    }
  }
  const double share = 2.0 * (k + 2) * FLT_EPSILON * std::fabs(alpha);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      c[i + std::size_t(j) * ldc] += float(share * std::sqrt(rows[i] * cols[j]));
    }
  }
}
#endif

template <class Scalar>
void wrong_gemm(const char* name, const char* ta, const char* tb, const int* m, const int* n,
                const int* k, const Scalar* alpha, const Scalar* a, const int* lda, const Scalar* b,
                const int* ldb, const Scalar* beta, Scalar* c, const int* ldc) {
  static const auto real = reinterpret_cast<Gemm<Scalar>>(::dlsym(RTLD_NEXT, name));
  real(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
#ifdef TILEMM_WRONG_GEMM_ULPS
  if constexpr (sizeof(Scalar) == 4) {
    add_twice_the_threshold(ta, tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, c, *ldc);
  }
#else
  if (*m > 0 && *n > 0) c[0] += 1;
#endif
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
