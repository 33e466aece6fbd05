// Checking every CUDA and cuBLAS call. A failure throws cudalabs::CudaError whose message names
// the call, the file and line, and what to try; the lab runner turns it into a FAIL row.
//
//   CUDA_CHECK(cudaMalloc(&ptr, bytes));
//   my_kernel<<<grid, block>>>(...);
//   CHECK_LAUNCH();                      // a bad launch configuration shows up here
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace cudalabs {

struct CudaError : std::runtime_error {
    CudaError(const std::string& message, bool sticky_error)
        : std::runtime_error(message), sticky(sticky_error) {}
    // The GPU context is unusable after this error: nothing more can run in this process.
    bool sticky;
};

// Advice for the errors students meet most, or "".
std::string cuda_error_hint(cudaError_t code);
bool is_sticky_error(cudaError_t code);

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);
// A cuBLAS status travels as its int value: naming cublasStatus_t here would make every lab file
// parse cuBLAS's headers, a second and a half of each compile. CUBLAS_CHECK is for files that
// include <cublas_v2.h> (common/cublas.h does).
[[noreturn]] void throw_cublas_error(int status, const char* expr, const char* file, int line);

}  // namespace cudalabs

#define CUDA_CHECK(expr)                                                         \
    do {                                                                         \
        cudaError_t cudalabs_err_ = (expr);                                      \
        if (cudalabs_err_ != cudaSuccess)                                        \
            ::cudalabs::throw_cuda_error(cudalabs_err_, #expr, __FILE__, __LINE__); \
    } while (0)

// After a <<<...>>> launch: reports configuration errors (too many threads per block, too much
// shared memory, a grid of zero blocks) at the line of the launch.
#define CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(expr)                                                                  \
    do {                                                                                    \
        cublasStatus_t cudalabs_st_ = (expr);                                               \
        if (cudalabs_st_ != CUBLAS_STATUS_SUCCESS)                                          \
            ::cudalabs::throw_cublas_error(static_cast<int>(cudalabs_st_), #expr, __FILE__, \
                                           __LINE__);                                       \
    } while (0)
