/* test_cpu_affine.c — accesses whose addresses are affine in the lane (emit_expr.c's lane-affine
 * fast path: one or two vector moves or broadcasts per SIMD group) give the same results
 * as the per-lane path: 2-D groups whose width takes the path (16, 32, 48, 64) and ones
 * that do not (8, 24, edge groups of a dispatch by threads), 1-D groups with partial SIMD
 * groups, signed and offset indices, steps other than 1. References are computed here in
 * double from fresh random inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "enigma.h"
#include "../test_util.h"

static float rndf(void) { return (float)((double)(rnd() % 2000001) / 1000000.0 - 1.0); }

static const char *source =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void grid2d(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                   device const float *rowv [[buffer(2)]], constant uint &W [[buffer(3)]],\n"
    "                   uint2 pos [[thread_position_in_grid]], uint2 lpos [[thread_position_in_threadgroup]],\n"
    "                   uint2 tsize [[threads_per_threadgroup]]) {\n"
    "    threadgroup float tile[16][64];\n"
    "    uint row = pos.y, col = pos.x;\n"
    "    float v = in[row * W + col];\n"                       /* consecutive per half */
    "    tile[lpos.y][lpos.x] = v;\n"                          /* store, consecutive per half */
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    float w = tile[lpos.y][tsize.x - 1u - lpos.x];\n"     /* step -1: per-lane path */
    "    float t0 = tile[lpos.y][0];\n"                        /* one element per half */
    "    out[row * W + col] = v * 2.0f + rowv[row] + w * 0.5f + t0 * 0.25f;\n"
    "}\n"
    "kernel void lin(device const int *in [[buffer(0)]], device int *out [[buffer(1)]],\n"
    "                uint gid [[thread_position_in_grid]], uint lane [[thread_index_in_simdgroup]],\n"
    "                uint sg [[simdgroup_index_in_threadgroup]],\n"
    "                uint tid [[thread_index_in_threadgroup]]) {\n"
    "    int a = 7;\n"
    "    if (gid >= 3u) a = in[gid - 3u];\n"                   /* partial mask in the first group */
    "    int s = int(gid) * 2 - int(gid) + 2;\n"               /* signed, gid + 2 */
    "    int b = in[s];\n"
    "    uint first = gid - tid;\n"                             /* the group's first thread */
    "    int c = in[first + sg * 32u + lane];\n"              /* = gid, from other attributes */
    "    int d = in[gid * 2u];\n"                              /* step 2: per-lane path */
    "    int e = in[(tid << 1) >> 1];\n"                       /* not affine (>>): per-lane path */
    "    out[first + tid] = a * 3 + b * 5 + c * 7 + d * 11 + e * 13;\n"
    "}\n"
    /* per-lane index variables: consecutive lanes (tested at run time) and swapped pairs */
    "kernel void gstride(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                    device float *out2 [[buffer(2)]], constant uint &n [[buffer(3)]],\n"
    "                    uint gid [[thread_position_in_grid]], uint gs [[threads_per_grid]]) {\n"
    "    for (uint i = gid; i < n; i += gs)\n"
    "        out[i] = in[i] * 2.0f + 1.0f;\n"
    "    uint j = gid ^ 1u;\n"
    "    if (j < n) out2[j] = in[j];\n"
    "}\n"
    /* a streaming loop whose lanes leave early: the general loop takes over */
    "kernel void gbreak(device const float *in [[buffer(0)]], device float *out [[buffer(1)]],\n"
    "                   constant uint &n [[buffer(2)]],\n"
    "                   uint gid [[thread_position_in_grid]], uint gs [[threads_per_grid]]) {\n"
    "    uint count = 0;\n"
    "    for (uint i = gid; i < n; i += gs) {\n"
    "        if (in[i] > 0.99f) break;\n"
    "        count++;\n"
    "    }\n"
    "    out[gid] = float(count);\n"
    "}\n";

static enigma_pipeline *pipeline(enigma_library *lib, const char *name) {
    enigma_pipeline *p = NULL;
    OK(enigma_pipeline_create(lib, name, &p));
    return p;
}

