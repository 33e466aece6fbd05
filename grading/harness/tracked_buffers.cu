// The buffers the grading harness watches (tracked_buffers.h).
#include "tracked_buffers.h"

#include <algorithm>

#include "check.h"
#include "validate.h"

namespace cudalabs {

namespace {

bool g_tracking = false;

// The tracked outputs of the current case (few: a vector). Never destroyed, as the buffers that
// report to it may be static.
std::vector<OutputRegion>& outputs() {
    static auto* regions = new std::vector<OutputRegion>();
    return *regions;
}

// The tracked inputs of the run (few; a cached problem keeps its inputs from case to case).
std::vector<InputRegion>& inputs() {
    static auto* regions = new std::vector<InputRegion>();
    return *regions;
}

// Drops the region that starts at ptr, if one is tracked (a buffer freed or re-registered; a
// region is tracked once).
template <typename Region>
void forget_region(std::vector<Region>& regions, const void* ptr) {
    for (auto it = regions.begin(); it != regions.end(); ++it)
        if (it->ptr == ptr) {
            regions.erase(it);
            return;
        }
}

// Byte b of packed element at[i] (rows of row_bytes, pitch apart) to out[i * elem_bytes + b].
__global__ void cudalabs_gather_elements(const unsigned char* base, size_t pitch, size_t row_bytes, const unsigned long long* at,
                                         size_t count, unsigned elem_bytes, unsigned char* out) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        for (unsigned b = 0; b < elem_bytes; ++b) {
            const unsigned long long at_byte = at[i] * elem_bytes + b;
            out[i * elem_bytes + b] = base[(at_byte / row_bytes) * pitch + at_byte % row_bytes];
        }
}

// Device memory of the harness's own, freed when it goes (the sanitizer's leak check runs too).
struct HarnessScratch {
    void* ptr = nullptr;
    explicit HarnessScratch(size_t bytes) { CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
    ~HarnessScratch() { cudaFree(ptr); }
    HarnessScratch(const HarnessScratch&) = delete;
    HarnessScratch& operator=(const HarnessScratch&) = delete;
};

}  // namespace

void enable_buffer_tracking(bool on) { g_tracking = on; }

void track_output(const OutputRegion& region) {
    if (!g_tracking || region.packed_bytes() == 0) return;
    untrack_output(region.ptr);
    outputs().push_back(region);
}

void untrack_output(const void* ptr) {
    if (g_tracking) forget_region(outputs(), ptr);
}

std::vector<OutputRegion> tracked_outputs() { return outputs(); }
void clear_tracked_outputs() { outputs().clear(); }

void track_input(const InputRegion& region) {
    if (!g_tracking || region.scalar_bytes == 0 || region.row_bytes * region.rows == 0) return;
    untrack_input(region.ptr);
    inputs().push_back(region);
}

void untrack_input(const void* ptr) { forget_region(inputs(), ptr); }

std::vector<InputRegion> tracked_inputs() { return inputs(); }

void poison_region(const OutputRegion& r) {
    if (r.rows == 1) CUDA_CHECK(cudaMemset(r.ptr, kPoisonByte, r.pitch));
    else CUDA_CHECK(cudaMemset2D(r.ptr, r.pitch, kPoisonByte, r.pitch, r.rows));
}

void download_region(const OutputRegion& r, void* host) {
    if (r.rows == 1) CUDA_CHECK(cudaMemcpy(host, r.ptr, r.row_bytes, cudaMemcpyDeviceToHost));
    else CUDA_CHECK(cudaMemcpy2D(host, r.row_bytes, r.ptr, r.pitch, r.row_bytes, r.rows, cudaMemcpyDeviceToHost));
}

std::vector<unsigned char> gather_region(const OutputRegion& r, size_t elem_bytes, const std::vector<size_t>& at) {
    std::vector<unsigned char> out(at.size() * elem_bytes);
    if (out.empty() || r.row_bytes == 0) return out;
    const std::vector<unsigned long long> positions(at.begin(), at.end());
    HarnessScratch device_at(positions.size() * sizeof(unsigned long long)), device_out(out.size());
    CUDA_CHECK(cudaMemcpy(device_at.ptr, positions.data(), positions.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>((at.size() + 255) / 256, 1024));
    cudalabs_gather_elements<<<blocks, 256>>>(reinterpret_cast<const unsigned char*>(r.ptr), r.pitch, r.row_bytes,
                                              static_cast<const unsigned long long*>(device_at.ptr), at.size(),
                                              static_cast<unsigned>(elem_bytes), static_cast<unsigned char*>(device_out.ptr));
    CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out.data(), device_out.ptr, out.size(), cudaMemcpyDeviceToHost));
    return out;
}

}  // namespace cudalabs
