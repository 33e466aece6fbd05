// Lab 02 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in pitched_2d.cu. Sizes are ROWSxCOLS (height x width).
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "main.h"
#include "pitched_2d.h"
#include "reference.h"

using namespace cudalabs;

namespace {

constexpr float kAlpha = 1.5f;

// What cudaMallocPitch picks for one row of `width_bytes` bytes on this GPU.
size_t pitch_for(size_t width_bytes) {
    void* p = nullptr;
    size_t pitch = 0;
    CUDA_CHECK(cudaMallocPitch(&p, &pitch, width_bytes, 1));
    CUDA_CHECK(cudaFree(p));
    return pitch;
}

void print_pitches(RunContext& ctx, std::ostream& out) {
    const size_t widths[] = {1, 7, 100, 128, 129, 1000, 1023, 4097};
    struct Type { const char* name; size_t size; };
    const Type types[] = {{"char (1 B)", 1}, {"float (4 B)", 4}, {"double (8 B)", 8},
                          {"float4 (16 B)", 16}};
    out << "The pitch cudaMallocPitch chose on this GPU (bytes from one row to the next; "
           "texturePitchAlignment " << ctx.props.texturePitchAlignment << " B):\n";
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %-16s", "width (elements)");
    out << buf;
    for (size_t w : widths) { std::snprintf(buf, sizeof buf, "%7zu", w); out << buf; }
    out << "\n";
    for (const Type& t : types) {
        std::snprintf(buf, sizeof buf, "  %-16s", t.name);
        out << buf;
        for (size_t w : widths) { std::snprintf(buf, sizeof buf, "%7zu", pitch_for(w * t.size)); out << buf; }
        out << "\n";
    }
    const size_t pf = pitch_for(129 * sizeof(float));
    out << "A row of 129 floats (516 B) is padded to " << pf << " B: "
        << padding_bytes(516, pf, 1) << " B of padding per row, so every row starts aligned and a "
        << "warp's 128-byte reads never straddle more segments than needed.\n\n";
}

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const int height = static_cast<int>(dims[0]), width = static_cast<int>(dims[1]);
    const size_t count = static_cast<size_t>(width) * height;
    const std::vector<size_t> shape = {static_cast<size_t>(height), static_cast<size_t>(width)};
    std::vector<float> a(count), b(count), c(count), expected(count);
    fill_uniform(a.data(), count, ctx.seed(), 1);
    fill_uniform(b.data(), count, ctx.seed(), 2);
    add_scaled_reference(a.data(), b.data(), expected.data(), count, kAlpha);
    const Tolerance tol = Tolerance::elementwise(kFloatRoundoff);

    Outcome out;
    out.bytes = 3.0 * sizeof(float) * count;  // read a and b, write c
    if (variant == "host") {
        poison_fill(c.data(), count);
        add_scaled_host(a.data(), b.data(), c.data(), width, height, kAlpha);
        ctx.check(out, c.data(), expected.data(), count, tol, shape);
        if (out.check.ok())
            out.time_ms = ctx.time_host([&] { add_scaled_host(a.data(), b.data(), c.data(), width, height, kAlpha); });
        out.bytes = 0;  // the time is mostly allocation and copies: no bandwidth to compare
        out.note = "time includes cudaMallocPitch, cudaMemcpy2D both ways and cudaFree";
        return out;
    }

    if (variant == "packed") {
        DeviceBuffer<float> da(count), db(count), dc(count);
        da.upload(a.data());
        db.upload(b.data());
        dc.poison();
        add_scaled_packed(da.data(), db.data(), dc.data(), width, height, kAlpha, 0);
        CUDA_CHECK(cudaDeviceSynchronize());
        dc.download(c.data());
        ctx.check(out, c.data(), expected.data(), count, tol, shape);
        if (out.check.ok())
            out.time_ms = ctx.time_gpu([&] { add_scaled_packed(da.data(), db.data(), dc.data(), width, height, kAlpha, 0); }, out.bytes);
        out.note = "rows " + std::to_string(width * sizeof(float)) + " B apart, no padding";
        return out;
    }

    Pitched2D<float> da(width, height), db(width, height), dc(width, height);
    if (da.pitch() != dc.pitch() || db.pitch() != dc.pitch())
        throw std::runtime_error("internal: cudaMallocPitch gave equal widths different pitches");
    const size_t pitch = dc.pitch();
    da.upload(a.data());
    db.upload(b.data());
    dc.poison();
    add_scaled_pitched(da.data(), db.data(), dc.data(), pitch, width, height, kAlpha, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    dc.download(c.data());
    ctx.check(out, c.data(), expected.data(), count, tol, shape);
    // The padding must still hold the poison: a kernel without the column guard writes there.
    std::vector<unsigned char> raw(pitch * height);
    CUDA_CHECK(cudaMemcpy(raw.data(), dc.data(), raw.size(), cudaMemcpyDeviceToHost));
    const size_t row_bytes = width * sizeof(float);
    const size_t stray = written_padding_bytes(raw.data(), row_bytes, pitch, height, kPoisonByte);
    if (stray && !out.check.never_written())
        out.failure = std::to_string(stray) + " bytes written into the row padding (columns >= " +
                      std::to_string(width) + "): guard the column index";
    if (out.check.ok() && !stray)
        out.time_ms = ctx.time_gpu([&] { add_scaled_pitched(da.data(), db.data(), dc.data(), pitch, width, height, kAlpha, 0); }, out.bytes);
    char note[96];
    std::snprintf(note, sizeof note, "pitch %zu B (+%.0f%% padding)", pitch,
                  100.0 * (pitch - row_bytes) / row_bytes);
    out.note = note;
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "02";
    lab.name = "02-pitched-2d";
    lab.title = "2D arrays with a pitch: c = 1.5 a + b on cudaMallocPitch matrices, 2D blocks and grids";
    lab.size_help = "ROWSxCOLS = height x width of float matrices (each 1 to 2147483647)";
    lab.variants = {
        {"host", "add_scaled_host: cudaMallocPitch, cudaMemcpy2D in, kernel, cudaMemcpy2D out, free"},
        {"pitched", "add_scaled_pitched: 32x8 blocks, rows found through the pitch"},
        {"packed", "add_scaled_packed: the same kernel on unpadded (cudaMalloc) matrices"},
    };
    // 1x1, one row, one column, primes, widths that are not multiples of 32 (the block) or of
    // the pitch alignment, non-square, and one large matrix.
    lab.check_sizes = {{1, 1}, {1, 7}, {7, 1}, {13, 17}, {33, 129}, {257, 1000},
                       {1000, 1023}, {2049, 3001}};
    lab.bench_sizes = {{1000, 1001}, {4099, 4097}, {8192, 8192}};
    lab.quick_sizes = {{1, 1}, {7, 1}, {13, 17}, {33, 129}};
    lab.bench_targets = {{"pitched", "8192x8192", 0.85, "copy bandwidth"}};
    lab.check_dims = [](const Dims& d) {
        require_extents(d, 2, 2, "two extents, ROWSxCOLS (for example 1000x700)");
        require_at_most(d, INT_MAX, "rows and columns must each be at most 2147483647");
    };
    // Three matrices; a pitched row is at most one alignment unit (512 B here) longer.
    lab.device_bytes = [](const Dims& d) { return 3.0 * d[0] * (d[1] * 4.0 + 512); };
    lab.prologue = print_pitches;
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
