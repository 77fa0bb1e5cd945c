/* test_gpu.c — the cuda backend on a GPU, through the public API: the Metal rules that the
 * CUDA mapping has to work for (each result checked against a host reference computed
 * here from fresh random inputs):
 *   divergent     SIMD functions in both arms of a branch act on that arm's lanes only;
 *                 shuffle_up/down keep their own value at the edge
 *   geometry      a 2-D dispatch by threads: edge threadgroups shrink, threads are numbered
 *                 densely over the edge size and SIMD groups are slices of that numbering
 *   early_return  threads that returned do not hold up a later barrier
 *   big_shared    100 KiB of [[threadgroup(0)]] memory (beyond the 48 KiB default)
 *   atomics       float and int atomic adds from every thread
 *   constants     small constant references passed by value follow host writes,
 *                 set_bytes, offsets and writes by an earlier kernel
 *   fault         an illegal address: ENIGMA_ERROR_RUNTIME naming the kernel; the process
 *                 carries on with a fresh context (in a fresh CUDA worker process where the
 *                 driver gives this process none): old buffers are refused as lost, new
 *                 ones round-trip, later dispatches compute right; twice (the second fault
 *                 happens inside the worker)
 * Skips (77) where the cuda backend is unavailable, which is every machine without a GPU. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enigma.h"
#include "../test_util.h"

static const char *source =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void divergent(device const int *in [[buffer(0)]], device int *out [[buffer(1)]],\n"
    "                      device int *edge [[buffer(2)]],\n"
    "                      uint gid [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) {\n"
    "    int v = in[gid];\n"
    "    int r;\n"
    "    if (lane % 3 == 0) {\n"
    "        r = simd_sum(v);\n"
    "    } else {\n"
    "        r = simd_prefix_exclusive_sum(v);\n"
    "    }\n"
    "    out[gid] = r;\n"
    "    edge[gid] = simd_shuffle_down(v, 5) - simd_shuffle_up(v, 3);\n"
    "}\n"
    "kernel void geometry(device uint4 *out [[buffer(0)]],\n"
    "                     uint2 pos [[thread_position_in_grid]], uint2 grid [[threads_per_grid]],\n"
    "                     uint2 tpos [[thread_position_in_threadgroup]], uint2 tpg [[threads_per_threadgroup]],\n"
    "                     uint tid [[thread_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]],\n"
    "                     uint sg [[simdgroup_index_in_threadgroup]]) {\n"
    "    uint n = simd_sum(1u);\n"
    "    out[pos.y * grid.x + pos.x] = uint4(tid, tpg.x * 100 + tpg.y, sg * 100 + lane, n + 1000 * (tpos.y * tpg.x + tpos.x));\n"
    "}\n"
    "kernel void early_return(device uint *out [[buffer(0)]], uint lid [[thread_index_in_threadgroup]],\n"
    "                         uint gid [[thread_position_in_grid]]) {\n"
    "    threadgroup uint vals[256];\n"
    "    if (lid % 2 == 1) return;\n"
    "    vals[lid] = gid * 3;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    out[gid] = vals[(lid + 2) % 256];\n"
    "}\n"
    "kernel void big_shared(device float *out [[buffer(0)]], threadgroup float *tmp [[threadgroup(0)]],\n"
    "                       constant uint &count [[buffer(1)]], uint lid [[thread_index_in_threadgroup]],\n"
    "                       uint tpg [[threads_per_threadgroup]]) {\n"
    "    for (uint i = lid; i < count; i += tpg) tmp[i] = float(i) * 0.5f;\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    for (uint i = lid; i < count; i += tpg) out[i] = tmp[count - 1 - i];\n"
    "}\n"
    "kernel void atomics(device const float *in [[buffer(0)]], device atomic_float *fsum [[buffer(1)]],\n"
    "                    device atomic_int *isum [[buffer(2)]], uint gid [[thread_position_in_grid]]) {\n"
    "    atomic_fetch_add_explicit(fsum, in[gid], memory_order_relaxed);\n"
    "    atomic_fetch_add_explicit(isum, int(gid % 7), memory_order_relaxed);\n"
    "}\n"
    "kernel void fault(device float *p [[buffer(0)]], constant uint &far [[buffer(1)]],\n"
    "                  uint gid [[thread_position_in_grid]]) {\n"
    "    p[ulong(far) * 1048576ul * 64ul + gid] = 1.0f;\n"
    "}\n"
    "kernel void set_first(device uint *s [[buffer(0)]], constant uint &v [[buffer(1)]]) {\n"
    "    s[0] = v;\n"
    "}\n"
    "kernel void use_const(constant uint &n [[buffer(0)]], constant float2 &f [[buffer(1)]],\n"
    "                      device float *out [[buffer(2)]], uint gid [[thread_position_in_grid]]) {\n"
    "    out[gid] = float(n + gid) * f.x + f.y;\n"
    "}\n"
    "kernel void add_one(device float *p [[buffer(0)]], uint gid [[thread_position_in_grid]]) {\n"
    "    p[gid] = p[gid] + 1.0f;\n"
    "}\n";


static enigma_command *command(enigma_library *lib, const char *kernel) {
    enigma_pipeline *p = NULL;
    REQUIRE(enigma_pipeline_create(lib, kernel, &p));
    enigma_command *c = NULL;
    REQUIRE(enigma_command_create(p, &c));
    return c; /* the pipeline lives as long as the test */
}

