// The headroom under a cgroup's memory limit, read from made-up /proc/self and cgroup folders laid
// out as cgroup v1 and v2 lay them out, and the room the plan leaves a problem under each limit.
// (A real cgroup, and the refusal it leads to, is tested by reliability.cgroup_limit.)
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "temp_dir.hpp"
#include "tilemm/runner.hpp"
#include "tilemm/system_info.hpp"

namespace tilemm::test {
namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;

/// A made-up machine: `proc` stands for /proc/self; mount points lie below `root` (the prefix).
class FakeCgroups {
 public:
  FakeCgroups() { std::filesystem::create_directories(dir_.path("proc")); }

  std::string proc() const { return dir_.path("proc"); }
  std::string root() const { return dir_.path("root"); }

  void self(const std::string& cgroup, const std::string& mountinfo) const {
    dir_.write("proc/cgroup", cgroup);
    dir_.write("proc/mountinfo", mountinfo);
  }

  /// The files of one cgroup folder (`path` from the machine's root, e.g. "/sys/fs/cgroup/job").
  void cgroup(const std::string& path, const std::string& limit_file, const std::string& limit,
              const std::string& usage_file, std::size_t usage, const std::string& stat) const {
    const std::string folder = "root" + path;
    std::filesystem::create_directories(dir_.path(folder));
    if (!limit_file.empty()) dir_.write(folder + "/" + limit_file, limit + "\n");
    if (!usage_file.empty()) dir_.write(folder + "/" + usage_file, std::to_string(usage) + "\n");
    if (!stat.empty()) dir_.write(folder + "/memory.stat", stat);
  }

  void v2(const std::string& path, const std::string& max, std::size_t current,
          std::size_t inactive_file = 0, std::size_t active_file = 0) const {
    cgroup(path, "memory.max", max, "memory.current", current,
           "anon 1\nfile 2\nactive_file " + std::to_string(active_file) + "\ninactive_file " +
               std::to_string(inactive_file) + "\nshmem 5\n");
  }

  void v1(const std::string& path, const std::string& limit, std::size_t usage,
          std::size_t total_inactive_file = 0, const std::string& more_stat = "") const {
    // v1's own-cgroup fields are not the ones to use: the cgroups below count too.
    cgroup(path, "memory.limit_in_bytes", limit, "memory.usage_in_bytes", usage,
           "inactive_file 999999999\nactive_file 999999999\ntotal_inactive_file " +
               std::to_string(total_inactive_file) + "\n" + more_stat);
  }

  std::optional<std::size_t> headroom() const {
    return system_info::cgroup_memory_headroom(proc(), root());
  }

 private:
  TempDir dir_;
};

const std::string kV2Mount = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n";
const std::string kV1Mounts =
    "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(CgroupMemory, V2LimitOfTheJobAboveTheStep) {
  // Slurm's layout: the job's cgroup holds the limit, the step's and the task's hold none.
  FakeCgroups m;
  m.self("0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n", kV2Mount);
  m.v2("/sys/fs/cgroup/system.slice", "max", 900 * kMiB);
  m.v2("/sys/fs/cgroup/system.slice/slurmstepd.scope", "max", 800 * kMiB);
  m.v2("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_7", "4294967296", 1000 * kMiB, 200 * kMiB);
  m.v2("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/step_0", "max", 700 * kMiB);
  m.v2("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/step_0/user", "max", 600 * kMiB);
  m.v2("/sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/step_0/user/task_0", "max", 500 * kMiB);
  // 4 GiB less the working set: 1000 MiB charged, 200 MiB of it inactive file cache.
  EXPECT_EQ(m.headroom(), 4096 * kMiB - 800 * kMiB);
}

TEST(CgroupMemory, V2TightestLevelWins) {
  FakeCgroups m;
  m.self("0::/outer/inner\n", kV2Mount);
  m.v2("/sys/fs/cgroup/outer", std::to_string(2048 * kMiB), 1900 * kMiB);
  m.v2("/sys/fs/cgroup/outer/inner", std::to_string(1024 * kMiB), 100 * kMiB);
  EXPECT_EQ(m.headroom(), 148 * kMiB);
}

