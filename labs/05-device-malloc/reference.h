// Lab 05's fill pattern, CPU reference, sizes, heap estimate and pointer summary. Host-only for
// the unit tests (g++); the fill pattern is also compiled for the device (device_malloc.h uses it).
#pragma once
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "shape.h"

#ifdef __CUDACC__
#define LAB05_HOST_DEVICE __host__ __device__
#else
#define LAB05_HOST_DEVICE
#endif

// Byte j of thread t's block. Never 0, so a checksum of 0 can only mean "no block".
LAB05_HOST_DEVICE inline unsigned char fill_byte(unsigned thread, size_t j) {
    return static_cast<unsigned char>(1u + (thread * 7u + static_cast<unsigned>(j) * 13u) % 255u);
}

// What thread t's checksum must be: the sum of its `size` bytes (size <= 16 MiB keeps it below
// 2^32 - 1, the poison value).
inline unsigned block_checksum(unsigned thread, size_t size) {
    unsigned sum = 0;
    for (size_t j = 0; j < size; ++j) sum += fill_byte(thread, j);
    return sum;
}

constexpr long long kMaxBlockBytes = 16LL << 20;

// A device heap big enough for `nthreads` live blocks of `size` bytes: the allocator rounds
// each block up and keeps a header beside it, and fragments, so allow twice the rounded size,
// plus 16 MiB of slack.
inline size_t heap_estimate(size_t nthreads, size_t size) {
    const size_t rounded = (size + 64 + 127) / 128 * 128;
    return 2 * nthreads * rounded + (size_t(16) << 20);
}

// A size of the lab: NTHREADSxBYTES, `threads` threads that each allocate a block of `bytes`.
// parse throws UsageError for other shapes, more threads than an int holds, or a block whose
// checksum could overflow.
struct Blocks {
    long long threads = 0, bytes = 0;
    static Blocks parse(const cudalabs::Dims& d);
};

inline Blocks Blocks::parse(const cudalabs::Dims& d) {
    cudalabs::require_extents(d, 2, 2, "NTHREADSxBYTES (for example 8x24)");
    cudalabs::require_at_most({d[0]}, INT_MAX, "at most 2147483647 threads");
    if (d[1] > kMaxBlockBytes)
        throw cudalabs::UsageError("size '" + cudalabs::format_dims(d) +
                                   "': a block may be at most 16777216 bytes (16 MiB) so that its "
                                   "checksum fits in 32 bits");
    return {d[0], d[1]};
}

// The device heap the optional third argument asks for (`<nthreads> <size> [<heap MiB>]`), in
// bytes; 0 when it is not there. Throws UsageError for a value that is not 1 to 1048576.
inline size_t heap_argument_bytes(const std::vector<std::string>& args) {
    if (args.size() != 3) return 0;
    return static_cast<size_t>(cudalabs::parse_positive(args[2], "<heap MiB>", 1 << 20)) << 20;
}

// `<nthreads> <size> [<heap MiB>]`, the book's device_malloc_test command line: the size it
// stands for, NTHREADSxBYTES. Throws UsageError.
inline cudalabs::Dims blocks_from_arguments(const std::vector<std::string>& args) {
    if (args.size() < 2 || args.size() > 3)
        throw cudalabs::UsageError("expected <nthreads> <size> [<heap MiB>], got " + std::to_string(args.size()) +
                                   " argument(s)");
    const long long n = cudalabs::parse_positive(args[0], "<nthreads>", INT_MAX);
    const long long size = cudalabs::parse_positive(args[1], "<size> (bytes per thread)", kMaxBlockBytes);
    heap_argument_bytes(args);  // refused here, before anything runs
    return {n, size};
}

// The heap a run sets: what the third argument asks for, else room for its largest size.
inline size_t heap_for_run(const std::vector<std::string>& args, const std::vector<cudalabs::Dims>& sizes) {
    if (const size_t asked = heap_argument_bytes(args)) return asked;
    size_t heap = 0;
    for (const cudalabs::Dims& d : sizes) heap = std::max(heap, heap_estimate(d[0], d[1]));
    return heap;
}

// A readable summary of the pointers the threads got: how many were NULL, how many distinct,
// their range, and the most common distance between neighbours in address order.
struct PointerSummary {
    size_t count = 0, nulls = 0, distinct = 0;
    uint64_t lowest = 0, highest = 0, common_step = 0;
};

inline PointerSummary summarize_pointers(const uint64_t* ptrs, size_t n) {
    PointerSummary s;
    s.count = n;
    std::vector<uint64_t> live;
    for (size_t i = 0; i < n; ++i) {
        if (ptrs[i] == 0) ++s.nulls;
        else live.push_back(ptrs[i]);
    }
    std::sort(live.begin(), live.end());
    live.erase(std::unique(live.begin(), live.end()), live.end());
    s.distinct = live.size();
    if (live.empty()) return s;
    s.lowest = live.front();
    s.highest = live.back();
    std::map<uint64_t, size_t> steps;
    for (size_t i = 1; i < live.size(); ++i) ++steps[live[i] - live[i - 1]];
    size_t best = 0;
    for (const auto& [step, times] : steps)
        if (times > best) { best = times; s.common_step = step; }
    return s;
}

// "8 blocks: 8 distinct, 0x7f00..0x7f01, most 80 B apart"; the first few pointers by thread
// when there are at most `list_up_to`, like the book's "Thread 0 got pointer: ..." lines.
inline std::string describe_pointers(const uint64_t* ptrs, size_t n, size_t list_up_to = 4) {
    PointerSummary s = summarize_pointers(ptrs, n);
    char buf[160];
    std::string text;
    if (n <= list_up_to) {
        for (size_t i = 0; i < n; ++i) {
            std::snprintf(buf, sizeof buf, "%sthread %zu: 0x%llx", i ? ", " : "", i,
                          static_cast<unsigned long long>(ptrs[i]));
            text += buf;
        }
        return text.empty() ? "no threads" : text;
    }
    std::snprintf(buf, sizeof buf, "%zu blocks: %zu distinct, %zu NULL", s.count, s.distinct, s.nulls);
    text = buf;
    if (s.distinct) {
        std::snprintf(buf, sizeof buf, ", 0x%llx..0x%llx", static_cast<unsigned long long>(s.lowest),
                      static_cast<unsigned long long>(s.highest));
        text += buf;
    }
    if (s.distinct > 1) {
        std::snprintf(buf, sizeof buf, ", most %llu B apart", static_cast<unsigned long long>(s.common_step));
        text += buf;
    }
    return text;
}
