// Timing: CUDA events around each repetition, warm-up first, the median reported.
#pragma once
#include <chrono>
#include <vector>

#include "check.h"
#include "gpu.h"
#include "stats.h"

namespace cudalabs {

// Told about every repetition, warm-up included (the grader's checks of timed repetitions,
// RunContext::time_gpu): `before` runs ahead of the L2 flush and the start event, `after` once
// the repetition's work has finished; neither is inside the timed region.
struct RepetitionObserver {
    virtual ~RepetitionObserver() = default;
    virtual void before(int rep) = 0;
    virtual void after(int rep) = 0;
};

struct TimingPlan {
    int warmup = 1;
    int reps = 5;
    L2Flusher* flusher = nullptr;  // non-null: flush L2 before every repetition
    RepetitionObserver* observer = nullptr;
};

// Times `launch()` (which enqueues work on the default stream) and returns the median in ms.
// Errors from the launched work surface here, through CUDA_CHECK.
template <class Launch>
double time_gpu_ms(Launch&& launch, const TimingPlan& plan) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> samples;
    for (int i = 0; i < plan.warmup + plan.reps; ++i) {
        if (plan.observer) plan.observer->before(i);
        if (plan.flusher) plan.flusher->flush();
        CUDA_CHECK(cudaEventRecord(start));
        launch();
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (i >= plan.warmup) samples.push_back(ms);
        if (plan.observer) plan.observer->after(i);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    CHECK_LAUNCH();
    return summarize(samples).median;
}

// Wall-clock time of `work()` (host code that may copy and synchronise), median in ms.
template <class Work>
double time_host_ms(Work&& work, const TimingPlan& plan) {
    std::vector<double> samples;
    for (int i = 0; i < plan.warmup + plan.reps; ++i) {
        CUDA_CHECK(cudaDeviceSynchronize());
        if (plan.observer) plan.observer->before(i);
        auto t0 = std::chrono::steady_clock::now();
        work();
        CUDA_CHECK(cudaDeviceSynchronize());
        auto t1 = std::chrono::steady_clock::now();
        if (i >= plan.warmup)
            samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        if (plan.observer) plan.observer->after(i);
    }
    return summarize(samples).median;
}

}  // namespace cudalabs
