// Lab 08 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in transpose.cu.
#include <climits>
#include <vector>

#include "main.h"
#include "reference.h"
#include "transpose.h"

using namespace cudalabs;

namespace {

// "N" is N x N; "RxC" is R rows by C columns.
void dims_of(const Dims& d, int& rows, int& cols) {
    rows = static_cast<int>(d[0]);
    cols = static_cast<int>(d.size() == 2 ? d[1] : d[0]);
}

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    int rows = 0, cols = 0;
    dims_of(dims, rows, cols);
    const size_t n = static_cast<size_t>(rows) * cols;
    std::vector<float> in(n), got(n), expected(n);
    fill_uniform(in.data(), n, ctx.seed(), 1);
    transpose_reference(in.data(), expected.data(), rows, cols);

    auto launch = variant == "naive"    ? transpose_naive
                  : variant == "tiled"  ? transpose_tiled
                  : variant == "padded" ? transpose_padded
                                        : transpose_fast;
    DeviceBuffer<float> din(n), dout(n);
    din.upload(in.data());
    dout.poison();
    launch(din.data(), dout.data(), rows, cols, 0);
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    dout.download(got.data());

    Outcome out;
    // A transpose copies: the result must be exact.
    ctx.check(out, got.data(), expected.data(), n, Tolerance{0, 0},
              {static_cast<size_t>(cols), static_cast<size_t>(rows)});
    out.bytes = 2.0 * sizeof(float) * n;  // read in, write out
    if (out.check.ok())
        out.time_ms = ctx.time_gpu([&] { launch(din.data(), dout.data(), rows, cols, 0); }, out.bytes);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "08";
    lab.name = "08-transpose";
    lab.title = "matrix transpose: naive, shared-memory tile, padded tile, fast";
    lab.size_help = "N (N x N) or RxC (R rows, C columns) of floats; R*C <= 2147483647, R <= 524280";
    lab.variants = {
        {"naive", "one thread per element: coalesced reads, strided writes"},
        {"tiled", "32 x 32 shared tile: coalesced both ways, 32-way bank conflicts"},
        {"padded", "32 x 33 shared tile: coalesced, conflict-free"},
        {"fast", "64 x 64 tiles, 16 elements per thread, float4 where rows and cols allow"},
    };
    // 1 x 1, a single row and column, primes, non-multiples of 32, 64 and 4, non-square.
    lab.check_sizes = {{1}, {1, 1000}, {1000, 1}, {31, 33}, {97, 211}, {1000, 700},
                       {700, 1000}, {1023, 1025}, {4097, 260}, {2048}};
    lab.bench_sizes = {{2048}, {4096}, {8192}, {4096, 16384}};
    lab.quick_sizes = {{1}, {31, 33}, {100, 68}, {130, 67}};
    lab.bench_targets = {{"fast", "8192", 0.90, kCopyYardstick}};
    lab.check_dims = [](const Dims& d) {
        require_extents(d, 1, 2, "N or RxC");
        const long long rows = d[0], cols = d.size() == 2 ? d[1] : d[0];
        if (rows * cols > INT_MAX)
            throw UsageError("size '" + format_dims(d) + "' is too large: at most 2147483647 elements (the kernels index with int)");
        if (rows > kMaxTransposeRows)
            throw UsageError("size '" + format_dims(d) + "' has too many rows: at most 524280 (the grid's y limit)");
    };
    lab.device_bytes = [](const Dims& d) {
        return 2.0 * sizeof(float) * d[0] * (d.size() == 2 ? d[1] : d[0]);
    };
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
