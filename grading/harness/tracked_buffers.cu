// The buffers the grading harness watches (tracked_buffers.h).
#include "tracked_buffers.h"

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

}  // namespace cudalabs
