// The grading shims: stand-ins for the CUDA runtime's copy and host-allocation calls, linked only
// into the programs the grader builds from a student's file. The grader renames the student
// object's imports (objcopy --redefine-sym, the table is grading/shimmed-imports.txt), so that a
// call such as cudaMemcpy in the student's code reaches cudalabs_shim_cudaMemcpy, which records
// a TRANSFER {api, direction, bytes} in the result channel (channel_writer.h) and forwards the call
// unchanged; while a host round trip is watched, it also tells that watch what crossed between
// host memory and the device (round_trip.h). The harness's and the driver's own calls are not
// renamed and not recorded.
//
// Each shim has the exact signature of the C function the object imports: the C++ overloads
// and templates of cuda_runtime.h (cudaMemcpyToSymbol(const T&, ...), cudaMallocHost(T**, ...),
// cudaMallocManaged(T**, ...)) are inline and call these C functions, so renaming the imports
// covers them too. The _ptds / _ptsz forms are what the same calls import when a file is built
// for the per-thread default stream.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tracked_buffers.h"
#include "channel_writer.h"
#include "host_seal.h"
#include "round_trip.h"

using cudalabs::channel::Direction;

// Declared by cuda_runtime_api.h only when the per-thread default stream is selected.
extern "C" {
cudaError_t CUDARTAPI cudaMemcpy_ptds(void*, const void*, size_t, cudaMemcpyKind);
cudaError_t CUDARTAPI cudaLaunchHostFunc_ptsz(cudaStream_t, cudaHostFn_t, void*);
cudaError_t CUDARTAPI cudaMemcpyAsync_ptsz(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t CUDARTAPI cudaMemcpy2D_ptds(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind);
cudaError_t CUDARTAPI cudaMemcpy2DAsync_ptsz(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind,
                                             cudaStream_t);
cudaError_t CUDARTAPI cudaMemcpy3D_ptds(const cudaMemcpy3DParms*);
cudaError_t CUDARTAPI cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms*, cudaStream_t);
cudaError_t CUDARTAPI cudaMemcpy3DPeer_ptds(const cudaMemcpy3DPeerParms*);
cudaError_t CUDARTAPI cudaMemcpy3DPeerAsync_ptsz(const cudaMemcpy3DPeerParms*, cudaStream_t);
cudaError_t CUDARTAPI cudaMemcpyToSymbol_ptds(const void*, const void*, size_t, size_t, cudaMemcpyKind);
cudaError_t CUDARTAPI cudaMemcpyFromSymbol_ptds(void*, const void*, size_t, size_t, cudaMemcpyKind);
cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync_ptsz(const void*, const void*, size_t, size_t, cudaMemcpyKind,
                                                   cudaStream_t);
cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync_ptsz(void*, const void*, size_t, size_t, cudaMemcpyKind,
                                                     cudaStream_t);
}

namespace {

// What memory a pointer is in; unregistered (host) when the runtime does not know it. The
// program's own error state stays as it was.
cudaMemoryType memory_type(const void* p) {
    cudaPointerAttributes a{};
    const cudaError_t earlier = cudaPeekAtLastError();
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        if (earlier == cudaSuccess) cudaGetLastError();
        return cudaMemoryTypeUnregistered;
    }
    return a.type;
}

// Where a pointer lives, for cudaMemcpyDefault: device (or managed) memory counts as device.
bool on_device(const void* p) {
    const cudaMemoryType t = memory_type(p);
    return t == cudaMemoryTypeDevice || t == cudaMemoryTypeManaged;
}

// The device address `offset` bytes into a symbol, or nullptr (the error state as it was).
const void* symbol_at(const void* symbol, size_t offset) {
    void* p = nullptr;
    const cudaError_t earlier = cudaPeekAtLastError();
    if (cudaGetSymbolAddress(&p, symbol) != cudaSuccess) {
        if (earlier == cudaSuccess) cudaGetLastError();
        return nullptr;
    }
    return static_cast<const char*>(p) + offset;
}

