// Lab 10 driver: owns main(), the data, the check and the timing. Do not edit: your work goes
// in matmul_shared.cu.
#include "main.h"
#include "matmul_shared.h"
#include "reference.h"

using namespace cudalabs;

int main(int argc, char** argv) {
    LabOf<GemmDims> lab = declare_float_and_double_product_lab(
        "tiled matrix product in shared memory: tile sizes, bank conflicts and padding, float and double, "
        "dynamic shared memory",
        {
            {"tiled16", "16 x 16 tiles, static shared memory", product_kernel<float>(matmul_tiled16)},
            {"tiled32", "32 x 32 tiles, static shared memory", product_kernel<float>(matmul_tiled32)},
            {"tiled32_double", "32 x 32 tiles in double (ratio to cublasDgemm)",
             product_kernel<double>(matmul_tiled32), false, "dcublas", "double"},
            {"conflict", "tiles stored transposed as[tx][ty], [32][32]: 32-way bank conflicts",
             product_kernel<float>(matmul_conflict)},
            {"padded", "the same tiles padded to [32][33]: conflict-free", product_kernel<float>(matmul_padded)},
            {"conflict_double", "transposed [32][32] tiles in double (ratio to cublasDgemm)",
             product_kernel<double>(matmul_conflict), false, "dcublas", "double"},
            {"padded_double", "transposed [32][33] tiles in double (ratio to cublasDgemm)",
             product_kernel<double>(matmul_padded), false, "dcublas", "double"},
            {"dynamic", "extern __shared__: both tiles carved from one allocation sized at launch",
             product_kernel<float>(matmul_dynamic)},
        });
    // What the bank conflicts cost: the [32][33] tiles against the [32][32] ones.
    lab.contrasts = {{"padded", "conflict", "Bank conflicts, float"},
                     {"padded_double", "conflict_double", "Bank conflicts, double"}};
    return run_lab(lab, argc, argv);
}
