// Lab 03 driver: owns main(), the data, the checks and the timing. Do not edit: your work goes
// in pitched_3d.cu. Sizes are DEPTHxHEIGHTxWIDTH (slowest extent first, like C arrays).
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "main.h"
#include "pitched_3d.h"
#include "reference.h"

using namespace cudalabs;

namespace {

constexpr float kAlpha = 0.75f;

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    const int depth = static_cast<int>(dims[0]), height = static_cast<int>(dims[1]),
              width = static_cast<int>(dims[2]);
    const size_t count = static_cast<size_t>(width) * height * depth;
    const std::vector<size_t> shape = {static_cast<size_t>(depth), static_cast<size_t>(height),
                                       static_cast<size_t>(width)};
    std::vector<float> in(count), got(count), expected(count);
    fill_uniform(in.data(), count, ctx.seed(), 1);

    Outcome out;
    if (variant == "stencil") {
        stencil7_reference(in.data(), expected.data(), width, height, depth, kCenter, kSide);
    } else {
        scale_reference(in.data(), expected.data(), count, kAlpha);
    }
    const Tolerance tol = variant == "stencil" ? Tolerance::accumulation(7, kFloatRoundoff, 1.0)
                                               : Tolerance::elementwise(kFloatRoundoff);

    if (variant == "host") {
        poison_fill(got.data(), count);
        scale_volume_host(in.data(), got.data(), width, height, depth, kAlpha);
        ctx.check(out, got.data(), expected.data(), count, tol, shape);
        if (out.check.ok())
            out.time_ms = ctx.time_host([&] { scale_volume_host(in.data(), got.data(), width, height, depth, kAlpha); });
        out.note = "time includes cudaMalloc3D, cudaMemcpy3D both ways and cudaFree";
        return out;
    }

    Pitched3D<float> din(width, height, depth), dout(width, height, depth);
    din.upload(in.data());
    dout.poison();
    auto launch = [&] {
        if (variant == "scale")
            scale_volume(din.pitched(), dout.pitched(), width, height, depth, kAlpha, 0);
        else
            stencil7_volume(din.pitched(), dout.pitched(), width, height, depth, 0);
    };
    launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    dout.download(got.data());
    ctx.check(out, got.data(), expected.data(), count, tol, shape);

    // The row padding must still hold the poison: a kernel without the x guard writes there.
    const size_t pitch = dout.pitched().pitch, rows = static_cast<size_t>(height) * depth;
    std::vector<unsigned char> raw(pitch * rows);
    CUDA_CHECK(cudaMemcpy(raw.data(), dout.pitched().ptr, raw.size(), cudaMemcpyDeviceToHost));
    const size_t stray = written_padding_bytes_3d(raw.data(), width * sizeof(float), pitch, rows, kPoisonByte);
    if (stray && !out.check.never_written())
        out.failure = std::to_string(stray) + " bytes written into the row padding (x >= " +
                      std::to_string(width) + "): guard the x index";

    out.bytes = 2.0 * sizeof(float) * count;  // read the volume once, write it once
    if (out.check.ok() && !stray) out.time_ms = ctx.time_gpu(launch, out.bytes);
    char note[96];
    std::snprintf(note, sizeof note, "pitch %zu B, slice pitch %zu B", pitch, pitch * height);
    out.note = note;
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "03";
    lab.name = "03-pitched-3d";
    lab.title = "3D arrays with a pitch: cudaMalloc3D volumes, a 3D grid, scale and a 7-point stencil";
    lab.size_help = "DEPTHxHEIGHTxWIDTH of a float volume (each extent 1 to 2147483647)";
    lab.variants = {
        {"host", "scale_volume_host: cudaMalloc3D, cudaMemcpy3D in, scale, cudaMemcpy3D out, free"},
        {"scale", "scale_volume: out = 0.75 in, one thread per element, 32x8x1 blocks"},
        {"stencil", "stencil7_volume: 7-point stencil with clamped edges"},
    };
    // One element, depth 1, one column, odd widths (not multiples of 32 or of the pitch
    // alignment), primes, and a medium volume.
    lab.check_sizes = {{1, 1, 1}, {1, 7, 13}, {7, 1, 1}, {3, 5, 7}, {17, 31, 33},
                       {64, 64, 129}, {100, 101, 257}};
    lab.bench_sizes = {{255, 257, 1001}, {256, 512, 512}};
    lab.quick_sizes = {{1, 1, 1}, {1, 7, 13}, {3, 5, 33}};
    lab.bench_targets = {{"scale", "256x512x512", 0.80, "copy bandwidth"}};
    lab.check_dims = [](const Dims& d) {
        require_extents(d, 3, 3, "three extents, DEPTHxHEIGHTxWIDTH (for example 64x64x129)");
        require_at_most(d, INT_MAX, "each extent must be at most 2147483647");
    };
    lab.device_bytes = [](const Dims& d) { return 2.0 * d[0] * d[1] * (d[2] * 4.0 + 512); };
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
