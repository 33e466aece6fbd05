// What a program says on stderr when its CPU read sealed host memory (grading/harness/host_seal.h)
// and was stopped for it: the grader looks for this line in a run that SIGSEGV ended, to say why
// in the feedback. (A program can print it itself, but only to mislabel its own crash.)
//
// And how a case fault begins when the harness could not seal at all (mprotect refused): the
// grader counts that as unclear (runs/failures.cpp), never at once as the program's. It is made
// again, and when it persists the trusted reference decides: its harness proves at start that
// sealing works in the same sandbox. (A program can write the text itself, but only to be run
// again and then judged as it is.)
#pragma once

namespace cudalabs {

constexpr char kSealedReadMessage[] =
    "the CPU read host memory that only the GPU may read while this call runs (its inputs, or the "
    "lab's expected results): copy the inputs to the device with cudaMemcpy and compute on the GPU";

constexpr char kSealFailedMessage[] = "the grading harness could not seal host memory";

}  // namespace cudalabs
