// Lab 06 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in transfers.cu. Sizes are N, the number of floats that travel each way.
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "main.h"
#include "reference.h"
#include "transfers.h"

using namespace cudalabs;

namespace {

double wall_ms(const std::function<void()>& work) {
    auto t0 = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool is_page_locked(const void* p) {
    cudaPointerAttributes attr{};
    CUDA_CHECK(cudaPointerGetAttributes(&attr, p));
    return attr.type == cudaMemoryTypeHost;
}

std::string gbs_text(double bytes, double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", bytes / (ms * 1e6));
    return buf;
}

// One-way rates of plain cudaMemcpy from and to `host`: the sweep the bar chart is about.
std::string one_way_rates(RunContext& ctx, float* host, float* dev, size_t n) {
    if (!ctx.timed()) return "one way: not timed";
    const size_t bytes = n * sizeof(float);
    double h2d = ctx.time_host([&] { CUDA_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)); });
    double d2h = ctx.time_host([&] { CUDA_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost)); });
    return "one way: H2D " + gbs_text(bytes, h2d) + ", D2H " + gbs_text(bytes, d2h) + " GB/s";
}

struct FreeDeleter { void operator()(float* p) const { std::free(p); } };

const Tolerance kTolerance = Tolerance::elementwise(kFloatRoundoff);

// One size's round trip: the input, what must come back, and the device buffer it goes through.
// The input as made and the expected values have pages of their own (host_array.h): the grader
// keeps them, and the input the call is given, from the CPU while the call runs.
struct Trip {
    size_t n = 0;
    HostArray<float> x, expected;
    DeviceBuffer<float> dbuf;

    Trip(const Length& len, RunContext& ctx) : n(static_cast<size_t>(len.n)), x(n), expected(n), dbuf(n) {
        fill_uniform(x.data(), n, ctx.seed(), 1);
        transform_reference(x.data(), expected.data(), n);
    }
    Outcome outcome() const {
        Outcome out;
        out.bytes = 2.0 * sizeof(float) * n;  // n floats over the bus each way
        // No roofline counts: the time is a round trip over the bus, which the device memory's
        // ceilings do not bound.
        return out;
    }
    // Runs `roundtrip` from `input` into `result` (poisoned beforehand), checks it, and times the
    // whole trip on the host clock: the copies are part of what is measured.
    void run(RunContext& ctx, Outcome& out, HostSpan input, const float* result, const std::function<void()>& roundtrip) const {
        ctx.run_host_call(out, {input}, input_at(result), roundtrip,
                          [&] { ctx.check(out, result, expected.data(), n, kTolerance); }, hidden());
    }
    // The same for roundtrip_sync, whose copies are the lesson: when graded, what lands in
    // `result` must be what its cudaMemcpy brought back, and only `input` may go to the device
    // (RunContext::run_round_trip).
    void run_sync(RunContext& ctx, Outcome& out, HostSpan input, const float* result,
                  const std::function<void()>& roundtrip) const {
        ctx.run_round_trip(out, {input}, {result, input.bytes}, roundtrip,
                           [&] { ctx.check(out, result, expected.data(), n, kTolerance); }, hidden());
    }
    // Pinned memory is allocated for whole pages (`padded` floats): where it starts on a page, as
    // the runtime's allocations do, those pages are the array's own, and can be kept from the CPU
    // however small the array.
    size_t padded() const {
        const size_t page_floats = static_cast<size_t>(sysconf(_SC_PAGESIZE)) / sizeof(float);
        return (n + page_floats - 1) / page_floats * page_floats;
    }
    // The input at `p`: memory the variant allocated (padded() floats, or `owned_bytes` known to
    // be its own), or the harness's pinned buffer.
    HostSpan input_at(const float* p, size_t owned_bytes = 0) const {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        if (!owned_bytes && reinterpret_cast<uintptr_t>(p) % page == 0) owned_bytes = padded() * sizeof(float);
        return {p, n * sizeof(float), owned_bytes};
    }
    std::vector<HostSpan> hidden() const { return {x.span(), expected.span()}; }
};

Outcome run_pageable(const Length& len, RunContext& ctx) {
    const Trip t(len, ctx);
    std::vector<float> y(t.n);
    poison_fill(y.data(), t.n);
    Outcome out = t.outcome();
    t.run_sync(ctx, out, t.x.span(), y.data(), [&] { roundtrip_sync(t.x.data(), y.data(), t.dbuf.data(), t.n); });
    if (out.check.ok()) out.note = "malloc'd memory; " + one_way_rates(ctx, y.data(), t.dbuf.data(), t.n);
    return out;
}

