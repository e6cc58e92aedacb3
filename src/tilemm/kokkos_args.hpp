// Command lines shared by Kokkos and a tilemm program: Kokkos' flags (--kokkos-*) go to Kokkos, the
// rest to the program's own parser.
#pragma once

#include <string>
#include <vector>

namespace tilemm {

/// Splits argv[1..argc) into the program's arguments (`ours`) and Kokkos' (`kokkos`, which starts
/// with argv[0]). Kokkos before 3.7 spells --kokkos-num-threads as --kokkos-threads: that spelling
/// is translated, so that scripts use one spelling whatever the Kokkos version.
void split_kokkos_arguments(int argc, char** argv, std::vector<std::string>& ours,
                            std::vector<std::string>& kokkos);

}  // namespace tilemm
