// Lab 08 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in transpose.cu.
#include <functional>
#include <vector>

#include "main.h"
#include "reference.h"
#include "transpose.h"

using namespace cudalabs;

namespace {

using Launcher = void (*)(const float* in, float* out, int rows, int cols, cudaStream_t stream);

// A variant that transposes through `launch`: the input is random, the result must be exact
// (a transpose only copies), and the time counts one read and one write of every element.
std::function<Outcome(const Matrix&, RunContext&)> transpose_by(Launcher launch) {
    return [launch](const Matrix& m, RunContext& ctx) {
        const int rows = static_cast<int>(m.rows), cols = static_cast<int>(m.cols);
        const size_t n = m.count();
        std::vector<float> in(n), expected(n);
        fill_uniform(in.data(), n, ctx.seed(), 1);
        transpose_reference(in.data(), expected.data(), rows, cols);
        DeviceBuffer<float> din(n), dout(n);
        din.upload(in.data());

        Outcome out;
        out.bytes = 2.0 * sizeof(float) * n;
        out.roofline_bytes = out.bytes;  // no roofline_flops: a transpose only copies, off the roofline
        ctx.run_checked(out, [&] { launch(din.data(), dout.data(), rows, cols, 0); }, dout, expected.data(),
                        Tolerance{0, 0}, out.bytes, {static_cast<size_t>(cols), static_cast<size_t>(rows)});
        return out;
    };
}

}  // namespace

int main(int argc, char** argv) {
    LabOf<Matrix> lab = declare_lab<Matrix>(
        "matrix transpose: naive, shared-memory tile, padded tile, fast",
        // checked by default: 1 x 1, a single row and column, primes, non-multiples of 32, 64 and 4,
        // non-square.
        {{{1}, {1, 1000}, {1000, 1}, {31, 33}, {97, 211}, {1000, 700}, {700, 1000}, {1023, 1025}, {4097, 260},
          {2048}},
         // --bench
         {{2048}, {4096}, {8192}, {4096, 16384}},
         // --quick
         {{1}, {31, 33}, {100, 68}, {130, 67}}},
        "N (N x N) or RxC (R rows, C columns) of floats; R*C <= 2147483647, R <= 524280");
    lab.variants = {
        {"naive", "one thread per element: coalesced reads, strided writes", transpose_by(transpose_naive)},
        {"tiled", "32 x 32 shared tile: coalesced both ways, 32-way bank conflicts", transpose_by(transpose_tiled)},
        {"padded", "32 x 33 shared tile: coalesced, conflict-free", transpose_by(transpose_padded)},
        {"fast", "64 x 64 tiles, 16 elements per thread, float4 where rows and cols allow", transpose_by(transpose_fast)},
    };
    lab.bench_targets = {{"fast", "8192", 0.90, kCopyYardstick}};
    lab.contrasts = {{"padded", "tiled", "Padding the 32 x 32 tile (bank conflicts)"}};
    lab.parse = [](const Dims& d) { return transpose_size(d, kMaxTransposeRows); };
    lab.device_bytes = [](const Matrix& m, const Options&) { return 2.0 * sizeof(float) * m.count(); };
    return run_lab(lab, argc, argv);
}
