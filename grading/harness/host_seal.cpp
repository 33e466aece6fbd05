// Sealed host memory (host_seal.h).
#include "host_seal.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "sealed_memory.h"

namespace cudalabs {

namespace {

size_t page_size() {
    static const size_t bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return bytes;
}

// The sealed page ranges, for the SIGSEGV handler: a fixed table it can read without taking a
// lock or allocating (a handler may do neither). Spans beyond its size are sealed all the same;
// only the handler's message would not name them.
constexpr int kMaxNamedRanges = 16;
struct Range {
    uintptr_t first, last;
};
Range g_ranges[kMaxNamedRanges];
volatile sig_atomic_t g_range_count = 0;
struct sigaction g_previous;
bool g_handler_installed = false;

// "\nerror: <kSealedReadMessage>\n", built once: the handler may only write it.
struct SealMessage {
    char text[512];
    size_t length = 0;
    SealMessage() {
        const char* parts[] = {"\nerror: ", kSealedReadMessage, "\n"};
        for (const char* p : parts)
            for (; *p && length < sizeof text; ++p) text[length++] = *p;
    }
};
const SealMessage g_message;

void on_segfault(int sig, siginfo_t* info, void* context) {
    const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
    for (int i = 0; i < g_range_count; ++i)
        if (at >= g_ranges[i].first && at < g_ranges[i].last) {
            (void)!write(2, g_message.text, g_message.length);
            break;
        }
    // Whatever the fault, it is handled as it would have been without the seal.
    sigaction(SIGSEGV, &g_previous, nullptr);
    if (g_previous.sa_flags & SA_SIGINFO && g_previous.sa_sigaction) g_previous.sa_sigaction(sig, info, context);
    else raise(sig);
}

void install_handler() {
    if (g_handler_installed) return;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segfault;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &g_previous) == 0) g_handler_installed = true;
}

void uninstall_handler() {
    g_range_count = 0;
    if (!g_handler_installed) return;
    sigaction(SIGSEGV, &g_previous, nullptr);
    g_handler_installed = false;
}

void protect(HostSeal::Pages pages, int prot) {
    if (pages.empty()) return;
    if (mprotect(reinterpret_cast<void*>(pages.first), pages.last - pages.first, prot) != 0)
        throw std::runtime_error(std::string(kSealFailedMessage) + " (mprotect: " + std::strerror(errno) + ")");
}

}  // namespace

HostSeal::Pages HostSeal::whole_pages(HostSpan span, size_t page_bytes) {
    Pages p;
    if (!span.ptr || span.extent() == 0) return p;
    const uintptr_t lo = reinterpret_cast<uintptr_t>(span.ptr), hi = lo + span.extent();
    p.first = (lo + page_bytes - 1) / page_bytes * page_bytes;
    p.last = hi / page_bytes * page_bytes;
    if (p.first > p.last) p.last = p.first;
    return p;
}

HostSeal::HostSeal(const std::vector<HostSpan>& inputs, const std::vector<HostSpan>& hidden) {
    install_handler();
    try {
        for (const HostSpan& s : inputs) seal(s, true);
        for (const HostSpan& s : hidden) seal(s, false);
    } catch (...) {
        unseal_all();
        throw;
    }
    active() = this;
}

// Spans may share pages (two inputs in one allocation): sealing a page twice, and opening it
// twice, does no harm.
void HostSeal::seal(HostSpan span, bool keep_copy) {
    Sealed s{span, whole_pages(span, page_size()), {}};
    const unsigned char* bytes = static_cast<const unsigned char*>(span.ptr);
    if (keep_copy && bytes) s.copy.assign(bytes, bytes + span.bytes);
    protect(s.pages, PROT_NONE);
    if (!s.pages.empty() && g_range_count < kMaxNamedRanges) {
        g_ranges[g_range_count] = {s.pages.first, s.pages.last};
        g_range_count = g_range_count + 1;
    }
    sealed_.push_back(std::move(s));
}

void HostSeal::unseal_all() {
    if (active() == this) active() = nullptr;
    for (const Sealed& s : sealed_) {
        try {
            protect(s.pages, PROT_READ | PROT_WRITE);
        } catch (const std::exception&) {
            // Nothing better can be done here: the next read of the page stops the program,
            // which the grader reports as a crash.
        }
    }
    sealed_.clear();
    uninstall_handler();
}

HostSeal::~HostSeal() { unseal_all(); }

const void* HostSeal::readable(const void* src, size_t bytes) const {
    const unsigned char* p = static_cast<const unsigned char*>(src);
    for (const Sealed& s : sealed_) {
        if (s.copy.empty()) continue;
        const unsigned char* lo = static_cast<const unsigned char*>(s.span.ptr);
        if (p >= lo && p <= lo + s.span.bytes && bytes <= static_cast<size_t>(lo + s.span.bytes - p))
            return s.copy.data() + (p - lo);
    }
    return src;
}

bool HostSeal::sealed(const void* p, size_t bytes) const {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(p), hi = lo + bytes;
    for (const Sealed& s : sealed_)
        if (!s.pages.empty() && lo < s.pages.last && s.pages.first < hi) return true;
    return false;
}

void HostSeal::probe() {
    const size_t page = page_size();
    void* scratch = nullptr;
    if (posix_memalign(&scratch, page, 2 * page) != 0) throw std::runtime_error(std::string(kSealFailedMessage) + " (no memory to try it on)");
    std::unique_ptr<void, void (*)(void*)> owned(scratch, std::free);
    HostSeal seal({}, {HostSpan{scratch, 2 * page, 0}});
}

HostSeal*& HostSeal::active() {
    static HostSeal* seal = nullptr;
    return seal;
}

}  // namespace cudalabs
