// Host memory of the driver's own that owns whole pages: page-aligned and padded to a page, so
// that no other data shares its pages. A call that works on host arrays names such arrays as its
// inputs or as data it has no reason to read (RunContext::run_host_call, run_round_trip), and the
// pages can then be kept from the CPU while the call runs. Host-only.
#pragma once
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#include "host_span.h"

namespace cudalabs {

template <class T>
class HostArray {
    static_assert(std::is_trivially_destructible<T>::value, "a HostArray holds plain values");

public:
    HostArray() = default;
    explicit HostArray(size_t count) : count_(count) {
        if (!count) return;
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        owned_ = (count * sizeof(T) + page - 1) / page * page;
        ptr_ = static_cast<T*>(std::aligned_alloc(page, owned_));
        if (!ptr_) throw std::bad_alloc();
        for (size_t i = 0; i < count; ++i) new (ptr_ + i) T();
    }
    ~HostArray() { std::free(ptr_); }
    HostArray(HostArray&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)), owned_(std::exchange(o.owned_, 0)) {}
    HostArray& operator=(HostArray&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
        std::swap(owned_, o.owned_);
        return *this;
    }
    HostArray(const HostArray&) = delete;
    HostArray& operator=(const HostArray&) = delete;

    T* data() const { return ptr_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }
    T& operator[](size_t i) const { return ptr_[i]; }
    HostSpan span() const { return {ptr_, bytes(), owned_}; }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
    size_t owned_ = 0;  // bytes allocated: whole pages
};

}  // namespace cudalabs