static void test_divergent(enigma_device *dev, enigma_library *lib) {
    enum { N = 256 };
    int in[N], out[N], edge[N];
    for (int i = 0; i < N; i++) in[i] = (int)(rnd() % 1000) + 1;
    enigma_buffer *bi, *bo, *be;
    REQUIRE(enigma_buffer_create_with_data(dev, in, sizeof in, &bi));
    REQUIRE(enigma_buffer_create(dev, sizeof out, &bo));
    REQUIRE(enigma_buffer_create(dev, sizeof edge, &be));
    enigma_command *c = command(lib, "divergent");
    REQUIRE(enigma_command_set_buffer(c, 0, bi, 0));
    REQUIRE(enigma_command_set_buffer(c, 1, bo, 0));
    REQUIRE(enigma_command_set_buffer(c, 2, be, 0));
    REQUIRE(enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){N, 1, 1}, (enigma_size3){128, 1, 1}));
    REQUIRE(enigma_buffer_read(bo, 0, out, sizeof out));
    REQUIRE(enigma_buffer_read(be, 0, edge, sizeof edge));
    for (int w = 0; w < N / 32; w++) {
        int sum0 = 0, prefix = 0;
        for (int l = 0; l < 32; l++)
            if (l % 3 == 0) sum0 += in[w * 32 + l];
        for (int l = 0; l < 32; l++) {
            int i = w * 32 + l;
            if (l % 3 == 0) {
                CHECK(out[i] == sum0, "simd_sum over lanes %% 3 == 0: lane %d of warp %d got %d, want %d", l, w, out[i], sum0);
            } else {
                CHECK(out[i] == prefix, "exclusive prefix over the other lanes: lane %d got %d, want %d", l, out[i], prefix);
                prefix += in[i];
            }
            int down = l + 5 < 32 ? in[i + 5] : in[i], up = l >= 3 ? in[i - 3] : in[i];
            CHECK(edge[i] == down - up, "shuffle_down(5) - shuffle_up(3) at lane %d: %d, want %d", l, edge[i], down - up);
        }
    }
    enigma_command_destroy(c);
    enigma_buffer_destroy(bi);
    enigma_buffer_destroy(bo);
    enigma_buffer_destroy(be);
}

static void test_geometry(enigma_device *dev, enigma_library *lib) {
    const unsigned gx = 37, gy = 11, tx = 16, ty = 4; /* edge groups: 5 wide, 3 high */
    unsigned *out = calloc(gx * gy * 4, sizeof *out);
    enigma_buffer *b;
    REQUIRE(enigma_buffer_create(dev, gx * gy * 16, &b));
    enigma_command *c = command(lib, "geometry");
    REQUIRE(enigma_command_set_buffer(c, 0, b, 0));
    REQUIRE(enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){gx, gy, 1}, (enigma_size3){tx, ty, 1}));
    REQUIRE(enigma_buffer_read(b, 0, out, gx * gy * 16));
    for (unsigned y = 0; y < gy; y++)
        for (unsigned x = 0; x < gx; x++) {
            unsigned *o = &out[4 * (y * gx + x)];
            unsigned ex = gx - x / tx * tx < tx ? gx - x / tx * tx : tx;
            unsigned ey = gy - y / ty * ty < ty ? gy - y / ty * ty : ty;
            unsigned tid = (y % ty) * ex + x % tx, size = ex * ey;
            unsigned in_sg = size - tid / 32 * 32 < 32 ? size - tid / 32 * 32 : 32;
            CHECK(o[0] == tid, "(%u,%u): thread_index_in_threadgroup %u, want %u", x, y, o[0], tid);
            CHECK(o[1] == ex * 100 + ey, "(%u,%u): threads_per_threadgroup %u, want %u", x, y, o[1], ex * 100 + ey);
            CHECK(o[2] == (tid / 32) * 100 + tid % 32, "(%u,%u): simd group/lane %u, want %u", x, y, o[2], (tid / 32) * 100 + tid % 32);
            CHECK(o[3] == in_sg + 1000 * tid, "(%u,%u): simd_sum(1) %u and position index, want %u", x, y, o[3], in_sg + 1000 * tid);
        }
    free(out);
    enigma_command_destroy(c);
    enigma_buffer_destroy(b);
}

