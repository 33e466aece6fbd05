// Lab 05 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in device_malloc.cu. Sizes are NTHREADSxBYTES; `./lab05 <nthreads> <size> [<heap MiB>]` runs
// one such size, like the book's device_malloc_test.
#include <cstdio>
#include <string>
#include <vector>

#include "device_malloc.h"
#include "main.h"
#include "reference.h"

using namespace cudalabs;

namespace {

std::string mib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
    return buf;
}

void size_the_heap(RunContext& ctx, std::ostream& out) {
    const size_t want = heap_for_run(ctx.options.positional, ctx.sizes);
    set_device_heap(want);
    size_t got = 0;
    CUDA_CHECK(cudaDeviceGetLimit(&got, cudaLimitMallocHeapSize));
    out << "Device heap for malloc() in kernels (cudaLimitMallocHeapSize): " << mib(got);
    // The runtime rounds the size it is given up (to its own granularity), so a heap that was
    // set reads back at least as large as asked; only a smaller one means it was not set.
    if (got < want)
        out << " -- asked for " << mib(want) << ": set_device_heap did not set it (see TODO(lab05) "
            << "device), so kernels get the default heap";
    out << "\n\n";
}

// The checksums of one size: what each thread must write, and where it does, poisoned.
struct Sums {
    int n = 0;
    size_t size = 0;
    std::vector<unsigned> expected;
    DeviceBuffer<unsigned> device;

    explicit Sums(const Blocks& b)
        : n(static_cast<int>(b.threads)), size(static_cast<size_t>(b.bytes)), expected(n), device(n) {
        for (int t = 0; t < n; ++t) expected[t] = block_checksum(t, size);
        device.poison();
    }
    void check(RunContext& ctx, Outcome& out) const {
        std::vector<unsigned> got(n);
        device.download(got.data());
        ctx.check(out, got.data(), expected.data(), n, Tolerance{0, 0});
    }
};

// Both variants are timed on the host clock: the host split's time must include its cudaMalloc
// and cudaFree (host calls), and the device variant is timed the same way so that the two compare.
Outcome run_device(const Blocks& b, RunContext& ctx) {
    Sums sums(b);
    const int n = sums.n;
    const size_t size = sums.size;
    DeviceBuffer<void*> dptrs(n);
    dptrs.poison();
    std::vector<uint64_t> ptrs(n);

    Outcome out;
    out.bytes = 2.0 * n * size;  // every block written once and read once
    // No roofline counts: the checksums are integer sums, no FP operation to place it by.
    ctx.run_checked_host(
        out, [&] { device_malloc_roundtrip(dptrs.data(), sums.device.data(), n, size, 0); },
        [&] {
            CUDA_CHECK(cudaMemcpy(ptrs.data(), dptrs.data(), n * sizeof(void*), cudaMemcpyDeviceToHost));
            sums.check(ctx, out);
            if (out.check.never_written()) return;
            const PointerSummary s = summarize_pointers(ptrs.data(), n);
            size_t heap = 0;
            CUDA_CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
            if (s.nulls)
                out.failure = "device heap exhausted: " + std::to_string(s.nulls) + " of " + std::to_string(n) +
                              " threads got NULL from malloc(" + std::to_string(size) + ") with a heap of " +
                              mib(static_cast<double>(heap)) + " for " + mib(static_cast<double>(n) * size) +
                              " of blocks: make the heap larger (set_device_heap, or the third argument in MiB)";
            else if (s.distinct != static_cast<size_t>(n) && out.check.unwritten == 0)
                out.failure = "only " + std::to_string(s.distinct) + " distinct pointers for " + std::to_string(n) +
                              " threads: each thread must malloc its own block";
        });
    if (!out.check.never_written())
        out.note = describe_pointers(ptrs.data(), n) + "; time: malloc+fill kernel, checksum+free kernel";
    return out;
}

Outcome run_host(const Blocks& b, RunContext& ctx) {
    Sums sums(b);
    Outcome out;
    out.bytes = 2.0 * sums.n * sums.size;  // every block written once and read once
    ctx.run_checked_host(
        out, [&] { host_split_roundtrip(sums.device.data(), sums.n, sums.size, 0); },
        [&] { sums.check(ctx, out); });
    out.note = "one cudaMalloc of " + mib(static_cast<double>(sums.n) * sums.size) +
               "; time: cudaMalloc, fill, checksum, cudaFree";
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<Blocks> lab = declare_lab<Blocks>(
        "malloc and free in kernels: every thread allocates, fills, reads back and frees its own block, "
        "against one host-side cudaMalloc split among the threads",
        // checked by default: one thread of one byte, the book's 8 x 24, primes and odd sizes, several blocks
        // of threads, and 16 MiB of blocks, twice what the default 8 MB heap holds. (100000x1000, 95 MiB, makes
        // the same point but takes 2 s a repetition on an H100: run it with `./lab05 100000 1000`.)
        {{{1, 1}, {8, 24}, {97, 13}, {1000, 100}, {65537, 64}, {32768, 512}},
         // --bench
         {{262144, 64}, {16384, 4096}},
         // --quick
         {{1, 1}, {8, 24}, {97, 13}, {300, 100}}},
        "NTHREADSxBYTES: threads (1 to 2147483647) and the block each allocates (1 to 16777216 bytes); or "
        "give them as <nthreads> <size>");
    lab.positional_help = "[<nthreads> <size> [<heap MiB>]]";
    // Blocks of bytes, summed into unsigned checksums: no floating point anywhere.
    lab.variants = {
        {"device", "device_malloc_roundtrip: malloc + fill kernel, then checksum + free kernel", run_device, false, "",
         "unsigned"},
        {"host", "host_split_roundtrip: one cudaMalloc split among the threads, same kernels", run_host, false, "",
         "unsigned"},
    };
    // What device-side allocation costs, at every size.
    lab.contrasts = {{"host", "device", "One cudaMalloc split among the threads, against malloc/free in kernels"}};
    // `./lab05 <nthreads> <size> [<heap MiB>]` is `./lab05 --size NTHREADSxBYTES`, plus the heap.
    lab.size_from_positional = blocks_from_arguments;
    lab.device_bytes = [](const Blocks& b, const Options& opt) {
        return static_cast<double>(b.threads) * (sizeof(void*) + sizeof(unsigned) + b.bytes) +
               static_cast<double>(heap_for_run(opt.positional, {Dims{b.threads, b.bytes}}));
    };
    lab.prologue = size_the_heap;
    return run_lab(lab, argc, argv);
}