static void run_grid2d(enigma_device *dev, enigma_pipeline *p, uint32_t W, uint32_t H, uint32_t gx,
                       uint32_t gy, enigma_dispatch_mode kind) {
    size_t n = (size_t)W * H;
    float *in = malloc(n * 4), *rowv = malloc(H * 4), *out = malloc(n * 4);
    for (size_t i = 0; i < n; i++) in[i] = rndf();
    for (uint32_t i = 0; i < H; i++) rowv[i] = rndf();
    enigma_buffer *bin, *bout, *brow, *bw;
    OK(enigma_buffer_create_with_data(dev, in, n * 4, &bin));
    OK(enigma_buffer_create(dev, n * 4, &bout));
    OK(enigma_buffer_create_with_data(dev, rowv, H * 4, &brow));
    OK(enigma_buffer_create_with_data(dev, &W, 4, &bw));
    enigma_command *cmd;
    OK(enigma_command_create(p, &cmd));
    OK(enigma_command_set_buffer(cmd, 0, bin, 0));
    OK(enigma_command_set_buffer(cmd, 1, bout, 0));
    OK(enigma_command_set_buffer(cmd, 2, brow, 0));
    OK(enigma_command_set_buffer(cmd, 3, bw, 0));
    enigma_size3 grid = kind == ENIGMA_DISPATCH_THREADS ? (enigma_size3){W, H, 1}
                                                        : (enigma_size3){W / gx, H / gy, 1};
    OK(enigma_command_dispatch(cmd, kind, grid, (enigma_size3){gx, gy, 1}));
    OK(enigma_buffer_read(bout, 0, out, n * 4));
    int bad = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            /* this thread's group: its origin and real width (edge groups are narrower) */
            uint32_t x0 = x / gx * gx, tw = W - x0 < gx ? W - x0 : gx;
            uint32_t lx = x - x0;
            double ref = 2.0 * in[y * W + x] + rowv[y] + 0.5 * in[y * W + x0 + (tw - 1 - lx)] +
                         0.25 * in[y * W + x0];
            double got = out[y * W + x];
            if (fabs(got - ref) > 1e-5 * (1.0 + fabs(ref)) && bad++ < 5)
                CHECK(0, "grid2d %ux%u, group %ux%u, (%u, %u): %.9g, expected %.9g", W, H, gx, gy, x,
                      y, got, ref);
        }
    CHECK(bad == 0, "grid2d %ux%u, group %ux%u: %d wrong", W, H, gx, gy, bad);
    enigma_command_destroy(cmd);
    enigma_buffer_destroy(bin);
    enigma_buffer_destroy(bout);
    enigma_buffer_destroy(brow);
    enigma_buffer_destroy(bw);
    free(in), free(rowv), free(out);
}

static void run_lin(enigma_device *dev, enigma_pipeline *p, uint32_t n, uint32_t group) {
    size_t len = (size_t)n * 2 + 4;
    int32_t *in = malloc(len * 4), *out = malloc((size_t)n * 4);
    for (size_t i = 0; i < len; i++) in[i] = (int32_t)(rnd() % 200001) - 100000;
    enigma_buffer *bin, *bout;
    OK(enigma_buffer_create_with_data(dev, in, len * 4, &bin));
    OK(enigma_buffer_create(dev, (size_t)n * 4, &bout));
    enigma_command *cmd;
    OK(enigma_command_create(p, &cmd));
    OK(enigma_command_set_buffer(cmd, 0, bin, 0));
    OK(enigma_command_set_buffer(cmd, 1, bout, 0));
    OK(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, (enigma_size3){n, 1, 1},
                               (enigma_size3){group, 1, 1}));
    OK(enigma_buffer_read(bout, 0, out, (size_t)n * 4));
    int bad = 0;
    for (uint32_t g = 0; g < n; g++) {
        int64_t a = g >= 3 ? in[g - 3] : 7;
        int64_t ref = a * 3 + (int64_t)in[g + 2] * 5 + (int64_t)in[g] * 7 + (int64_t)in[2 * g] * 11 +
                      (int64_t)in[g % group] * 13; /* e: in[tid] */
        if ((int32_t)ref != out[g] && bad++ < 5)
            CHECK(0, "lin n %u group %u, thread %u: %d, expected %lld", n, group, g, out[g], (long long)ref);
    }
    CHECK(bad == 0, "lin n %u group %u: %d wrong", n, group, bad);
    enigma_command_destroy(cmd);
    enigma_buffer_destroy(bin);
    enigma_buffer_destroy(bout);
    free(in), free(out);
}

static void run_gstride(enigma_device *dev, enigma_pipeline *p, uint32_t n, uint32_t threads, uint32_t group) {
    float *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4), *out2 = malloc((size_t)n * 4);
    for (uint32_t i = 0; i < n; i++) in[i] = rndf();
    enigma_buffer *bin, *bout, *bout2, *bn;
    OK(enigma_buffer_create_with_data(dev, in, (size_t)n * 4, &bin));
    OK(enigma_buffer_create(dev, (size_t)n * 4, &bout));
    OK(enigma_buffer_create(dev, (size_t)n * 4, &bout2));
    OK(enigma_buffer_create_with_data(dev, &n, 4, &bn));
    enigma_command *cmd;
    OK(enigma_command_create(p, &cmd));
    OK(enigma_command_set_buffer(cmd, 0, bin, 0));
    OK(enigma_command_set_buffer(cmd, 1, bout, 0));
    OK(enigma_command_set_buffer(cmd, 2, bout2, 0));
    OK(enigma_command_set_buffer(cmd, 3, bn, 0));
    OK(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, (enigma_size3){threads, 1, 1},
                               (enigma_size3){group, 1, 1}));
    OK(enigma_buffer_read(bout, 0, out, (size_t)n * 4));
    OK(enigma_buffer_read(bout2, 0, out2, (size_t)n * 4));
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        double ref = 2.0 * in[i] + 1.0;
        /* out2[j] is written by thread j ^ 1, when that thread exists */
        double ref2 = (i ^ 1u) < threads ? in[i] : 0.0;
        if ((fabs(out[i] - ref) > 1e-6 * (1.0 + fabs(ref)) || out2[i] != ref2) && bad++ < 5)
            CHECK(0, "gstride n %u threads %u group %u, [%u]: %.9g %.9g, expected %.9g %.9g", n, threads, group, i,
                  out[i], out2[i], ref, ref2);
    }
    CHECK(bad == 0, "gstride n %u threads %u group %u: %d wrong", n, threads, group, bad);
    enigma_command_destroy(cmd);
    enigma_buffer_destroy(bin);
    enigma_buffer_destroy(bout);
    enigma_buffer_destroy(bout2);
    enigma_buffer_destroy(bn);
    free(in), free(out), free(out2);
}

