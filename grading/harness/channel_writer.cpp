// The result channel's writer (channel_writer.h).
#include "channel_writer.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <utility>
#include <vector>

#include "args.h"
#include "exit_codes.h"

namespace cudalabs {
namespace channel {

namespace {

// Before open() records are kept (a kernel trace or a copy made by code that runs before main);
// after disable() or finish() they are dropped.
enum class State { Waiting, Open, Off };

// Records kept before open(): enough for a trace announcement and a few copies.
constexpr size_t kMaxWaiting = 64;

struct Writer {
    std::mutex lock;
    State state = State::Waiting;
    int fd = -1;
    uint64_t seq = 0;
    std::vector<std::pair<RecordType, std::string>> waiting;
    size_t dropped_waiting = 0;
    void (*trace_flush)() = nullptr;
};

// Never destroyed: the trace library may write from its own thread while statics are torn down.
Writer& writer() {
    static auto* w = new Writer();
    return *w;
}

[[noreturn]] void broken(int fd, int err) {
    // The grader reads the channel while the program runs: a write fails only when it stopped
    // (time limit, a limit on what it reads) or when something closed the descriptor.
    std::fprintf(stderr,
                 "error: writing to the grader's result channel (file descriptor %d) failed: %s; the "
                 "run cannot be graded\n",
                 fd, std::strerror(err));
    std::fflush(stderr);
    _exit(kExitFail);
}

void write_all(int fd, const void* data, uint64_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, uint64_t(1) << 30));
        ssize_t k = ::write(fd, p, chunk);
        if (k < 0) {
            if (errno == EINTR) continue;
            broken(fd, errno);
        }
        if (k == 0) broken(fd, EIO);
        p += k;
        n -= static_cast<uint64_t>(k);
    }
}

// Writes one record whose payload is `parts` back to back. Called with the lock held.
void emit(Writer& w, RecordType type, std::initializer_list<std::pair<const void*, uint64_t>> parts) {
    uint64_t length = 0;
    for (const auto& part : parts) length += part.second;
    unsigned char header[kHeaderBytes];
    encode_header(header, type, w.seq++, length);
    write_all(w.fd, header, kHeaderBytes);
    for (const auto& part : parts)
        if (part.second) write_all(w.fd, part.first, part.second);
}

void emit(Writer& w, RecordType type, const std::string& payload) {
    emit(w, type, {{payload.data(), payload.size()}});
}

// Offers a record from outside the harness (trace library, shims): written when open, kept
// when waiting for open().
void offer(RecordType type, std::string payload) {
    Writer& w = writer();
    std::lock_guard<std::mutex> guard(w.lock);
    if (w.state == State::Open) {
        emit(w, type, payload);
    } else if (w.state == State::Waiting) {
        if (w.waiting.size() < kMaxWaiting) w.waiting.emplace_back(type, std::move(payload));
        else ++w.dropped_waiting;
    }
}

}  // namespace

void open(int fd) {
    if (fd < 0 || fcntl(fd, F_GETFD) < 0)
        throw UsageError("--channel " + std::to_string(fd) + ": no such open file descriptor");
    const int mode = fcntl(fd, F_GETFL);
    if ((mode & O_ACCMODE) == O_RDONLY)
        throw UsageError("--channel " + std::to_string(fd) + ": the file descriptor is not open for writing");
    fcntl(fd, F_SETFD, FD_CLOEXEC);  // a child the program starts does not inherit it
    signal(SIGPIPE, SIG_IGN);
    Writer& w = writer();
    auto flush = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "cudalabs_trace_flush"));
    std::lock_guard<std::mutex> guard(w.lock);
    w.fd = fd;
    w.seq = 0;
    w.state = State::Open;
    w.trace_flush = flush;
    emit(w, RecordType::RunBegin, run_begin_payload());
    for (const auto& record : w.waiting) emit(w, record.first, record.second);
    w.waiting.clear();
    if (w.dropped_waiting)
        emit(w, RecordType::Fault,
             fault_payload(std::to_string(w.dropped_waiting) + " records from before the run began were dropped"));
    w.dropped_waiting = 0;
}

void disable() {
    Writer& w = writer();
    std::lock_guard<std::mutex> guard(w.lock);
    w.state = State::Off;
    w.waiting.clear();
}

bool active() {
    Writer& w = writer();
    std::lock_guard<std::mutex> guard(w.lock);
    return w.state == State::Open;
}

void write(RecordType type, const std::string& payload) {
    Writer& w = writer();
    std::lock_guard<std::mutex> guard(w.lock);
    if (w.state == State::Open) emit(w, type, payload);
}

void write_output(uint32_t k, const void* data, uint64_t bytes) {
    Writer& w = writer();
    const std::string prefix = output_prefix(k, bytes);
    std::lock_guard<std::mutex> guard(w.lock);
    if (w.state == State::Open) emit(w, RecordType::Output, {{prefix.data(), prefix.size()}, {data, bytes}});
}

void write_timed_output(uint32_t k, uint32_t rep, const void* data, uint64_t bytes) {
    Writer& w = writer();
    const std::string prefix = timed_output_prefix(k, rep, bytes);
    std::lock_guard<std::mutex> guard(w.lock);
    if (w.state == State::Open) emit(w, RecordType::TimedOutput, {{prefix.data(), prefix.size()}, {data, bytes}});
}

void write_transfer(const char* api, Direction direction, uint64_t bytes) {
    offer(RecordType::Transfer, transfer_payload(api, direction, bytes));
}

void flush_trace() {
    Writer& w = writer();
    void (*flush)() = nullptr;
    {
        std::lock_guard<std::mutex> guard(w.lock);
        if (w.state == State::Open) flush = w.trace_flush;
    }
    // Without the lock: the trace library writes its records through cudalabs_channel_write.
    if (flush) flush();
}

void finish() {
    flush_trace();
    Writer& w = writer();
    std::lock_guard<std::mutex> guard(w.lock);
    if (w.state != State::Open) return;
    emit(w, RecordType::RunEnd, std::string());
    ::close(w.fd);
    w.fd = -1;
    w.state = State::Off;
}

}  // namespace channel
}  // namespace cudalabs

extern "C" int cudalabs_channel_write(uint32_t type, const void* payload, uint64_t length) {
    using namespace cudalabs::channel;
    const RecordType t = static_cast<RecordType>(type);
    if (t != RecordType::Kernel && t != RecordType::TraceReady) return -1;
    if (length > kMaxKernelName + 64 || (length && !payload)) return -1;
    Record check;
    check.type = t;
    if (!parse_payload(static_cast<const unsigned char*>(payload), static_cast<size_t>(length), check)) return -1;
    offer(t, std::string(static_cast<const char*>(payload), static_cast<size_t>(length)));
    return 0;
}