Outcome run_pinned(const Length& len, RunContext& ctx) {
    const Trip t(len, ctx);
    Outcome out = t.outcome();
    float *in = nullptr, *res = nullptr;
    const double ms = wall_ms([&] { in = alloc_pinned(t.padded()); res = alloc_pinned(t.padded()); });
    if (!in || !res || !is_page_locked(in) || !is_page_locked(res)) {
        out.failure = "alloc_pinned did not return page-locked (cudaMallocHost) memory";
        if (in) free_pinned(in);
        if (res) free_pinned(res);
        return out;
    }
    std::memcpy(in, t.x.data(), t.n * sizeof(float));
    poison_fill(res, t.n);
    t.run_sync(ctx, out, t.input_at(in), res, [&] { roundtrip_sync(in, res, t.dbuf.data(), t.n); });
    if (out.check.ok())
        out.note = "cudaMallocHost of both buffers took " + format_number(ms, 2) + " ms; " +
                   one_way_rates(ctx, res, t.dbuf.data(), t.n);
    free_pinned(in);
    free_pinned(res);
    return out;
}

Outcome run_registered(const Length& len, RunContext& ctx) {
    const Trip t(len, ctx);
    Outcome out = t.outcome();
    // Page-aligned malloc'd memory, pinned after the fact.
    const size_t bytes = (t.n * sizeof(float) + 4095) / 4096 * 4096;
    std::unique_ptr<float, FreeDeleter> in(static_cast<float*>(std::aligned_alloc(4096, bytes))),
        res(static_cast<float*>(std::aligned_alloc(4096, bytes)));
    if (!in || !res) throw std::bad_alloc();
    // Pinned first, filled after: the variant's own code never runs while the input is readable.
    const double ms = wall_ms([&] { register_host(in.get(), t.n); register_host(res.get(), t.n); });
    std::memcpy(in.get(), t.x.data(), t.n * sizeof(float));
    poison_fill(res.get(), t.n);
    if (!is_page_locked(in.get()) || !is_page_locked(res.get())) {
        out.failure = "the buffers are not page-locked after register_host: call cudaHostRegister";
        return out;
    }
    t.run_sync(ctx, out, t.input_at(in.get(), bytes), res.get(),
               [&] { roundtrip_sync(in.get(), res.get(), t.dbuf.data(), t.n); });
    if (out.check.ok())
        out.note = "cudaHostRegister of both buffers took " + format_number(ms, 2) + " ms; " +
                   one_way_rates(ctx, res.get(), t.dbuf.data(), t.n);
    unregister_host(in.get());
    unregister_host(res.get());
    if (is_page_locked(in.get()) && out.failure.empty())
        out.failure = "the buffers are still page-locked: unregister_host must call cudaHostUnregister";
    return out;
}

Outcome run_mapped(const Length& len, RunContext& ctx) {
    const Trip t(len, ctx);
    Outcome out = t.outcome();
    float *in_alias = nullptr, *out_alias = nullptr;
    float* in = alloc_mapped(t.padded(), &in_alias);
    float* res = alloc_mapped(t.padded(), &out_alias);
    if (!in || !res || !in_alias || !out_alias) {
        out.failure = "alloc_mapped did not return mapped memory and its device alias";
        if (in) free_pinned(in);
        if (res) free_pinned(res);
        return out;
    }
    std::memcpy(in, t.x.data(), t.n * sizeof(float));
    poison_fill(res, t.n);
    t.run(ctx, out, t.input_at(in), res, [&] { roundtrip_mapped(in_alias, out_alias, t.n); });
    out.note = "zero-copy: the kernel reads and writes host memory across the bus";
    free_pinned(in);
    free_pinned(res);
    return out;
}

// A non-blocking stream, destroyed with the case (an exception included).
struct Stream {
    cudaStream_t stream = nullptr;
    Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(stream); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
};

using StreamedTrip = void (*)(const float* h_in, float* h_out, float* d_buf, size_t n, const cudaStream_t streams[2]);

// A round trip on streams (async and overlap): pinned buffers from the harness, two streams from
// the driver; the trip ends when both streams are done.
Outcome run_on_streams(const Length& len, RunContext& ctx, StreamedTrip trip, const char* note) {
    const Trip t(len, ctx);
    PinnedBuffer<float> in(t.padded()), res(t.padded());
    std::memcpy(in.data(), t.x.data(), t.n * sizeof(float));
    poison_fill(res.data(), t.n);
    const Stream first, second;
    const cudaStream_t streams[2] = {first.stream, second.stream};
    Outcome out = t.outcome();
    t.run(ctx, out, t.input_at(in.data()), res.data(), [&] {
        trip(in.data(), res.data(), t.dbuf.data(), t.n, streams);
        CUDA_CHECK(cudaStreamSynchronize(streams[0]));
        CUDA_CHECK(cudaStreamSynchronize(streams[1]));
    });
    out.note = note;
    return out;
}

