// How the lanes grading on one GPU take turns (grading/grade --per-gpu N): the tests of several
// submissions share the GPU, one per lane, while a timed process (the student's or the
// reference's timed run of a performance test) -- and a run made again because it failed while
// shared -- has the GPU alone, so that timings and verdicts are those of a submission graded
// alone. What is not timed (the verifier judging a timed run's outputs) runs shared.
//
// Two levels: inside the grader a gate per GPU whose ticket, held or waited for, keeps new shared
// turns out (timed tests are never starved by lanes that keep sharing); across the grading runs of the
// machine the GPU's lock file (machine_locks.h), taken shared or exclusive, and its ticket's, so
// every grader obeys the same rule. Host-only: unit-tested with fake runners.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>

#include "gpu/gpu_locks.h"

namespace grading {

// One GPU's gate inside this grader, shared by the lanes that grade on it.
class GpuGate {
public:
    // `lock_name`, `folder`: the GPU's machine-wide locks (lock_gpu, its own and its ticket's); an
    // empty folder takes none (unit tests). `on_wait`: said once when another grading run holds
    // the machine's lock.
    GpuGate(std::string lock_name, std::string folder, std::function<void()> on_wait = {});
    // Waits for a turn: the ticket first for a turn alone or ticketed; alone, no other turn under
    // way; shared, no ticket held or waited for (timed_waiting: the timed processes queued on the
    // GPU go first, one after another, and the runs under way are waited for once, not again for
    // runs started between two of them). First inside the grader, then machine-wide. Returns the
    // machine's locks, held for the turn.
    TurnLocks enter(TurnKind kind);
    void leave(TurnKind kind);
    // A ticketed turn made alone in place: waits until it is the only turn sharing the GPU (the
    // other lanes step out between their runs, make_way), never leaving it meanwhile.
    void upgrade(TurnLocks& locks);
    // What is under way now (for tests and the progress lines).
    size_t sharing() const;
    bool alone() const;
    bool alone_waiting() const;  // a turn waits to be alone
    bool timed_waiting() const;  // the ticket is held or waited for: new shared turns wait
    bool ticket_held() const;

private:
    bool timed_pending() const;  // (m_ held)
    std::string lock_name_, folder_;
    std::function<void()> on_wait_;
    mutable std::mutex m_;
    std::condition_variable changed_;
    size_t shared_ = 0, alone_waiting_ = 0, ticket_waiting_ = 0;
    bool alone_ = false, ticket_ = false;
};

// One lane's turn on a GPU: held until it is destroyed. Moved, never copied.
class GpuTurn {
public:
    GpuTurn() = default;
    GpuTurn(GpuGate& gate, bool alone);
    // A turn of `kind`; a ticketed one is gated until end_gated() (as after take_ticket()).
    GpuTurn(GpuGate& gate, TurnKind kind);
    GpuTurn(GpuTurn&& o) noexcept;
    GpuTurn& operator=(GpuTurn&& o) noexcept;
    GpuTurn(const GpuTurn&) = delete;
    GpuTurn& operator=(const GpuTurn&) = delete;
    ~GpuTurn();
    bool held() const { return gate_ != nullptr; }
    // Whether the GPU is shared with other lanes during this turn.
    bool sharing() const { return gate_ && kind_ != TurnKind::Alone; }
    // Runs `run` with the GPU alone: a shared turn is left, the GPU taken alone for `run`, then
    // shared again. With `keep_alone` the turn stays alone after `run`, for the next timed
    // process, until share_again(): timed processes back to back wait once for the runs of the
    // other lanes.
    void run_alone(const std::function<void()>& run, bool keep_alone = false);
    // A shared turn is left and taken again with the GPU's ticket (for a timed process that will
    // ask for the GPU alone midway), kept -- alone or not -- until end_gated(): share_again()
    // gives neither back meanwhile, so a run made again (a retry) starts with the ticket too.
    void take_ticket();
    void end_gated();
    // The turn made alone and kept so until share_again(): in place for a ticketed turn (its
    // process goes on), else left and taken alone. Nothing changes for a turn alone already.
    void take_alone();
    // A turn kept alone after a timed process is shared again, its ticket given back (else
    // nothing changes: a ticketed turn keeps its ticket until its process has ended); never while
    // a timed process runs in it.
    void share_again();
    // Between two runs of a shared turn: where a timed process waits or runs (the ticket held or
    // waited for), this one steps out and comes back after it, so that a timed process waits for
    // the runs under way, not for whole tests of the other lanes.
    void make_way();
    void release();

private:
    GpuGate* gate_ = nullptr;
    TurnKind kind_ = TurnKind::Shared;
    bool kept_alone_ = false;  // a turn kept alone after a timed process (run_alone, take_alone)
    bool timing_ = false;      // a timed process runs in it
    bool gated_ = false;       // between take_ticket() and end_gated()
    TurnLocks machine_;
};

// The turn one test of a submission takes on its lane's GPU: none where the submission holds a
// turn for all its tests already (`whole`: one lane a GPU, the GPU alone for the submission), else
// the GPU shared. A timed test's (`timed`) holds the GPU's ticket from its start: it waits in the
// queue of timed processes, not behind it with the untimed runs, and takes the GPU alone around
// each timed process (run_timed_alone).
GpuTurn test_turn(GpuGate& gate, const GpuTurn* whole, bool timed = false);

// Runs a timed process with the GPU alone for its timed part. On a shared turn it runs gated,
// holding the GPU's ticket from before the process starts (a performance test's turn holds it
// from the test's start already), so that it is never alive beside another's timed repetitions:
// `gated(take)` starts the process with the GPU shared and calls `take()` when it is ready to
// time (the turn is then alone, in place, and kept so after the process has ended); it returns
// whether the process's timing counts that way (every timed part after `take`). Otherwise -- a
// turn kept alone after the timed process before it, or none -- `whole()` runs the process with
// the GPU alone from its start, kept alone after it (run_alone): timed processes back to back
// wait once for the other lanes' runs.
void run_timed_alone(GpuTurn* turn, const std::function<bool(const std::function<void()>& take)>& gated,
                     const std::function<void()>& whole);

// A run made while the GPU was shared counts as it is only when `counts_shared(result)` (it ended
// cleanly); any other end -- a time-out, a crash, an error, which a busy GPU or its memory taken
// by other lanes could have caused -- is decided by `settled`, run with the GPU alone, as it runs
// when its submission is graded alone. Without a sharing turn, `settled` alone decides.
template <class Result>
Result shared_or_alone(GpuTurn* turn, const std::function<Result()>& once, const std::function<Result()>& settled,
                       const std::function<bool(const Result&)>& counts_shared) {
    if (!turn || !turn->sharing()) return settled();
    Result first = once();
    if (counts_shared(first)) return first;
    Result alone;
    turn->run_alone([&] { alone = settled(); });
    return alone;
}

// How many lanes share one GPU with --per-gpu auto: bounded by the GPU's memory (one lane per
// `gib_per_lane` GiB), its SMs (one per 16), the CPUs (two each, the verifier and the sanitizer
// need them) split among the GPUs, and 8; 1 where the GPU's compute mode lets one process in at a
// time ("Exclusive_Process", "Prohibited") or is unknown ("": nvidia-smi could not say).
size_t auto_lanes_per_gpu(double memory_gib, int sms, unsigned cpus, size_t gpus, const std::string& compute_mode,
                          double gib_per_lane = 10);

}  // namespace grading
