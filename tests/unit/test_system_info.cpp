// The headroom under a cgroup's memory limit, read from a made-up /proc/self/cgroup and cgroup
// folders laid out as cgroup v1 and v2 lay them out, and the room the plan leaves a problem under
// each limit; the CPU's caches from a made-up sysfs folder.
// (A real cgroup, and the refusal it leads to, is tested by reliability.cgroup_limit.)
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "temp_dir.hpp"
#include "tilemm/plan.hpp"
#include "tilemm/system_info.hpp"

namespace tilemm::test {
namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;

/// A made-up machine: `self` stands for /proc/self/cgroup, `mount` for /sys/fs/cgroup.
class FakeCgroups {
 public:
  FakeCgroups() { std::filesystem::create_directories(dir_.path("cgroup")); }

  std::string mount() const { return dir_.path("cgroup"); }

  void self(const std::string& cgroup) const { dir_.write("self", cgroup); }

  /// The files of one cgroup folder (`path` below the mount, e.g. "/job").
  void cgroup(const std::string& path, const std::string& limit_file, const std::string& limit,
              const std::string& usage_file, std::size_t usage, const std::string& stat) const {
    const std::string folder = "cgroup" + path;
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
          std::size_t total_inactive_file = 0) const {
    // v1's own-cgroup fields are not the ones to use: the cgroups below count too.
    cgroup("/memory" + path, "memory.limit_in_bytes", limit, "memory.usage_in_bytes", usage,
           "inactive_file 999999999\nactive_file 999999999\ntotal_inactive_file " +
               std::to_string(total_inactive_file) + "\n");
  }

  std::optional<std::size_t> headroom() const {
    return system_info::cgroup_memory_headroom(dir_.path("self"), mount());
  }

