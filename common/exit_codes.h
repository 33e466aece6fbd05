// Exit codes shared by every lab program and the tools that run them (the test suite...).
#pragma once

namespace cudalabs {
enum ExitCode : int {
    kExitPass = 0,    // every checked variant passed
    kExitFail = 1,    // a variant failed its check, or a CUDA call failed
    kExitUsage = 2,   // bad command line: nothing was run
    kExitNoGpu = 77,  // no usable CUDA GPU (77 is the "skipped" code of automake-style suites)
};
}  // namespace cudalabs
