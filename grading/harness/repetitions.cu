// The grader's watch over timed repetitions (GradedRun::repetitions_timed). In a graded run
// (--channel) it frames each repetition in the result channel, gives it fresh inputs and sends
// samples of its outputs (fresh_inputs.h); in the verifier (--verify-outputs with
// --fresh-inputs) it makes the same repetitions with the reference and judges those samples.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "channel_writer.h"
#include "fresh_inputs.h"
#include "graded_run.h"
#include "timing_plan.h"
#include "tracked_buffers.h"

namespace cudalabs {

namespace {

// The new input values of each repetition (fresh_inputs.h): the flips of the previous repetition
// are taken back as this one's are made, in one pass, and all are taken back at the end.
class FreshInputs {
public:
    FreshInputs(uint64_t run_key, std::string case_key) : run_key_(run_key), case_key_(std::move(case_key)),
                                                          inputs_(tracked_inputs()) {}
    ~FreshInputs() {
        try {
            move_to(0);
            CUDA_CHECK(cudaDeviceSynchronize());
        } catch (const CudaError&) {  // the case has failed already, and says why
        }
    }
    FreshInputs(const FreshInputs&) = delete;
    FreshInputs& operator=(const FreshInputs&) = delete;

    // The inputs of repetition `rep`; returns its key (which also chooses the samples).
    uint64_t enter(int rep) {
        const uint64_t key = repetition_key(run_key_, case_key_, rep);
        move_to(key);
        return key;
    }

private:
    void move_to(uint64_t key) {
        for (size_t i = 0; i < inputs_.size(); ++i) flip_input_signs(inputs_[i], i + 1, current_, key);
        current_ = key;
    }
    uint64_t run_key_;
    std::string case_key_;
    std::vector<InputRegion> inputs_;
    uint64_t current_ = 0;
};

// The checked output (index k in `checked`) that a region holds a copy of, or -1.
int checked_output_of(const std::vector<unsigned char>& bytes, const std::vector<GradedCase::Checked>& checked) {
    const uint64_t hash = content_hash(bytes.data(), bytes.size());
    for (size_t k = 0; k < checked.size(); ++k)
        if (checked[k].bytes == bytes.size() && checked[k].hash == hash) return static_cast<int>(k);
    return -1;
}

// The grader's check of timed repetitions (--channel). Each repetition is numbered within its
// case and framed by REP_BEGIN / REP_END; the kernel trace is flushed before the first and at
// the end of each, so every kernel lands in the repetition it ran in (between repetitions the
// harness's own work is flushed before REP_BEGIN). For device timings (time_gpu) the case's
// outputs are also poisoned before each repetition and read back after it.
//  - With --fresh-inputs, when every output is the copy of a checked output k, each repetition
//    first gets new input values, and a keyed sample of each output is sent after it as
//    TIMED_OUTPUT; the verifier judges it (FreshVerification).
//  - Otherwise an output bitwise equal to the checked one needs nothing more; one that differs
//    is sent whole as TIMED_OUTPUT (checked by the verifier like the first) when it is the copy
//    of a checked output k, and is a fault otherwise.
class RepetitionWatch : public RepetitionObserver {
public:
    RepetitionWatch(GradedCase& graded, uint64_t fresh_key, int warmup, bool device_outputs)
        : case_(graded), warmup_(warmup) {
        channel::flush_trace();  // the checked launch's kernels land before the repetitions
        if (!device_outputs) return;
        bool all_checked = true;
        for (const OutputRegion& region : tracked_outputs()) {
            Watched w;
            w.region = region;
            w.verified.resize(region.packed_bytes());
            download_region(region, w.verified.data());
            w.k = checked_output_of(w.verified, graded.checked);
            all_checked = all_checked && w.k >= 0;
            watched_.push_back(std::move(w));
        }
        if (fresh_key && all_checked && !watched_.empty()) fresh_ = std::make_unique<FreshInputs>(fresh_key, graded.key);
        // Only repetitions without fresh inputs read a whole output back (fresh ones gather samples).
        if (!fresh_)
            for (Watched& w : watched_) w.now.resize(w.verified.size());
    }

    void before(int i) override {
        if (fresh_) key_ = fresh_->enter(case_.reps);
        for (const Watched& w : watched_) poison_region(w.region);
        CUDA_CHECK(cudaDeviceSynchronize());
        if (fresh_) channel::flush_trace();  // the harness's flips land outside the repetition
        channel::write(channel::RecordType::RepBegin,
                       channel::rep_begin_payload(static_cast<uint32_t>(case_.reps), i < warmup_));
        case_.rep_open = true;
    }

    void after(int) override {
        CUDA_CHECK(cudaDeviceSynchronize());
        channel::flush_trace();
        const int rep = case_.reps++;
        channel::write(channel::RecordType::RepEnd, channel::rep_end_payload(static_cast<uint32_t>(rep)));
        case_.rep_open = false;
        for (Watched& w : watched_) {
            if (fresh_) {
                send_sample(w, rep);
                continue;
            }
            download_region(w.region, w.now.data());
            if (std::memcmp(w.now.data(), w.verified.data(), w.now.size()) != 0) judge_difference(w, rep);
        }
    }

private:
    struct Watched {
        OutputRegion region;
        // Packed rows: as checked, and after a repetition (`now`: only without fresh inputs).
        std::vector<unsigned char> verified, now;
        int k = -1;               // the checked output it is a copy of; -1: none
        bool reported = false;    // a fault about it was recorded already
    };