Direction direction_of(cudaMemcpyKind kind, const void* dst, const void* src) {
    switch (kind) {
        case cudaMemcpyHostToHost: return Direction::HostToHost;
        case cudaMemcpyHostToDevice: return Direction::HostToDevice;
        case cudaMemcpyDeviceToHost: return Direction::DeviceToHost;
        case cudaMemcpyDeviceToDevice: return Direction::DeviceToDevice;
        default: break;
    }
    const bool from = on_device(src), to = on_device(dst);
    return from ? (to ? Direction::DeviceToDevice : Direction::DeviceToHost)
                : (to ? Direction::HostToDevice : Direction::HostToHost);
}

void record(const char* api, Direction d, uint64_t bytes) { cudalabs::channel::write_transfer(api, d, bytes); }

// Whether [p, p + bytes) touches an output of the current case (tracked_buffers.h: the regions the
// harness poisoned, and checks after the call).
bool touches_output(const void* p, size_t bytes) {
    const char* lo = static_cast<const char*>(p);
    const char* hi = lo + bytes;
    for (const cudalabs::OutputRegion& r : cudalabs::tracked_outputs()) {
        const char* end = r.ptr + (r.rows - 1) * r.pitch + r.row_bytes;  // tracked regions are never empty
        if (lo < end && r.ptr < hi) return true;
    }
    return false;
}

// A 1D copy within the device moves bytes unchanged. Into an output it would do a kernel's work
// (DeviceToDevice, as recorded); anywhere else -- scratch memory, a __constant__ or __device__
// variable -- it is staging, which the copy rules allow (DeviceToScratch). Staging needs both
// ends in plain device memory, whatever the copy's kind says: host memory (which a kind of
// "device to device" can reach where the GPU shares the CPU's page tables) and managed memory
// are the CPU's to read and write. It also needs the case's outputs to be known (tracked):
// otherwise where the copy lands cannot be told. 2D and 3D copies stay DeviceToDevice wherever
// they land: their pitches can reorder elements (a transpose).
Direction within_device(Direction d, const void* dst, const void* src, size_t bytes) {
    const bool staging = d == Direction::DeviceToDevice && memory_type(dst) == cudaMemoryTypeDevice &&
                         memory_type(src) == cudaMemoryTypeDevice && !cudalabs::tracked_outputs().empty() &&
                         !touches_output(dst, bytes);
    return staging ? Direction::DeviceToScratch : d;
}

// Bytes a 3D copy moves: its extent (for a CUDA array the width counts elements, not bytes).
uint64_t bytes_3d(const cudaExtent& e) {
    return static_cast<uint64_t>(e.width) * (e.height ? e.height : 1) * (e.depth ? e.depth : 1);
}

// For 3D copies the pointers sit in cudaPitchedPtr or are arrays (always device memory).
const void* ptr_3d(const cudaPitchedPtr& p, cudaArray_const_t array) {
    return array ? static_cast<const void*>(array) : p.ptr;
}
Direction direction_3d(const cudaMemcpy3DParms* p) {
    if (!p) return Direction::HostToHost;
    if (p->kind != cudaMemcpyDefault) return direction_of(p->kind, nullptr, nullptr);
    const bool from = p->srcArray || on_device(ptr_3d(p->srcPtr, p->srcArray));
    const bool to = p->dstArray || on_device(ptr_3d(p->dstPtr, p->dstArray));
    return from ? (to ? Direction::DeviceToDevice : Direction::DeviceToHost)
                : (to ? Direction::HostToDevice : Direction::HostToHost);
}

