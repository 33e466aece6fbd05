// Line directives in a submission's own file: "#line 12 \"file\"" and GCC's line markers
// ("# 12 \"file\" 1 3"). They would change the file and line the compiler attributes the code
// after them to, so that the audit of the preprocessed text (audit.h) would take the file's own
// lines for a header's, and the compiler's messages would quote another file's lines. A lab file
// has no use for them: a file that has one is refused before it is compiled.
//
// The file is read the way the preprocessor reads it (translation phases 1 to 3): CR LF and lone
// CR line ends, backslash-newline splices (with blanks before the newline, as GCC allows), block
// and line comments, string and character literals with their prefixes and user-defined
// suffixes, raw strings (whose splices the compiler undoes), digit separators, digraphs (%:).
// Where a spelling could be read two ways (trigraphs, which the trusted flags leave off, and
// header names, `#include <a/*b>`), it is read both ways and a directive found either way counts.
// A directive is found wherever it stands, also in a group that #if leaves out, and a '#' after
// a comment that spans lines counts as the first thing on its line. Host-only: unit-tested.
#pragma once
#include <string>
#include <vector>

#include "compile/audit.h"

namespace grading {

// The lines (1-based, physical) where a line directive's '#' (or "%:") stands, in order, once each.
std::vector<int> line_directive_lines(const std::string& source);

// One finding naming the lines, or none.
std::vector<Finding> audit_line_directives(const std::string& source);

}  // namespace grading
