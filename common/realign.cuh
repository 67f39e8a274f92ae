// Realigning 16 bytes that start anywhere: the shifting half of a 16-byte load at an address
// that is not a multiple of 16 (an odd m or n). The caller loads the two aligned 16 bytes around
// the data, from wherever it likes (global memory, another lane), and this puts the wanted 16
// in place. Step 11 realigns A's loads this way, step 16 A's and X's.
#pragma once

#include <cuda_runtime.h>

namespace gemv {

// BEGIN EXCERPT shift
// The 16 bytes that start `skip` bytes (0 to 15) into the 32 of lo and hi: whole 32-bit words
// across by selects (so that the words stay in registers, not in a local array indexed at run
// time), then the bytes between by a funnel shift.
__device__ __forceinline__ uint4 shift_down_bytes(uint4 lo, uint4 hi, unsigned skip) {
    const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const unsigned word = skip / 4, bits = (skip % 4) * 8;
    unsigned from[5];
#pragma unroll
    for (int i = 0; i < 5; ++i) from[i] = word == 0 ? w[i] : word == 1 ? w[i + 1] : word == 2 ? w[i + 2] : w[i + 3];
    return make_uint4(__funnelshift_r(from[0], from[1], bits), __funnelshift_r(from[1], from[2], bits),
                      __funnelshift_r(from[2], from[3], bits), __funnelshift_r(from[3], from[4], bits));
}
// END EXCERPT shift

}  // namespace gemv
