// Lab 06 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in transfers.cu. Sizes are N, the number of floats that travel each way.
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
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
    const size_t bytes = n * sizeof(float);
    double h2d = ctx.time_host([&] { CUDA_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)); });
    double d2h = ctx.time_host([&] { CUDA_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost)); });
    return "one way: H2D " + gbs_text(bytes, h2d) + ", D2H " + gbs_text(bytes, d2h) + " GB/s";
}

struct FreeDeleter { void operator()(float* p) const { std::free(p); } };

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const size_t n = static_cast<size_t>(dims[0]);
    std::vector<float> x(n), expected(n), y(n);
    fill_uniform(x.data(), n, ctx.seed(), 1);
    transform_reference(x.data(), expected.data(), n);
    const Tolerance tol = Tolerance::elementwise(kFloatRoundoff);
    DeviceBuffer<float> dbuf(n);

    Outcome out;
    out.bytes = 2.0 * sizeof(float) * n;  // n floats over the bus each way
    auto finish = [&](const float* result, const std::function<void()>& roundtrip) {
        ctx.check(out, result, expected.data(), n, tol);
        if (out.check.ok()) out.time_ms = ctx.time_host(roundtrip);
    };

    if (variant == "pageable") {
        poison_fill(y.data(), n);
        roundtrip_sync(x.data(), y.data(), dbuf.data(), n);
        finish(y.data(), [&] { roundtrip_sync(x.data(), y.data(), dbuf.data(), n); });
        if (out.check.ok()) out.note = "malloc'd memory; " + one_way_rates(ctx, y.data(), dbuf.data(), n);
        return out;
    }

    if (variant == "pinned") {
        float *in = nullptr, *res = nullptr;
        const double ms = wall_ms([&] { in = alloc_pinned(n); res = alloc_pinned(n); });
        if (!in || !res || !is_page_locked(in) || !is_page_locked(res)) {
            out.failure = "alloc_pinned did not return page-locked (cudaMallocHost) memory";
            if (in) free_pinned(in);
            if (res) free_pinned(res);
            return out;
        }
        std::memcpy(in, x.data(), n * sizeof(float));
        poison_fill(res, n);
        roundtrip_sync(in, res, dbuf.data(), n);
        finish(res, [&] { roundtrip_sync(in, res, dbuf.data(), n); });
        if (out.check.ok())
            out.note = "cudaMallocHost of both buffers took " + format_number(ms, 2) + " ms; " +
                       one_way_rates(ctx, res, dbuf.data(), n);
        free_pinned(in);
        free_pinned(res);
        return out;
    }

    if (variant == "registered") {
        // Page-aligned malloc'd memory, pinned after the fact.
        const size_t bytes = (n * sizeof(float) + 4095) / 4096 * 4096;
        std::unique_ptr<float, FreeDeleter> in(static_cast<float*>(std::aligned_alloc(4096, bytes))),
            res(static_cast<float*>(std::aligned_alloc(4096, bytes)));
        if (!in || !res) throw std::bad_alloc();
        std::memcpy(in.get(), x.data(), n * sizeof(float));
        poison_fill(res.get(), n);
        const double ms = wall_ms([&] { register_host(in.get(), n); register_host(res.get(), n); });
        if (!is_page_locked(in.get()) || !is_page_locked(res.get())) {
            out.failure = "the buffers are not page-locked after register_host: call cudaHostRegister";
            return out;
        }
        roundtrip_sync(in.get(), res.get(), dbuf.data(), n);
        finish(res.get(), [&] { roundtrip_sync(in.get(), res.get(), dbuf.data(), n); });
        if (out.check.ok())
            out.note = "cudaHostRegister of both buffers took " + format_number(ms, 2) + " ms; " +
                       one_way_rates(ctx, res.get(), dbuf.data(), n);
        unregister_host(in.get());
        unregister_host(res.get());
        if (is_page_locked(in.get()) && out.failure.empty())
            out.failure = "the buffers are still page-locked: unregister_host must call cudaHostUnregister";
        return out;
    }

    if (variant == "mapped") {
        float *in_alias = nullptr, *out_alias = nullptr;
        float* in = alloc_mapped(n, &in_alias);
        float* res = alloc_mapped(n, &out_alias);
        if (!in || !res || !in_alias || !out_alias) {
            out.failure = "alloc_mapped did not return mapped memory and its device alias";
            if (in) free_pinned(in);
            if (res) free_pinned(res);
            return out;
        }
        std::memcpy(in, x.data(), n * sizeof(float));
        poison_fill(res, n);
        roundtrip_mapped(in_alias, out_alias, n);
        finish(res, [&] { roundtrip_mapped(in_alias, out_alias, n); });
        out.note = "zero-copy: the kernel reads and writes host memory across the bus";
        free_pinned(in);
        free_pinned(res);
        return out;
    }

    // async and overlap: pinned buffers from the harness, streams from the driver.
    PinnedBuffer<float> in(n), res(n);
    std::memcpy(in.data(), x.data(), n * sizeof(float));
    poison_fill(res.data(), n);
    cudaStream_t streams[2];
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[0], cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[1], cudaStreamNonBlocking));
    auto roundtrip = [&] {
        if (variant == "async") roundtrip_async(in.data(), res.data(), dbuf.data(), n, streams[0]);
        else roundtrip_overlap(in.data(), res.data(), dbuf.data(), n, streams);
        CUDA_CHECK(cudaStreamSynchronize(streams[0]));
        CUDA_CHECK(cudaStreamSynchronize(streams[1]));
    };
    try {
        roundtrip();
        finish(res.data(), roundtrip);
    } catch (...) {
        cudaStreamDestroy(streams[0]);
        cudaStreamDestroy(streams[1]);
        throw;
    }
    CUDA_CHECK(cudaStreamDestroy(streams[0]));
    CUDA_CHECK(cudaStreamDestroy(streams[1]));
    out.note = variant == "async" ? "cudaMemcpyAsync on one stream: returns at once, no overlap"
                                  : "chunks on two streams: copies in, kernels and copies out overlap";
    return out;
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
    std::map<std::string, std::map<std::string, double>> by_size;
    for (const Row& r : report.rows) {
        if (r.size != size) {
            size = r.size;
            out << "  N = " << size << " floats (" << format_number(std::stod(size) * 4 / 1048576.0, 2)
                << " MiB each way)\n";
        }
        char label[32];
        std::snprintf(label, sizeof label, "    %-10s |", r.variant.c_str());
        out << label << bar(r.gbs(), top, 40) << "| " << (r.gbs() > 0 ? format_number(r.gbs(), 1) : "-") << "\n";
        by_size[r.size][r.variant] = r.gbs();
    }
    if (report.mode != "bench") return;
    // Pinned memory must beat pageable memory once transfers are large enough to measure.
    bool judged = false, met = true;
    for (auto& [sz, g] : by_size) {
        if (std::stod(sz) * 4 < (1 << 24) || !g.count("pinned") || !g.count("pageable")) continue;
        judged = true;
        if (g["pinned"] <= g["pageable"]) met = false;
    }
    if (judged)
        out << "target: pinned faster than pageable at every size of 16 MiB and more: "
            << (met ? "MET" : "MISSED") << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "06";
    lab.name = "06-transfers";
    lab.title = "host<->device transfers: pageable, pinned, registered, mapped memory, async and "
                "overlapped copies (ratio: to the pinned round trip; device copy speed says nothing "
                "about the bus)";
    lab.size_help = "N = number of floats that travel each way (1 to 2147483647, and the host "
                    "must have RAM for five arrays of N floats)";
    lab.variants = {
        {"pinned", "roundtrip_sync on cudaMallocHost memory", true},
        {"pageable", "roundtrip_sync on malloc'd memory: cudaMemcpy, kernel, cudaMemcpy"},
        {"registered", "roundtrip_sync on malloc'd memory pinned with cudaHostRegister"},
        {"mapped", "roundtrip_mapped: zero-copy, the kernel works on mapped host memory"},
        {"async", "roundtrip_async: cudaMemcpyAsync + kernel on one stream, pinned memory"},
        {"overlap", "roundtrip_overlap: chunks on two streams, copies overlap kernels"},
    };
    lab.ratio_to = "the pinned cudaMemcpy round trip at the same size";
    lab.check_sizes = {{1}, {7}, {1000}, {65537}, {1 << 20}, {(1 << 22) + 3}};
    // A sweep from 4 KiB to 256 MiB each way.
    lab.bench_sizes = {{1024}, {16384}, {262144}, {4194304}, {67108864}};
    lab.quick_sizes = {{1}, {7}, {1000}, {300007}};
    lab.bench_targets = {{"overlap", "67108864", 1.3, "pinned round trip"}};
    lab.check_dims = [](const Dims& d) {
        require_extents(d, 1, 1, "one extent, N");
        require_at_most(d, INT_MAX, "N must be at most 2147483647");
        const std::string problem = host_memory_problem(d[0], host_ram_bytes());
        if (!problem.empty()) throw UsageError(problem);
    };
    lab.device_bytes = [](const Dims& d) { return 4.0 * d[0]; };
    lab.epilogue = bar_chart;
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
