// Where the student's file of this program is (set by the Makefile for each program), so that a
// failing variant can point at the TODO behind it.
#pragma once

namespace cudalabs {
extern const char* const kStudentSourcePath;     // absolute, for reading
extern const char* const kStudentSourceDisplay;  // relative to the repository, for messages
}  // namespace cudalabs
