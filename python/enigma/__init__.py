"""enigma — Metal Shading Language compute kernels on the CPU and NVIDIA GPUs, from Python.

    import enigma, numpy as np

    @enigma.kernel
    def scale(A: enigma.f32, B: enigma.f32, k: enigma.Scalar(enigma.f32)):
        i = enigma.thread_position_in_grid
        B[i] = A[i] * k

    compiled = enigma.compile(scale)          # traces once -> MSL (compiled.source)
    rt = enigma.Runtime()                     # "auto", "cpu" or "cuda"
    out = rt.execute(compiled, inputs=[a, np.float32(2)], output_size=a.nbytes,
                     grid=(a.size, 1, 1), threads=(256, 1, 1))

The package loads libenigma through ctypes (see _lib.py for where it looks). Modules:
dtypes (types), trace (symbolic values -> MSL), rewrite (assignment tracking), dsl (the
kernel-building functions), kernel (compile/compile_source), runtime (devices, execute).
"""

from . import dsl as _dsl
from .dtypes import (DType, Scalar, bf16, bool_, f16, f32, from_bfloat16, i8, i16, i32, i64,
                     to_bfloat16, u8, u16, u32, u64)
from .dsl import (Attribute, abs, assign, barrier, break_, clamp, cmp_eq, cmp_ge, cmp_gt,
                  cmp_le, cmp_lt, cmp_ne, continue_, dispatch_threads_per_threadgroup, elif_,
                  else_, fma, for_range, if_, ldexp, load, load_if, logical_and, logical_not,
                  logical_or, mad, max, min, mix, quadgroup_index_in_threadgroup,
                  quadgroups_per_threadgroup, return_, select, simdgroup_barrier,
                  simdgroup_index_in_threadgroup, simdgroups_per_threadgroup, smoothstep,
                  store, store_if, thread_index_in_quadgroup, thread_index_in_simdgroup,
                  thread_index_in_threadgroup, thread_position_in_grid,
                  thread_position_in_grid_xyz, thread_position_in_threadgroup,
                  threadgroup_alloc, threadgroup_barrier, threadgroup_position_in_grid,
                  threadgroups_per_grid, threads_per_grid, threads_per_simdgroup,
                  threads_per_threadgroup, var, where, while_)
from .errors import (CancelledError, CheckFailedError, CompileError, Diagnostic, DispatchError,
                     DispatchTimeoutError, EnigmaError,
                     EnigmaIOError, EnigmaMemoryError, InternalError, InvalidArgumentError,
                     KernelFaultError, LimitError, TraceError, UnavailableError)
from .kernel import Compiled, Kernel, compile, compile_source, func, kernel
from .metal_kernel import MetalKernel, metal_kernel
from .layout import (Layout, blocked_product, coalesce, complement, composition, cosize, depth,
                     left_inverse, logical_divide, logical_product, make_layout, make_layout_tv,
                     make_ordered_layout, raked_product, rank, right_inverse, size, tiled_divide,
                     tiled_product, zipped_divide, zipped_product)
from .tensor import (Fragment, Tensor, make_tensor, tensor_composition,
                     tensor_zipped_divide)
from .jit import BoundKernel, JitFunction, default_runtime, jit
from .runtime import (Buffer, DeviceCapabilities, MetalRuntime, Runtime, available_backends,
                      library_path, version)
from .trace import Value, Var, cast

bool = bool_  # noqa: A001 - enigma.bool, as the DSL spells it
float32, float16, bfloat16 = f32, f16, bf16
int8, int16, int32, int64 = i8, i16, i32, i64
uint8, uint16, uint32, uint64 = u8, u16, u32, u64

# math (exp, sqrt, pow, ...) and every simd_*/quad_* function, generated in dsl.py
from .dsl import (SimdgroupMatrix, make_filled_simdgroup_matrix, simdgroup_load,
                  simdgroup_matrix_load, simdgroup_matrix_store, simdgroup_multiply,
                  simdgroup_multiply_accumulate, simdgroup_store)

globals().update(_dsl._math)
globals().update(_dsl._collectives)

__version__ = "0.1.0"
