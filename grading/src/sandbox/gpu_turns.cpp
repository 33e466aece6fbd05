#include "sandbox/gpu_turns.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace grading {

GpuGate::GpuGate(std::string lock_name, std::string folder, std::function<void()> on_wait)
    : lock_name_(std::move(lock_name)), folder_(std::move(folder)), on_wait_(std::move(on_wait)) {}

HeldLock GpuGate::enter(bool alone) {
    {
        std::unique_lock<std::mutex> lock(m_);
        if (alone) {
            ++alone_waiting_;
            changed_.wait(lock, [&] { return !alone_ && shared_ == 0; });
            --alone_waiting_;
            alone_ = true;
        } else {
            // A turn waiting to be alone goes first: shared turns would otherwise keep it out.
            changed_.wait(lock, [&] { return !alone_ && alone_waiting_ == 0; });
            ++shared_;
        }
    }
    if (folder_.empty()) return HeldLock();
    try {
        return lock_gpu(lock_name_, folder_, on_wait_, !alone);
    } catch (...) {
        leave(alone);
        throw;
    }
}

void GpuGate::leave(bool alone) {
    std::lock_guard<std::mutex> lock(m_);
    if (alone) alone_ = false;
    else --shared_;
    changed_.notify_all();
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

GpuTurn::GpuTurn(GpuGate& gate, bool alone) : alone_(alone) {
    machine_ = gate.enter(alone);
    gate_ = &gate;
}

GpuTurn::GpuTurn(GpuTurn&& o) noexcept
    : gate_(o.gate_), alone_(o.alone_), kept_alone_(o.kept_alone_), away_(o.away_), machine_(std::move(o.machine_)) {
    o.gate_ = nullptr;
    o.kept_alone_ = false;
    o.away_ = nullptr;
}

GpuTurn& GpuTurn::operator=(GpuTurn&& o) noexcept {
    if (this != &o) {
        release();
        gate_ = o.gate_;
        alone_ = o.alone_;
        kept_alone_ = o.kept_alone_;
        away_ = o.away_;
        machine_ = std::move(o.machine_);
        o.gate_ = nullptr;
        o.kept_alone_ = false;
        o.away_ = nullptr;
    }
    return *this;
}

GpuTurn::~GpuTurn() { release(); }

void GpuTurn::release() {
    if (!gate_) return;
    machine_.release();  // the machine's lock first: the next turn inside the grader takes it at once
    gate_->leave(alone_);
    gate_ = nullptr;
    kept_alone_ = false;
    away_ = nullptr;
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

void GpuTurn::take_alone() {
    if (!sharing()) return;
    GpuGate& gate = *gate_;
    release();
    *this = GpuTurn(gate, true);
    kept_alone_ = true;
}

void GpuTurn::step_out() {
    if (!kept_alone_ || timing_) return;
    GpuGate& gate = *gate_;
    release();
    away_ = &gate;
}

void GpuTurn::share_again() {
    if (away_) {
        GpuGate& gate = *away_;
        away_ = nullptr;
        *this = GpuTurn(gate, false);
        return;
    }
    if (!kept_alone_ || timing_) return;
    GpuGate& gate = *gate_;
    release();
    *this = GpuTurn(gate, false);
}

void GpuTurn::make_way() {
    if (!sharing() || !gate_->alone_waiting()) return;
    GpuGate& gate = *gate_;
    release();
    *this = GpuTurn(gate, false);  // (waits while a turn is alone or waits to be)
}

void run_timed_alone(GpuTurn* turn, const std::function<bool(const std::function<void()>& take)>& gated,
                     const std::function<void()>& whole) {
    if (turn && turn->sharing() && gated([turn] { turn->take_alone(); })) return;
    if (turn) turn->run_alone(whole, true);
    else whole();
}

GpuTurn test_turn(GpuGate& gate, const GpuTurn* whole) {
    if (whole && whole->held()) return GpuTurn();
    return GpuTurn(gate, false);
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
