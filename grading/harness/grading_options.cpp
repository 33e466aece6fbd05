// The grader's options (grading_options.h).
#include "grading_options.h"

#include "args.h"

namespace cudalabs {

bool GradingOptions::take(const std::string& flag, const std::function<std::string()>& value) {
    if (flag == "--channel") {
        // 0, 1 and 2 are the terminal's: the channel's records would mix with the table.
        channel_fd = static_cast<int>(parse_positive(value(), "--channel", 1 << 20));
        if (channel_fd < 3) throw UsageError("--channel needs a file descriptor of its own (3 or more)");
    } else if (flag == "--fresh-inputs") {
        fresh_key = static_cast<uint64_t>(parse_positive(value(), "--fresh-inputs"));
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
}

}  // namespace cudalabs
