// The gate of a timed run: run_program (runs.h) passes it to the program and opens it; the
// performance test (judge/test_kinds.cpp) takes the GPU alone and reads the clocks when it opens.
// Host-only.
#pragma once
#include <functional>

namespace grading {

// How a timed run takes the GPU alone for its repetitions only (--timing-gate): it starts, makes
// its inputs and checks its first result while the GPU is shared, says TIMING_READY, and waits
// for the grader's go. `open` (called on the channel's reader thread; the time it takes is not
// counted against the run's limit) returns once the GPU is alone; it stays alone until the process
// has ended. After the run, `opened` says whether every timed repetition of it began after the
// go, `timed_out` whether it timed out.
struct TimingGate {
    std::function<void()> open;
    bool opened = false;
    bool timed_out = false;
};

// A timed process, given the gate its run takes the GPU alone through (nullptr: the GPU is alone
// from the process's start).
using GatedRun = std::function<void(TimingGate* gate)>;

}  // namespace grading