static void test_early_return(enigma_device *dev, enigma_library *lib) {
    enum { N = 1024 };
    unsigned out[N];
    for (int i = 0; i < N; i++) out[i] = 0xdeadbeef;
    enigma_buffer *b;
    REQUIRE(enigma_buffer_create_with_data(dev, out, sizeof out, &b));
    enigma_command *c = command(lib, "early_return");
    REQUIRE(enigma_command_set_buffer(c, 0, b, 0));
    REQUIRE(enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){N / 256, 1, 1}, (enigma_size3){256, 1, 1}));
    REQUIRE(enigma_buffer_read(b, 0, out, sizeof out));
    for (unsigned i = 0; i < N; i++) {
        unsigned lid = i % 256, group = i / 256;
        unsigned want = lid % 2 ? 0xdeadbeef : (group * 256 + (lid + 2) % 256) * 3;
        CHECK(out[i] == want, "thread %u: %u, want %u", i, out[i], want);
    }
    enigma_command_destroy(c);
    enigma_buffer_destroy(b);
}

static void test_big_shared(enigma_device *dev, enigma_library *lib) {
    const unsigned count = 25600; /* 100 KiB of floats */
    float *out = calloc(count, sizeof *out);
    enigma_buffer *b;
    REQUIRE(enigma_buffer_create(dev, count * 4, &b));
    enigma_command *c = command(lib, "big_shared");
    REQUIRE(enigma_command_set_buffer(c, 0, b, 0));
    REQUIRE(enigma_command_set_bytes(c, 1, &count, 4));
    REQUIRE(enigma_command_set_threadgroup_memory(c, 0, count * 4));
    enigma_status st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADGROUPS, (enigma_size3){1, 1, 1}, (enigma_size3){1024, 1, 1});
    CHECK(st == ENIGMA_OK, "100 KiB of threadgroup memory: %s", enigma_last_error());
    REQUIRE(enigma_buffer_read(b, 0, out, count * 4));
    for (unsigned i = 0; i < count && st == ENIGMA_OK; i++)
        if (out[i] != (float)(count - 1 - i) * 0.5f) {
            CHECK(0, "big_shared[%u] = %g, want %g", i, out[i], (float)(count - 1 - i) * 0.5f);
            break;
        }
    free(out);
    enigma_command_destroy(c);
    enigma_buffer_destroy(b);
}

static void test_atomics(enigma_device *dev, enigma_library *lib) {
    enum { N = 1 << 16 };
    static float in[N];
    double ref = 0;
    long long iref = 0;
    for (int i = 0; i < N; i++) {
        in[i] = (float)(rnd() % 1024) / 1024.0f + 0.25f;
        ref += in[i];
        iref += i % 7;
    }
    enigma_buffer *bi, *bf, *bn;
    REQUIRE(enigma_buffer_create_with_data(dev, in, sizeof in, &bi));
    REQUIRE(enigma_buffer_create(dev, 4, &bf));
    REQUIRE(enigma_buffer_create(dev, 4, &bn));
    enigma_command *c = command(lib, "atomics");
    REQUIRE(enigma_command_set_buffer(c, 0, bi, 0));
    REQUIRE(enigma_command_set_buffer(c, 1, bf, 0));
    REQUIRE(enigma_command_set_buffer(c, 2, bn, 0));
    REQUIRE(enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){N, 1, 1}, (enigma_size3){256, 1, 1}));
    float f = 0;
    int n = 0;
    REQUIRE(enigma_buffer_read(bf, 0, &f, 4));
    REQUIRE(enigma_buffer_read(bn, 0, &n, 4));
    CHECK(fabs(f - ref) / ref < 1e-4, "atomic float sum %g, want %g", f, ref);
    CHECK(n == iref, "atomic int sum %d, want %lld", n, iref);
    enigma_command_destroy(c);
    enigma_buffer_destroy(bi);
    enigma_buffer_destroy(bf);
    enigma_buffer_destroy(bn);
}

/* Small `constant T &` bindings go to the kernel by value from a host copy of the buffer
 * (src/cuda/driver.c): the value a kernel sees must follow host writes, set_bytes, binding
 * offsets, and writes by an earlier kernel (which end the host copy's validity). */