// The kind decides the direction: a symbol is device memory, the other side is what kind says
// (cudaMemcpyDefault: looked up). A copy into a symbol from the device may be staging
// (within_device, above).
Direction to_symbol(cudaMemcpyKind kind, const void* src) {
    if (kind == cudaMemcpyDeviceToDevice) return Direction::DeviceToDevice;
    if (kind == cudaMemcpyDefault) return on_device(src) ? Direction::DeviceToDevice : Direction::HostToDevice;
    return Direction::HostToDevice;
}
Direction from_symbol(cudaMemcpyKind kind, const void* dst) {
    if (kind == cudaMemcpyDeviceToDevice) return Direction::DeviceToDevice;
    if (kind == cudaMemcpyDefault) return on_device(dst) ? Direction::DeviceToDevice : Direction::DeviceToHost;
    return Direction::DeviceToHost;
}

// ---- a graded host round trip (round_trip.h) ----------------------------------------------------
// While one is watched, every copy between host memory and the device is told to its ledger: the
// host bytes going to the device before the copy, the bytes landing in host memory after it (a
// copy into pageable memory returns once they have landed). Where each end lies is asked of the
// runtime, not read from the copy's kind, which can call host memory "device" where the GPU
// reaches it. Anything but plain device memory counts as the host's: pageable (whatever the
// runtime calls it where the GPU shares the CPU's page tables), pinned and managed memory.
bool host_memory(const void* p) { return p && memory_type(p) != cudaMemoryTypeDevice; }

// The stream an asynchronous copy is queued on; `async` false: the copy is done when its call
// returns (a copy into pageable memory waits for its bytes to land).
struct Queue {
    bool async = false;
    cudaStream_t stream = nullptr;
    bool per_thread = false;  // a _ptsz call: stream 0 is the thread's own default stream
};
Queue queued_on(cudaStream_t stream, bool per_thread = false) { return {true, stream, per_thread}; }

// The rows an asynchronous copy brings into host memory, told to the ledger when they have
// landed: by a host function queued behind the copy on its stream.
struct Landing {
    cudalabs::RoundTripLedger* ledger;
    std::string api;
    std::vector<std::pair<const void*, size_t>> rows;
};
void CUDART_CB landed(void* p) {
    std::unique_ptr<Landing> l(static_cast<Landing*>(p));
    for (const auto& row : l->rows) l->ledger->download(l->api, row.first, row.second);
}

// What every watched copy does: tell the ledger the host rows going to the device before the
// copy, and the rows landing in host memory once they have landed (an asynchronous copy's when
// its stream reaches them: `queue`). `src_row(r)`, `sent_row(r)` and
// `dst_row(r)` are where row r starts in the source, where the copy reads it, and in the
// destination; each row is `width` bytes.
template <class SrcRow, class SentRow, class DstRow, class Copy>
cudaError_t watched_rows(cudalabs::RoundTripLedger& ledger, const char* api, bool from_host, bool to_host, size_t rows,
                         size_t width, SrcRow&& src_row, SentRow&& sent_row, DstRow&& dst_row, Copy&& copy, Queue queue) {
    if (from_host && !to_host)
        for (size_t r = 0; r < rows; ++r) ledger.upload(api, src_row(r), sent_row(r), width);
    const cudaError_t err = copy();
    if (err != cudaSuccess || !to_host || from_host) return err;
    if (!queue.async) {
        for (size_t r = 0; r < rows; ++r) ledger.download(api, dst_row(r), width);
        return err;
    }
    auto landing = std::make_unique<Landing>(Landing{&ledger, api, {}});
    for (size_t r = 0; r < rows; ++r) landing->rows.push_back({dst_row(r), width});
    const cudaError_t queued = queue.per_thread ? cudaLaunchHostFunc_ptsz(queue.stream, landed, landing.get())
                                                : cudaLaunchHostFunc(queue.stream, landed, landing.get());
    if (queued == cudaSuccess) landing.release();
    else for (const auto& row : landing->rows) ledger.download(api, row.first, row.second);  // as a synchronous copy
    return err;
}

