#include <metal_stdlib>
using namespace metal;
kernel void k(device uint* data [[buffer(0)]], uint tid [[thread_position_in_grid]]) {
  memory_order o = tid > 3 ? memory_order_acquire : memory_order_release;
  atomic_thread_fence(mem_flags::mem_device, o);
  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, static_cast<thread_scope>(9));
  atomic_thread_fence(mem_flags::mem_device);
  atomic_thread_fence(tid, memory_order_seq_cst);
  atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, thread_scope_device, 1);
}