static void check_use_const(enigma_command *u, enigma_buffer *out, uint32_t n, const float f[2], const char *when) {
    enum { N = 100 };
    REQUIRE(enigma_command_dispatch(u, ENIGMA_DISPATCH_THREADS, (enigma_size3){N, 1, 1}, (enigma_size3){64, 1, 1}));
    float got[N];
    REQUIRE(enigma_buffer_read(out, 0, got, sizeof got));
    for (int i = 0; i < N; i++) {
        double want = (double)(n + (uint32_t)i) * f[0] + f[1];
        if (fabs(got[i] - want) > 1e-6 * fabs(want)) {
            CHECK(0, "%s: use_const[%d] = %.9g, want %.9g (n = %u)", when, i, got[i], want, n);
            break;
        }
    }
}

static void test_constant_values(enigma_device *dev, enigma_library *lib) {
    uint32_t n0 = (uint32_t)(rnd() % 5000) + 1, v1 = n0 + 1 + (uint32_t)(rnd() % 5000);
    uint32_t n2 = v1 + 1 + (uint32_t)(rnd() % 5000);
    float f[2] = {(float)(rnd() % 7 + 2), (float)(rnd() % 100) + 0.5f};
    enigma_buffer *small, *out, *four;
    REQUIRE(enigma_buffer_create_with_data(dev, &n0, 4, &small));
    REQUIRE(enigma_buffer_create(dev, 100 * sizeof(float), &out));
    enigma_command *u = command(lib, "use_const");
    REQUIRE(enigma_command_set_buffer(u, 0, small, 0));
    REQUIRE(enigma_command_set_bytes(u, 1, f, sizeof f));
    REQUIRE(enigma_command_set_buffer(u, 2, out, 0));
    check_use_const(u, out, n0, f, "a buffer written by the host");
    enigma_command *w = command(lib, "set_first");
    REQUIRE(enigma_command_set_buffer(w, 0, small, 0));
    REQUIRE(enigma_command_set_bytes(w, 1, &v1, 4));
    REQUIRE(enigma_command_dispatch(w, ENIGMA_DISPATCH_THREADS, (enigma_size3){1, 1, 1}, (enigma_size3){1, 1, 1}));
    check_use_const(u, out, v1, f, "after a kernel wrote the buffer");
    REQUIRE(enigma_buffer_write(small, 0, &n2, 4));
    check_use_const(u, out, n2, f, "after the host wrote it again");
    uint32_t quad[4] = {n0 + 3, n0 + 5, v1 + 7, n2 + 9};
    REQUIRE(enigma_buffer_create_with_data(dev, quad, sizeof quad, &four));
    REQUIRE(enigma_command_set_buffer(u, 0, four, 8));
    check_use_const(u, out, quad[2], f, "bound at an offset");
    REQUIRE(enigma_command_set_bytes(u, 0, &v1, 4));
    f[0] += 1.0f;
    REQUIRE(enigma_command_set_bytes(u, 1, f, sizeof f));
    check_use_const(u, out, v1, f, "set_bytes");
    enigma_command_destroy(u);
    enigma_command_destroy(w);
    enigma_buffer_destroy(small);
    enigma_buffer_destroy(out);
    enigma_buffer_destroy(four);
}

/* After a fault the process must carry on with a working device (issue 4): the one right
 * outcome is recovery, whatever the driver does (src/cuda/driver.c: where the driver gives
 * this process no new context, a fresh CUDA worker process takes over). A lost device,
 * another status, a wrong result or a message that does not say what happened fails. */
/* dispatches `fault` (1 TiB past its buffer) and requires the recovery: the status and a
 * message that names the kernel and says the context was reset (in a fresh worker process
 * where the driver gives this process no new context: every driver measured so far) */