static void run_gbreak(enigma_device *dev, enigma_pipeline *p, uint32_t n, uint32_t threads, uint32_t group) {
    float *in = malloc((size_t)n * 4), *out = malloc((size_t)threads * 4);
    for (uint32_t i = 0; i < n; i++) in[i] = rndf();
    enigma_buffer *bin, *bout, *bn;
    OK(enigma_buffer_create_with_data(dev, in, (size_t)n * 4, &bin));
    OK(enigma_buffer_create(dev, (size_t)threads * 4, &bout));
    OK(enigma_buffer_create_with_data(dev, &n, 4, &bn));
    enigma_command *cmd;
    OK(enigma_command_create(p, &cmd));
    OK(enigma_command_set_buffer(cmd, 0, bin, 0));
    OK(enigma_command_set_buffer(cmd, 1, bout, 0));
    OK(enigma_command_set_buffer(cmd, 2, bn, 0));
    OK(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, (enigma_size3){threads, 1, 1},
                               (enigma_size3){group, 1, 1}));
    OK(enigma_buffer_read(bout, 0, out, (size_t)threads * 4));
    int bad = 0;
    for (uint32_t t = 0; t < threads; t++) {
        uint32_t count = 0;
        for (uint32_t i = t; i < n && !(in[i] > 0.99f); i += threads) count++;
        if (out[t] != (float)count && bad++ < 5)
            CHECK(0, "gbreak n %u threads %u, thread %u: %g, expected %u", n, threads, t, out[t], count);
    }
    CHECK(bad == 0, "gbreak n %u threads %u group %u: %d wrong", n, threads, group, bad);
    enigma_command_destroy(cmd);
    enigma_buffer_destroy(bin);
    enigma_buffer_destroy(bout);
    enigma_buffer_destroy(bn);
    free(in), free(out);
}

int main(void) {
    rnd_seed_from_clock();
    enigma_device *dev = NULL;
    OK(enigma_device_open("cpu", &dev));
    if (!dev) return 1;
    enigma_library *lib = NULL;
    if (enigma_library_create_from_source(dev, source, strlen(source), "affine.metal", NULL, &lib) != ENIGMA_OK) {
        fprintf(stderr, "compile: %s\n%s\n", enigma_last_error(), lib ? enigma_library_diagnostics_text(lib) : "");
        return 1;
    }
    enigma_pipeline *g2 = pipeline(lib, "grid2d"), *l1 = pipeline(lib, "lin"), *gs = pipeline(lib, "gstride"),
                    *gb = pipeline(lib, "gbreak");
    if (g2) {
        static const uint32_t shapes[][2] = {{16, 16}, {16, 4}, {32, 8}, {48, 4}, {64, 2}, {8, 8}, {24, 2}};
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            uint32_t gx = shapes[i][0], gy = shapes[i][1];
            run_grid2d(dev, g2, gx * 6, gy * 5, gx, gy, ENIGMA_DISPATCH_THREADGROUPS);
            run_grid2d(dev, g2, gx * 6 - 5, gy * 5 - 1, gx, gy, ENIGMA_DISPATCH_THREADS); /* edges */
        }
    }
    if (l1) {
        static const uint32_t groups[] = {32, 96, 100, 256, 17, 1024};
        for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
            run_lin(dev, l1, 4096, groups[i]);
            run_lin(dev, l1, 1000, groups[i]);
        }
    }
    if (gs) {
        run_gstride(dev, gs, 10000, 1024, 256);
        run_gstride(dev, gs, 10007, 1000, 96); /* edge group; i of its last SIMD group partial */
        run_gstride(dev, gs, 777, 2048, 64);   /* more threads than elements */
    }
    if (gb) {
        run_gbreak(dev, gb, 100000, 512, 128);
        run_gbreak(dev, gb, 30011, 1000, 96);
    }
    if (gb) enigma_pipeline_destroy(gb);
    if (gs) enigma_pipeline_destroy(gs);
    if (g2) enigma_pipeline_destroy(g2);
    if (l1) enigma_pipeline_destroy(l1);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    fprintf(stderr, "%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
