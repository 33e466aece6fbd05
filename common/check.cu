#include "check.h"

#include <cublas_v2.h>

namespace cudalabs {

bool is_sticky_error(cudaError_t code) {
    switch (code) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorHardwareStackError:
        case cudaErrorAssert:
        case cudaErrorLaunchTimeout:
        case cudaErrorUnknown:
            return true;
        default:
            return false;
    }
}

std::string cuda_error_hint(cudaError_t code) {
    switch (code) {
        case cudaErrorIllegalAddress:
            return "a kernel read or wrote outside its arrays: check the index guard "
                   "(if (i < n)) and the grid size, or run the program under compute-sanitizer "
                   "to see the faulting line";
        case cudaErrorMisalignedAddress:
            return "a kernel used a vector type (float4, double2) on an address that is not a "
                   "multiple of its size";
        case cudaErrorInvalidConfiguration:
            return "the launch configuration is invalid: a block may hold at most 1024 threads, "
                   "a grid needs at least one block, and shared memory is limited per block";
        case cudaErrorMemoryAllocation:
            return "out of device memory: try a smaller --size, or free buffers you no longer "
                   "need";
        case cudaErrorNoKernelImageForDevice:
            return "this program was built for another GPU architecture: rebuild with "
                   "'make clean && make' on this machine, or pick one with make ARCH=sm_XX";
        case cudaErrorInvalidValue:
            return "an argument is out of range: check sizes, pointers and the copy direction";
        case cudaErrorInvalidDevicePointer:
            return "a pointer passed as device memory is not one (a host pointer, or freed)";
        case cudaErrorLaunchOutOfResources:
            return "the kernel needs more registers or shared memory than a block can have: "
                   "use fewer threads per block";
        case cudaErrorAssert:
            return "a device-side assert() failed";
        default:
            return "";
    }
}

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
    std::string msg = std::string("CUDA error ") + cudaGetErrorName(code) + " (" +
                      cudaGetErrorString(code) + ") from " + expr + " at " + file + ":" +
                      std::to_string(line);
    std::string hint = cuda_error_hint(code);
    if (!hint.empty()) msg += " -- " + hint;
    // Clear a non-sticky error so the next variant starts clean.
    if (!is_sticky_error(code)) cudaGetLastError();
    throw CudaError(msg, is_sticky_error(code));
}

void throw_cublas_error(int status, const char* expr, const char* file, int line) {
    const auto code = static_cast<cublasStatus_t>(status);
    throw CudaError(std::string("cuBLAS error ") + cublasGetStatusName(code) + " (" +
                        cublasGetStatusString(code) + ") from " + expr + " at " + file + ":" +
                        std::to_string(line),
                    false);
}

}  // namespace cudalabs
