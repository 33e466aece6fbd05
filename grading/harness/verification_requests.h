// The verifier's side of a kept verifier (verifier_requests.h): the requests it reads and the
// replies it sends on the grader's socket. Host-only (unit-tested with g++).
#pragma once
#include <string>
#include <vector>

namespace cudalabs {

class VerificationRequests {
public:
    explicit VerificationRequests(int fd) : fd_(fd) {}
    // The next request's words. False at the end of the requests (the grader closed its end,
    // between two requests). Throws UsageError for a request cut short or of no word.
    bool next(std::vector<std::string>& words);
    // Says how the run of the last request ended. False where the grader is gone.
    bool reply(int exit_code);

private:
    int fd_;
    std::string pending_;  // bytes read past the request handed out (none while the grader waits for a reply)
};

}  // namespace cudalabs
