// Hopper's copy engine and warpgroup MMA in PTX, for step 17's bulk tensor-core kernel
// (gemv_tensor_bulk.cu). They exist on compute capability 9.0 only, in code built for sm_90a
// (CMake's architecture 90a): elsewhere each wrapper traps, and the chooser never offers the kernel
// (tensor_bulk_runs_here).
#pragma once

#include <cuda.h>  // CUtensorMap: the copy engine's description of a matrix (a type; nothing is linked)
#include <cuda_runtime.h>

#include <cstdint>

namespace gemv::hopper {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMV_HOPPER_CODE 1
#else
#define GEMV_HOPPER_CODE 0
#endif

// An mbarrier's phase completes when `arrivals` threads have arrived and the bytes it expects are
// in. A stage's "full" barrier counts the bytes the copy engine has written into it: `expect` arms
// it for a chunk's bytes (one arrival, by the thread that asks for the copies). Its "released"
// barrier counts the warpgroups done with it (`arrive`, from any block of the cluster). A thread
// waits for phase `parity` to complete.
__device__ __forceinline__ void barrier_init(std::uint32_t bar, int arrivals) {
#if GEMV_HOPPER_CODE
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals));
#else
    __trap();
#endif
}
// One arrival on barrier `bar` (an address in this block's shared memory) in the cluster's block
// `block`: the same barrier there. No fence over the cluster (.release.cluster): the arriving
// warpgroup's reads of the stage, by its wgmma, are over once wgmma_wait says so.
__device__ __forceinline__ void barrier_arrive(std::uint32_t bar, unsigned block) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .b32 there;\nmapa.shared::cluster.u32 there, %0, %1;\n"
        "mbarrier.arrive.shared::cluster.b64 _, [there];\n}\n" ::"r"(bar),
        "r"(block)
        : "memory");
#else
    __trap();
#endif
}
// Every thread of every block of the cluster meets here (each warp whole).
__device__ __forceinline__ void cluster_sync() {
#if GEMV_HOPPER_CODE
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    __trap();
#endif
}
// A warpgroup gives up registers (the copying one) or takes them (the multiplying ones): a
// block's registers are shared out once it runs, each warpgroup whole.
template <int registers>
__device__ __forceinline__ void registers_at_most() {
#if GEMV_HOPPER_CODE
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(registers));
#endif
}
template <int registers>
__device__ __forceinline__ void registers_at_least() {
#if GEMV_HOPPER_CODE
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(registers));
#endif
}
__device__ __forceinline__ void barrier_expect(std::uint32_t bar, std::uint32_t bytes) {
#if GEMV_HOPPER_CODE
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
#else
    __trap();
#endif
}
__device__ __forceinline__ void barrier_wait(std::uint32_t bar, int parity) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .pred done;\nWAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
#else
    __trap();
#endif
}
// The barriers' initialisation made visible to the copy engine.
__device__ __forceinline__ void fence_barrier_init() {
#if GEMV_HOPPER_CODE
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#else
    __trap();
#endif
}

// One box of a 2-D matrix (its tensor map: sizes, stride, box, 128-byte swizzle) from element
// (inner, outer) into shared memory at `to`, counted on barrier `bar`. Elements outside the matrix
// arrive as zeros.
__device__ __forceinline__ void copy_box(std::uint32_t to, const CUtensorMap* map, int inner, int outer,
                                         std::uint32_t bar) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::
            "r"(to),
        "l"(map), "r"(inner), "r"(outer), "r"(bar)
        : "memory");
#else
    __trap();
#endif
}

// The same box written into every block of the cluster named in `blocks` (a bit a block), at the
// same place in each, and counted on the same barrier in each.
__device__ __forceinline__ void copy_box_to_blocks(std::uint32_t to, const CUtensorMap* map, int inner, int outer,
                                                   std::uint32_t bar, std::uint16_t blocks) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, "
        "{%2, %3}], [%4], %5;\n" ::"r"(to),
        "l"(map), "r"(inner), "r"(outer), "r"(bar), "h"(blocks)
        : "memory");
#else
    __trap();
#endif
}

// A wgmma operand in shared memory: lines of 128 bytes (64 bf16), 8 lines a 1024-byte group, each
// group swizzled as the copy engine's 128-byte swizzle writes it (the 16-byte granule g of line l
// at granule g ^ (l mod 8)), groups 1024 bytes apart. The same description serves K-major operands
// (a line: 64 columns of a row or vector) and M-major ones (a line: 64 rows of a column).
__device__ __forceinline__ std::uint64_t operand(std::uint32_t address) {
    return std::uint64_t((address & 0x3FFFF) >> 4)  // where it starts, in 16 bytes
           | std::uint64_t(1) << 16                 // leading offset: unused by these layouts
           | std::uint64_t(1024 >> 4) << 32         // from one group of 8 lines to the next
           | std::uint64_t(1) << 62;                // 128-byte swizzle
}

