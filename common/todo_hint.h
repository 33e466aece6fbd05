// Points a student at the TODO marker behind a failing variant. Host-only.
#pragma once
#include <string>

namespace cudalabs {

// Reads `source_path` and returns "see TODO(labNN) at <display_path>:<line>" for the first line
// that holds the marker "TODO(labNN)" and mentions `variant` as a word after it; failing that,
// the first marker of the file. Returns "" when the file holds no marker (the student finished the TODOs),
// and "see the TODO(labNN) markers in <display_path>" when the file cannot be read.
std::string todo_hint(const std::string& source_path, const std::string& display_path,
                      const std::string& lab_tag, const std::string& variant);

}  // namespace cudalabs
