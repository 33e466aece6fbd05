// Lab 13 driver: owns main(), the data, the check and the timing. Do not edit: your work goes in
// matvec.cu. The same driver builds the starter (./lab13), the solution (./sol13) and the
// grader's build, so the check cannot be edited away.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "main.h"
#include "matrix.h"  // cublas_handle()
#include "matvec.h"
#include "reference.h"

using namespace cudalabs;

namespace {

constexpr long long kMaxExtent = 1LL << 30;  // rows, cols: int indices with room to spare

bool is_vecmat(const std::string& variant) { return variant.find("vecmat") != std::string::npos; }

// "N" is an N x N matrix, "MxN" has M rows and N columns.
void rows_cols(const Dims& dims, int& rows, int& cols) {
    rows = static_cast<int>(dims[0]);
    cols = static_cast<int>(dims.size() > 1 ? dims[1] : dims[0]);
}

// The inputs of one size and their references, kept from one variant to the next: at
// 16384 x 16384 generating A and the double references takes seconds, uploading it a fraction.
struct Problem {
    Dims dims;
    uint64_t seed = 0;
    int rows = 0, cols = 0;
    std::vector<float> A;
    std::vector<float> x_cols;  // for y = A x: cols elements
    std::vector<float> x_rows;  // for y^T = x^T A: rows elements
    std::vector<double> y_matvec, y_vecmat;

