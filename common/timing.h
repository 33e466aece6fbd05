// Timing: CUDA events around each repetition, warm-up first, the median reported.
#pragma once
#include <chrono>
#include <vector>

#include "check.h"
#include "gpu.h"
#include "stats.h"
#include "timing_plan.h"

namespace cudalabs {

// Times `launch()` (which enqueues work on the default stream) and returns the median in ms.
// Errors from the launched work surface here, through CUDA_CHECK.
template <class Launch>
double time_gpu_ms(Launch&& launch, const TimingPlan& plan) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    const std::vector<double> samples = run_repetitions(plan, [&](int) {
        if (plan.flusher) plan.flusher->flush();
        CUDA_CHECK(cudaEventRecord(start));
        launch();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return static_cast<double>(ms);
    });
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    CHECK_LAUNCH();
    return summarize(samples).median;
}

// Wall-clock time of `work()` (host code that may copy and synchronise), median in ms.
template <class Work>
double time_host_ms(Work&& work, const TimingPlan& plan) {
    const std::vector<double> samples = run_repetitions(plan, [&](int) {
        CUDA_CHECK(cudaDeviceSynchronize());
        const auto t0 = std::chrono::steady_clock::now();
        work();
        CUDA_CHECK(cudaDeviceSynchronize());
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    });
    return summarize(samples).median;
}

}  // namespace cudalabs
