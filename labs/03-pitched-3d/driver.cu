// Lab 03 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in pitched_3d.cu. Sizes are DEPTHxHEIGHTxWIDTH (slowest extent first, like C arrays).
#include <climits>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "main.h"
#include "pitched_3d.h"
#include "reference.h"

using namespace cudalabs;

namespace {

constexpr float kAlpha = 0.75f;

// The extents of a size as the kernels take them, and its input volume (packed, x fastest).
struct Input {
    int depth = 0, height = 0, width = 0;
    size_t count = 0;
    std::vector<size_t> shape;  // {depth, height, width}, for indices in messages
    std::vector<float> values;
};

Input input_for(const Volume& v, RunContext& ctx) {
    Input in;
    in.depth = static_cast<int>(v.depth);
    in.height = static_cast<int>(v.rows);
    in.width = static_cast<int>(v.cols);
    in.count = v.count();
    in.shape = {static_cast<size_t>(v.depth), static_cast<size_t>(v.rows), static_cast<size_t>(v.cols)};
    in.values.resize(in.count);
    fill_uniform(in.values.data(), in.count, ctx.seed(), 1);
    return in;
}

// What a variant's output must be, and how closely.
struct Expected {
    std::vector<float> values;
    Tolerance tol;
    double flops_per_element = 0;  // of the computation (reference.h), for the roofline
};

Expected scaled(const Input& in) {
    Expected e{std::vector<float>(in.count), Tolerance::elementwise(kFloatRoundoff), kScaleFlops};
    scale_reference(in.values.data(), e.values.data(), in.count, kAlpha);
    return e;
}

Expected stenciled(const Input& in) {
    Expected e{std::vector<float>(in.count), Tolerance::accumulation(7, kFloatRoundoff, 1.0), kStencil7Flops};
    stencil7_reference(in.values.data(), e.values.data(), in.width, in.height, in.depth, kCenter, kSide);
    return e;
}

Outcome run_host(const Volume& v, RunContext& ctx) {
    const Input in = input_for(v, ctx);
    const Expected e = scaled(in);
    std::vector<float> got(in.count);
    poison_fill(got.data(), in.count);
    Outcome out;
    ctx.run_checked_host(
        out, [&] { scale_volume_host(in.values.data(), got.data(), in.width, in.height, in.depth, kAlpha); },
        [&] { ctx.check(out, got.data(), e.values.data(), in.count, e.tol, in.shape); });
    out.note = "time includes cudaMalloc3D, cudaMemcpy3D both ways and cudaFree";
    return out;
}

using VolumeKernel = std::function<void(cudaPitchedPtr in, cudaPitchedPtr out, const Input& extents)>;

// A kernel variant from one cudaMalloc3D volume into another: the output is checked against
// `expected` and its row padding must still hold the poison.
Outcome run_on_volumes(const Input& in, const Expected& expected, RunContext& ctx, const VolumeKernel& kernel) {
    Pitched3D<float> din(in.width, in.height, in.depth), dout(in.width, in.height, in.depth);
    din.upload(in.values.data());
    dout.poison();
    const size_t pitch = dout.pitched().pitch, rows = static_cast<size_t>(in.height) * in.depth;

    Outcome out;
    out.bytes = 2.0 * sizeof(float) * in.count;  // read the volume once, write it once
    out.roofline_bytes = out.bytes;  // the row padding is not the problem's
    out.roofline_flops = expected.flops_per_element * in.count;
    ctx.run_checked(
        out, [&] { kernel(din.pitched(), dout.pitched(), in); },
        [&] {
            std::vector<float> got(in.count);
            dout.download(got.data());
            ctx.check(out, got.data(), expected.values.data(), in.count, expected.tol, in.shape);
            // The row padding must still hold the poison: a kernel without the x guard writes there.
            std::vector<unsigned char> raw(pitch * rows);
            CUDA_CHECK(cudaMemcpy(raw.data(), dout.pitched().ptr, raw.size(), cudaMemcpyDeviceToHost));
            const size_t stray = written_padding_bytes_3d(raw.data(), in.width * sizeof(float), pitch, rows, kPoisonByte);
            if (stray && !out.check.never_written())
                out.failure = std::to_string(stray) + " bytes written into the row padding (x >= " +
                              std::to_string(in.width) + "): guard the x index";
        },
        out.bytes);
    char note[96];
    std::snprintf(note, sizeof note, "pitch %zu B, slice pitch %zu B", pitch, pitch * in.height);
    out.note = note;
    return out;
}

Outcome run_scale(const Volume& v, RunContext& ctx) {
    const Input in = input_for(v, ctx);
    return run_on_volumes(in, scaled(in), ctx, [](cudaPitchedPtr src, cudaPitchedPtr dst, const Input& e) {
        scale_volume(src, dst, e.width, e.height, e.depth, kAlpha, 0);
    });
}

Outcome run_stencil(const Volume& v, RunContext& ctx) {
    const Input in = input_for(v, ctx);
    return run_on_volumes(in, stenciled(in), ctx, [](cudaPitchedPtr src, cudaPitchedPtr dst, const Input& e) {
        stencil7_volume(src, dst, e.width, e.height, e.depth, 0);
    });
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<Volume> lab = declare_lab<Volume>(
        "3D arrays with a pitch: cudaMalloc3D volumes, a 3D grid, scale and a 7-point stencil",
        // checked by default: one element, depth 1, one column, odd widths (not multiples of 32 or of the pitch
        // alignment), primes, and a medium volume.
        {{{1, 1, 1}, {1, 7, 13}, {7, 1, 1}, {3, 5, 7}, {17, 31, 33}, {64, 64, 129}, {100, 101, 257}},
         // --bench
         {{255, 257, 1001}, {256, 512, 512}},
         // --quick
         {{1, 1, 1}, {1, 7, 13}, {3, 5, 33}}},
        "DEPTHxHEIGHTxWIDTH of a float volume (each extent 1 to 2147483647)");
    lab.variants = {
        {"host", "scale_volume_host: cudaMalloc3D, cudaMemcpy3D in, scale, cudaMemcpy3D out, free", run_host},
        {"scale", "scale_volume: out = 0.75 in, one thread per element, 32x8x1 blocks", run_scale},
        {"stencil", "stencil7_volume: 7-point stencil with clamped edges", run_stencil},
    };
    lab.bench_targets = {{"scale", "256x512x512", 0.80, kCopyYardstick}};
    lab.parse = [](const Dims& d) { return Volume::parse(d, "three extents, DEPTHxHEIGHTxWIDTH (for example 64x64x129)"); };
    lab.check = [](const Volume& v) {
        require_at_most({v.depth, v.rows, v.cols}, INT_MAX, "each extent must be at most 2147483647");
    };
    lab.device_bytes = [](const Volume& v, const Options&) { return 2.0 * v.depth * v.rows * (v.cols * 4.0 + 512); };
    return run_lab(lab, argc, argv);
}