    // Only the sampled elements leave the device: a repetition's time with the GPU alone is not
    // spent moving a whole large output to the host.
    void send_sample(const Watched& w, int rep) {
        const size_t elem = case_.checked[w.k].elem_bytes;
        const std::vector<size_t> at = sample_positions(key_, w.k, w.region.packed_bytes() / elem);
        const std::vector<unsigned char> sample = gather_region(w.region, elem, at);
        channel::write_timed_output(static_cast<uint32_t>(w.k), static_cast<uint32_t>(rep), sample.data(), sample.size());
    }

    // Every differing output is sent and checked against the tolerance, however many there are:
    // a correct kernel whose float sums change order from run to run (atomics, a split k)
    // differs in its last bits every time, and is right every time.
    void judge_difference(Watched& w, int rep) {
        const size_t bytes = w.now.size();
        if (w.k >= 0) {
            channel::write_timed_output(static_cast<uint32_t>(w.k), static_cast<uint32_t>(rep), w.now.data(), bytes);
            return;
        }
        if (w.reported) return;
        w.reported = true;
        case_.rep_faults.push_back("the output of timed repetition " + std::to_string(rep) + " differs from the verified output");
    }

    GradedCase& case_;
    int warmup_;
    std::vector<Watched> watched_;
    std::unique_ptr<FreshInputs> fresh_;
    uint64_t key_ = 0;
};

// The verifier's half of fresh repetitions (--verify-outputs with --fresh-inputs): the same
// repetitions, with the same new inputs, run with the reference; the samples the program sent
// are compared with the reference's elements at the same places. A repetition with no sample,
// or a sample of the wrong size, fails the case. The message does not depend on the run's key
// (which repetition, which element), so a regrade with the same seed gives the same feedback.
class FreshVerification : public RepetitionObserver {
public:
    FreshVerification(GradedCase& graded, uint64_t fresh_key, StoredOutputs stored)
        : case_(graded), stored_(std::move(stored)) {
        bool all_checked = true;
        for (const OutputRegion& region : tracked_outputs()) {
            Watched w;
            w.region = region;
            std::vector<unsigned char> now(region.packed_bytes());
            download_region(region, now.data());
            w.k = checked_output_of(now, graded.checked);
            all_checked = all_checked && w.k >= 0;
            watched_.push_back(std::move(w));
        }
        // As in the program (RepetitionWatch): no fresh repetitions, nothing sampled to judge.
        if (all_checked && !watched_.empty()) fresh_ = std::make_unique<FreshInputs>(fresh_key, graded.key);
    }

    void before(int) override {
        if (fresh_) key_ = fresh_->enter(case_.reps);
        for (const Watched& w : watched_) poison_region(w.region);
    }

    void after(int) override {
        CUDA_CHECK(cudaDeviceSynchronize());
        const int rep = case_.reps++;
        if (!fresh_) return;
        for (Watched& w : watched_) {
            if (w.reported) continue;
            const GradedCase::Checked& checked = case_.checked[w.k];
            const std::vector<size_t> at = sample_positions(key_, w.k, w.region.packed_bytes() / checked.elem_bytes);
            const std::string path = stored_.timed_output_path(case_.key, w.k, rep);
            std::vector<unsigned char> sample;
            std::string why;
            if (!StoredOutputs::read(path, at.size() * checked.elem_bytes, sample))
                why = std::string(kFreshInputsFault) + "sent no sample of its output";
            else {
                const std::vector<unsigned char> reference = gather_region(w.region, checked.elem_bytes, at);
                const SampleVerdict verdict =
                    compare_sample_bytes(checked.kind, checked.elem_bytes, sample.data(), reference.data(), at, checked.tol);
                if (verdict != SampleVerdict::Agree)
                    why = std::string(kFreshInputsFault) +
                          (verdict == SampleVerdict::Unwritten ? "left some of its output unwritten" : "produced a wrong result") +
                          " (the grader changes the inputs between repetitions: compute from them on every call)";
            }
            if (why.empty()) continue;
            w.reported = true;
            case_.rep_faults.push_back(why);
        }
    }

private:
    struct Watched {
        OutputRegion region;
        int k = -1;
        bool reported = false;
    };
    GradedCase& case_;
    StoredOutputs stored_;
    std::vector<Watched> watched_;
    std::unique_ptr<FreshInputs> fresh_;
    uint64_t key_ = 0;
};

}  // namespace

// The grader shares the GPU with other submissions' runs while a timed run starts, makes its
// inputs and checks its first result, and takes it alone only for the repetitions: the run asks
// for its turn here and waits for the go. A gate closed without a go (the grader gave up) lets it
// go on; the grader counts no repetition it did not open the gate for.
void GradedRun::wait_for_timing_turn() {
    if (!options_.grading() || options_.timing_gate_fd < 0) return;
    const int fd = options_.timing_gate_fd;
    options_.timing_gate_fd = -1;  // once a run
    channel::flush_trace();        // the kernels so far land before the request
    channel::write(channel::RecordType::TimingReady, std::string());
    char go = 0;
    ssize_t got;
    do got = read(fd, &go, 1);
    while (got < 0 && errno == EINTR);
    close(fd);
}

// Graded runs watch every timing; the verifier of fresh repetitions only the device timings,
// the only ones whose outputs are sampled (a host timing's outputs are not poisoned buffers).
std::unique_ptr<RepetitionObserver> GradedRun::repetitions_timed(const TimingPlan& plan, bool device_outputs) {
    wait_for_timing_turn();
    if (options_.grading()) return std::make_unique<RepetitionWatch>(case_, options_.fresh_key, plan.warmup, device_outputs);
    if (options_.verifying_fresh() && device_outputs)
        return std::make_unique<FreshVerification>(case_, options_.fresh_key, StoredOutputs(options_.verify_dir));
    return nullptr;
}

}  // namespace cudalabs
