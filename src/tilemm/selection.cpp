#include "tilemm/selection.hpp"

#include <algorithm>
#include <set>

#include "tilemm/errors.hpp"
#include "tilemm/kernel_names.hpp"
#include "tilemm/spec_yaml.hpp"

namespace tilemm {
namespace {

bool kept(const std::vector<std::string>& list, const std::string& value) {
  return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

/// Refuses a value of `option` that is not among `present` (the values the specs have), naming
/// them; a kernel name that is no kernel also gets the kernels' names.
void check_present(const std::string& option, const std::vector<std::string>& values,
                   const std::set<std::string>& present) {
  const std::vector<std::string> have(present.begin(), present.end());
  for (const auto& value : values) {
    if (present.count(value)) continue;
    const auto& kernels = kernel_names();
    if (option == "--kernels" &&
        std::find(kernels.begin(), kernels.end(), value) == kernels.end()) {
      throw InputError(option + ": '" + value + "' is no kernel" + suggestion(value, kernels) +
                       "; the kernels: " + join(kernels) + " (tilemm --list-kernels)");
    }
    throw InputError(option + ": no problem of the specs has '" + value + "'" +
                     suggestion(value, have) + "; they have: " + join(have));
  }
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> Selection::given() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> lists;
  for (const auto& [option, values] :
       {std::pair{"--problems", &problems}, std::pair{"--kernels", &kernels},
        std::pair{"--precisions", &precisions}, std::pair{"--layouts", &layouts}}) {
    if (!values->empty()) lists.emplace_back(option, *values);
  }
  return lists;
}

std::vector<Problem> select(std::vector<Problem> problems, const Selection& selection) {
  std::set<std::string> names, kernels, precisions, layouts;
  for (const Problem& p : problems) {
    names.insert(p.origin.name);
    for (const auto& run : p.runs) kernels.insert(run.kernel);
    precisions.insert(to_string(p.precision));
    layouts.insert(to_string(p.layout));
  }
  check_present("--problems", selection.problems, names);
  check_present("--kernels", selection.kernels, kernels);
  check_present("--precisions", selection.precisions, precisions);
  check_present("--layouts", selection.layouts, layouts);

  std::vector<Problem> left;
  for (Problem& p : problems) {
    if (!kept(selection.problems, p.origin.name) ||
        !kept(selection.precisions, to_string(p.precision)) ||
        !kept(selection.layouts, to_string(p.layout))) {
      continue;
    }
    std::vector<KernelRun> runs;
    for (auto& run : p.runs) {
      if (kept(selection.kernels, run.kernel)) runs.push_back(std::move(run));
    }
    p.runs = std::move(runs);
    if (!p.runs.empty()) left.push_back(std::move(p));
  }
  if (left.empty()) {
    std::string options;
    for (const auto& [option, values] : selection.given()) {
      options += (options.empty() ? "" : ", ") + option + " " + join(values, ",");
    }
    throw InputError(options + ": no problem of the specs has all of these at once");
  }
  return left;
}

}  // namespace tilemm