static void fault_once(enigma_device *dev, enigma_library *lib, const char *when) {
    enigma_buffer *b, *before;
    REQUIRE(enigma_buffer_create(dev, 1024, &b));
    REQUIRE(enigma_buffer_create(dev, 1024, &before));
    enigma_command *c = command(lib, "fault");
    unsigned far = 4096; /* 1 TiB past the buffer */
    REQUIRE(enigma_command_set_buffer(c, 0, b, 0));
    REQUIRE(enigma_command_set_bytes(c, 1, &far, 4));
    enigma_status st = enigma_command_dispatch(c, ENIGMA_DISPATCH_THREADS, (enigma_size3){32, 1, 1}, (enigma_size3){32, 1, 1});
    const char *msg = enigma_last_error();
    fprintf(stderr, "note: %s: %s\n", when, msg);
    CHECK(st == ENIGMA_ERROR_RUNTIME, "%s: an illegal address gave %s: %s", when, enigma_status_name(st), msg);
    CHECK(strstr(msg, "'fault'") != NULL, "%s: the message names the kernel: %s", when, msg);
    bool in_worker = strstr(msg, "fresh worker process") != NULL;
    bool in_process = strstr(msg, "the CUDA context was reset:") != NULL;
    CHECK(in_worker || in_process, "%s: the device must recover (a fresh worker process): %s", when, msg);
    enigma_command_destroy(c);
    enigma_buffer_destroy(b);

    /* a buffer from before the fault: refused as lost, never a crash */
    float x = 0;
    st = enigma_buffer_read(before, 0, &x, 4);
    msg = enigma_last_error();
    CHECK(st == ENIGMA_ERROR_RUNTIME && strstr(msg, "lost") != NULL,
          "%s: reading a buffer from before the fault gave %s: %s", when, enigma_status_name(st), msg);
    enigma_buffer_destroy(before);
}

/* after a recovery: a new buffer round-trips fresh random bytes exactly (several MiB: the
 * worker moves copies in chunks), and other kernels of the same library compute right */
static void check_recovered(enigma_device *dev, enigma_library *lib, const char *when) {
    size_t bytes = 3u * 1024 * 1024 + 123;
    unsigned char *data = malloc(bytes), *back = calloc(1, bytes);
    for (size_t i = 0; i < bytes; i++) data[i] = (unsigned char)(rnd() >> 8);
    enigma_buffer *r = NULL;
    REQUIRE(enigma_buffer_create_with_data(dev, data, bytes, &r));
    REQUIRE(enigma_buffer_read(r, 0, back, bytes));
    CHECK(memcmp(data, back, bytes) == 0, "%s: %zu random bytes came back different", when, bytes);
    enigma_buffer_destroy(r);
    free(data);
    free(back);

    enum { N = 4096 };
    float in[N];
    for (int i = 0; i < N; i++) in[i] = (float)(rnd() % 100000) * 0.25f;
    enigma_buffer *d = NULL;
    REQUIRE(enigma_buffer_create_with_data(dev, in, sizeof in, &d));
    enigma_command *a = command(lib, "add_one");
    REQUIRE(enigma_command_set_buffer(a, 0, d, 0));
    REQUIRE(enigma_command_dispatch(a, ENIGMA_DISPATCH_THREADS, (enigma_size3){N, 1, 1}, (enigma_size3){256, 1, 1}));
    float got[N];
    REQUIRE(enigma_buffer_read(d, 0, got, sizeof got));
    for (int i = 0; i < N; i++)
        if (got[i] != in[i] + 1.0f) {
            CHECK(0, "%s: add_one[%d] = %g, want %g", when, i, got[i], in[i] + 1.0f);
            break;
        }
    enigma_command_destroy(a);
    enigma_buffer_destroy(d);
    test_constant_values(dev, lib); /* by-value constants and several kernels, checked */
}

static void test_fault(enigma_device *dev, enigma_library *lib) {
    fault_once(dev, lib, "the first fault");
    check_recovered(dev, lib, "after the first fault");
    /* a fault on the recovered device (inside the worker): recovered again */
    fault_once(dev, lib, "the second fault");
    check_recovered(dev, lib, "after the second fault");
}

int main(void) {
    enigma_device *dev = NULL;
    enigma_status st = enigma_device_open("cuda", &dev);
    if (st == ENIGMA_ERROR_UNAVAILABLE) {
        fprintf(stderr, "skipped: %s\n", enigma_last_error());
        return 77;
    }
    REQUIRE(st);
    rnd_seed_from_clock();
    enigma_library *lib = NULL;
    st = enigma_library_create_from_source(dev, source, strlen(source), "test_gpu.metal", NULL, &lib);
    if (st != ENIGMA_OK) {
        fprintf(stderr, "%s: %s\n%s\n", enigma_status_name(st), enigma_last_error(),
                lib ? enigma_library_diagnostics_text(lib) : "");
        return 1;
    }
    test_divergent(dev, lib);
    test_geometry(dev, lib);
    test_early_return(dev, lib);
    test_big_shared(dev, lib);
    test_atomics(dev, lib);
    test_constant_values(dev, lib);
    /* last: it resets the context. ENIGMA_TEST_NO_FAULT=1 leaves it out (compute-sanitizer) */
    const char *no_fault = getenv("ENIGMA_TEST_NO_FAULT");
    if (!(no_fault && *no_fault == '1')) test_fault(dev, lib);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    if (failures) fprintf(stderr, "%d check%s failed\n", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
