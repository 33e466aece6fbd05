// A lane's kept verifier (kept_verifier.h).
#include "runs/kept_verifier.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <stdexcept>

#include "verifier_requests.h"

namespace grading {

namespace vr = cudalabs::verifier_requests;

namespace {

// What a kept verifier is started with besides its requests: a verification of another program,
// folder or environment needs another.
std::vector<std::string> started_as(const RunSpec& spec) {
    std::vector<std::string> key = {spec.argv.empty() ? "" : spec.argv[0], spec.cwd, spec.stdout_path, spec.stderr_path};
    key.insert(key.end(), spec.env.begin(), spec.env.end());
    return key;
}

}  // namespace

std::optional<int> KeptVerifier::verify(const RunSpec& spec) {
    if (process_ && (started_as_ != started_as(spec) || answered_ >= max_requests_)) stop();
    if (!process_ && !start(spec)) return std::nullopt;
    std::optional<int> code;
    if (send_request(spec)) code = read_reply(spec.limits.wall_s);
    if (!code) {
        stop();
        return std::nullopt;
    }
    ++answered_;
    return code;
}

bool KeptVerifier::start(const RunSpec& spec) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return false;
    RunSpec kept = spec;
    kept.argv = {spec.argv.at(0), vr::kFlag};
    kept.inherit_fds = {{sv[1], vr::kFd}};
    kept.limits.wall_s = 1e9;  // it lives until stopped; each request has its own limit
    ++starts_;
    process_ = std::make_unique<RunningProcess>(kept);
    close(sv[1]);
    socket_ = sv[0];
    started_as_ = started_as(spec);
    answered_ = 0;
    if (!process_->running()) {
        stop();
        return false;
    }
    return true;
}

bool KeptVerifier::send_request(const RunSpec& spec) {
    std::string bytes;
    try {
        bytes = vr::encode_request(std::vector<std::string>(spec.argv.begin() + 1, spec.argv.end()));
    } catch (const std::invalid_argument&) {
        return false;
    }
    return vr::send_whole(socket_, bytes);  // gone: false
}

// The reply line, read within `wall_s`: none where the verifier ended, timed out or sent more or
// other than one reply.
std::optional<int> KeptVerifier::read_reply(double wall_s) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wall_s);
    std::string line;
    while (line.empty() || line.back() != '\n') {
        const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0 || line.size() > 16) return std::nullopt;
        pollfd p{socket_, POLLIN, 0};
        const int ready = poll(&p, 1, static_cast<int>(std::min(left * 1000 + 1, 60000.0)));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return std::nullopt;
        if (ready == 0) continue;
        char c;
        const ssize_t n = read(socket_, &c, 1);  // a byte at a time: nothing past the reply is taken
        if (n == 1) line += c;
        else if (n < 0 && errno == EINTR) continue;
        else return std::nullopt;  // ended
    }
    return vr::decode_reply(line);
}

void KeptVerifier::stop() {
    if (socket_ >= 0) close(socket_);
    socket_ = -1;
    if (process_) process_->stop();
    process_.reset();
}

}  // namespace grading