// The warpgroup's accumulators (64 × N floats, N/2 a thread) are written by wgmma in the
// background: fence before the first, commit the wgmma issued since the last commit as a group,
// and wait until at most `pending` groups still run before the stage they read is reused (or,
// with 0, before the accumulators are read).
__device__ __forceinline__ void wgmma_fence() {
#if GEMV_HOPPER_CODE
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
    __trap();
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if GEMV_HOPPER_CODE
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
    __trap();
#endif
}
template <int pending>
__device__ __forceinline__ void wgmma_wait() {
#if GEMV_HOPPER_CODE
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
#else
    __trap();
#endif
}

// One instruction for each N (its accumulators are its operands).
template <int trans_a>
__device__ __forceinline__ void wgmma_n8(float (&d)[4], std::uint64_t a, std::uint64_t b, int add) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0,%1,%2,%3}, %4, %5, p, 1, 1, %7, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "l"(a), "l"(b), "r"(add), "n"(trans_a));
#else
    __trap();
#endif
}

template <int trans_a>
__device__ __forceinline__ void wgmma_n16(float (&d)[8], std::uint64_t a, std::uint64_t b, int add) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1, %11, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
        : "l"(a), "l"(b), "r"(add), "n"(trans_a));
#else
    __trap();
#endif
}

template <int trans_a>
__device__ __forceinline__ void wgmma_n32(float (&d)[16], std::uint64_t a, std::uint64_t b, int add) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, "
        "%16, %17, p, 1, 1, %19, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "l"(a), "l"(b), "r"(add), "n"(trans_a));
#else
    __trap();
#endif
}

template <int trans_a>
__device__ __forceinline__ void wgmma_n64(float (&d)[32], std::uint64_t a, std::uint64_t b, int add) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%"
        "29,%30,%31}, %32, %33, p, 1, 1, %35, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(a), "l"(b), "r"(add), "n"(trans_a));
#else
    __trap();
#endif
}

template <int trans_a>
__device__ __forceinline__ void wgmma_n96(float (&d)[48], std::uint64_t a, std::uint64_t b, int add) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%"
        "29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47}, %48, %49, p, 1, 1, %51, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
          "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
          "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
        : "l"(a), "l"(b), "r"(add), "n"(trans_a));
#else
    __trap();
#endif
}

template <int trans_a>
__device__ __forceinline__ void wgmma_n128(float (&d)[64], std::uint64_t a, std::uint64_t b, int add) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%"
        "29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%"
        "56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, %67, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
          "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
          "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
          "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(a), "l"(b), "r"(add), "n"(trans_a));
#else
    __trap();
#endif
}

template <int trans_a>
__device__ __forceinline__ void wgmma_n144(float (&d)[72], std::uint64_t a, std::uint64_t b, int add) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %74, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n144k16.f32.bf16.bf16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%"
        "29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%"
        "56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71}, %72, %73, p, 1, 1, %75, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
          "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
          "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
          "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
          "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
        : "l"(a), "l"(b), "r"(add), "n"(trans_a));
#else
    __trap();
#endif
}

template <int trans_a>
__device__ __forceinline__ void wgmma_n192(float (&d)[96], std::uint64_t a, std::uint64_t b, int add) {
#if GEMV_HOPPER_CODE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%"
        "29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%"
        "56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%"
        "83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95}, %96, %97, p, 1, 1, %99, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
          "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
          "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
          "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
          "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]),
          "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),
          "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]),
          "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(a), "l"(b), "r"(add), "n"(trans_a));
#else
    __trap();
#endif
}

// D (64 × N) = A (64 × 16) · B (16 × N) + (add ? D : 0): PTX's wgmma.mma_async.m64nNk16, bf16 in,
// float sums, both operands in shared memory (descriptors). B is K-major (the vectors of X); A is
// K-major (row-major A: trans_a 0) or M-major (column-major A: trans_a 1). Thread t of the
// warpgroup holds d[i] = D(16·(t/32) + (t%32)/4 + 8·((i%4)/2), 8·(i/4) + 2·(t%4) + i%2).
template <int N, int trans_a>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], std::uint64_t a, std::uint64_t b, int add) {
    static_assert(N == 8 || N == 16 || N == 32 || N == 64 || N == 96 || N == 128 || N == 144 || N == 192,
                  "wgmma here takes 8 to 192 vectors");
    if constexpr (N == 8) wgmma_n8<trans_a>(d, a, b, add);
    if constexpr (N == 16) wgmma_n16<trans_a>(d, a, b, add);
    if constexpr (N == 32) wgmma_n32<trans_a>(d, a, b, add);
    if constexpr (N == 64) wgmma_n64<trans_a>(d, a, b, add);
    if constexpr (N == 96) wgmma_n96<trans_a>(d, a, b, add);
    if constexpr (N == 128) wgmma_n128<trans_a>(d, a, b, add);
    if constexpr (N == 144) wgmma_n144<trans_a>(d, a, b, add);
    if constexpr (N == 192) wgmma_n192<trans_a>(d, a, b, add);
}

}  // namespace gemv::hopper
