#include "gpu/gpu_turns.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace grading {

GpuGate::GpuGate(std::string lock_name, std::string folder, std::function<void()> on_wait)
    : lock_name_(std::move(lock_name)), folder_(std::move(folder)), on_wait_(std::move(on_wait)) {}

TurnLocks GpuGate::enter(TurnKind kind) {
    {
        std::unique_lock<std::mutex> lock(m_);
        if (kind != TurnKind::Shared) {
            ++ticket_waiting_;
            changed_.wait(lock, [&] { return !ticket_; });
            --ticket_waiting_;
            ticket_ = true;
        }
        if (kind == TurnKind::Alone) {
            ++alone_waiting_;
            changed_.wait(lock, [&] { return !alone_ && shared_ == 0; });
            --alone_waiting_;
            alone_ = true;
        } else if (kind == TurnKind::Ticketed) {
            ++shared_;  // (no turn is alone: it would hold the ticket)
        } else {
            // Timed processes go first, one after another: shared turns would otherwise keep
            // them out, and each would wait afresh for the runs started since the last.
            changed_.wait(lock, [&] { return !timed_pending(); });
            ++shared_;
        }
    }
    TurnLocks locks;
    if (folder_.empty()) return locks;
    try {
        locks = lock_gpu(lock_name_, folder_, kind, on_wait_);  // the ticket's lock first, then the GPU's
    } catch (...) {
        leave(kind);
        throw;
    }
    return locks;
}

void GpuGate::leave(TurnKind kind) {
    std::lock_guard<std::mutex> lock(m_);
    if (kind == TurnKind::Alone) alone_ = false;
    else --shared_;
    if (kind != TurnKind::Shared) ticket_ = false;
    changed_.notify_all();
}

void GpuGate::upgrade(TurnLocks& locks) {
    {
        std::unique_lock<std::mutex> lock(m_);
        ++alone_waiting_;
        changed_.wait(lock, [&] { return shared_ == 1; });  // only this turn shares it now
        --alone_waiting_;
        shared_ = 0;
        alone_ = true;
    }
    make_gpu_lock_exclusive(locks, lock_name_, folder_);
}

size_t GpuGate::sharing() const {
    std::lock_guard<std::mutex> lock(m_);
    return shared_;
}

bool GpuGate::alone() const {
    std::lock_guard<std::mutex> lock(m_);
    return alone_;
}

bool GpuGate::alone_waiting() const {
    std::lock_guard<std::mutex> lock(m_);
    return alone_waiting_ > 0;
}

bool GpuGate::timed_waiting() const {
    std::lock_guard<std::mutex> lock(m_);
    return timed_pending();
}

bool GpuGate::timed_pending() const { return ticket_ || ticket_waiting_ > 0; }

bool GpuGate::ticket_held() const {
    std::lock_guard<std::mutex> lock(m_);
    return ticket_;
}

GpuTurn::GpuTurn(GpuGate& gate, bool alone) : GpuTurn(gate, alone ? TurnKind::Alone : TurnKind::Shared) {}

GpuTurn::GpuTurn(GpuGate& gate, TurnKind kind) : kind_(kind), gated_(kind == TurnKind::Ticketed) {
    machine_ = gate.enter(kind_);
    gate_ = &gate;
}

GpuTurn::GpuTurn(GpuTurn&& o) noexcept : gate_(o.gate_), kind_(o.kind_), kept_alone_(o.kept_alone_), machine_(std::move(o.machine_)) {
    o.gate_ = nullptr;
    o.kept_alone_ = false;
}

GpuTurn& GpuTurn::operator=(GpuTurn&& o) noexcept {
    if (this != &o) {
        release();
        gate_ = o.gate_;
        kind_ = o.kind_;
        kept_alone_ = o.kept_alone_;
        machine_ = std::move(o.machine_);
        o.gate_ = nullptr;
        o.kept_alone_ = false;
    }
    return *this;
}

GpuTurn::~GpuTurn() { release(); }

