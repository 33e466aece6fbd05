// Sealed host memory: while a graded call that works on host arrays runs (a host round trip, a
// mapped or streamed transfer), the pages of its inputs, and of the driver's data the call has no
// business reading (the expected results), are unreadable to the CPU (mprotect PROT_NONE). The
// GPU still reads them: pinned memory by DMA, and the copies the call asks for from pageable
// memory are made by the grading shims from the seal's own copy of the bytes (readable()), never
// from the sealed pages. A result computed on the CPU then has nothing to be computed from, so
// kernel arguments, memset values or a CPU loop over mapped memory have nothing to carry.
//
// Only whole pages inside a span can be sealed: a span whose memory is the driver's page-aligned
// HostArray (host_array.h) is sealed whole; one the student allocated (lab 06's pinned and mapped
// buffers) keeps readable the part of its first and last page that it shares with other memory.
// A CPU read of a sealed page stops the program with SIGSEGV; the handler says why on stderr.
//
// Part of the grader's harness (grading/harness/). Host-only (unit-tested with g++).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "host_span.h"

namespace cudalabs {

class HostSeal {
public:
    // Seals `inputs` (handed to the GPU through readable()) and `hidden` (never handed out).
    HostSeal(const std::vector<HostSpan>& inputs, const std::vector<HostSpan>& hidden);
    ~HostSeal();  // the pages readable and writable again
    HostSeal(const HostSeal&) = delete;
    HostSeal& operator=(const HostSeal&) = delete;

    // Where the shims copy `bytes` from, for a copy to the device the program asked to make from
    // `src`: the seal's copy of the same bytes when [src, src + bytes) lies in a sealed input,
    // else `src`. (A copy into host memory must not be given it: grading_shims.cu.)
    const void* readable(const void* src, size_t bytes) const;
    // Whether any byte of [p, p + bytes) is on a sealed page.
    bool sealed(const void* p, size_t bytes) const;

    // Seals two pages of scratch memory and opens them again: throws std::runtime_error (its text
    // begins with kSealFailedMessage, sealed_memory.h) where this process may not seal memory.
    static void probe();

    // The seal of the call under way, for the shims: nullptr when none.
    static HostSeal*& active();

    // The pages [first, last) that a span may seal: those wholly inside the memory it owns
    // (HostSpan::owned_bytes), page_bytes apart.
    struct Pages {
        uintptr_t first = 0, last = 0;
        bool empty() const { return first >= last; }
    };
    static Pages whole_pages(HostSpan span, size_t page_bytes);

private:
    struct Sealed {
        HostSpan span;
        Pages pages;
        std::vector<unsigned char> copy;  // the input's bytes when sealed (empty for hidden data)
    };
    void seal(HostSpan span, bool keep_copy);
    void unseal_all();
    std::vector<Sealed> sealed_;
};

}  // namespace cudalabs
