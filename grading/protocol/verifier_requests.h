// How the grader keeps one verifier open for a lane's verifications (grading/DESIGN.md, "A kept
// verifier"). The trusted reference started as `PROGRAM --verifier-requests` answers requests on
// descriptor kFd (a socket, both ways), one after another, with its GPU open all along:
//   - a request is one verification's arguments, those a verifier of its own is started with
//     after its program's name, each word followed by a NUL, and one more NUL after the last;
//   - the reply, sent once the run's files are written (its --json verdict), is
//     "EXIT <code>\n" with the run's exit code;
//   - the program ends at the end of the requests (the grader closed its end), with the last
//     run's exit code; a request cut short by that end, or of no word, ends it with 2.
// Host-only, shared by the grader (runs/kept_verifier.cpp) and the harness
// (grading/harness/verification_requests.cpp).
#pragma once
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudalabs {
namespace verifier_requests {

constexpr char kFlag[] = "--verifier-requests";
constexpr int kFd = 3;

// The bytes of a request. Throws std::invalid_argument for no word, an empty word (it would end
// the request) or a word with a NUL in it.
inline std::string encode_request(const std::vector<std::string>& words) {
    if (words.empty()) throw std::invalid_argument("a verification request needs at least one word");
    std::string bytes;
    for (const std::string& w : words) {
        if (w.empty() || w.find('\0') != std::string::npos)
            throw std::invalid_argument("a verification request's words must be non-empty and hold no NUL");
        bytes += w;
        bytes += '\0';
    }
    return bytes + '\0';
}

// Where the first whole request in `bytes` ends (just past its closing NUL), or 0 when none has
// arrived whole yet.
inline size_t request_end(const std::string& bytes) {
    if (!bytes.empty() && bytes[0] == '\0') return 1;  // no word at all: whole, and refused by the reader
    const size_t at = bytes.find(std::string("\0\0", 2));
    return at == std::string::npos ? 0 : at + 2;
}

inline std::string encode_reply(int exit_code) { return "EXIT " + std::to_string(exit_code) + "\n"; }

// The exit code a whole reply line (its newline included) gives; none for anything else.
inline std::optional<int> decode_reply(const std::string& line) {
    if (line.size() < 7 || line.compare(0, 5, "EXIT ") != 0 || line.back() != '\n') return std::nullopt;
    int code = 0;
    for (size_t i = 5; i + 1 < line.size(); ++i) {
        if (line[i] < '0' || line[i] > '9' || code > 255) return std::nullopt;
        code = code * 10 + (line[i] - '0');
    }
    if (code > 255) return std::nullopt;
    return code;
}

// Sends all of `bytes` on the socket `fd`. False where the other end is gone (MSG_NOSIGNAL: a
// peer that is gone is an answer, not a SIGPIPE that ends the sender).
inline bool send_whole(int fd, const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n > 0) sent += static_cast<size_t>(n);
        else if (n < 0 && errno == EINTR) continue;
        else return false;
    }
    return true;
}

}  // namespace verifier_requests
}  // namespace cudalabs