// Where a copy from `src` of `extent` bytes reads them: from the seal's copy when it lies in a
// sealed input of the call under way (host_seal.h) and goes to the device, so the sealed pages
// stay unread. A copy into host memory (`dst_is_host`, asked only while a seal is on) is never
// given the seal's copy: it would hand the CPU the inputs; it reads the sealed pages, and stops.
template <class DstIsHost>
const void* sealed_source(const void* src, size_t extent, DstIsHost&& dst_is_host) {
    const cudalabs::HostSeal* seal = cudalabs::HostSeal::active();
    return seal && !dst_is_host() ? seal->readable(src, extent) : src;
}

// `copy(from)` moves `rows` rows of `width` bytes, `spitch` apart at `from` (where the copy of
// `src` reads: sealed_source) and `dpitch` apart at `dst`.
template <class Copy>
cudaError_t watched(const char* api, const void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                    size_t rows, Copy&& copy, Queue queue = {}) {
    const void* from = rows ? sealed_source(src, (rows - 1) * spitch + width, [&] { return host_memory(dst); }) : src;
    cudalabs::RoundTripLedger* ledger = cudalabs::RoundTripLedger::active();
    if (!ledger) return copy(from);
    return watched_rows(
        *ledger, api, host_memory(src), host_memory(dst), rows, width,
        [&](size_t r) { return static_cast<const char*>(src) + r * spitch; },
        [&](size_t r) { return static_cast<const char*>(from) + r * spitch; },
        [&](size_t r) { return static_cast<const char*>(dst) + r * dpitch; }, [&] { return copy(from); }, queue);
}
template <class Copy>
cudaError_t watched(const char* api, const void* dst, const void* src, size_t count, Copy&& copy, Queue queue = {}) {
    return watched(api, dst, count, src, count, count, 1, copy, queue);
}

// A 3D copy, row by row: a CUDA array is device memory; a pitched pointer's rows are `pitch`
// apart and its slices `ysize` rows apart. The extent's width counts bytes, or an array's
// elements when one side is an array.
size_t element_bytes(cudaArray_const_t array) {
    cudaChannelFormatDesc d{};
    cudaExtent e{};
    unsigned int flags = 0;
    if (cudaArrayGetInfo(&d, &e, &flags, const_cast<cudaArray_t>(array)) != cudaSuccess) return 0;
    return static_cast<size_t>(d.x + d.y + d.z + d.w) / 8;
}
template <class Copy>
cudaError_t watched_3d(const char* api, const cudaMemcpy3DParms* p, Copy&& copy, Queue queue = {}) {
    if (!p) return copy(p);
    const cudaArray_const_t array = p->srcArray ? p->srcArray : p->dstArray;
    const size_t width = array ? p->extent.width * element_bytes(array) : p->extent.width;
    const size_t height = p->extent.height ? p->extent.height : 1, depth = p->extent.depth ? p->extent.depth : 1;
    // Row r of the copy is row r % height of slice r / height.
    auto row = [height](const cudaPitchedPtr& at, const cudaPos& pos, size_t r) {
        return static_cast<const char*>(at.ptr) + ((pos.z + r / height) * at.ysize + pos.y + r % height) * at.pitch + pos.x;
    };
    // A sealed source is read from the seal's copy, at the same offsets (sealed_source).
    cudaMemcpy3DParms sent = *p;
    if (!p->srcArray && p->srcPtr.ptr) {
        const char* first = row(p->srcPtr, p->srcPos, 0);
        const char* end = row(p->srcPtr, p->srcPos, height * depth - 1) + width;
        const uintptr_t from = reinterpret_cast<uintptr_t>(
            sealed_source(first, static_cast<size_t>(end - first), [&] { return !p->dstArray && host_memory(p->dstPtr.ptr); }));
        sent.srcPtr.ptr = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p->srcPtr.ptr) + (from - reinterpret_cast<uintptr_t>(first)));
    }
    cudalabs::RoundTripLedger* ledger = cudalabs::RoundTripLedger::active();
    if (!ledger) return copy(&sent);
    return watched_rows(
        *ledger, api, !p->srcArray && host_memory(p->srcPtr.ptr), !p->dstArray && host_memory(p->dstPtr.ptr), height * depth,
        width, [&](size_t r) { return row(p->srcPtr, p->srcPos, r); }, [&](size_t r) { return row(sent.srcPtr, sent.srcPos, r); },
        [&](size_t r) { return row(p->dstPtr, p->dstPos, r); }, [&] { return copy(&sent); }, queue);
}
// An allocation of host memory the GPU can reach, while a round trip is watched.
void shared_memory(const char* api) {
    if (cudalabs::RoundTripLedger* ledger = cudalabs::RoundTripLedger::active()) ledger->shared_memory(api);
}

}  // namespace

