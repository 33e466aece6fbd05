// Owning buffers: device memory, pinned host memory, pitched 2D and 3D device arrays.
// Each frees its memory when it goes out of scope, so an early return or an exception leaks
// nothing. Allocation failures throw CudaError through CUDA_CHECK.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "check.h"
#include "run_hooks.h"
#include "validate.h"

namespace cudalabs {

// ---- checks on device buffers: guard zones and unchanged inputs ------------------------------
// With the checks on (--guard-buffers), every DeviceBuffer is allocated with kGuardBytes of
// kGuardByte before its elements and at least kGuardBytes after them, and a buffer filled by
// upload() (an input) remembers a hash of what was uploaded. After every case the runner calls
// take_buffer_faults(): a changed guard byte is an out-of-bounds write, a changed input a kernel
// that wrote where it should only read. Buffers freed during the case are checked as they are
// freed. The zone after the elements ends where the buffer's own mapping of device memory ends
// (the CUDA virtual memory API, where the driver has it): a read or a write that runs further
// past the end than the zone reaches no memory at all, and the kernel stops with an illegal
// address. Off by default, because compute-sanitizer memcheck reports an out-of-bounds access
// precisely only when an allocation has its exact size. Pitched2D and Pitched3D have no guard
// zones (their padding is poisoned instead).
struct BufferRecord {
    char* base = nullptr;  // the guarded memory: guard, elements, guard
    size_t count = 0, elem_size = 0;
    bool guarded = false;
    size_t after_bytes = 0;  // the guard zone after the elements: kGuardBytes up to twice that
    std::shared_ptr<void> mapping;  // the device memory (guarded buffers), released when the last copy goes
    bool input = false;  // filled by upload() and not poisoned since
    uint64_t input_hash = 0;
    size_t bytes() const { return count * elem_size; }
};
void enable_buffer_checks(bool on);
bool buffer_checks_enabled();
void allocate_guarded(BufferRecord& record);  // maps its memory and fills both guard zones
void register_buffer(BufferRecord* record);   // a live guarded buffer
void unregister_buffer(BufferRecord* record); // checks it one last time
// Checks every live guarded buffer, and returns what they and the buffers freed since the last
// call found (one message each), forgetting it.
std::vector<std::string> take_buffer_faults();

// ---- what a case's buffers report (run_hooks.h) ----------------------------------------------
// poison() marks a buffer as an output of the case's timed work (RunHooks::outputs_poisoned):
// a buffer that is poisoned must therefore be written by the launch that is timed. upload()
// marks it as an input (inputs_uploaded), and a buffer's end is reported too (buffer_freed).
struct OutputRegion {
    char* ptr = nullptr;
    size_t pitch = 0;      // bytes from one row to the next
    size_t row_bytes = 0;  // bytes of a row that hold elements
    size_t rows = 0;
    size_t packed_bytes() const { return row_bytes * rows; }
};
struct InputRegion {
    char* ptr = nullptr;
    size_t pitch = 0;         // bytes from one row to the next
    size_t row_bytes = 0;     // bytes of a row that hold elements
    size_t rows = 0;
    size_t scalar_bytes = 0;  // 4 (float) or 8 (double); 0: not made of floating-point scalars
};
// The floating-point scalars an element is made of: their size in bytes, or 0 when the element
// is not made of them (integers, pointers). A struct of floats (lab 07's Point) says so by
// specialising this.
template <class T>
struct FloatScalars {
    static constexpr size_t bytes = std::is_same<T, float>::value ? 4 : std::is_same<T, double>::value ? 8 : 0;
};

template <class T>
void report_upload(void* ptr, size_t pitch, size_t row_bytes, size_t rows) {
    run_hooks().inputs_uploaded({static_cast<char*>(ptr), pitch, row_bytes, rows, FloatScalars<T>::bytes});
}

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (!count) return;
        auto record = std::make_unique<BufferRecord>();
        record->count = count;
        record->elem_size = sizeof(T);
        record->guarded = buffer_checks_enabled();
        if (record->guarded) {
            allocate_guarded(*record);
            ptr_ = reinterpret_cast<T*>(record->base + kGuardBytes);
            record_ = std::move(record);
            register_buffer(record_.get());
        } else {
            CUDA_CHECK(cudaMalloc(&record->base, count * sizeof(T)));
            ptr_ = reinterpret_cast<T*>(record->base);
            record_ = std::move(record);
        }
    }
    ~DeviceBuffer() {
        if (!record_) return;
        run_hooks().buffer_freed(ptr_);
        if (record_->guarded) unregister_buffer(record_.get());
        else cudaFree(record_->base);
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)), record_(std::move(o.record_)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
        std::swap(record_, o.record_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* data() const { return ptr_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

    void upload(const T* host) {
        CUDA_CHECK(cudaMemcpy(ptr_, host, bytes(), cudaMemcpyHostToDevice));
        if (record_) report_upload<T>(ptr_, bytes(), bytes(), 1);
        if (record_ && record_->guarded) {
            record_->input = true;
            record_->input_hash = content_hash(host, bytes());
        }
    }
    void download(T* host) const { CUDA_CHECK(cudaMemcpy(host, ptr_, bytes(), cudaMemcpyDeviceToHost)); }
    // Every byte 0xFF: see validate.h. A poisoned buffer is an output: it is expected to change.
    void poison() {
        CUDA_CHECK(cudaMemset(ptr_, kPoisonByte, bytes()));
        if (!record_) return;
        record_->input = false;
        run_hooks().outputs_poisoned({reinterpret_cast<char*>(ptr_), bytes(), bytes(), 1});
    }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
    std::unique_ptr<BufferRecord> record_;  // null for an empty buffer
};

// Page-locked host memory: faster copies, and required for truly asynchronous ones.
template <class T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t count) : count_(count) {
        if (count) CUDA_CHECK(cudaMallocHost(&ptr_, count * sizeof(T)));
    }
    ~PinnedBuffer() { if (ptr_) cudaFreeHost(ptr_); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    T* data() const { return ptr_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }
    T& operator[](size_t i) const { return ptr_[i]; }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
};

// A height x width array whose rows start `pitch` bytes apart (cudaMallocPitch).
template <class T>
class Pitched2D {
public:
    Pitched2D(size_t width, size_t height) : width_(width), height_(height) {
        CUDA_CHECK(cudaMallocPitch(&ptr_, &pitch_, width * sizeof(T), height));
    }
    ~Pitched2D() {
        if (!ptr_) return;
        run_hooks().buffer_freed(ptr_);
        cudaFree(ptr_);
    }
    Pitched2D(const Pitched2D&) = delete;
    Pitched2D& operator=(const Pitched2D&) = delete;

    T* data() const { return static_cast<T*>(ptr_); }
    size_t pitch() const { return pitch_; }  // bytes
    size_t width() const { return width_; }
    size_t height() const { return height_; }

    // From / to a packed host array of height rows of width elements.
    void upload(const T* host) {
        CUDA_CHECK(cudaMemcpy2D(ptr_, pitch_, host, width_ * sizeof(T), width_ * sizeof(T),
                                height_, cudaMemcpyHostToDevice));
        report_upload<T>(ptr_, pitch_, width_ * sizeof(T), height_);
    }
    void download(T* host) const {
        CUDA_CHECK(cudaMemcpy2D(host, width_ * sizeof(T), ptr_, pitch_, width_ * sizeof(T),
                                height_, cudaMemcpyDeviceToHost));
    }
    // Poisons the whole allocation, padding included.
    void poison() {
        CUDA_CHECK(cudaMemset2D(ptr_, pitch_, kPoisonByte, pitch_, height_));
        run_hooks().outputs_poisoned({static_cast<char*>(ptr_), pitch_, width_ * sizeof(T), height_});
    }

private:
    void* ptr_ = nullptr;
    size_t pitch_ = 0, width_ = 0, height_ = 0;
};

// A depth x height x width volume (cudaMalloc3D): rows `pitch` bytes apart, slices
// pitch * height bytes apart.
template <class T>
class Pitched3D {
public:
    Pitched3D(size_t width, size_t height, size_t depth)
        : extent_(make_cudaExtent(width * sizeof(T), height, depth)) {
        CUDA_CHECK(cudaMalloc3D(&ptr_, extent_));
    }
    ~Pitched3D() {
        if (!ptr_.ptr) return;
        run_hooks().buffer_freed(ptr_.ptr);
        cudaFree(ptr_.ptr);
    }
    Pitched3D(const Pitched3D&) = delete;
    Pitched3D& operator=(const Pitched3D&) = delete;

    cudaPitchedPtr pitched() const { return ptr_; }
    cudaExtent extent() const { return extent_; }  // width in bytes
    size_t width() const { return extent_.width / sizeof(T); }

    void upload(const T* host) {  // the source is only read
        copy(const_cast<T*>(host), true);
        report_upload<T>(ptr_.ptr, ptr_.pitch, extent_.width, extent_.height * extent_.depth);
    }
    void download(T* host) const { copy(host, false); }
    void poison() {
        cudaExtent whole = make_cudaExtent(ptr_.pitch, extent_.height, extent_.depth);
        CUDA_CHECK(cudaMemset3D(ptr_, kPoisonByte, whole));
        run_hooks().outputs_poisoned({static_cast<char*>(ptr_.ptr), ptr_.pitch, extent_.width, extent_.height * extent_.depth});
    }

private:
    void copy(T* host, bool to_device) const {
        cudaMemcpy3DParms p = {};
        cudaPitchedPtr packed =
            make_cudaPitchedPtr(host, extent_.width, extent_.width / sizeof(T), extent_.height);
        p.srcPtr = to_device ? packed : ptr_;
        p.dstPtr = to_device ? ptr_ : packed;
        p.extent = extent_;
        p.kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
        CUDA_CHECK(cudaMemcpy3D(&p));
    }
    cudaPitchedPtr ptr_ = {};
    cudaExtent extent_;
};

}  // namespace cudalabs
