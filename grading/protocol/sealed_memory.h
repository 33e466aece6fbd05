// What a program says on stderr when its CPU read sealed host memory (grading/harness/host_seal.h)
// and was stopped for it: the grader looks for this line in a run that SIGSEGV ended, to say why
// in the feedback. (A program can print it itself, but only to mislabel its own crash.)
#pragma once

namespace cudalabs {

constexpr char kSealedReadMessage[] =
    "the CPU read host memory that only the GPU may read while this call runs (its inputs, or the "
    "lab's expected results): copy the inputs to the device with cudaMemcpy and compute on the GPU";

}  // namespace cudalabs
