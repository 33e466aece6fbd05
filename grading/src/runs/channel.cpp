// The grader's reader of the result channel (channel.h).
#include "runs/channel.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

namespace grading {

namespace {

using namespace cudalabs::channel;

// Writes outputs into the grader's private folder. Names come from LogBuilder, which accepts
// only plain variant and size names; files are created fresh, never followed through a link.
class FolderStore : public OutputStore {
public:
    explicit FolderStore(std::string folder) : folder_(std::move(folder)) {}
    ~FolderStore() override { close_current(); }

    bool begin(const std::string& name, uint64_t) override {
        close_current();
        fd_ = open_file(name);
        return fd_ >= 0;
    }
    bool write(const unsigned char* data, size_t n) override {
        while (n > 0) {
            ssize_t k = ::write(fd_, data, n);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) return failed("cannot write: ");
            data += k;
            n -= static_cast<size_t>(k);
        }
        return true;
    }
    bool end() override {
        const int fd = fd_;
        fd_ = -1;
        return ::close(fd) == 0 || failed("cannot write: ");
    }
    bool write_faults(const std::string& name, const std::vector<std::string>& faults) override {
        std::string text;
        for (const std::string& f : faults) {
            std::string line = f;
            for (char& c : line)
                if (c == '\n' || c == '\r') c = ' ';  // one fault per line in the file
            text += line + "\n";
        }
        close_current();
        fd_ = open_file(name);
        if (fd_ < 0) return false;
        const bool ok = write(reinterpret_cast<const unsigned char*>(text.data()), text.size());
        return end() && ok;
    }

private:
    int open_file(const std::string& name) {
        // A case that comes twice (the same size twice in one run) overwrites its files.
        const std::string path = folder_ + "/" + name;
        int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) failed("cannot create " + name + ": ");
        return fd;
    }
    bool failed(const std::string& what) {
        error = what + std::strerror(errno);
        return false;
    }
    void close_current() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    std::string folder_;
    int fd_ = -1;
};

}  // namespace

RunLog read_channel(int fd, const std::string& folder, const ChannelLimits& limits, const std::atomic<bool>* stop,
                    const ChannelEvents& events) {
    FolderStore store(folder);
    LogBuilder builder(store);
    DecoderLimits dl;
    dl.max_record_bytes = limits.max_record_bytes;
    dl.max_output_bytes = limits.max_output_bytes;
    Decoder decoder(builder, dl);
    std::vector<unsigned char> buf(1 << 16);
    uint64_t total = 0;
    bool at_eof = false, told_ready = false, told_timing = false;
    while (decoder.ok()) {
        if (stop && stop->load()) break;
        // Poll with a short timeout so that `stop` is seen while the pipe stays silent.
        pollfd p{fd, POLLIN, 0};
        int ready = poll(&p, 1, stop ? 100 : -1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) {
            builder.fail_from_outside(std::string("the grader could not read the result channel: ") + std::strerror(errno));
            break;
        }
        if (ready == 0) continue;
        ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n < 0) {
            builder.fail_from_outside(std::string("the grader could not read the result channel: ") + std::strerror(errno));
            break;
        }
        if (n == 0) {
            at_eof = true;
            break;
        }
        total += static_cast<uint64_t>(n);
        if (total > limits.max_total_bytes) {
            builder.fail_from_outside("the program sent more than " + std::to_string(limits.max_total_bytes >> 20) +
                                      " MiB through its result channel");
            break;
        }
        decoder.feed(buf.data(), static_cast<size_t>(n));
        const RunLog& so_far = builder.so_far();
        if (so_far.device_ready && !told_ready && events.device_ready) events.device_ready();
        told_ready = told_ready || so_far.device_ready;
        if (so_far.timing_ready && !told_timing && events.timing_ready) events.timing_ready(so_far);
        told_timing = told_timing || so_far.timing_ready;
    }
    if (at_eof) decoder.finish();
    ::close(fd);
    RunLog log = builder.finish(decoder, total);
    if (!at_eof && log.complete) {
        // RUN_END arrived, but the pipe stayed open until the grader gave up on it.
        log.complete = false;
        log.error = "the result channel stayed open after the run ended (did the program leave a process behind?)";
    }
    return log;
}

ChannelReader::ChannelReader(int fd, std::string folder, ChannelLimits limits, ChannelEvents events)
    : thread_([this, fd, folder = std::move(folder), limits, events = std::move(events)] {
          log_ = read_channel(fd, folder, limits, &stop_, events);
          done_ = true;
      }) {}

ChannelReader::~ChannelReader() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
}

RunLog ChannelReader::finish(double grace_s) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
    while (!done_ && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return log_;
}

}  // namespace grading
