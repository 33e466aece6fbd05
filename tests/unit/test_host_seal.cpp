// Sealed host memory (grading/harness/host_seal.h): while a graded call runs, its inputs and the
// driver's hidden data cannot be read by the CPU, and the copies the shims make read the seal's
// own copy of the inputs instead.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "common/host_array.h"
#include "grading/harness/host_seal.h"
#include "grading/protocol/sealed_memory.h"

using namespace cudalabs;

namespace {

// Runs `touch` in a child process whose SIGSEGV does what it does by default (not the test
// framework's report): how it ended, and what it wrote on stderr.
struct ChildEnd {
    int signal = 0;  // 0: it exited
    std::string err;
};
template <class F>
ChildEnd in_child(F&& touch) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        dup2(fds[1], 2);
        touch();
        _exit(0);
    }
    close(fds[1]);
    ChildEnd end;
    char buf[512];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) end.err.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) end.signal = WTERMSIG(status);
    return end;
}

}  // namespace

TEST_CASE("a seal covers the whole pages a span owns, no page it shares") {
    const size_t page = 4096;
    auto pages = [&](uintptr_t at, size_t bytes, size_t owned = 0) {
        return HostSeal::whole_pages({reinterpret_cast<const void*>(at), bytes, owned}, page);
    };
    HostSeal::Pages p = pages(8 * page, 3 * page);
    CHECK(p.first == 8 * page);
    CHECK(p.last == 11 * page);
    p = pages(8 * page, 2 * page + 100);  // the last page is shared with whatever follows
    CHECK(p.last == 10 * page);
    p = pages(8 * page, 2 * page + 100, 3 * page);  // ... unless the span owns it (a HostArray)
    CHECK(p.last == 11 * page);
    p = pages(8 * page + 8, 2 * page);  // the first page is shared with what comes before
    CHECK(p.first == 9 * page);
    CHECK(p.last == 10 * page);
    CHECK(pages(8 * page + 8, 100).empty());
    CHECK(pages(0, 0).empty());
}

TEST_CASE("while sealed, the CPU cannot read an input or hidden data; copies read the seal's copy") {
    HostArray<float> input(3000), hidden(10);
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i);
    hidden[0] = 42;
    {
        HostSeal seal({input.span()}, {hidden.span()});
        CHECK(HostSeal::active() == &seal);
        CHECK(seal.sealed(input.data() + 5, 4));
        CHECK(seal.sealed(hidden.data(), 4));
        // The shims' source for a copy of the input: the same bytes, elsewhere.
        const float* from = static_cast<const float*>(seal.readable(input.data() + 100, 50 * sizeof(float)));
        CHECK(from != input.data() + 100);
        CHECK(from[0] == 100.0f);
        CHECK(from[49] == 149.0f);
        // Hidden data is never handed out; memory outside the seal is its own source.
        CHECK(seal.readable(hidden.data(), 4) == hidden.data());
        float other = 0;
        CHECK(seal.readable(&other, sizeof other) == &other);
        CHECK_FALSE(seal.sealed(&other, sizeof other));
    }
    CHECK(HostSeal::active() == nullptr);
    CHECK(input[2999] == 2999.0f);  // readable again, unchanged
    CHECK(hidden[0] == 42.0f);
    // Each read in a child of its own, which seals the arrays as the harness does.
    for (const float* p : {input.data() + 2999, hidden.data()}) {
        ChildEnd end = in_child([&] {
            HostSeal seal({input.span()}, {hidden.span()});
            volatile float x = *p;
            (void)x;
        });
        CHECK(end.signal == SIGSEGV);
        CHECK(end.err.find("the CPU read host memory that only the GPU may read") != std::string::npos);
    }
    // A fault elsewhere is the program's own: no word of the seal.
    ChildEnd end = in_child([&] {
        HostSeal seal({input.span()}, {hidden.span()});
        volatile int* nowhere = nullptr;
        (void)*nowhere;
    });
    CHECK(end.signal == SIGSEGV);
    CHECK(end.err.empty());
}

TEST_CASE("a seal the system refuses throws the harness's own sentence, and leaves nothing sealed") {
    HostSeal::probe();  // here, sealing works
    CHECK(HostSeal::active() == nullptr);
    // mprotect refuses pages that are not mapped (ENOMEM): memory given back before it is sealed.
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* gone = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(gone != MAP_FAILED);
    REQUIRE(munmap(gone, 3 * page) == 0);
    HostArray<float> input(3000);
    std::string what;
    try {
        HostSeal seal({input.span()}, {HostSpan{gone, 2 * page, 2 * page}});
    } catch (const std::runtime_error& e) {
        what = e.what();
    }
    CHECK(what.rfind(cudalabs::kSealFailedMessage, 0) == 0);
    CHECK(what.find("mprotect") != std::string::npos);
    CHECK(HostSeal::active() == nullptr);
    input[2999] = 1.0f;  // the input sealed before the refusal is open again
    CHECK(input[2999] == 1.0f);
}