    const std::vector<double>& expected(bool vecmat) {
        std::vector<double>& y = vecmat ? y_vecmat : y_matvec;
        if (y.empty()) {
            y.resize(vecmat ? cols : rows);
            if (vecmat) vecmat_reference(A.data(), x_rows.data(), y.data(), rows, cols);
            else matvec_reference(A.data(), x_cols.data(), y.data(), rows, cols);
        }
        return y;
    }
};

Problem& problem_for(const Dims& dims, uint64_t seed) {
    static Problem p;
    if (p.dims != dims || p.seed != seed || p.A.empty()) {
        p = Problem();  // free the previous size first
        p.dims = dims;
        p.seed = seed;
        rows_cols(dims, p.rows, p.cols);
        p.A.resize(static_cast<size_t>(p.rows) * p.cols);
        p.x_cols.resize(p.cols);
        p.x_rows.resize(p.rows);
        fill_uniform(p.A.data(), p.A.size(), seed, 1);
        fill_uniform(p.x_cols.data(), p.x_cols.size(), seed, 2);
        fill_uniform(p.x_rows.data(), p.x_rows.size(), seed, 3);
    }
    return p;
}

// Bytes of A read once, per second, as a fraction of the measured copy bandwidth.
double copy_fraction(double rows, double cols, double ms, double copy_gbs) {
    return ms > 0 && copy_gbs > 0 ? 4.0 * rows * cols / (ms * 1e6) / copy_gbs : -1;
}

Outcome run_case(const std::string& variant, const Dims& dims, RunContext& ctx) {
    Problem& p = problem_for(dims, ctx.seed());
    const bool vecmat = is_vecmat(variant);
    const int rows = p.rows, cols = p.cols;
    const std::vector<float>& x = vecmat ? p.x_rows : p.x_cols;
    const std::vector<double>& expected = p.expected(vecmat);
    const size_t y_len = vecmat ? cols : rows;
    const size_t terms = vecmat ? rows : cols;  // the length of each output's sum

    DeviceBuffer<float> dA(static_cast<size_t>(rows) * cols), dx(x.size()), dy(y_len);
    dA.upload(p.A.data());
    dx.upload(x.data());
    dy.poison();

    std::function<void()> launch;
    Outcome out;
    if (variant == "cublas_matvec" || variant == "cublas_vecmat") {
        const ColumnMajorGemv g = gemv_for_row_major(vecmat, rows, cols);
        launch = [&, g] {
            const float one = 1.f, zero = 0.f;  // beta = 0: cuBLAS does not read y
            CUBLAS_CHECK(cublasSgemv(cublas_handle(), g.transpose ? CUBLAS_OP_T : CUBLAS_OP_N, g.m, g.n,
                                     &one, dA.data(), g.lda, dx.data(), 1, &zero, dy.data(), 1));
        };
        out.note = std::string("cublasSgemv(") + (g.transpose ? "OP_T" : "OP_N") +
                   ") on the column-major view A^T";
    } else {
        using Launcher = void (*)(const float*, const float*, float*, int, int, cudaStream_t);
        static const std::map<std::string, Launcher> launchers = {
            {"matvec_naive", matvec_naive},   {"matvec_shared", matvec_shared},
            {"matvec_warp", matvec_warp},     {"vecmat_naive", vecmat_naive},
            {"vecmat_shared", vecmat_shared},
        };
        Launcher f = launchers.at(variant);
        launch = [&, f] { f(dA.data(), dx.data(), dy.data(), rows, cols, 0); };
    }
    launch();
    CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> y(y_len);
    dy.download(y.data());
    // Products of two numbers uniform in [-1, 1) have a root mean square of 1/3.
    ctx.check(out, y.data(), expected.data(), y_len,
              Tolerance::accumulation(terms, kFloatRoundoff, 1.0 / 3.0));
    out.bytes = 4.0 * (static_cast<double>(rows) * cols + rows + cols);  // A, x, y once each
    if (!out.check.ok()) return out;

    out.time_ms = ctx.time_gpu(launch, out.bytes);
    std::string note = format_number(copy_fraction(rows, cols, out.time_ms, ctx.device.copy_gbs), 2) + " x copy";
    if (variant == "matvec_naive" || variant == "matvec_shared")
        note += "; a warp reads 32 rows at once (uncoalesced)";
    out.note = out.note.empty() ? note : note + "; " + out.note;
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    Lab lab;
    lab.number = "13";
    lab.name = "13-matvec";
    lab.title = "matrix-vector products y = A x and y^T = x^T A: shared memory, coalescing, cuBLAS";
    lab.size_help = "MxN = a matrix of M rows and N columns (N alone: N x N); each at most 1073741824";
    lab.variants = {
        {"cublas_matvec", "cublasSgemv for y = A x (OP_T on the column-major view)", true},
        {"cublas_vecmat", "cublasSgemv for y^T = x^T A (OP_N on the column-major view)", true},
        {"matvec_naive", "y = A x, one thread per row"},
        {"matvec_shared", "y = A x, one thread per row, x staged through shared memory"},
        {"matvec_warp", "y = A x, one warp per row, float4 loads, shuffle reduction"},
        {"vecmat_naive", "y^T = x^T A, one thread per column", false, "cublas_vecmat"},
        {"vecmat_shared", "y^T = x^T A, column strips, x staged through shared memory, rows split "
                          "(a cluster on compute capability 9.0+)",
         false, "cublas_vecmat"},
    };
    // 1 x 1, a row, a column, primes, non-multiples of 4, 32 and 256 both ways, a square.
    lab.check_sizes = {{1, 1},      {1, 1000},    {1000, 1},    {7, 13},      {255, 257},
                       {999, 1000}, {1000, 1003}, {33, 10007},  {10007, 33},  {2050, 6147},
                       {4096, 4096}};
    lab.bench_sizes = {{4096, 4096}, {16384, 16384}};
    // 67 x 130 and 600 x 64 take vecmat_shared's cluster path where the GPU has clusters.
    lab.quick_sizes = {{1, 1}, {1, 37}, {37, 1}, {67, 130}, {130, 68}, {600, 64}};
    lab.ratio_to = "cuBLAS gemv of the same orientation at the same size (matvec rows: "
                   "cublas_matvec, vecmat rows: cublas_vecmat); the note gives the ratio to copy";
    lab.bench_targets = {{"matvec_warp", "4096x4096", 1.0, "cublas_matvec"},
                         {"matvec_warp", "16384x16384", 1.0, "cublas_matvec"},
                         {"vecmat_shared", "4096x4096", 1.0, "cublas_vecmat"},
                         {"vecmat_shared", "16384x16384", 1.0, "cublas_vecmat"},
                         {"matvec_warp", "16384x16384", 0.85, kCopyYardstick},
                         {"vecmat_shared", "16384x16384", 0.85, kCopyYardstick}};
    lab.check_dims = [](const Dims& d) {
        require_extents(d, 1, 2, "MxN (rows x columns) or N (an N x N matrix)");
        require_at_most(d, kMaxExtent, "rows and columns must be at most 1073741824");
    };
    lab.device_bytes = [](const Dims& d) {
        int rows = 0, cols = 0;
        rows_cols(d, rows, cols);
        return 4.0 * (static_cast<double>(rows) * cols + 2.0 * (rows + cols));
    };
    lab.run = run_case;
    return run_lab(lab, argc, argv);
}