void GpuTurn::release() {
    if (!gate_) return;
    machine_.release();  // the machine's locks first: the next turn inside the grader takes them at once
    gate_->leave(kind_);
    gate_ = nullptr;
    kind_ = TurnKind::Shared;
    kept_alone_ = false;
    gated_ = false;  // (its ticket is given back)
}

void GpuTurn::run_alone(const std::function<void()>& run, bool keep_alone) {
    if (kept_alone_) {
        // Alone already: share_again() must not give the turn back under the timed process.
        struct Timing {
            bool& on;
            ~Timing() { on = false; }
        } timing{timing_};
        timing_ = true;
        run();
        return;
    }
    if (!sharing()) {
        run();
        return;
    }
    GpuGate& gate = *gate_;
    release();
    GpuTurn alone(gate, true);
    run();  // (an exception leaves the turn released: the lane's submission has failed anyway)
    if (keep_alone) {
        *this = std::move(alone);
        kept_alone_ = true;
        return;
    }
    alone.release();
    *this = GpuTurn(gate, false);
}

void GpuTurn::take_ticket() {
    if (!gate_ || kind_ != TurnKind::Shared) return;
    GpuGate& gate = *gate_;
    release();
    machine_ = gate.enter(TurnKind::Ticketed);
    gate_ = &gate;
    kind_ = TurnKind::Ticketed;
    gated_ = true;
}

void GpuTurn::end_gated() { gated_ = false; }

void GpuTurn::take_alone() {
    if (!gate_ || kind_ == TurnKind::Alone) return;
    if (kind_ == TurnKind::Ticketed) {
        gate_->upgrade(machine_);
        kind_ = TurnKind::Alone;
    } else {
        GpuGate& gate = *gate_;
        release();
        *this = GpuTurn(gate, true);
    }
    kept_alone_ = true;
}

void GpuTurn::share_again() {
    if (!gate_ || timing_ || gated_ || !kept_alone_) return;
    GpuGate& gate = *gate_;
    release();
    *this = GpuTurn(gate, false);
}

void GpuTurn::make_way() {
    if (!gate_ || kind_ != TurnKind::Shared || !gate_->timed_waiting()) return;
    GpuGate& gate = *gate_;
    release();
    *this = GpuTurn(gate, false);  // (waits while a turn is alone or waits to be)
}

void run_timed_alone(GpuTurn* turn, const std::function<bool(const std::function<void()>& take)>& gated,
                     const std::function<void()>& whole) {
    // Kept alone after the last timed process (the reference's, just before the student's): this
    // one runs alone from its start, as `whole`. Its start alone costs the other lanes less than a
    // second wait for their runs under way, which may be a sanitizer's of a minute.
    if (turn && turn->sharing()) {
        // A performance test's turn holds the ticket from its start (nothing changes then), and
        // takes it again here after its verifier shared the GPU without it.
        turn->take_ticket();
        struct Gated {
            GpuTurn* turn;
            ~Gated() { turn->end_gated(); }
        } gated_until_here{turn};
        const bool counted = gated([turn] { turn->take_alone(); });
        turn->take_alone();  // (alone already where the process asked): kept alone after it
        if (counted) return;
    }
    if (turn) turn->run_alone(whole, true);
    else whole();
}

GpuTurn test_turn(GpuGate& gate, const GpuTurn* whole, bool timed) {
    if (whole && whole->held()) return GpuTurn();
    return GpuTurn(gate, timed ? TurnKind::Ticketed : TurnKind::Shared);
}

size_t auto_lanes_per_gpu(double memory_gib, int sms, unsigned cpus, size_t gpus, const std::string& compute_mode,
                          double gib_per_lane) {
    if (compute_mode != "Default") return 1;
    const double by_memory = gib_per_lane > 0 ? std::floor(memory_gib / gib_per_lane) : 1;
    const double by_sms = std::floor(sms / 16.0);
    const double by_cpus = std::floor(static_cast<double>(cpus) / 2.0 / static_cast<double>(std::max<size_t>(gpus, 1)));
    const double lanes = std::min({by_memory, by_sms, by_cpus, 8.0});
    return lanes < 1 ? 1 : static_cast<size_t>(lanes);
}

}  // namespace grading
