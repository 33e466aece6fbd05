// A kept verifier's requests and replies (verification_requests.h).
#include "verification_requests.h"

#include <unistd.h>

#include <cerrno>

#include "args.h"
#include "grading_options.h"
#include "verifier_requests.h"

namespace cudalabs {

bool VerificationRequests::next(std::vector<std::string>& words) {
    using namespace verifier_requests;
    char buf[4096];
    size_t end = request_end(pending_);
    while (end == 0) {
        const ssize_t got = read(fd_, buf, sizeof buf);
        if (got > 0) {
            pending_.append(buf, static_cast<size_t>(got));
            end = request_end(pending_);
        } else if (got < 0 && errno == EINTR) {
            continue;
        } else if (got == 0 && pending_.empty()) {
            return false;
        } else {
            throw UsageError(std::string(kFlag) + ": the grader's request was cut short");
        }
    }
    if (end < 2) throw UsageError(std::string(kFlag) + ": a request of no word");
    words = split_handed_options(pending_.substr(0, end - 1));  // each word ends with its NUL
    pending_.erase(0, end);
    return true;
}

bool VerificationRequests::reply(int exit_code) {
    return verifier_requests::send_whole(fd_, verifier_requests::encode_reply(exit_code));
}

}  // namespace cudalabs
