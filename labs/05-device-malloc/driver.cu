// Lab 05 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in device_malloc.cu. Sizes are NTHREADSxBYTES; `./lab05 <nthreads> <size> [<heap MiB>]` runs
// one such size, like the book's device_malloc_test.
#include <climits>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "device_malloc.h"
#include "main.h"
#include "reference.h"

using namespace cudalabs;

namespace {

long long g_heap_mib = 0;  // from the optional third argument; 0: sized from the problem sizes

std::string mib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
    return buf;
}

std::vector<Dims> sizes_of_run(const Options& opt, const Lab& lab) {
    return !opt.sizes.empty() ? opt.sizes : opt.bench ? lab.bench_sizes : opt.quick ? lab.quick_sizes
                                                                                 : lab.check_sizes;
}

size_t heap_for(const std::vector<Dims>& sizes) {
    if (g_heap_mib) return static_cast<size_t>(g_heap_mib) << 20;
    size_t heap = 0;
    for (const Dims& d : sizes) heap = std::max(heap, heap_estimate(d[0], d[1]));
    return heap;
}

Lab* g_lab = nullptr;

void size_the_heap(RunContext& ctx, std::ostream& out) {
    const size_t want = heap_for(sizes_of_run(ctx.options, *g_lab));
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

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const int n = static_cast<int>(dims[0]);
    const size_t size = static_cast<size_t>(dims[1]);
    std::vector<unsigned> sums(n), expected(n);
    for (int t = 0; t < n; ++t) expected[t] = block_checksum(t, size);
    DeviceBuffer<unsigned> dsums(n);
    dsums.poison();

    Outcome out;
    out.bytes = 2.0 * n * size;  // every block written once and read once
    if (variant == "host") {
        host_split_roundtrip(dsums.data(), n, size, 0);
        CUDA_CHECK(cudaDeviceSynchronize());
        dsums.download(sums.data());
        ctx.check(out, sums.data(), expected.data(), n, Tolerance{0, 0});
        if (out.check.ok())
            out.time_ms = ctx.time_host([&] { host_split_roundtrip(dsums.data(), n, size, 0); });
        out.note = "one cudaMalloc of " + mib(static_cast<double>(n) * size) +
                   "; time: cudaMalloc, fill, checksum, cudaFree";
        return out;
    }

    DeviceBuffer<void*> dptrs(n);
    dptrs.poison();
    device_malloc_roundtrip(dptrs.data(), dsums.data(), n, size, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<uint64_t> ptrs(n);
    CUDA_CHECK(cudaMemcpy(ptrs.data(), dptrs.data(), n * sizeof(void*), cudaMemcpyDeviceToHost));
    dsums.download(sums.data());
    ctx.check(out, sums.data(), expected.data(), n, Tolerance{0, 0});

    const PointerSummary s = summarize_pointers(ptrs.data(), n);
    if (!out.check.never_written()) {
        size_t heap = 0;
        CUDA_CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
        if (s.nulls)
            out.failure = "device heap exhausted: " + std::to_string(s.nulls) + " of " +
                          std::to_string(n) + " threads got NULL from malloc(" + std::to_string(size) +
                          ") with a heap of " + mib(static_cast<double>(heap)) + " for " +
                          mib(static_cast<double>(n) * size) + " of blocks: make the heap larger " +
                          "(set_device_heap, or the third argument in MiB)";
        else if (s.distinct != static_cast<size_t>(n) && out.check.unwritten == 0)
            out.failure = "only " + std::to_string(s.distinct) + " distinct pointers for " +
                          std::to_string(n) + " threads: each thread must malloc its own block";
    }
    if (out.check.ok() && out.failure.empty())
        out.time_ms = ctx.time_host([&] { device_malloc_roundtrip(dptrs.data(), dsums.data(), n, size, 0); });
    if (!out.check.never_written())
        out.note = describe_pointers(ptrs.data(), n) + "; time: malloc+fill kernel, checksum+free kernel";
    return out;
}

// What device-side allocation costs: device time / host-split time at each size.
void compare_allocations(const Report& report, std::ostream& out) {
    std::map<std::string, std::map<std::string, double>> ms;
    for (const Row& r : report.rows)
        if (r.status == Status::Pass && r.time_ms > 0) ms[r.size][r.variant] = r.time_ms;
    bool header = false;
    for (const Row& r : report.rows) {
        auto& t = ms[r.size];
        if (r.variant != "host" || !t.count("device") || !t.count("host")) continue;
        if (!header) {
            out << "\nmalloc/free in kernels against one cudaMalloc split among the threads:\n";
            header = true;
        }
        out << "  " << r.size << ": device " << format_number(t["device"], 3) << " ms, host split "
            << format_number(t["host"], 3) << " ms -- " << format_number(t["device"] / t["host"], 1)
            << "x\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    g_lab = &lab;
    lab.number = "05";
    lab.name = "05-device-malloc";
    lab.title = "malloc and free in kernels: every thread allocates, fills, reads back and frees its "
                "own block, against one host-side cudaMalloc split among the threads";
    lab.size_help = "NTHREADSxBYTES: threads (1 to 2147483647) and the block each allocates "
                    "(1 to 16777216 bytes); or give them as <nthreads> <size>";
    lab.positional_help = "[<nthreads> <size> [<heap MiB>]]";
    lab.variants = {
        {"device", "device_malloc_roundtrip: malloc + fill kernel, then checksum + free kernel"},
        {"host", "host_split_roundtrip: one cudaMalloc split among the threads, same kernels"},
    };
    // One thread of one byte, the book's 8 x 24, primes and odd sizes, several blocks of threads,
    // and 16 MiB of blocks, twice what the default 8 MB heap holds. (100000x1000, 95 MiB, makes
    // the same point but takes 2 s a repetition on an H100: run it with `./lab05 100000 1000`.)
    lab.check_sizes = {{1, 1}, {8, 24}, {97, 13}, {1000, 100}, {65537, 64}, {32768, 512}};
    lab.bench_sizes = {{262144, 64}, {16384, 4096}};
    lab.quick_sizes = {{1, 1}, {8, 24}, {97, 13}, {300, 100}};
    lab.check_dims = [](const Dims& d) {
        require_extents(d, 2, 2, "NTHREADSxBYTES (for example 8x24)");
        require_at_most({d[0]}, INT_MAX, "at most 2147483647 threads");
        if (d[1] > kMaxBlockBytes)
            throw UsageError("size '" + format_dims(d) + "': a block may be at most 16777216 bytes "
                             "(16 MiB) so that its checksum fits in 32 bits");
    };
    lab.device_bytes = [](const Dims& d) {
        return static_cast<double>(d[0]) * (sizeof(void*) + sizeof(unsigned) + d[1]) +
               static_cast<double>(g_heap_mib ? (g_heap_mib << 20) : heap_estimate(d[0], d[1]));
    };
    lab.configure = [](const Options& opt) {
        if (opt.positional.size() == 3) g_heap_mib = parse_positive(opt.positional[2], "<heap MiB>", 1 << 20);
    };
    lab.prologue = size_the_heap;
    lab.epilogue = compare_allocations;
    lab.run = run_case;

    // `./lab05 <nthreads> <size> [<heap MiB>]` is `./lab05 --size NTHREADSxBYTES`, plus the heap.
    std::vector<std::string> extra;
    try {
        Options opt = parse_args(argc, argv);
        const auto& pos = opt.positional;
        if (!opt.help && !opt.list && !pos.empty()) {
            if (pos.size() < 2 || pos.size() > 3)
                throw UsageError("expected <nthreads> <size> [<heap MiB>], got " +
                                 std::to_string(pos.size()) + " argument(s)");
            if (!opt.sizes.empty() || opt.bench || opt.quick)
                throw UsageError("<nthreads> <size> cannot be combined with --size, --bench or --quick");
            const long long n = parse_positive(pos[0], "<nthreads>", INT_MAX);
            const long long size = parse_positive(pos[1], "<size> (bytes per thread)", kMaxBlockBytes);
            if (pos.size() == 3) parse_positive(pos[2], "<heap MiB>", 1 << 20);
            extra = {"--size", std::to_string(n) + "x" + std::to_string(size)};
        }
    } catch (const UsageError& e) {
        std::string program = argc > 0 ? argv[0] : "lab05";
        program = program.substr(program.rfind('/') + 1);
        std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
        return kExitUsage;
    } catch (const std::exception&) {
        // Anything else: let run_lab parse the command line and report it the usual way.
    }
    std::vector<char*> args(argv, argv + argc);
    for (std::string& s : extra) args.push_back(s.data());
    args.push_back(nullptr);
    return run_lab(lab, static_cast<int>(args.size()) - 1, args.data());
}
