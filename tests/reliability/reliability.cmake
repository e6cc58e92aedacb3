# Reliability tests of the CLI (interruption, resource limits, unwritable outputs): included by
# tests/CMakeLists.txt, after CASE and SPECS are set. Each failure mode here is a row of
# tests/README.md's list of failure modes.
set(RELIABILITY ${CMAKE_CURRENT_SOURCE_DIR}/reliability)
set(RELIABILITY_SPECS ${RELIABILITY}/specs)
set(INTERRUPT ${Python3_EXECUTABLE} ${RELIABILITY}/interrupt.py)
set(TILEMM $<TARGET_FILE:tilemm>)

# reliability.<name>: runs the command (run_case.py or interrupt.py with their checks).
function(tilemm_reliability_test name)
  add_test(NAME reliability.${name} COMMAND ${ARGN})
  set_tests_properties(reliability.${name} PROPERTIES ENVIRONMENT "OMP_PROC_BIND=false")
endfunction()

# A sanitizer build (CMakePresets.json, "asan") maps terabytes of shadow memory at start, so it
# cannot run under an address-space or data-segment limit at all; nor can a CUDA build, whose
# runtime reserves address space for the GPU when Kokkos starts.
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
  set(TILEMM_ASAN ON)
else()
  set(TILEMM_ASAN OFF)
endif()
# Signals and host-memory limits act on the host process: these tests run a host backend (OpenMP
# when the build has it), so that in a CUDA build too a kernel run lasts long enough to be
# interrupted.
set(TILEMM_HOST_BACKENDS ${TILEMM_TEST_BACKENDS})
list(REMOVE_ITEM TILEMM_HOST_BACKENDS cuda)
list(GET TILEMM_HOST_BACKENDS -1 TILEMM_HOST_BACKEND)

# --- Interruption: SIGINT and SIGTERM stop between kernel runs, keep every finished result, and
#     exit with 128 + the signal; the files are whole after every result, so even a process killed
#     outright leaves them valid.
foreach(backend ${TILEMM_HOST_BACKENDS})
  foreach(sig INT TERM)
    if(sig STREQUAL "INT")
      set(status 130)
    else()
      set(status 143)
    endif()
    string(TOLOWER ${sig} name)
    set(out sig${name}-${backend})
    tilemm_reliability_test(sig${name}_mid_sweep.${backend}
      ${INTERRUPT} --signal ${sig} --after-results 1 --exit ${status} --status interrupted
      --results ${out}.json ${out}.csv -- ${TILEMM} ${RELIABILITY_SPECS}/long_sweep.yaml
      --backend ${backend} --json ${out}.json --csv ${out}.csv)
  endforeach()
endforeach()
# What else ends a batch job early stops the run as SIGTERM does: a closed terminal or ssh session
# (SIGHUP), Slurm's warning before its time limit (--signal=USR1@T), a CPU-time limit (SIGXCPU).
# Exit statuses 128 + Linux's numbers of the signals.
foreach(sig_status HUP:129 USR1:138 XCPU:152)
  string(REPLACE ":" ";" sig_status ${sig_status})
  list(GET sig_status 0 sig)
  list(GET sig_status 1 status)
  string(TOLOWER ${sig} name)
  tilemm_reliability_test(sig${name}_mid_sweep
    ${INTERRUPT} --signal ${sig} --after-results 1 --exit ${status} --status interrupted
    --results sig${name}.json sig${name}.csv -- ${TILEMM} ${RELIABILITY_SPECS}/long_sweep.yaml
    --backend ${TILEMM_HOST_BACKEND} --json sig${name}.json --csv sig${name}.csv)
endforeach()
# Inside one long kernel run: the run finishes (a Kokkos kernel cannot be cut short), then tilemm
# stops before the next one; no result of the problem is finished, so none is written.
tilemm_reliability_test(sigterm_mid_kernel
  ${INTERRUPT} --signal TERM --after-progress 1.5 --exit 143 --status interrupted --within 60
  --results mid-kernel.json mid-kernel.csv -- ${TILEMM} ${RELIABILITY_SPECS}/long_kernel.yaml
  --backend ${TILEMM_HOST_BACKEND} --json mid-kernel.json --csv mid-kernel.csv)
# A second signal ends the process at once; the files keep their last whole state.
tilemm_reliability_test(second_sigint
  ${INTERRUPT} --signal INT --twice --after-progress 1.5 --exit -2 --status running --within 30
  --results twice.json twice.csv -- ${TILEMM} ${RELIABILITY_SPECS}/very_long_kernel.yaml
  --backend ${TILEMM_HOST_BACKEND} --json twice.json --csv twice.csv)
tilemm_reliability_test(sigkill_mid_sweep
  ${INTERRUPT} --signal KILL --after-results 2 --exit -9 --status running --within 30
  --results killed.json killed.csv -- ${TILEMM} ${RELIABILITY_SPECS}/long_sweep.yaml
  --backend ${TILEMM_HOST_BACKEND} --json killed.json --csv killed.csv)

