// The grader's record of which kernels ran, and when: a CUPTI injection library loaded into the
// lab program (LD_PRELOAD, so that its symbols are visible to the program, and
// CUDA_INJECTION64_PATH, so that the CUDA driver loads it for CUPTI when CUDA starts).
// It writes one KERNEL record per kernel into the program's result channel, through the
// harness's exported writer (cudalabs_channel_write, grading/harness/channel_writer.h); it opens no file and
// reads nothing from the environment. The harness calls cudalabs_trace_flush before the end of
// every case and timed repetition, so each kernel's record lands where the kernel ran.
#include <cupti.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "channel_format.h"

namespace {

using ChannelWrite = int (*)(uint32_t type, const void* payload, uint64_t length);
ChannelWrite g_write = nullptr;
constexpr size_t kBufferBytes = 8 << 20;

// The kernel record's newest struct: CUpti_ActivityKernel10 from CUDA 13 (CUPTI_API_VERSION
// 130000 on), CUpti_ActivityKernel9 in CUDA 12.x. Only start, end and name are read, which sit
// at the same offsets in every version.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel9;
#endif

void send(cudalabs::channel::RecordType type, const std::string& payload) {
    g_write(static_cast<uint32_t>(type), payload.data(), payload.size());
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
        auto* k = reinterpret_cast<KernelRecord*>(record);
        send(cudalabs::channel::RecordType::Kernel,
             cudalabs::channel::kernel_payload(k->name ? k->name : "", k->start, k->end));
    }
    free(buffer);
    // Records CUPTI had no buffer for (buffer_requested could not allocate one): said, so that
    // the grader does not read the kernels they were as kernels that never ran.
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS && dropped > 0)
        send(cudalabs::channel::RecordType::TraceLost, cudalabs::channel::trace_lost_payload(dropped));
}

}  // namespace

// Called by the harness (found with dlsym) before it ends a case or a timed repetition: hands
// over every record CUPTI holds. cuptiActivityFlushAll blocks until buffer_completed has run
// for each buffer; the forced flush includes buffers that are not full.
extern "C" __attribute__((visibility("default"))) void cudalabs_trace_flush() {
    if (g_write) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

// Called by the CUDA driver when it initialises (CUDA_INJECTION64_PATH). Returning 1 lets CUDA go
// on in every case: a program without the writer simply sends no KERNEL records (and no
// TRACE_READY), which the grader reports.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    g_write = reinterpret_cast<ChannelWrite>(dlsym(RTLD_DEFAULT, "cudalabs_channel_write"));
    if (!g_write) return 1;
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
        g_write = nullptr;
        return 1;
    }
    send(cudalabs::channel::RecordType::TraceReady, cudalabs::channel::trace_ready_payload(CUPTI_API_VERSION));
    return 1;
}