extern "C" {

// The harness asks for this (round_trip.cu): a program with the shims can have its inputs sealed.
int cudalabs_shims_linked() { return 1; }

// ---- 1D copies ---------------------------------------------------------------------------------
cudaError_t cudalabs_shim_cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    record("cudaMemcpy", within_device(direction_of(kind, dst, src), dst, src, count), count);
    return watched("cudaMemcpy", dst, src, count, [&](const void* from) { return cudaMemcpy(dst, from, count, kind); });
}
cudaError_t cudalabs_shim_cudaMemcpy_ptds(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    record("cudaMemcpy", within_device(direction_of(kind, dst, src), dst, src, count), count);
    return watched("cudaMemcpy", dst, src, count, [&](const void* from) { return cudaMemcpy_ptds(dst, from, count, kind); });
}
cudaError_t cudalabs_shim_cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                          cudaStream_t stream) {
    record("cudaMemcpyAsync", within_device(direction_of(kind, dst, src), dst, src, count), count);
    return watched("cudaMemcpyAsync", dst, src, count, [&](const void* from) { return cudaMemcpyAsync(dst, from, count, kind, stream); }, queued_on(stream));
}
cudaError_t cudalabs_shim_cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                                               cudaStream_t stream) {
    record("cudaMemcpyAsync", within_device(direction_of(kind, dst, src), dst, src, count), count);
    return watched("cudaMemcpyAsync", dst, src, count, [&](const void* from) { return cudaMemcpyAsync_ptsz(dst, from, count, kind, stream); }, queued_on(stream, true));
}

// ---- 2D copies ---------------------------------------------------------------------------------
cudaError_t cudalabs_shim_cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                       size_t height, cudaMemcpyKind kind) {
    record("cudaMemcpy2D", direction_of(kind, dst, src), static_cast<uint64_t>(width) * height);
    return watched("cudaMemcpy2D", dst, dpitch, src, spitch, width, height,
                   [&](const void* from) { return cudaMemcpy2D(dst, dpitch, from, spitch, width, height, kind); });
}
cudaError_t cudalabs_shim_cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                            size_t height, cudaMemcpyKind kind) {
    record("cudaMemcpy2D", direction_of(kind, dst, src), static_cast<uint64_t>(width) * height);
    return watched("cudaMemcpy2D", dst, dpitch, src, spitch, width, height,
                   [&](const void* from) { return cudaMemcpy2D_ptds(dst, dpitch, from, spitch, width, height, kind); });
}
cudaError_t cudalabs_shim_cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                            size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
    record("cudaMemcpy2DAsync", direction_of(kind, dst, src), static_cast<uint64_t>(width) * height);
    return watched("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height,
                   [&](const void* from) { return cudaMemcpy2DAsync(dst, dpitch, from, spitch, width, height, kind, stream); }, queued_on(stream));
}
cudaError_t cudalabs_shim_cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch,
                                                 size_t width, size_t height, cudaMemcpyKind kind,
                                                 cudaStream_t stream) {
    record("cudaMemcpy2DAsync", direction_of(kind, dst, src), static_cast<uint64_t>(width) * height);
    return watched("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height,
                   [&](const void* from) { return cudaMemcpy2DAsync_ptsz(dst, dpitch, from, spitch, width, height, kind, stream); }, queued_on(stream, true));
}

