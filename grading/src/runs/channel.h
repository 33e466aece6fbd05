// The grader's end of the result channel (the format: grading/protocol/channel_format.h; the decoder:
// channel_decoder.h): reads the pipe a lab program writes its records to (--channel FD),
// checks the framing and the grammar, stores every output straight into a private folder under
// the names the verifier reads (--verify-outputs), and returns what happened as a RunLog.
// Host-only.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "runs/channel_decoder.h"

namespace grading {

using cudalabs::channel::CaseLog;
using cudalabs::channel::Direction;
using cudalabs::channel::KernelRec;
using cudalabs::channel::RepLog;
using cudalabs::channel::RunLog;
using cudalabs::channel::TransferRec;

struct ChannelLimits {
    uint64_t max_total_bytes = 8ull << 30;    // everything the program may send
    uint64_t max_record_bytes = 1u << 20;     // one record other than an output
    uint64_t max_output_bytes = 4ull << 30;   // one output
};

// What the reader tells as records arrive, on its own thread, while the program runs.
struct ChannelEvents {
    std::function<void()> device_ready;  // DEVICE_READY arrived: the program has opened the GPU
    // TIMING_READY arrived: the program waits for the grader's go before its first timed
    // repetition (--timing-gate); `so_far` is what it sent before. Nothing is read meanwhile.
    std::function<void(const RunLog& so_far)> timing_ready;
};

// Reads `fd` (the read end of the pipe) until EOF, the first error or the byte cap, then
// closes it, so a program still writing gets EPIPE and ends instead of blocking. Outputs go to
// `folder` (which must exist): <variant>_<size>_<k>.bin, <variant>_<size>_<k>.rep<r>.bin,
// <variant>_<size>_faults.txt. `stop` (optional), when it becomes true, ends the reading as if
// at EOF (the program has exited but something it started still holds the pipe open).
RunLog read_channel(int fd, const std::string& folder, const ChannelLimits& limits = {},
                    const std::atomic<bool>* stop = nullptr, const ChannelEvents& events = {});

// read_channel on a thread of its own, for use around a blocking run of the program:
//   ChannelReader reader(read_end, folder);   // after the fork, with the write end closed here
//   RunResult r = run_process(spec);
//   RunLog log = reader.finish();
class ChannelReader {
public:
    ChannelReader(int fd, std::string folder, ChannelLimits limits = {}, ChannelEvents events = {});
    ~ChannelReader();
    ChannelReader(const ChannelReader&) = delete;
    ChannelReader& operator=(const ChannelReader&) = delete;
    // Waits up to `grace_s` seconds for EOF, then stops reading; returns the log. Call once,
    // after the program has ended. A stop by the grace period is reported in the log's error
    // when the log was otherwise complete.
    RunLog finish(double grace_s = 5);

private:
    std::atomic<bool> stop_{false}, done_{false};
    RunLog log_;
    std::thread thread_;
};

}  // namespace grading
