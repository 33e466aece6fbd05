// A kept verifier's requests and replies (verification_requests.h).
#include "verification_requests.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "args.h"
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
    try {
        words = split_request(pending_.substr(0, end));
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string(kFlag) + ": " + e.what());
    }
    pending_.erase(0, end);
    return true;
}

bool VerificationRequests::reply(int exit_code) {
    const std::string line = verifier_requests::encode_reply(exit_code);
    size_t sent = 0;
    while (sent < line.size()) {
        // MSG_NOSIGNAL: a grader that is gone ends the requests, not the process by SIGPIPE.
        const ssize_t n = send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n > 0) sent += static_cast<size_t>(n);
        else if (n < 0 && errno == EINTR) continue;
        else return false;
    }
    return true;
}

}  // namespace cudalabs