// ---- 3D copies ---------------------------------------------------------------------------------
cudaError_t cudalabs_shim_cudaMemcpy3D(const cudaMemcpy3DParms* p) {
    record("cudaMemcpy3D", direction_3d(p), p ? bytes_3d(p->extent) : 0);
    return watched_3d("cudaMemcpy3D", p, [&](const cudaMemcpy3DParms* q) { return cudaMemcpy3D(q); });
}
cudaError_t cudalabs_shim_cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p) {
    record("cudaMemcpy3D", direction_3d(p), p ? bytes_3d(p->extent) : 0);
    return watched_3d("cudaMemcpy3D", p, [&](const cudaMemcpy3DParms* q) { return cudaMemcpy3D_ptds(q); });
}
cudaError_t cudalabs_shim_cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
    record("cudaMemcpy3DAsync", direction_3d(p), p ? bytes_3d(p->extent) : 0);
    return watched_3d("cudaMemcpy3DAsync", p, [&](const cudaMemcpy3DParms* q) { return cudaMemcpy3DAsync(q, stream); }, queued_on(stream));
}
cudaError_t cudalabs_shim_cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t stream) {
    record("cudaMemcpy3DAsync", direction_3d(p), p ? bytes_3d(p->extent) : 0);
    return watched_3d("cudaMemcpy3DAsync", p, [&](const cudaMemcpy3DParms* q) { return cudaMemcpy3DAsync_ptsz(q, stream); }, queued_on(stream, true));
}
cudaError_t cudalabs_shim_cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms* p) {
    record("cudaMemcpy3DPeer", Direction::DeviceToDevice, p ? bytes_3d(p->extent) : 0);
    return cudaMemcpy3DPeer(p);
}
cudaError_t cudalabs_shim_cudaMemcpy3DPeer_ptds(const cudaMemcpy3DPeerParms* p) {
    record("cudaMemcpy3DPeer", Direction::DeviceToDevice, p ? bytes_3d(p->extent) : 0);
    return cudaMemcpy3DPeer_ptds(p);
}
cudaError_t cudalabs_shim_cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
    record("cudaMemcpy3DPeerAsync", Direction::DeviceToDevice, p ? bytes_3d(p->extent) : 0);
    return cudaMemcpy3DPeerAsync(p, stream);
}
cudaError_t cudalabs_shim_cudaMemcpy3DPeerAsync_ptsz(const cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
    record("cudaMemcpy3DPeerAsync", Direction::DeviceToDevice, p ? bytes_3d(p->extent) : 0);
    return cudaMemcpy3DPeerAsync_ptsz(p, stream);
}

