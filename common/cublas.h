// cuBLAS, the yardstick of the labs that compute products (09 to 13): one handle for the
// process, in the default math mode (plain FP32, no TF32), on the default stream, which is the
// stream the harness times. CUBLAS_CHECK is in check.h.
#pragma once
#include <cublas_v2.h>

#include "check.h"

namespace cudalabs {

class CublasHandle {
public:
    CublasHandle() {
        CUBLAS_CHECK(cublasCreate(&handle_));
        CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
        CUBLAS_CHECK(cublasSetStream(handle_, 0));
    }
    ~CublasHandle() { cublasDestroy(handle_); }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    cublasHandle_t get() const { return handle_; }

private:
    cublasHandle_t handle_ = nullptr;
};

inline cublasHandle_t cublas_handle() {
    static CublasHandle handle;
    return handle.get();
}

}  // namespace cudalabs
