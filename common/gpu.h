// Finding the GPU, describing it, and the yardsticks measured on it.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "buffers.h"
#include "report.h"

namespace cudalabs {

// No usable GPU: the program prints what() as its one sentence and exits with kExitNoGpu.
struct NoGpuError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Selects device `index` and returns its description (copy bandwidth not yet measured).
// Throws NoGpuError when there is no GPU or driver, UsageError for an index out of range.
DeviceSummary open_device(int index, cudaDeviceProp* props_out = nullptr);

// Device-to-device cudaMemcpy of `bytes`, counting bytes read plus bytes written, median of
// `reps` copies after a warm-up: the yardstick of memory-bound labs.
double measure_copy_gbs(size_t bytes, int reps);

size_t free_device_memory();

// Evicts the L2 cache between timed runs by writing a buffer twice its size, so that a small
// problem is timed from device memory, as a large one would be.
class L2Flusher {
public:
    L2Flusher();
    void flush(cudaStream_t stream = 0);
    size_t l2_bytes() const { return l2_bytes_; }

private:
    size_t l2_bytes_ = 0;
    DeviceBuffer<char> scratch_;
};

}  // namespace cudalabs
