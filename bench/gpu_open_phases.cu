// bench/gpu_open_phases.cu: where a process's GPU open goes, phase by phase. bench-starts runs it
// alone and many at once: a phase whose time grows with the processes opening together is one
// the machine (its driver) does for one process at a time.
//
// Prints one line: "init S context S memory S launch S release S", seconds per phase:
//   init     the driver loaded and its GPUs counted (cuInit: CUPTI's injection runs here)
//   context  the GPU's primary context made (cudaInitDevice: what "opening the GPU" costs)
//   memory   64 MiB allocated, set and freed (a run's buffers)
//   launch   the first kernel launched and finished (its module loaded on first use)
//   release  the context destroyed (cudaDeviceReset: what a process's exit does)
// Exit: 0, 1 a CUDA call failed (it is named), 77 no GPU.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

void check(cudaError_t e, const char* expr, int line) {
    if (e == cudaSuccess) return;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        std::printf("gpu_open_phases: no CUDA GPU here (%s): nothing to time\n", cudaGetErrorString(e));
        std::exit(77);
    }
    std::fprintf(stderr, "gpu_open_phases: %s failed (%s) at %s:%d\n", expr, cudaGetErrorString(e), __FILE__, line);
    std::exit(1);
}
#define CHECK(expr) check((expr), #expr, __LINE__)

__global__ void touch(int* p) { p[threadIdx.x] = threadIdx.x; }

double seconds_since(std::chrono::steady_clock::time_point& mark) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - mark).count();
    mark = now;
    return s;
}

}  // namespace

int main() {
    auto mark = std::chrono::steady_clock::now();
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    const double init = seconds_since(mark);

    CHECK(cudaInitDevice(0, 0, 0));
    CHECK(cudaSetDevice(0));
    const double context = seconds_since(mark);

    const size_t bytes = size_t(64) << 20;
    void* buf = nullptr;
    CHECK(cudaMalloc(&buf, bytes));
    CHECK(cudaMemset(buf, 0, bytes));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(buf));
    const double memory = seconds_since(mark);

    int* p = nullptr;
    CHECK(cudaMalloc(&p, 32 * sizeof(int)));
    touch<<<1, 32>>>(p);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(p));
    const double launch = seconds_since(mark);

    CHECK(cudaDeviceReset());
    const double release = seconds_since(mark);
    std::printf("init %.4f context %.4f memory %.4f launch %.4f release %.4f\n", init, context, memory, launch, release);
    return 0;
}
