// atomic_thread_fence with each memory order and thread scope, the scope defaulting to
// the device; thread_scope and memory_order as variables' types and template arguments
#include <metal_stdlib>
using namespace metal;

template <memory_order order, thread_scope scope>
void publish(device uint* data, uint i, uint v) {
  data[i] = v;
  atomic_thread_fence(mem_flags::mem_device, order, scope);
}

kernel void k(device uint* data [[buffer(0)]],
              threadgroup uint* scratch [[threadgroup(0)]],
              uint tid [[thread_position_in_grid]]) {
  constexpr thread_scope tg = thread_scope_threadgroup;
  scratch[tid] = tid;
  atomic_thread_fence(mem_flags::mem_threadgroup, memory_order_release, tg);
  atomic_thread_fence(mem_flags::mem_threadgroup | mem_flags::mem_device, memory_order_acq_rel,
                      thread_scope_simdgroup);
  atomic_thread_fence(mem_flags::mem_none, memory_order_relaxed, metal::thread_scope_thread);
  atomic_thread_fence(mem_flags::mem_device, memory_order_acquire);
  metal::atomic_thread_fence(metal::mem_flags::mem_device, metal::memory_order_seq_cst,
                             static_cast<thread_scope>(__METAL_MEMORY_SCOPE_SYSTEM__));
  publish<memory_order_seq_cst, thread_scope_device>(data, tid, scratch[tid]);
}