TEST(CgroupMemory, V2NoLimitAnywhere) {
  FakeCgroups m;
  m.self("0::/user.slice/session-1.scope\n", kV2Mount);
  m.v2("/sys/fs/cgroup/user.slice", "max", 100 * kMiB);
  m.v2("/sys/fs/cgroup/user.slice/session-1.scope", "max", 10 * kMiB);
  EXPECT_FALSE(m.headroom().has_value());
}

TEST(CgroupMemory, V2UsageOverTheLimitLeavesNothing) {
  FakeCgroups m;
  m.self("0::/job\n", kV2Mount);
  m.v2("/sys/fs/cgroup/job", std::to_string(64 * kMiB), 70 * kMiB);
  EXPECT_EQ(m.headroom(), 0u);
}

TEST(CgroupMemory, V1MemoryControllerInAHybridLayout) {
  // cgroup v1's memory controller beside a v2 hierarchy without one: the v1 limit counts.
  FakeCgroups m;
  m.self("9:name=systemd:/\n4:memory:/batch/job_3\n1:cpu:/\n0::/\n", kV1Mounts);
  m.v1("/sys/fs/cgroup/memory", "9223372036854771712", 5000 * kMiB);  // "no limit"
  m.v1("/sys/fs/cgroup/memory/batch", "9223372036854771712", 300 * kMiB);
  m.v1("/sys/fs/cgroup/memory/batch/job_3", std::to_string(512 * kMiB), 300 * kMiB, 100 * kMiB);
  EXPECT_EQ(m.headroom(), 312 * kMiB);
}

TEST(CgroupMemory, V1MountShowingOnlyTheProcessCgroup) {
  // A container's view: the mount's root is the process's own cgroup, mounted at the point.
  FakeCgroups m;
  m.self("4:memory:/docker/abc\n",
         "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n");
  m.v1("/sys/fs/cgroup/memory", std::to_string(256 * kMiB), 56 * kMiB);
  EXPECT_EQ(m.headroom(), 200 * kMiB);
}

TEST(CgroupMemory, MountPointWithASpace) {
  FakeCgroups m;
  m.self("0::/job\n", "30 23 0:26 / /cgroup\\040fs rw - cgroup2 cgroup2 rw\n");
  m.v2("/cgroup fs/job", std::to_string(100 * kMiB), 40 * kMiB);
  EXPECT_EQ(m.headroom(), 60 * kMiB);
}

TEST(CgroupMemory, NothingToRead) {
  FakeCgroups m;
  m.self("0::/job\n", "25 1 8:1 / / rw - ext4 /dev/sda1 rw\n");  // no cgroup mounted
  EXPECT_FALSE(m.headroom().has_value());
  m.self("0::/job\n", kV2Mount);  // mounted, but the folder lacks the memory files
  std::filesystem::create_directories(m.root() + "/sys/fs/cgroup/job");
  EXPECT_FALSE(m.headroom().has_value());
  m.v2("/sys/fs/cgroup/job", "a lot", 1);  // a limit that is not a number
  EXPECT_FALSE(m.headroom().has_value());
  EXPECT_FALSE(system_info::cgroup_memory_headroom(m.proc() + "/missing", m.root()).has_value());
}

TEST(CgroupMemory, V2FileCacheAndMemoryHigh) {
  // Active and inactive file cache are reclaimed before a kill; memory.high holds the run back
  // below memory.max.
  FakeCgroups m;
  m.self("0::/job\n", kV2Mount);
  m.v2("/sys/fs/cgroup/job", std::to_string(1024 * kMiB), 900 * kMiB, 300 * kMiB, 400 * kMiB);
  EXPECT_EQ(m.headroom(), 824 * kMiB);
  m.cgroup("/sys/fs/cgroup/job", "memory.high", std::to_string(512 * kMiB), "", 0, "");
  EXPECT_EQ(m.headroom(), 312 * kMiB);
}

