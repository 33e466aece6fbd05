// Device memory that ends where its mapping ends (the guard zones of DeviceBuffer, buffers.h).
#pragma once
#include <cstddef>
#include <memory>

namespace cudalabs {

struct GuardedMemory {
    char* start = nullptr;        // `bytes` bytes of device memory, 256-byte aligned
    std::shared_ptr<void> owner;  // frees it when the last copy goes
};

// `bytes` (a multiple of 256) of device memory whose last byte is the last of its mapping, with
// unmapped address space after it (and before the mapping): an access just past the end faults
// instead of reading or writing whatever was allocated next. Where the driver has no virtual memory management it is
// plain cudaMalloc memory.
GuardedMemory map_guarded(size_t bytes);

}  // namespace cudalabs