// ---- symbols (__constant__ and __device__ variables) ------------------------------------------
cudaError_t cudalabs_shim_cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                                             cudaMemcpyKind kind) {
    const void* at = symbol_at(symbol, offset);
    record("cudaMemcpyToSymbol", within_device(to_symbol(kind, src), at, src, count), count);
    return watched("cudaMemcpyToSymbol", at, src, count,
                   [&](const void* from) { return cudaMemcpyToSymbol(symbol, from, count, offset, kind); });
}
cudaError_t cudalabs_shim_cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count, size_t offset,
                                                  cudaMemcpyKind kind) {
    const void* at = symbol_at(symbol, offset);
    record("cudaMemcpyToSymbol", within_device(to_symbol(kind, src), at, src, count), count);
    return watched("cudaMemcpyToSymbol", at, src, count,
                   [&](const void* from) { return cudaMemcpyToSymbol_ptds(symbol, from, count, offset, kind); });
}
cudaError_t cudalabs_shim_cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                               cudaMemcpyKind kind) {
    const void* at = symbol_at(symbol, offset);
    record("cudaMemcpyFromSymbol", within_device(from_symbol(kind, dst), dst, at, count), count);
    return watched("cudaMemcpyFromSymbol", dst, at, count,
                   [&](const void*) { return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind); });
}
cudaError_t cudalabs_shim_cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset,
                                                    cudaMemcpyKind kind) {
    const void* at = symbol_at(symbol, offset);
    record("cudaMemcpyFromSymbol", within_device(from_symbol(kind, dst), dst, at, count), count);
    return watched("cudaMemcpyFromSymbol", dst, at, count,
                   [&](const void*) { return cudaMemcpyFromSymbol_ptds(dst, symbol, count, offset, kind); });
}
cudaError_t cudalabs_shim_cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                                  cudaMemcpyKind kind, cudaStream_t stream) {
    const void* at = symbol_at(symbol, offset);
    record("cudaMemcpyToSymbolAsync", within_device(to_symbol(kind, src), at, src, count), count);
    return watched("cudaMemcpyToSymbolAsync", at, src, count,
                   [&](const void* from) { return cudaMemcpyToSymbolAsync(symbol, from, count, offset, kind, stream); }, queued_on(stream));
}
cudaError_t cudalabs_shim_cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count,
                                                       size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
    const void* at = symbol_at(symbol, offset);
    record("cudaMemcpyToSymbolAsync", within_device(to_symbol(kind, src), at, src, count), count);
    return watched("cudaMemcpyToSymbolAsync", at, src, count,
                   [&](const void* from) { return cudaMemcpyToSymbolAsync_ptsz(symbol, from, count, offset, kind, stream); }, queued_on(stream, true));
}
cudaError_t cudalabs_shim_cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                                    cudaMemcpyKind kind, cudaStream_t stream) {
    const void* at = symbol_at(symbol, offset);
    record("cudaMemcpyFromSymbolAsync", within_device(from_symbol(kind, dst), dst, at, count), count);
    return watched("cudaMemcpyFromSymbolAsync", dst, at, count,
                   [&](const void*) { return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream); }, queued_on(stream));
}
cudaError_t cudalabs_shim_cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count, size_t offset,
                                                         cudaMemcpyKind kind, cudaStream_t stream) {
    const void* at = symbol_at(symbol, offset);
    record("cudaMemcpyFromSymbolAsync", within_device(from_symbol(kind, dst), dst, at, count), count);
    return watched("cudaMemcpyFromSymbolAsync", dst, at, count,
                   [&](const void*) { return cudaMemcpyFromSymbolAsync_ptsz(dst, symbol, count, offset, kind, stream); }, queued_on(stream, true));
}

// ---- between devices -----------------------------------------------------------------------------
cudaError_t cudalabs_shim_cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device, size_t count) {
    record("cudaMemcpyPeer", Direction::DeviceToDevice, count);
    return cudaMemcpyPeer(dst, dst_device, src, src_device, count);
}
cudaError_t cudalabs_shim_cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                              size_t count, cudaStream_t stream) {
    record("cudaMemcpyPeerAsync", Direction::DeviceToDevice, count);
    return cudaMemcpyPeerAsync(dst, dst_device, src, src_device, count, stream);
}

// ---- host memory the GPU can reach ------------------------------------------------------------
cudaError_t cudalabs_shim_cudaMallocHost(void** ptr, size_t size) {
    record("cudaMallocHost", Direction::HostAlloc, size);
    shared_memory("cudaMallocHost");
    return cudaMallocHost(ptr, size);
}
cudaError_t cudalabs_shim_cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
    record("cudaHostAlloc", Direction::HostAlloc, size);
    shared_memory("cudaHostAlloc");
    return cudaHostAlloc(ptr, size, flags);
}
cudaError_t cudalabs_shim_cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
    record("cudaHostRegister", Direction::HostAlloc, size);
    shared_memory("cudaHostRegister");
    return cudaHostRegister(ptr, size, flags);
}
cudaError_t cudalabs_shim_cudaMallocManaged(void** ptr, size_t size, unsigned int flags) {
    record("cudaMallocManaged", Direction::HostAlloc, size);
    shared_memory("cudaMallocManaged");
    return cudaMallocManaged(ptr, size, flags);
}

}  // extern "C"
