#include "gpu.h"

#include <algorithm>
#include <vector>

#include "args.h"
#include "stats.h"

namespace cudalabs {

namespace {
std::string version_string(int v) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// The form nvidia-smi prints: GPU-8 hex digits-4-4-4-12.
std::string uuid_string(const cudaUUID_t& id) {
    static const char* hex = "0123456789abcdef";
    std::string s = "GPU-";
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        const unsigned char b = static_cast<unsigned char>(id.bytes[i]);
        s += hex[b >> 4];
        s += hex[b & 15];
    }
    return s;
}
}  // namespace

DeviceSummary open_device(int index, cudaDeviceProp* props_out) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        std::string why = err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device found";
        // Without any driver the runtime says "driver version is insufficient", which sends
        // people to update a driver they do not have: the driver version 0 tells them apart.
        int driver = 0;
        if (err == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
            why = "no NVIDIA driver is installed";
        cudaGetLastError();
        throw NoGpuError("no usable CUDA GPU (" + why +
                         "): this program needs an NVIDIA GPU and driver to run; building and "
                         "the unit tests work without one");
    }
    if (index < 0 || index >= count) {
        // Each device's name and UUID (read without opening it: no context is made), so that a
        // wrong index is easy to correct and a tool can tell the cards apart.
        std::string devices;
        for (int i = 0; i < count; ++i) {
            cudaDeviceProp p;
            if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
            devices += (devices.empty() ? "" : "; ") + std::to_string(i) + ": " + p.name + ", " + uuid_string(p.uuid);
        }
        cudaGetLastError();
        throw UsageError("--device " + std::to_string(index) + " does not exist: this machine has " +
                         std::to_string(count) + " CUDA device(s), numbered from 0" + (devices.empty() ? "" : " (" + devices + ")"));
    }
    CUDA_CHECK(cudaSetDevice(index));
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, index));
    if (props_out) *props_out = p;
    DeviceSummary d;
    d.name = p.name;
    d.compute_capability = std::to_string(p.major) + "." + std::to_string(p.minor);
    d.sms = p.multiProcessorCount;
    d.memory_gib = static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024 * 1024);
    d.l2_mib = p.l2CacheSize / (1024 * 1024);
    int runtime = 0, driver = 0;
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    d.cuda_runtime = version_string(runtime);
    d.cuda_driver = version_string(driver);
    d.uuid = uuid_string(p.uuid);
    return d;
}

size_t free_device_memory() {
    size_t free_bytes = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    return free_bytes;
}

double measure_copy_gbs(size_t bytes, int reps) {
    DeviceBuffer<char> src(bytes), dst(bytes);
    CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> ms;
    for (int i = -1; i < reps; ++i) {  // i = -1 is the warm-up
        CUDA_CHECK(cudaEventRecord(start));
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        if (i >= 0) ms.push_back(t);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return 2.0 * static_cast<double>(bytes) / (summarize(ms).median * 1e6);
}

L2Flusher::L2Flusher() {
    int device = 0, l2 = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    l2_bytes_ = static_cast<size_t>(l2);
    scratch_ = DeviceBuffer<char>(std::max<size_t>(2 * l2_bytes_, 1 << 20));
}

void L2Flusher::flush(cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(scratch_.data(), 0, scratch_.bytes(), stream));
}

}  // namespace cudalabs