Outcome run_async(const Length& len, RunContext& ctx) {
    return run_on_streams(
        len, ctx,
        [](const float* h_in, float* h_out, float* d_buf, size_t n, const cudaStream_t streams[2]) {
            roundtrip_async(h_in, h_out, d_buf, n, streams[0]);
        },
        "cudaMemcpyAsync on one stream: returns at once, no overlap");
}

Outcome run_overlap(const Length& len, RunContext& ctx) {
    return run_on_streams(len, ctx, roundtrip_overlap,
                          "chunks on two streams: copies in, kernels and copies out overlap");
}

double host_ram_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<double>(pages) * page : 0;
}

// The bar chart of the round-trip rates, one group per size.
void bar_chart(const Report& report, std::ostream& out) {
    double top = 0;
    for (const Row& r : report.rows)
        if (r.gbs() > top) top = r.gbs();
    if (top <= 0) return;
    out << "\nRound-trip rate, GB/s (n floats in + n floats out, over the time of the whole trip):\n";
    std::string size;
    for (const Row& r : report.rows) {
        if (r.size != size) {
            size = r.size;
            out << "  N = " << size << " floats (" << format_number(std::stod(size) * 4 / 1048576.0, 2)
                << " MiB each way)\n";
        }
        char label[32];
        std::snprintf(label, sizeof label, "    %-10s |", r.variant.c_str());
        out << label << bar(r.gbs(), top, 40) << "| " << (r.gbs() > 0 ? format_number(r.gbs(), 1) : "-") << "\n";
    }
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<Length> lab = declare_lab<Length>(
        "host<->device transfers: pageable, pinned, registered, mapped memory, async and overlapped copies "
        "(ratio: to the pinned round trip; device copy speed says nothing about the bus)",
        // checked by default
        {{{1}, {7}, {1000}, {65537}, {1 << 20}, {(1 << 22) + 3}},
         // --bench: a sweep from 4 KiB to 256 MiB each way.
         {{1024}, {16384}, {262144}, {4194304}, {67108864}},
         // --quick
         {{1}, {7}, {1000}, {300007}}},
        "N = number of floats that travel each way (1 to 2147483647, and the host must have RAM for five "
        "arrays of N floats)");
    lab.variants = {
        {"pinned", "roundtrip_sync on cudaMallocHost memory", run_pinned, true},
        {"pageable", "roundtrip_sync on malloc'd memory: cudaMemcpy, kernel, cudaMemcpy", run_pageable},
        {"registered", "roundtrip_sync on malloc'd memory pinned with cudaHostRegister", run_registered},
        {"mapped", "roundtrip_mapped: zero-copy, the kernel works on mapped host memory", run_mapped},
        {"async", "roundtrip_async: cudaMemcpyAsync + kernel on one stream, pinned memory", run_async},
        {"overlap", "roundtrip_overlap: chunks on two streams, copies overlap kernels", run_overlap},
    };
    lab.ratio_to = "the pinned cudaMemcpy round trip at the same size";
    lab.bench_targets = {{"overlap", "67108864", 1.3, "pinned"}};
    // Pinned memory must beat pageable memory once transfers are large enough to measure: at
    // every benchmark size of 16 MiB and more each way.
    for (const Dims& d : lab.bench_sizes)
        if (d[0] * sizeof(float) >= (1 << 24)) lab.bench_targets.push_back({"pinned", format_dims(d), 1.0, "pageable"});
    lab.contrasts = {{"pinned", "pageable", "Page-locked against pageable memory, cudaMemcpy round trip"}};
    lab.check = [](const Length& len) {
        require_at_most({len.n}, INT_MAX, "N must be at most 2147483647");
        const std::string problem = host_memory_problem(len.n, host_ram_bytes());
        if (!problem.empty()) throw UsageError(problem);
    };
    lab.device_bytes = [](const Length& len, const Options&) { return 4.0 * len.n; };
    lab.epilogue = bar_chart;
    lab.concurrent_streams = true;  // overlap's two streams each keep a work queue of their own
    return run_lab(lab, argc, argv);
}
