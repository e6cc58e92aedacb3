// What the CLI lists for a user who does not know the names yet: the kernels (--list-kernels) and
// the shipped specs (--list-specs), found beside an installed tilemm (PREFIX/share/tilemm/inputs)
// or in the checkout it was built from; and the hints that point at them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tilemm::cli {

/// The folder of the shipped specs: the installed one beside this executable, else the checkout's
/// `inputs/`; "" when neither is there.
std::string shipped_specs_folder();

/// Each kernel with what it is.
void list_kernels(std::ostream& out);

/// Each shipped spec with its `description:`. Returns false when there is no folder of them.
bool list_specs(std::ostream& out);

/// The hint of an error about the spec files: where the shipped specs are and how to list them.
std::string specs_hint();

/// Refuses (InputError) a spec file that does not exist, with specs_hint(), or the shipped spec of
/// that name where there is one.
void check_specs_exist(const std::vector<std::string>& specs);

}  // namespace tilemm::cli
