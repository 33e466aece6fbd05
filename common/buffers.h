// Owning buffers: device memory, pinned host memory, pitched 2D and 3D device arrays.
// Each frees its memory when it goes out of scope, so an early return or an exception leaks
// nothing. Allocation failures throw CudaError through CUDA_CHECK.
#pragma once
#include <cstddef>
#include <utility>

#include "check.h"
#include "validate.h"

namespace cudalabs {

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (count) CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T)));
    }
    ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(o.count_) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* data() const { return ptr_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

    void upload(const T* host) { CUDA_CHECK(cudaMemcpy(ptr_, host, bytes(), cudaMemcpyHostToDevice)); }
    void download(T* host) const { CUDA_CHECK(cudaMemcpy(host, ptr_, bytes(), cudaMemcpyDeviceToHost)); }
    // Every byte 0xFF: see validate.h.
    void poison() { CUDA_CHECK(cudaMemset(ptr_, kPoisonByte, bytes())); }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
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
    ~Pitched2D() { if (ptr_) cudaFree(ptr_); }
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
    }
    void download(T* host) const {
        CUDA_CHECK(cudaMemcpy2D(host, width_ * sizeof(T), ptr_, pitch_, width_ * sizeof(T),
                                height_, cudaMemcpyDeviceToHost));
    }
    // Poisons the whole allocation, padding included.
    void poison() { CUDA_CHECK(cudaMemset2D(ptr_, pitch_, kPoisonByte, pitch_, height_)); }

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
    ~Pitched3D() { if (ptr_.ptr) cudaFree(ptr_.ptr); }
    Pitched3D(const Pitched3D&) = delete;
    Pitched3D& operator=(const Pitched3D&) = delete;

    cudaPitchedPtr pitched() const { return ptr_; }
    cudaExtent extent() const { return extent_; }  // width in bytes
    size_t width() const { return extent_.width / sizeof(T); }

    void upload(const T* host) { copy(const_cast<T*>(host), true); }  // the source is only read
    void download(T* host) const { copy(host, false); }
    void poison() {
        cudaExtent whole = make_cudaExtent(ptr_.pitch, extent_.height, extent_.depth);
        CUDA_CHECK(cudaMemset3D(ptr_, kPoisonByte, whole));
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
