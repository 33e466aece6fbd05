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

// The operands of one size (height x width, packed) and the result they must give.
struct Operands {
    int height = 0, width = 0;
    size_t count = 0;
    std::vector<size_t> shape;  // {rows, cols}, for indices in messages
    std::vector<float> a, b, expected;
};

Operands operands_for(const Matrix& m, RunContext& ctx) {
    Operands o;
    o.height = static_cast<int>(m.rows);
    o.width = static_cast<int>(m.cols);
    o.count = m.count();
    o.shape = {static_cast<size_t>(m.rows), static_cast<size_t>(m.cols)};
    o.a.resize(o.count);
    o.b.resize(o.count);
    o.expected.resize(o.count);
    fill_uniform(o.a.data(), o.count, ctx.seed(), 1);
    fill_uniform(o.b.data(), o.count, ctx.seed(), 2);
    add_scaled_reference(o.a.data(), o.b.data(), o.expected.data(), o.count, kAlpha);
    return o;
}

const Tolerance kTolerance = Tolerance::elementwise(kFloatRoundoff);

Outcome run_host(const Matrix& m, RunContext& ctx) {
    const Operands o = operands_for(m, ctx);
    std::vector<float> c(o.count);
    poison_fill(c.data(), o.count);
    Outcome out;
    ctx.run_checked_host(
        out, [&] { add_scaled_host(o.a.data(), o.b.data(), c.data(), o.width, o.height, kAlpha); },
        [&] { ctx.check(out, c.data(), o.expected.data(), o.count, kTolerance, o.shape); });
    // No bytes: the time is mostly allocation and copies, no bandwidth to compare.
    out.note = "time includes cudaMallocPitch, cudaMemcpy2D both ways and cudaFree";
    return out;
}

Outcome run_pitched(const Matrix& m, RunContext& ctx) {
    const Operands o = operands_for(m, ctx);
    Pitched2D<float> da(o.width, o.height), db(o.width, o.height), dc(o.width, o.height);
    if (da.pitch() != dc.pitch() || db.pitch() != dc.pitch())
        throw std::runtime_error("internal: cudaMallocPitch gave equal widths different pitches");
    const size_t pitch = dc.pitch(), row_bytes = o.width * sizeof(float);
    da.upload(o.a.data());
    db.upload(o.b.data());
    dc.poison();

    Outcome out;
    out.bytes = 3.0 * sizeof(float) * o.count;  // read a and b, write c
    out.roofline_bytes = out.bytes;  // the row padding is not the problem's
    out.roofline_flops = 2.0 * o.count;  // alpha * a + b: a multiply and an add per element
    ctx.run_checked(
        out, [&] { add_scaled_pitched(da.data(), db.data(), dc.data(), pitch, o.width, o.height, kAlpha, 0); },
        [&] {
            std::vector<float> c(o.count);
            dc.download(c.data());
            ctx.check(out, c.data(), o.expected.data(), o.count, kTolerance, o.shape);
            // The padding must still hold the poison: a kernel without the column guard writes there.
            std::vector<unsigned char> raw(pitch * o.height);
            CUDA_CHECK(cudaMemcpy(raw.data(), dc.data(), raw.size(), cudaMemcpyDeviceToHost));
            const size_t stray = written_padding_bytes(raw.data(), row_bytes, pitch, o.height, kPoisonByte);
            if (stray && !out.check.never_written())
                out.failure = std::to_string(stray) + " bytes written into the row padding (columns >= " +
                              std::to_string(o.width) + "): guard the column index";
        },
        out.bytes);
    char note[96];
    std::snprintf(note, sizeof note, "pitch %zu B (+%.0f%% padding)", pitch,
                  100.0 * (pitch - row_bytes) / row_bytes);
    out.note = note;
    return out;
}

Outcome run_packed(const Matrix& m, RunContext& ctx) {
    const Operands o = operands_for(m, ctx);
    DeviceBuffer<float> da(o.count), db(o.count), dc(o.count);
    da.upload(o.a.data());
    db.upload(o.b.data());
    Outcome out;
    out.bytes = 3.0 * sizeof(float) * o.count;  // read a and b, write c
    out.roofline_bytes = out.bytes;  // the row padding is not the problem's
    out.roofline_flops = 2.0 * o.count;  // alpha * a + b: a multiply and an add per element
    ctx.run_checked(
        out, [&] { add_scaled_packed(da.data(), db.data(), dc.data(), o.width, o.height, kAlpha, 0); }, dc,
        o.expected.data(), kTolerance, out.bytes, o.shape);
    out.note = "rows " + std::to_string(o.width * sizeof(float)) + " B apart, no padding";
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<Matrix> lab = declare_lab<Matrix>(
        "2D arrays with a pitch: c = 1.5 a + b on cudaMallocPitch matrices, 2D blocks and grids",
        // checked by default: 1x1, one row, one column, primes, widths that are not multiples of 32 (the block)
        // or of the pitch alignment, non-square, and one large matrix.
        {{{1, 1}, {1, 7}, {7, 1}, {13, 17}, {33, 129}, {257, 1000}, {1000, 1023}, {2049, 3001}},
         // --bench
         {{1000, 1001}, {4099, 4097}, {8192, 8192}},
         // --quick
         {{1, 1}, {7, 1}, {13, 17}, {33, 129}}},
        "ROWSxCOLS = height x width of float matrices (each 1 to 2147483647)");
    lab.variants = {
        {"host", "add_scaled_host: cudaMallocPitch, cudaMemcpy2D in, kernel, cudaMemcpy2D out, free", run_host},
        {"pitched", "add_scaled_pitched: 32x8 blocks, rows found through the pitch", run_pitched},
        {"packed", "add_scaled_packed: the same kernel on unpadded (cudaMalloc) matrices", run_packed},
    };
    lab.bench_targets = {{"pitched", "8192x8192", 0.85, kCopyYardstick}};
    lab.parse = [](const Dims& d) { return Matrix::parse_pair(d, "two extents, ROWSxCOLS (for example 1000x700)"); };
    lab.check = [](const Matrix& m) {
        require_at_most({m.rows, m.cols}, INT_MAX, "rows and columns must each be at most 2147483647");
    };
    // Three matrices; a pitched row is at most one alignment unit (512 B here) longer.
    lab.device_bytes = [](const Matrix& m, const Options&) { return 3.0 * m.rows * (m.cols * 4.0 + 512); };
    lab.prologue = print_pitches;
    return run_lab(lab, argc, argv);
}
