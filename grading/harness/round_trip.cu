// The watch of a graded host round trip (round_trip.h): GradedRun::round_trip_started. While the
// variant's call runs, its ledger is the active one, which the grading shims tell of every copy
// between host memory and the device; when the call has returned, each way the case broke the
// rule goes to the grader as a TRANSFER record of direction round_trip_breach.
#include <memory>

#include "channel_writer.h"
#include "graded_run.h"
#include "round_trip.h"

namespace cudalabs {

namespace {

class RoundTripWatch : public CallWatch {
public:
    RoundTripWatch(const std::vector<HostSpan>& inputs, HostSpan output) : ledger_(inputs, output) {
        RoundTripLedger::active() = &ledger_;
    }
    ~RoundTripWatch() override {
        RoundTripLedger::active() = nullptr;
        for (const RoundTripLedger::Breach& b : ledger_.finish())
            channel::write_transfer(b.what.c_str(), channel::Direction::RoundTripBreach, b.bytes);
    }
    RoundTripWatch(const RoundTripWatch&) = delete;
    RoundTripWatch& operator=(const RoundTripWatch&) = delete;

private:
    RoundTripLedger ledger_;
};

}  // namespace

std::unique_ptr<CallWatch> GradedRun::round_trip_started(const std::vector<HostSpan>& inputs, HostSpan output) {
    if (!options_.grading()) return nullptr;
    return std::make_unique<RoundTripWatch>(inputs, output);
}

}  // namespace cudalabs
