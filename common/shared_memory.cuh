// The block's dynamic shared memory (sized at launch) as an array of T. It is declared as bytes
// because one extern __shared__ array cannot take a different type per template instantiation:
// float and double kernels share this one declaration.
#pragma once

namespace gemv {

template <class T>
__device__ __forceinline__ T* dynamic_shared() {
    extern __shared__ __align__(16) unsigned char gemv_dynamic_shared_bytes[];
    return reinterpret_cast<T*>(gemv_dynamic_shared_bytes);
}

}  // namespace gemv
