// Lab @NN@ -- @NAME@. Your work goes in this file: complete every TODO(lab@NN@).
// Build and run:   make lab@NN@ && ./lab@NN@
#include "@TOPIC@.h"

// handout:begin scale
__global__ void scale_one_per_thread(float a, const float* x, float* y, int n) {
    // TODO(lab@NN@) scale (about 2 lines): compute the global index i of this thread; if i < n, set y[i] = a * x[i].
}

void @TOPIC@_scale(float a, const float* x, float* y, int n, cudaStream_t stream) {
    // TODO(lab@NN@) scale (about 3 lines): launch scale_one_per_thread on `stream` with 256 threads per block and
    // (n + 255) / 256 blocks, then CHECK_LAUNCH().
}
// handout:end scale
