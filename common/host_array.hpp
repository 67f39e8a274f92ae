// A host array that does not touch its memory on allocation, so that the first parallel write
// places each page on the writing thread's NUMA node (first touch). std::vector would zero it
// from the calling thread.
#pragma once

#include <cstddef>
#include <memory>

namespace gemv {

template <class T>
class HostArray {
public:
    HostArray() = default;
    explicit HostArray(std::size_t count) : data_(new T[count]), size_(count) {}
    T* data() { return data_.get(); }
    const T* data() const { return data_.get(); }
    std::size_t size() const { return size_; }
    T& operator[](std::size_t i) { return data_[i]; }
    const T& operator[](std::size_t i) const { return data_[i]; }
    T* begin() { return data(); }
    T* end() { return data() + size_; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + size_; }

private:
    std::unique_ptr<T[]> data_;
    std::size_t size_ = 0;
};

}  // namespace gemv
