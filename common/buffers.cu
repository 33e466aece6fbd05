// The checks on device buffers declared in buffers.h: guard zones and unchanged inputs; and the
// outputs of the current case that the grader's timed repetitions re-poison and read back.
#include "buffers.h"

#include <set>

namespace cudalabs {

namespace {

bool g_checks = false;

// Both live for the whole program (never destroyed): a static DeviceBuffer may be freed after
// other statics are gone.
std::set<BufferRecord*>& live() {
    static auto* records = new std::set<BufferRecord*>();
    return *records;
}
std::vector<std::string>& found() {
    static auto* faults = new std::vector<std::string>();
    return *faults;
}

bool g_track_outputs = false;

// The tracked outputs of the current case (few: a vector).
std::vector<OutputRegion>& outputs() {
    static auto* regions = new std::vector<OutputRegion>();
    return *regions;
}

// The tracked inputs of the run (few; a cached problem keeps its inputs from case to case).
std::vector<InputRegion>& inputs() {
    static auto* regions = new std::vector<InputRegion>();
    return *regions;
}

// Compares the guard zones and, for an input, the contents with what they should be; records a
// message for each difference and repairs the record (guards refilled, the input's new hash
// kept) so the same damage is reported once. CUDA errors (a lost context) end the check quietly:
// the case has failed already and says why.
void audit(BufferRecord& r) {
    if (cudaDeviceSynchronize() != cudaSuccess) return;
    unsigned char zone[kGuardBytes];
    for (bool after : {false, true}) {
        const char* at = after ? r.base + kGuardBytes + r.bytes() : r.base;
        if (cudaMemcpy(zone, at, kGuardBytes, cudaMemcpyDeviceToHost) != cudaSuccess) return;
        GuardDamage damage = inspect_guard(zone, after);
        if (damage.changed == 0) continue;
        found().push_back(guard_fault_message(damage, after, r.count, r.elem_size));
        if (cudaMemset(const_cast<char*>(at), kGuardByte, kGuardBytes) != cudaSuccess) return;
    }
    if (r.input) {
        std::vector<unsigned char> now(r.bytes());
        if (cudaMemcpy(now.data(), r.base + kGuardBytes, r.bytes(), cudaMemcpyDeviceToHost) != cudaSuccess) return;
        const uint64_t hash = content_hash(now.data(), now.size());
        if (hash != r.input_hash) {
            found().push_back(input_fault_message(r.count, r.elem_size));
            r.input_hash = hash;
        }
    }
}

// forget_region: drops the region that starts at ptr, if one is tracked (a buffer freed or
// re-registered; a region is tracked once).
template <typename Region>
void forget_region(std::vector<Region>& regions, const void* ptr) {
    for (auto it = regions.begin(); it != regions.end(); ++it)
        if (it->ptr == ptr) {
            regions.erase(it);
            return;
        }
}

}  // namespace

void enable_output_tracking(bool on) { g_track_outputs = on; }

void track_output(const OutputRegion& region) {
    if (!g_track_outputs || region.packed_bytes() == 0) return;
    untrack_output(region.ptr);
    outputs().push_back(region);
}

void untrack_output(const void* ptr) {
    if (g_track_outputs) forget_region(outputs(), ptr);
}

std::vector<OutputRegion> tracked_outputs() { return outputs(); }

void track_input(const InputRegion& region) {
    if (!g_track_outputs || region.scalar_bytes == 0 || region.row_bytes * region.rows == 0) return;
    untrack_input(region.ptr);
    inputs().push_back(region);
}

void untrack_input(const void* ptr) { forget_region(inputs(), ptr); }

std::vector<InputRegion> tracked_inputs() { return inputs(); }
void clear_tracked_outputs() { outputs().clear(); }

void poison_region(const OutputRegion& r) {
    if (r.rows == 1) CUDA_CHECK(cudaMemset(r.ptr, kPoisonByte, r.pitch));
    else CUDA_CHECK(cudaMemset2D(r.ptr, r.pitch, kPoisonByte, r.pitch, r.rows));
}

void download_region(const OutputRegion& r, void* host) {
    if (r.rows == 1) CUDA_CHECK(cudaMemcpy(host, r.ptr, r.row_bytes, cudaMemcpyDeviceToHost));
    else CUDA_CHECK(cudaMemcpy2D(host, r.row_bytes, r.ptr, r.pitch, r.row_bytes, r.rows, cudaMemcpyDeviceToHost));
}

void enable_buffer_checks(bool on) { g_checks = on; }
bool buffer_checks_enabled() { return g_checks; }

void arm_guards(BufferRecord& r) {
    CUDA_CHECK(cudaMemset(r.base, kGuardByte, kGuardBytes));
    CUDA_CHECK(cudaMemset(r.base + kGuardBytes + r.bytes(), kGuardByte, kGuardBytes));
}

void register_buffer(BufferRecord* r) { live().insert(r); }

void unregister_buffer(BufferRecord* r) {
    if (!live().erase(r)) return;
    audit(*r);
}

std::vector<std::string> take_buffer_faults() {
    for (BufferRecord* r : live()) audit(*r);
    std::vector<std::string> faults;
    faults.swap(found());
    return faults;
}

}  // namespace cudalabs