# Two runs given one results file: the second is refused while the first runs (exit status 2).
tilemm_reliability_test(output_in_use ${Python3_EXECUTABLE} ${RELIABILITY}/output_lock.py
  ${TILEMM} ${RELIABILITY_SPECS}/held_output.yaml ${SPECS}/small.yaml ${TILEMM_HOST_BACKEND})

# --- Memory: a problem the machine would hold but a limit does not.
# Under `ulimit -v` tilemm sees the limit (system_info.cpp) and refuses before allocating or
# writing anything; the bytes available it names are below the 1 GiB limit (at most 9 digits).
tilemm_reliability_test(address_space_limit ${CASE} --exit 3 --limit-as 1073741824
  --stdout-empty  --stderr-has "needs 2684485632 bytes (2.50 GiB) of host memory"
  --stderr-regex "; [0-9]{1,9} bytes \\([0-9.]+ GiB\\) are available" --stderr-lacks "[1/1]"
  --absent limit-as.json -- ${TILEMM} ${RELIABILITY_SPECS}/memory_8192.yaml
  --backend ${TILEMM_HOST_BACKEND} --json limit-as.json)
if(TILEMM_ASAN OR "CUDA" IN_LIST Kokkos_DEVICES)
  set_tests_properties(reliability.address_space_limit PROPERTIES DISABLED TRUE)
  message(STATUS "tilemm: reliability.address_space_limit is disabled in this build: "
                 "AddressSanitizer and the CUDA runtime cannot start under an address-space limit")
endif()
# As the limit shrinks, the first limit that stops a small run refuses it cleanly (3): OpenBLAS's
# buffer, mapped on its first call, is kept free, or the run would hang in the reference product.
tilemm_reliability_test(address_space_sweep ${Python3_EXECUTABLE} ${RELIABILITY}/limit_sweep.py
  ${TILEMM} ${SPECS}/small.yaml ${TILEMM_HOST_BACKEND})
# The same with a large explicit tile, whose team scratch Kokkos allocates per thread (it aborted
# the process, 134, where the plan did not count it), and under a data limit (`ulimit -d`), under
# which OpenBLAS waits for ever for its buffer as under `ulimit -v`. Below the first refusal, a run
# that hangs before tilemm starts must still end on SIGTERM.
tilemm_reliability_test(address_space_sweep_big_tile ${Python3_EXECUTABLE}
  ${RELIABILITY}/limit_sweep.py ${TILEMM} ${RELIABILITY_SPECS}/big_tile.yaml ${TILEMM_HOST_BACKEND})
tilemm_reliability_test(data_limit_sweep ${Python3_EXECUTABLE} ${RELIABILITY}/limit_sweep.py
  ${TILEMM} ${SPECS}/small.yaml ${TILEMM_HOST_BACKEND} data)
# On 8 threads, more than OpenBLAS loaded with here, a product large enough for it to share out
# makes an OpenMP build of OpenBLAS map a buffer for each added thread, each of which it would wait
# for for ever: the plan keeps room for them all.
tilemm_reliability_test(address_space_sweep_8_threads ${Python3_EXECUTABLE}
  ${RELIABILITY}/limit_sweep.py ${TILEMM} ${RELIABILITY_SPECS}/openblas_threads.yaml
  ${TILEMM_HOST_BACKEND} as 8)
foreach(test address_space_sweep address_space_sweep_big_tile data_limit_sweep
    address_space_sweep_8_threads)
  set_tests_properties(reliability.${test} PROPERTIES SKIP_RETURN_CODE 77)
  if(TILEMM_ASAN OR "CUDA" IN_LIST Kokkos_DEVICES)
    set_tests_properties(reliability.${test} PROPERTIES DISABLED TRUE)
  endif()
endforeach()
# A memory limit of the process's cgroup (a batch job's memory request, a container's limit): past
# it the kernel kills the process without a word, so tilemm refuses beforehand (3) what does not
# fit, and keeps room for what a run touches besides its matrices. The test makes a cgroup (as root,
# in the hierarchy at /sys/fs/cgroup: below its own, or else below the top; else it skips) and
# shrinks the limit.
tilemm_reliability_test(cgroup_limit ${Python3_EXECUTABLE} ${RELIABILITY}/cgroup_limit.py
  ${TILEMM} ${RELIABILITY_SPECS}/memory_8192.yaml ${RELIABILITY_SPECS}/memory_1024.yaml
  ${TILEMM_HOST_BACKEND})
set_tests_properties(reliability.cgroup_limit PROPERTIES SKIP_RETURN_CODE 77)
if(TILEMM_ASAN OR "CUDA" IN_LIST Kokkos_DEVICES)
  # ASan's shadow memory is charged to the cgroup as the run touches it, past what the reserve
  # holds. A CUDA build starts the CUDA runtime with Kokkos, before any plan, and that alone
  # charges over 100 MiB to the cgroup: the sweep's lowest limits kill it as it starts.
  set_tests_properties(reliability.cgroup_limit PROPERTIES DISABLED TRUE)
