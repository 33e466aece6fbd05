#include "student_source.h"

#ifndef STUDENT_SOURCE_PATH
#define STUDENT_SOURCE_PATH ""
#endif
#ifndef STUDENT_SOURCE_DISPLAY
#define STUDENT_SOURCE_DISPLAY "the lab's .cu file"
#endif

namespace cudalabs {
const char* const kStudentSourcePath = STUDENT_SOURCE_PATH;
const char* const kStudentSourceDisplay = STUDENT_SOURCE_DISPLAY;
}  // namespace cudalabs
