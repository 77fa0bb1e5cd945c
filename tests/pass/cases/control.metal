// Rule 3 of the fold pass: control flow that constants decide.
#include <metal_stdlib>
using namespace metal;

template <int STAGES>
static void run_stages(threadgroup float* buf, uint lid) {
    for (int s = 0; s < STAGES; s++) {
        buf[lid] += 1.0f;
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
}

// the loop of run_stages<0> never runs and goes (its barrier too); run_stages<2> stays
kernel void zero_trip(device float* out [[buffer(0)]], uint lid [[thread_position_in_threadgroup]]) {
    threadgroup float buf[64];
    buf[lid] = out[lid];
    run_stages<0>(buf, lid);
    run_stages<2>(buf, lid);
    out[lid] = buf[lid];
}

// the if on a constant becomes its taken arm; the untaken arm's barrier is gone
kernel void constant_if(device int* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
    bool use_fast = false;
    int mode = 2;
    if (use_fast) {
        threadgroup_barrier(mem_flags::mem_device);
        out[gid] = 1;
    } else if (mode == 2 || gid > 7) {
        out[gid] = 2;
    } else {
        out[gid] = 3;
    }
}

// statements after return, break and continue go
kernel void after_jumps(device int* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
    for (uint i = 0; i < gid; i++) {
        if (i == 3) {
            out[i] = 3;
            break;
            out[i] = 4;
        }
        if (i == 2) {
            continue;
            out[i] = 5;
        }
        out[i] = 6;
    }
    if (gid == 0) {
        out[0] = 1;
        return;
        out[1] = 2;
    }
}

// a loop that runs is kept, with its exit test
kernel void loop_that_runs(device int* out [[buffer(0)]]) {
    int n = 3;
    for (int i = 0; i < n; i++) out[i] = i;
}
