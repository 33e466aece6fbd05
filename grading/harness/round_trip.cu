// The watches of a graded call on host arrays (round_trip.h, host_seal.h):
// GradedRun::host_call_started. While the call runs (and its timed repetitions) its inputs and
// the driver's hidden data are sealed, and the output of a call that is no round trip; a round
// trip's ledger is also the active one, which the grading shims tell of every
// copy between host memory and the device, and when the call has returned, each way the case
// broke the rule goes to the grader as a TRANSFER record of direction round_trip_breach.
#include <memory>
#include <optional>

#include "channel_writer.h"
#include "graded_run.h"
#include "host_seal.h"
#include "round_trip.h"

// Defined by the grading shims (grading_shims.cu), which the grader links into every student's
// program: only where the program's copies go through them can its inputs be sealed, since they
// read a sealed input from the seal's copy. The reference solution, which is trusted, runs without.
extern "C" int cudalabs_shims_linked() __attribute__((weak));

namespace cudalabs {

namespace {

bool copies_shimmed() { return cudalabs_shims_linked != nullptr; }

// A call on host arrays the GPU reads and writes directly: its output is sealed too (the GPU
// writes it by DMA or through the mapping, which the CPU's page protection does not touch), so
// the CPU cannot finish a result the GPU only moved there.
std::vector<HostSpan> sealed_apart(const HostCall& call) {
    std::vector<HostSpan> spans = call.hidden;
    if (call.output.ptr) spans.push_back(call.output);
    return spans;
}

class SealWatch : public CallWatch {
public:
    explicit SealWatch(const HostCall& call) : seal_(call.inputs, sealed_apart(call)) {}

private:
    HostSeal seal_;
};

class RoundTripWatch : public CallWatch {
public:
    explicit RoundTripWatch(const HostCall& call) : ledger_(call.inputs, call.output) {
        if (copies_shimmed()) seal_.emplace(call.inputs, call.hidden);
        RoundTripLedger::active() = &ledger_;
    }
    ~RoundTripWatch() override {
        // Copies the call queued land before the ledger is read (their bytes are told to it as
        // they land); an error is left for the case to report.
        (void)cudaDeviceSynchronize();
        RoundTripLedger::active() = nullptr;
        for (const RoundTripLedger::Breach& b : ledger_.finish())
            channel::write_transfer(b.what.c_str(), channel::Direction::RoundTripBreach, b.bytes);
    }
    RoundTripWatch(const RoundTripWatch&) = delete;
    RoundTripWatch& operator=(const RoundTripWatch&) = delete;

private:
    RoundTripLedger ledger_;  // (made first: it reads the inputs before they are sealed)
    std::optional<HostSeal> seal_;
};

}  // namespace

// The trusted reference runs without the shims, so its calls are never sealed: before its lab
// begins it proves instead that this process, in this sandbox, may seal memory. A student's run
// whose seal was refused is judged by what the reference finds in the same sandbox
// (runs/failures.cpp): a refusal there too is the environment's.
void GradedRun::prove_sealing() const {
    if (!copies_shimmed()) HostSeal::probe();
}

std::unique_ptr<CallWatch> GradedRun::host_call_started(const HostCall& call) {
    if (!options_.grading()) return nullptr;
    if (call.round_trip) return std::make_unique<RoundTripWatch>(call);
    if (!copies_shimmed()) return nullptr;
    return std::make_unique<SealWatch>(call);
}

}  // namespace cudalabs
