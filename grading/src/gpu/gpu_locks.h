// Each GPU of the machine behind locks every grading run on it shares (util/locks.h): taken
// exclusively for a timed test (or a whole submission, with one lane a GPU) and shared for untimed
// tests (gpu_turns.h), so that timings stay fair machine-wide and a GPU in exclusive-process mode
// (one lane) is never asked for two contexts at once. Host-only: unit-tested.
#pragma once
#include <chrono>
#include <functional>
#include <string>

#include "util/locks.h"

namespace grading {

// How long a GPU's door may stay shut before a taker says another grading run holds the GPU.
constexpr std::chrono::milliseconds kDoorQuietWait{500};

// The kinds of turn on a GPU (gpu_turns.h). Alone: no other turn (every other process on the GPU
// has ended). Shared: beside other shared turns. Ticketed: shared, holding the GPU's one ticket --
// the right, from before a timed process starts to after it has ended, to make the turn alone in
// place (make_gpu_lock_exclusive) once the process is ready to time. Every turn alone holds the
// ticket as well, so a timed process is never alive beside another's timed repetitions.
enum class TurnKind { Shared, Alone, Ticketed };

// What a turn holds machine-wide: the GPU's lock (shared, or exclusive alone) and its ticket's.
struct TurnLocks {
    HeldLock gpu, ticket;
    void release() {
        gpu.release();
        ticket.release();
    }
};

// Waits for the locks of the GPU named `gpu` (its UUID, or any stable name) that a turn of `kind`
// holds, calling `on_wait` once first when another run holds them; throws when a lock file cannot
// be opened. Ticketed and Alone take the GPU's ticket (exclusive) first; then every kind takes the
// GPU's lock: exclusive alone, shared (flock LOCK_SH) otherwise, beside other shared holders --
// the untimed runs of several submissions at once -- and never beside an exclusive one.
// Each lock has a door, passed one taker at a time and held until the lock is taken, so that a
// taker of the exclusive lock is not kept out for ever by shared holders that keep overlapping:
// shared takers that come after it wait behind it. A door shut for less than kDoorQuietWait
// (another taker passing it, often a lane of the same run) is not another run's hold: `on_wait`
// is not called for it.
// This is the only way to the GPU's lock, so every exclusive holder of it, and every taker
// waiting at its door for it exclusive, holds the ticket: a ticketed turn made exclusive in place
// (it waits at the door while it still shares the GPU) meets at the door only shared takers, who
// wait for no one but a holder of the ticket, itself. No two grading runs can hold each other up.
TurnLocks lock_gpu(const std::string& gpu, const std::string& folder, TurnKind kind, const std::function<void()>& on_wait = {});

// A ticketed turn's shared lock of the GPU `gpu` made exclusive, through the door like any taker:
// waits until no one else shares it. Not atomic (flock may drop the lock and take it again in
// between): the ticket keeps every other exclusive taker out meanwhile. Does nothing for a lock
// not held; throws std::logic_error where the ticket is not held.
void make_gpu_lock_exclusive(TurnLocks& locks, const std::string& gpu, const std::string& folder);

}  // namespace grading
