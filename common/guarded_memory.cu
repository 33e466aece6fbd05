// Device memory that ends where its mapping ends (guarded_memory.h), through the CUDA virtual
// memory API: reserve address space two granules larger than the memory, map the memory one
// granule into the reservation, and hand out its last `bytes`. The granules before and after it
// stay reserved and unmapped, so nothing else is ever allocated there.
#include "guarded_memory.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

#include "check.h"

namespace cudalabs {

namespace {

// The driver API's virtual memory functions, looked up through the runtime: the labs link no
// driver library of their own.
struct VirtualMemoryApi {
    CUresult (*granularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags) = nullptr;
    CUresult (*create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long) = nullptr;
    CUresult (*release)(CUmemGenericAllocationHandle) = nullptr;
    CUresult (*reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
    CUresult (*free_address)(CUdeviceptr, size_t) = nullptr;
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) = nullptr;
    CUresult (*unmap)(CUdeviceptr, size_t) = nullptr;
    CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
    bool complete() const { return granularity && create && release && reserve && free_address && map && unmap && set_access; }
};

template <class F>
void look_up(const char* symbol, F*& fn) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &found);
#else
    const cudaError_t err = cudaGetDriverEntryPoint(symbol, &p, cudaEnableDefault, &found);
#endif
    if (err != cudaSuccess) cudaGetLastError();  // absent: the caller falls back, no error left behind
    fn = err == cudaSuccess && found == cudaDriverEntryPointSuccess ? reinterpret_cast<F*>(p) : nullptr;
}

const VirtualMemoryApi& api() {
    static const VirtualMemoryApi a = [] {
        VirtualMemoryApi v;
        look_up("cuMemGetAllocationGranularity", v.granularity);
        look_up("cuMemCreate", v.create);
        look_up("cuMemRelease", v.release);
        look_up("cuMemAddressReserve", v.reserve);
        look_up("cuMemAddressFree", v.free_address);
        look_up("cuMemMap", v.map);
        look_up("cuMemUnmap", v.unmap);
        look_up("cuMemSetAccess", v.set_access);
        return v;
    }();
    return a;
}

GuardedMemory plain(size_t bytes) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return {static_cast<char*>(p), std::shared_ptr<void>(p, [](void* q) { cudaFree(q); })};
}

// A failed driver call of the mapping: named like a CUDA_CHECK failure, with the driver's code.
void check_driver(CUresult r, const char* what, const char* file, int line) {
    if (r == CUDA_SUCCESS) return;
    throw CudaError("CUDA driver error " + std::to_string(static_cast<int>(r)) + " from " + what + " at " + file + ":" +
                        std::to_string(line) + " (mapping a guarded device buffer: is the GPU out of memory?)",
                    false);
}
#define DRIVER_CHECK(call) check_driver((call), #call, __FILE__, __LINE__)

struct Mapping {
    CUdeviceptr reserved = 0, mapped_at = 0;
    size_t reserved_bytes = 0, mapped_bytes = 0;
    CUmemGenericAllocationHandle handle = 0;
    bool mapped = false;
    ~Mapping() {
        const VirtualMemoryApi& v = api();
        if (mapped) v.unmap(mapped_at, mapped_bytes);
        if (handle) v.release(handle);
        if (reserved) v.free_address(reserved, reserved_bytes);
    }
};

}  // namespace

GuardedMemory map_guarded(size_t bytes) {
    const VirtualMemoryApi& v = api();
    int device = 0;
    CUDA_CHECK(cudaFree(nullptr));  // the runtime's context is current from here on
    CUDA_CHECK(cudaGetDevice(&device));
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t granule = 0;
    if (!v.complete() || v.granularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || granule == 0)
        return plain(bytes);
    auto m = std::make_shared<Mapping>();
    m->mapped_bytes = (bytes + granule - 1) / granule * granule;
    m->reserved_bytes = m->mapped_bytes + 2 * granule;
    DRIVER_CHECK(v.reserve(&m->reserved, m->reserved_bytes, granule, 0, 0));
    m->mapped_at = m->reserved + granule;
    DRIVER_CHECK(v.create(&m->handle, m->mapped_bytes, &prop, 0));
    DRIVER_CHECK(v.map(m->mapped_at, m->mapped_bytes, 0, m->handle, 0));
    m->mapped = true;
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRIVER_CHECK(v.set_access(m->mapped_at, m->mapped_bytes, &access, 1));
    char* start = reinterpret_cast<char*>(m->mapped_at + m->mapped_bytes - bytes);
    return {start, std::shared_ptr<void>(m, start)};
}

}  // namespace cudalabs
