// Results out: a table on stdout, and JSON and CSV files with one row per kernel result (the same
// columns in both) plus the run's context. Each file grows by one write per result and is whole
// after each (atomic_file.hpp), so that a job killed mid-sweep keeps every result it finished, in a
// valid file, and a row costs the same however many came before it.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilemm/atomic_file.hpp"
#include "tilemm/context.hpp"
#include "tilemm/result.hpp"

namespace tilemm {

/// The columns of a result row, in order: the contract that users' scripts read.
const std::vector<std::string>& result_columns();

/// A launch as the table and tilemm-bench's labels show it: the tile, then a split K after it
/// ("64x128x8/8x8 k/16", and "k/16 on 4" when only the last 4 tiles are split); "" without a tile.
std::string launch_text(const LaunchConfig& launch, const Problem& p);

/// A result's row and the run's context as JSON. Text that is not UTF-8 (an environment variable's
/// value, the host name: bytes tilemm does not choose) is kept with each byte that is not part of a
/// UTF-8 character written as \xNN (four characters), since JSON holds UTF-8 only.
nlohmann::ordered_json result_row(const Result& r, const RunContext& context);
nlohmann::ordered_json context_json(const RunContext& context);

class ResultsFile {
 public:
  enum class Format { Json, Csv };

  /// Writes the file at once (no rows; the JSON's status "running") and holds its lock until
  /// destroyed: throws FileInUse when another run holds it. The path "-" is standard output: the
  /// document is kept in memory and written there whole by finish(), since a stream cannot be
  /// rewritten in place.
  ResultsFile(const std::string& path, Format format, const RunContext& context);

  void add(const Result& r);
  /// The JSON's status: "complete", "interrupted" or "failed: <why>" (the CSV has none).
  void finish(const std::string& status);

 private:
  Format format_;
  const RunContext& context_;
  std::unique_ptr<GrowingFile> file_;  // null for standard output
  std::string text_;                   // for standard output: the document so far, without its tail
  bool has_rows_ = false;
};

/// The human-readable table: one line per result, printed as results arrive; under MPI with the
/// ranks and grid.
class Table {
 public:
  explicit Table(std::ostream& out) : out_(out) {}
  void row(const Result& r);

 private:
  std::ostream& out_;
  bool header_printed_ = false;
  bool ranks_ = false;  // whether the table has the ranks and grid of an MPI run
};

}  // namespace tilemm
