// Host memory a variant's own code reads or writes: a call that works on host arrays names its
// inputs and its output with these (RunContext::run_round_trip, run_host_call). Host-only.
#pragma once
#include <cstddef>

namespace cudalabs {

struct HostSpan {
    const void* ptr = nullptr;
    size_t bytes = 0;
    // Bytes from ptr that belong to this memory alone, padding included (a HostArray's whole
    // pages, host_array.h); 0: just `bytes`.
    size_t owned_bytes = 0;
    size_t extent() const { return owned_bytes > bytes ? owned_bytes : bytes; }
};

// What watches a call while it runs, and says what it found when destroyed
// (RunHooks::host_call_started, run_hooks.h).
struct CallWatch {
    virtual ~CallWatch() = default;
};

}  // namespace cudalabs
