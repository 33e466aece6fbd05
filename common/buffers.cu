// The checks on device buffers declared in buffers.h: guard zones and unchanged inputs.
#include "buffers.h"

#include <set>

#include "guarded_memory.h"

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

// Compares the guard zones and, for an input, the contents with what they should be; records a
// message for each difference and repairs the record (guards refilled, the input's new hash
// kept) so the same damage is reported once. CUDA errors (a lost context) end the check quietly:
// the case has failed already and says why.
void audit(BufferRecord& r) {
    if (cudaDeviceSynchronize() != cudaSuccess) return;
    std::vector<unsigned char> zone;
    for (bool after : {false, true}) {
        const char* at = after ? r.base + kGuardBytes + r.bytes() : r.base;
        zone.resize(after ? r.after_bytes : kGuardBytes);
        if (cudaMemcpy(zone.data(), at, zone.size(), cudaMemcpyDeviceToHost) != cudaSuccess) return;
        GuardDamage damage = inspect_guard(zone.data(), after, zone.size());
        if (damage.changed == 0) continue;
        found().push_back(guard_fault_message(damage, after, r.count, r.elem_size));
        if (cudaMemset(const_cast<char*>(at), kGuardByte, zone.size()) != cudaSuccess) return;
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

}  // namespace

void enable_buffer_checks(bool on) { g_checks = on; }
bool buffer_checks_enabled() { return g_checks; }

void allocate_guarded(BufferRecord& r) {
    // Both zones are whole multiples of 256 bytes with the elements, so the elements keep the
    // 256-byte alignment cudaMalloc gives.
    const size_t padded = (r.bytes() + kGuardBytes - 1) / kGuardBytes * kGuardBytes;
    r.after_bytes = kGuardBytes + padded - r.bytes();
    GuardedMemory memory = map_guarded(kGuardBytes + padded + kGuardBytes);
    r.base = memory.start;
    r.mapping = std::move(memory.owner);
    CUDA_CHECK(cudaMemset(r.base, kGuardByte, kGuardBytes));
    CUDA_CHECK(cudaMemset(r.base + kGuardBytes + r.bytes(), kGuardByte, r.after_bytes));
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
