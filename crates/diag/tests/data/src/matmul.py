import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, K: tl.constexpr):
    acc = tl.zeros((128, 128), dtype=tl.float32)
    for k in range(0, K, 64):
        a = tl.load(a_ptr + k)
        b = tl.load(b_ptr + k)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr, acc)