 private:
  TempDir dir_;
};

TEST(CgroupMemory, V2LimitOfTheJobAboveTheStep) {
  // Slurm's layout: the job's cgroup holds the limit, the task's holds none.
  FakeCgroups m;
  m.self("0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n");
  m.v2("/system.slice", "max", 900 * kMiB);
  m.v2("/system.slice/slurmstepd.scope", "max", 800 * kMiB);
  m.v2("/system.slice/slurmstepd.scope/job_7", "4294967296", 1000 * kMiB, 200 * kMiB);
  m.v2("/system.slice/slurmstepd.scope/job_7/step_0", "max", 700 * kMiB);
  m.v2("/system.slice/slurmstepd.scope/job_7/step_0/user", "max", 600 * kMiB);
  m.v2("/system.slice/slurmstepd.scope/job_7/step_0/user/task_0", "max", 500 * kMiB);
  // 4 GiB less the working set: 1000 MiB charged, 200 MiB of it inactive file cache.
  EXPECT_EQ(m.headroom(), 4096 * kMiB - 800 * kMiB);
}

TEST(CgroupMemory, V2TightestLevelWins) {
  FakeCgroups m;
  m.self("0::/outer/inner\n");
  m.v2("/outer", std::to_string(2048 * kMiB), 1900 * kMiB);
  m.v2("/outer/inner", std::to_string(1024 * kMiB), 100 * kMiB);
  EXPECT_EQ(m.headroom(), 148 * kMiB);
}

TEST(CgroupMemory, V2NoLimitAnywhere) {
  FakeCgroups m;
  m.self("0::/user.slice/session-1.scope\n");
  m.v2("/user.slice", "max", 100 * kMiB);
  m.v2("/user.slice/session-1.scope", "max", 10 * kMiB);
  EXPECT_FALSE(m.headroom().has_value());
}

TEST(CgroupMemory, V2UsageOverTheLimitLeavesNothing) {
  FakeCgroups m;
  m.self("0::/job\n");
  m.v2("/job", std::to_string(64 * kMiB), 70 * kMiB);
  EXPECT_EQ(m.headroom(), 0u);
}

TEST(CgroupMemory, V2FileCacheAndMemoryHigh) {
  // Active and inactive file cache are reclaimed before a kill; memory.high holds the run back
  // below memory.max.
  FakeCgroups m;
  m.self("0::/job\n");
  m.v2("/job", std::to_string(1024 * kMiB), 900 * kMiB, 300 * kMiB, 400 * kMiB);
  EXPECT_EQ(m.headroom(), 824 * kMiB);
  m.cgroup("/job", "memory.high", std::to_string(512 * kMiB), "", 0, "");
  EXPECT_EQ(m.headroom(), 312 * kMiB);
}

TEST(CgroupMemory, V1MemoryControllerInAHybridLayout) {
  // cgroup v1's memory controller beside a v2 hierarchy without one: the v1 limit counts.
  FakeCgroups m;
  m.self("9:name=systemd:/\n4:memory:/batch/job_3\n1:cpu:/\n0::/\n");
  m.v1("", "9223372036854771712", 5000 * kMiB);  // "no limit"
  m.v1("/batch", "9223372036854771712", 300 * kMiB);
  m.v1("/batch/job_3", std::to_string(512 * kMiB), 300 * kMiB, 100 * kMiB);
  EXPECT_EQ(m.headroom(), 312 * kMiB);
}

TEST(CgroupMemory, V1ContainerViewIsReadAtTheMountPoint) {
  // A container without a cgroup namespace: /proc/self/cgroup names the cgroup as the host sees
  // it, and the container's mount shows that cgroup at its mount point.
  FakeCgroups m;
  m.self("4:memory:/docker/abc\n");
  m.v1("", std::to_string(256 * kMiB), 56 * kMiB);
  EXPECT_EQ(m.headroom(), 200 * kMiB);
}

TEST(CgroupMemory, V1NoLimitWithLargePages) {
  // With 64 KiB pages v1 rounds "no limit" down to 9223372036854710272.
  FakeCgroups m;
  m.self("4:memory:/job\n");
  m.v1("/job", "9223372036854710272", 10 * kMiB);
  EXPECT_FALSE(m.headroom().has_value());
}

TEST(CgroupMemory, PathClimbingOutOfTheNamespaceIsReadAtTheMountPoint) {
  // A process moved to another cgroup after its namespace was made sees "/../other".
  FakeCgroups m;
  m.self("0::/../other\n");
  m.v2("", std::to_string(512 * kMiB), 12 * kMiB);
  m.v2("/../other", std::to_string(1 * kMiB), 0);  // where the path would lead: not read
  EXPECT_EQ(m.headroom(), 500 * kMiB);
}

TEST(CgroupMemory, NothingToRead) {
  FakeCgroups m;
  m.self("");  // no cgroup named
  EXPECT_FALSE(m.headroom().has_value());
  m.self("0::/job\n");  // named, but the folder lacks the memory files
  std::filesystem::create_directories(m.mount() + "/job");
  EXPECT_FALSE(m.headroom().has_value());
  m.v2("/job", "a lot", 1);  // a limit that is not a number
  EXPECT_FALSE(m.headroom().has_value());
  EXPECT_FALSE(system_info::cgroup_memory_headroom(m.mount() + "/missing", m.mount()).has_value());
}

// The room the plan leaves: each limit less what a run needs beside its matrices there.
TEST(HostMemoryRoom, TightestLimitLessItsReserve) {
  system_info::HostMemory host;
  host.machine = 20000 * kMiB;
  EXPECT_EQ(host_memory_room(host, 8, 1).bytes, 20000 * kMiB);
  EXPECT_EQ(host_memory_room(host, 8, 1).note, "");

  host.cgroup = 1000 * kMiB;  // less 64 MiB and 4 MiB a thread
  const MemoryRoom cgroup = host_memory_room(host, 8, 1);
  EXPECT_EQ(cgroup.bytes, (1000 - 64 - 32) * kMiB);
  EXPECT_NE(cgroup.note.find("cgroup"), std::string::npos);
  EXPECT_NE(cgroup.note.find("less 96 MiB"), std::string::npos);

  host.address_space = 500 * kMiB;  // less OpenBLAS's buffer and page, and 16 MiB
  const MemoryRoom limited = host_memory_room(host, 8, 1);
  EXPECT_EQ(limited.bytes, (500 - 128 - 16) * kMiB - 4096);
  EXPECT_NE(limited.note.find("ulimit -v or -d, less 144 MiB"), std::string::npos);
  EXPECT_EQ(host_memory_room(host, 8, 0).bytes, 500 * kMiB);  // another BLAS: no reserve
  EXPECT_EQ(host_memory_room(host, 8, 0).note, "");
  host.address_space = 1500 * kMiB;  // an OpenMP OpenBLAS going from 2 threads to 8: 7 buffers
  EXPECT_EQ(host_memory_room(host, 8, 7).bytes, (1500 - 7 * 128 - 16) * kMiB - 7 * 4096);
  EXPECT_NE(host_memory_room(host, 8, 7).note.find("less 912 MiB kept free for the 7 buffers"),
            std::string::npos);
  host.address_space = 500 * kMiB;

  host.cgroup = 50 * kMiB;  // under the reserve: nothing, and the cgroup named
  EXPECT_EQ(host_memory_room(host, 1, 1).bytes, 0u);
  EXPECT_NE(host_memory_room(host, 1, 1).note.find("less 68 MiB"), std::string::npos);
}

// The caches as Linux's sysfs lists them for the lent machines' Xeon (an instruction cache and a
// data cache at level 1, unified L2 and L3); a folder without them reports nothing; the text the
// context records says what is unreported.
TEST(CpuCaches, ReadFromSysfs) {
  TempDir dir;
  const auto index = [&](int i, const char* level, const char* type, const char* size,
                         const char* ways) {
    const std::string folder = "cache/index" + std::to_string(i);
    std::filesystem::create_directories(dir.path(folder));
    dir.write(folder + "/level", std::string(level) + "\n");
    dir.write(folder + "/type", std::string(type) + "\n");
    dir.write(folder + "/size", std::string(size) + "\n");
    dir.write(folder + "/ways_of_associativity", std::string(ways) + "\n");
    dir.write(folder + "/coherency_line_size", "64\n");
  };
  index(0, "1", "Data", "48K", "12");
  index(1, "1", "Instruction", "32K", "8");
  index(2, "2", "Unified", "2048K", "16");
  index(3, "3", "Unified", "307200K", "20");
  const CpuCaches c = system_info::sysfs_caches(dir.path("cache"));
  EXPECT_EQ(c.l1d, 48 * 1024);
  EXPECT_EQ(c.l1d_ways, 12);
  EXPECT_EQ(c.l2, 2048 * 1024);
  EXPECT_EQ(c.l2_ways, 16);
  EXPECT_EQ(c.l3, std::int64_t(307200) * 1024);
  EXPECT_EQ(c.l3_ways, 20);
  EXPECT_EQ(c.line, 64);
  EXPECT_EQ(system_info::caches_text(c),
            "L1d 49152 B 12-way, L2 2097152 B 16-way, L3 314572800 B 20-way, 64-byte lines");
  const CpuCaches none = system_info::sysfs_caches(dir.path("missing"));
  EXPECT_EQ(none.l1d, 0);
  EXPECT_EQ(system_info::caches_text(none),
            "L1d unreported, L2 unreported, L3 unreported, line unreported");
}

}  // namespace
}  // namespace tilemm::test
