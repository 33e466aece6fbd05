// The grader's options (grading_options.h).
#include "grading_options.h"

#include <unistd.h>

#include <cerrno>

#include "args.h"

namespace cudalabs {

std::vector<std::string> split_handed_options(const std::string& bytes) {
    if (!bytes.empty() && bytes.back() != '\0') throw UsageError(std::string(run_options::kFlag) + ": the options handed over end mid-word");
    std::vector<std::string> words;
    size_t start = 0;
    while (start < bytes.size()) {
        const size_t end = bytes.find('\0', start);
        words.push_back(bytes.substr(start, end - start));
        start = end + 1;
    }
    return words;
}

std::vector<std::string> read_handed_options(int fd) {
    std::string bytes;
    char buf[4096];
    for (;;) {
        const ssize_t got = read(fd, buf, sizeof buf);
        if (got > 0) bytes.append(buf, static_cast<size_t>(got));
        else if (got == 0) break;
        else if (errno != EINTR) {
            close(fd);
            throw UsageError(std::string(run_options::kFlag) + ": cannot read descriptor " + std::to_string(fd));
        }
    }
    close(fd);
    return split_handed_options(bytes);
}

std::vector<std::string> arguments_to_read(const std::vector<std::string>& given) {
    if (given.size() != 2 || given[0] != run_options::kFlag) return given;
    const int fd = static_cast<int>(parse_positive(given[1], run_options::kFlag, 1 << 20));
    if (fd < 3) throw UsageError(std::string(run_options::kFlag) + " needs a file descriptor of its own (3 or more)");
    return read_handed_options(fd);
}

bool GradingOptions::take(const std::string& flag, const std::function<std::string()>& value) {
    if (flag == "--channel") {
        // 0, 1 and 2 are the terminal's: the channel's records would mix with the table.
        channel_fd = static_cast<int>(parse_positive(value(), "--channel", 1 << 20));
        if (channel_fd < 3) throw UsageError("--channel needs a file descriptor of its own (3 or more)");
    } else if (flag == "--fresh-inputs") {
        fresh_key = static_cast<uint64_t>(parse_positive(value(), "--fresh-inputs"));
    } else if (flag == "--timing-gate") {
        timing_gate_fd = static_cast<int>(parse_positive(value(), "--timing-gate", 1 << 20));
        if (timing_gate_fd < 3) throw UsageError("--timing-gate needs a file descriptor of its own (3 or more)");
    } else if (flag == "--verify-outputs") {
        verify_dir = value();
        if (verify_dir.empty()) throw UsageError("--verify-outputs needs a folder");
    } else {
        return false;
    }
    return true;
}

void GradingOptions::check() const {
    if (grading() && verifying()) throw UsageError("--channel and --verify-outputs cannot be combined");
    if (fresh_key && !grading() && !verifying()) throw UsageError("--fresh-inputs needs --channel or --verify-outputs");
    if (timing_gate_fd >= 0 && !grading()) throw UsageError("--timing-gate needs --channel");
}

}  // namespace cudalabs
