// One lane's verifier kept open (grade --keep-verifier): the trusted reference, started once as
// `solNN --verifier-requests` (grading/protocol/verifier_requests.h), runs verification after
// verification with its GPU open, where a verifier of its own for each would open the GPU each
// time, and the driver makes GPU opens one at a time for the whole machine. The caller takes
// only its passes (runs.cpp, verify_outputs): anything else is settled by a verifier of its own,
// as without it. Used by one lane's thread at a time. Host-only: unit-tested with a stand-in.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "isolation/isolation.h"

namespace grading {

// Verifications one kept verifier answers before it is started afresh: what a run may leave
// behind in the process (a lab's cache of one size's inputs) is bounded by it too.
constexpr size_t kKeptVerifierRequests = 64;

class KeptVerifier {
public:
    explicit KeptVerifier(size_t max_requests = kKeptVerifierRequests) : max_requests_(max_requests) {}
    KeptVerifier(const KeptVerifier&) = delete;
    KeptVerifier& operator=(const KeptVerifier&) = delete;
    ~KeptVerifier() { stop(); }

    // Runs the verification `spec` describes as a verifier of its own (argv[0] the reference,
    // the rest its options; its folder, environment and output files) in the kept verifier,
    // started first where none runs for that program, folder and environment. Returns the run's
    // exit code, or none where the kept verifier could not answer within spec.limits.wall_s
    // (it could not start, it ended, it timed out, it sent what is no reply): it is stopped then.
    std::optional<int> verify(const RunSpec& spec);
    // Ends it; the next verify starts another.
    void stop();
    // Processes started so far (each opens the GPU once).
    size_t starts() const { return starts_; }

private:
    bool start(const RunSpec& spec);
    bool send_request(const RunSpec& spec);
    std::optional<int> read_reply(double wall_s);
    std::unique_ptr<RunningProcess> process_;
    int socket_ = -1;  // the grader's end; the verifier's is its descriptor 3
    std::vector<std::string> started_as_;  // program, folder and environment it was started with
    size_t answered_ = 0, starts_ = 0;
    size_t max_requests_;
};

}  // namespace grading