endif()
# An allocation that fails (under ASan, its allocator's own limit; elsewhere a data limit, `ulimit -d`,
# is seen by the plan and refuses the problem before it allocates).
set(allocation_fails --exit 3 --stderr-has "[1/1]" --stderr-has "problem 'needs-2.5-GiB'"
  --stderr-has "failed to allocate" --stderr-has "needs about 2684485632 bytes (2.50 GiB) of host memory"
  --results alloc.json alloc.csv --rows 0 --status "failed:")
set(allocation_fails_run ${TILEMM} ${RELIABILITY_SPECS}/memory_8192.yaml
  --backend ${TILEMM_HOST_BACKEND} --json alloc.json --csv alloc.csv)
if(TILEMM_ASAN)
  tilemm_reliability_test(allocation_fails ${CASE} ${allocation_fails} -- ${allocation_fails_run})
  set(asan_limit exitcode=86:allocator_may_return_null=1:max_allocation_size_mb=256)
  set_tests_properties(reliability.allocation_fails PROPERTIES ENVIRONMENT
                       "OMP_PROC_BIND=false;ASAN_OPTIONS=${asan_limit}")
else()
  tilemm_reliability_test(allocation_fails ${CASE} --exit 3 --limit-data 1073741824 --stdout-empty
    --stderr-has "needs 2684485632 bytes (2.50 GiB) of host memory" --stderr-has "ulimit -v or -d"
    --stderr-lacks "[1/1]" --absent alloc.json -- ${allocation_fails_run})
  if("CUDA" IN_LIST Kokkos_DEVICES)
    set_tests_properties(reliability.allocation_fails PROPERTIES DISABLED TRUE)
    message(STATUS "tilemm: reliability.allocation_fails is disabled in this build: the CUDA "
                   "runtime cannot start under a data-segment limit")
  endif()
endif()
# A file-size limit (`ulimit -f`) reached while results are written, as a full disk: exit status 3,
# the files whole with every result written before, no temporary file.
tilemm_reliability_test(file_size_limit ${Python3_EXECUTABLE} ${RELIABILITY}/file_size_limit.py
  ${TILEMM} ${SPECS}/small.yaml ${TILEMM_HOST_BACKEND})
# Extents whose byte count passes 2^64: never a crash, exit status 3.
tilemm_reliability_test(bytes_overflow ${CASE} --exit 3 --stderr-has "needs more than 2^64 bytes"
  --stderr-has "are available" --stderr-lacks "[1/1]" --stdout-empty --
  ${TILEMM} ${RELIABILITY_SPECS}/bytes_overflow.yaml)

# --- Inputs found by the fuzzers (tests/fuzz), as the CLI reports them: exit status 2.
tilemm_reliability_test(npy_size_wraps ${CASE} --exit 2 --stderr-has "key 'a'"
  --stderr-has "promises more than 2^64 bytes" --stdout-empty --
  ${TILEMM} ${RELIABILITY_SPECS}/npy_size_wraps.yaml)
tilemm_reliability_test(sweep_too_large ${CASE} --exit 2 --stderr-has "problem 'sweep' (#1)"
  --stderr-has "more than 100000 results" --stdout-empty --
  ${TILEMM} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/spec/regression-sweep-explosion.yaml)

# --- Unwritable outputs, refused before anything runs (exit status 2). Root ignores permission
#     bits, so these use paths nobody can write: a file where a folder should be, and /proc.
tilemm_reliability_test(json_under_a_file ${CASE} --exit 2 --stderr-has "small.yaml/r.json"
  --stdout-empty --
  ${TILEMM} ${SPECS}/small.yaml --json ${SPECS}/small.yaml/r.json)
tilemm_reliability_test(json_in_proc ${CASE} --exit 2 --stderr-has "/proc/tilemm-r.json"
  --stdout-empty --
  ${TILEMM} ${SPECS}/small.yaml --json /proc/tilemm-r.json)
tilemm_reliability_test(csv_is_a_folder ${CASE} --exit 2 --stderr-has "it is a folder"
  --stdout-empty --
  ${TILEMM} ${SPECS}/small.yaml --csv ${CMAKE_CURRENT_BINARY_DIR})
tilemm_reliability_test(c_out_under_a_file ${CASE} --exit 2 --stderr-has "key 'c_out'"
  --stderr-has "long_sweep.yaml/naive.npy" --stdout-empty --
  ${TILEMM} ${RELIABILITY_SPECS}/c_out_under_a_file.yaml)
tilemm_reliability_test(c_out_in_proc ${CASE} --exit 2 --stderr-has "key 'c_out'"
  --stderr-has "/proc/naive.npy" --stdout-empty --
  ${TILEMM} ${RELIABILITY_SPECS}/c_out_in_proc.yaml)
