# Copyright the tilemm developers. SPDX-License-Identifier: BSD-3-Clause
#
# tilemm's Spack package recipe (Spack 1.0 or newer). tilemm has no public release to download
# yet, so the recipe builds the committed state of the git checkout that holds it: `spack install
# tilemm` clones this checkout's branch main, `tilemm@git.NAME=main` another branch or commit, and
# `spack develop` the working tree itself (scripts/spack-repo/README.md).
import os

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *

# This file sits in <checkout>/scripts/spack-repo/spack_repo/tilemm/packages/tilemm/.
CHECKOUT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 6))


class Tilemm(CMakePackage, CudaPackage):
    """Tiled GEMM mini-app for Kokkos: C = alpha op(A) op(B) + beta C on every backend of one
    Kokkos build, timed and validated, against KokkosBlas::gemm (a vendor BLAS)."""

    git = CHECKOUT

    license("BSD-3-Clause")

    version("main", branch="main")

    variant("openmp", default=True, description="Kokkos' OpenMP backend on the host")
    variant("mpi", default=True, description="One GEMM over the ranks of an MPI run (SUMMA)")
    variant("benchmarks", default=False, description="Build tilemm-bench (Google Benchmark)")
    variant(
        "tests",
        default=False,
        description="Build the CTest suite, which spack install --test=root then runs",
    )

    # The installed executable, checked once the install step ends.
    sanity_check_is_file = ["bin/tilemm"]

    depends_on("cxx", type="build")
    depends_on("cmake@3.22:", type="build")

    # Kokkos 5 needs C++20 and drops deprecated interfaces: allowed once a build with it passes
    # the test suite. Kokkos Kernels' own recipe holds it at Kokkos' version.
    # Serial is one of the backends every tilemm build runs (and its kernel tests cover).
    depends_on("kokkos@4:4 +serial")
    depends_on("kokkos-kernels@4:4 +blas")
    depends_on("kokkos +openmp", when="+openmp")
    depends_on("kokkos-kernels +openmp", when="+openmp")
    # The BLAS behind KokkosBlas::gemm, tilemm's baseline (its results name it). It runs on the
    # OpenMP run's threads only as an OpenMP OpenBLAS: a serial one runs on one thread, a pthreads
    # one beside OpenMP's threads.
    depends_on("blas")
    depends_on("openblas threads=openmp", when="+openmp ^[virtuals=blas] openblas")

    # One Kokkos with CUDA for the device and OpenMP or Serial for the host; tilemm is compiled
    # with that Kokkos' nvcc_wrapper, and KokkosBlas::gemm calls cuBLAS on the device.
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos +cuda +wrapper cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")
        depends_on(
            f"kokkos-kernels +cuda +cublas cuda_arch={arch}", when=f"+cuda cuda_arch={arch}"
        )
    depends_on("kokkos +cuda_lambda", when="+cuda")
    depends_on("kokkos ~cuda", when="~cuda")
    conflicts("cuda_arch=none", when="+cuda", msg="+cuda needs the GPU's cuda_arch, e.g. 90")
    # tilemm's kernels and its GPU telemetry are written for CUDA: a Kokkos with another device
    # backend would concretize and then fail to build.
    conflicts("^kokkos +rocm", msg="tilemm runs on CUDA GPUs only: build Kokkos without +rocm")
    conflicts("^kokkos +sycl", msg="tilemm runs on CUDA GPUs only: build Kokkos without +sycl")

    # The distributed GEMM: MPI between the ranks, and between GPUs NCCL's broadcasts. CMake is
    # told to require MPI, so that a build never links whatever MPI a module left on the path.
    depends_on("mpi", when="+mpi")
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"nccl cuda_arch={arch}", when=f"+mpi +cuda cuda_arch={arch}")

    depends_on("yaml-cpp")
    depends_on("nlohmann-json@3:")
    depends_on("cli11")
    depends_on("openssl")
    depends_on("benchmark", when="+benchmarks")
    depends_on("googletest", when="+tests")
    depends_on("python@3:", type="build", when="+tests")

    def cmake_args(self):
        spec = self.spec
        backends = ["Serial"]
        backends += [name for name in ("OpenMP", "CUDA") if spec.satisfies(f"+{name.lower()}")]
        args = [
            self.define_from_variant("TILEMM_ENABLE_BENCHMARKS", "benchmarks"),
            self.define_from_variant("TILEMM_ENABLE_TESTS", "tests"),
            self.define_from_variant("TILEMM_ENABLE_MPI", "mpi"),
            self.define("TILEMM_REQUIRE_BACKENDS", backends),
        ]
        # The commit the results report, as git describe abbreviates it: the one Spack resolved the
        # version to (a `spack develop` tree has none, and CMake asks its .git instead).
        if "commit" in spec.variants:
            args.append(self.define("TILEMM_GIT_HASH", spec.variants["commit"].value[:12]))
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
            args.append(self.define("TILEMM_NVML_INCLUDE_DIR", spec["cuda"].prefix.include))
        if spec.satisfies("+mpi +cuda"):
            args.append(self.define("NCCL_ROOT", spec["nccl"].prefix))
        return args

    def test_version(self):
        """tilemm --version names the build and its Kokkos (spack test run tilemm)"""
        out = which(self.prefix.bin.tilemm)("--version", output=str.split, error=str.split)
        assert "Kokkos" in out
