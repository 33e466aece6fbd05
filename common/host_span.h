// Host memory a variant's own code reads or writes: a host round trip names its inputs and its
// output with these (RunContext::run_round_trip). Host-only.
#pragma once
#include <cstddef>

namespace cudalabs {

struct HostSpan {
    const void* ptr = nullptr;
    size_t bytes = 0;
};

// What watches a call while it runs, and says what it found when destroyed
// (RunHooks::round_trip_started, run_hooks.h).
struct CallWatch {
    virtual ~CallWatch() = default;
};

}  // namespace cudalabs