TEST(CgroupMemory, V1NoLimitWithLargePages) {
  // With 64 KiB pages v1 rounds "no limit" down to 9223372036854710272.
  FakeCgroups m;
  m.self("4:memory:/job\n", kV1Mounts);
  m.v1("/sys/fs/cgroup/memory/job", "9223372036854710272", 10 * kMiB);
  EXPECT_FALSE(m.headroom().has_value());
}

TEST(CgroupMemory, V1LimitAboveTheContainersView) {
  // A pod's limit above the container's cgroup, which the container's mount does not show:
  // memory.stat's hierarchical_memory_limit carries it down.
  FakeCgroups m;
  m.self("4:memory:/kubepods/pod1/c1\n",
         "35 31 0:32 /kubepods/pod1/c1 /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n");
  m.v1("/sys/fs/cgroup/memory", "9223372036854771712", 100 * kMiB, 0,
       "hierarchical_memory_limit " + std::to_string(300 * kMiB) + "\n");
  EXPECT_EQ(m.headroom(), 200 * kMiB);
}

TEST(CgroupMemory, PathOutsideTheMountIsNotRead) {
  // The mount shows another cgroup than the process's: its limit is not the process's.
  FakeCgroups m;
  m.self("4:memory:/slurm/job_1\n",
         "35 31 0:32 /docker/xyz /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
  m.v1("/sys/fs/cgroup/memory", std::to_string(10 * kMiB), 0);
  EXPECT_FALSE(m.headroom().has_value());
}

TEST(CgroupMemory, PathClimbingOutOfTheNamespaceIsReadAtTheMountPoint) {
  // A process moved to another cgroup after its namespace was made sees "/../other".
  FakeCgroups m;
  m.self("0::/../other\n", kV2Mount);
  m.v2("/sys/fs/cgroup", std::to_string(512 * kMiB), 12 * kMiB);
  m.v2("/sys/fs/other", std::to_string(1 * kMiB), 0);  // where the path would lead: not read
  EXPECT_EQ(m.headroom(), 500 * kMiB);
}

// The room the plan leaves: each limit less what a run needs beside its matrices there.
TEST(HostMemoryRoom, TightestLimitLessItsReserve) {
  system_info::HostMemory host;
  host.machine = 20000 * kMiB;
  EXPECT_EQ(host_memory_room(host, 8, true).bytes, 20000 * kMiB);
  EXPECT_EQ(host_memory_room(host, 8, true).note, "");

  host.cgroup = 1000 * kMiB;  // less 64 MiB and 4 MiB a thread
  const MemoryRoom cgroup = host_memory_room(host, 8, true);
  EXPECT_EQ(cgroup.bytes, (1000 - 64 - 32) * kMiB);
  EXPECT_NE(cgroup.note.find("cgroup"), std::string::npos);
  EXPECT_NE(cgroup.note.find("less 96 MiB"), std::string::npos);

  host.address_space = 500 * kMiB;  // less OpenBLAS's buffer and page, and 16 MiB
  const MemoryRoom limited = host_memory_room(host, 8, true);
  EXPECT_EQ(limited.bytes, (500 - 128 - 16) * kMiB - 4096);
  EXPECT_NE(limited.note.find("ulimit -v, less 144 MiB"), std::string::npos);
  EXPECT_EQ(host_memory_room(host, 8, false).bytes, 500 * kMiB);  // another BLAS: no reserve
  EXPECT_EQ(host_memory_room(host, 8, false).note, "");

  host.cgroup = 50 * kMiB;  // under the reserve: nothing, and the cgroup named
  EXPECT_EQ(host_memory_room(host, 1, true).bytes, 0u);
  EXPECT_NE(host_memory_room(host, 1, true).note.find("less 68 MiB"), std::string::npos);
}

}  // namespace
}  // namespace tilemm::test
