/* test_kernels.c — the API around real kernels: introspection (names, kinds, indices,
 * types, element sizes, static threadgroup memory, maxTotalThreadsPerThreadgroup),
 * by-name binding and its errors, every dispatch validation message with its numbers,
 * a run checked against a reference, enqueue/wait, and Metal's by-threads geometry
 * (edge threadgroups shrink) observed from inside a kernel. Skips while the front end
 * or the cpu backend is not built. */
#include <pthread.h>
#include <time.h>

#include "rt_test.h"

static const char *source =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "struct Params { float scale; uint n; };\n"
    "kernel void add(device const float* a [[buffer(0)]],\n"
    "                device float* out [[buffer(1)]],\n"
    "                constant uint& n [[buffer(2)]],\n"
    "                uint tid [[thread_position_in_grid]]) {\n"
    "    if (tid >= n) return;\n"
    "    out[tid] = a[tid] + 1.0f;\n"
    "}\n"
    "[[max_total_threads_per_threadgroup(256)]]\n"
    "kernel void tiled(device float4* data [[buffer(0)]],\n"
    "                  constant Params& p [[buffer(3)]],\n"
    "                  threadgroup float* scratch [[threadgroup(1)]],\n"
    "                  uint lid [[thread_index_in_threadgroup]],\n"
    "                  uint2 pos [[thread_position_in_grid]]) {\n"
    "    threadgroup float tile[64];\n"
    "    threadgroup half odd[3];\n"
    "    tile[lid % 64] = p.scale;\n"
    "    odd[lid % 3] = half(p.scale);\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    scratch[lid] = float(odd[lid % 3]);\n"
    "    threadgroup_barrier(mem_flags::mem_threadgroup);\n"
    "    if (pos.x < p.n) data[pos.x] = float4(tile[lid % 64] + scratch[(lid + 1) % 64]);\n"
    "}\n"
    "kernel void geometry(device uint* out [[buffer(0)]],\n"
    "                     uint3 pos [[thread_position_in_grid]],\n"
    "                     uint3 grid [[threads_per_grid]],\n"
    "                     uint3 tpg [[threads_per_threadgroup]],\n"
    "                     uint3 groups [[threadgroups_per_grid]]) {\n"
    "    uint i = (pos.z * grid.y + pos.y) * grid.x + pos.x;\n"
    "    out[4 * i + 0] = tpg.x;\n"
    "    out[4 * i + 1] = tpg.y;\n"
    "    out[4 * i + 2] = groups.x * 100 + groups.y;\n"
    "    out[4 * i + 3] = 1;\n"
    "}\n";

static const char *census_source =
    "#include <metal_stdlib>\n"
    "using namespace metal;\n"
    "kernel void census(device atomic_uint* runs [[buffer(0)]],\n"
    "                   uint3 group [[threadgroup_position_in_grid]],\n"
    "                   uint3 groups [[threadgroups_per_grid]]) {\n"
    "    uint g = (group.z * groups.y + group.y) * groups.x + group.x;\n"
    "    atomic_fetch_add_explicit(&runs[g], 1u, memory_order_relaxed);\n"
    "}\n";

static bool streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

static void introspection(enigma_library *lib, bool with_device) {
    CHECK(enigma_library_kernel_count(lib) == 3);
    CHECK(streq(enigma_library_kernel_name(lib, 0), "add"));
    CHECK(streq(enigma_library_kernel_name(lib, 1), "tiled"));
    CHECK(enigma_library_kernel_name(lib, 3) == NULL);

    enigma_pipeline *p = NULL;
    CHECK_STATUS(enigma_pipeline_create(lib, NULL, &p), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("(kernels: add, tiled, geometry)");
    CHECK_STATUS(enigma_pipeline_create(lib, "nope", &p), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("no kernel named 'nope' in the library (kernels: add, tiled, geometry)");

    CHECK_STATUS(enigma_pipeline_create(lib, "tiled", &p), ENIGMA_OK);
    if (!p) return;
    enigma_pipeline_info info;
    CHECK_STATUS(enigma_pipeline_get_info(p, &info), ENIGMA_OK);
    CHECK(streq(info.name, "tiled"));
    CHECK(info.max_total_threads_per_threadgroup == 256);
    CHECK(info.thread_execution_width == 32);
    /* float[64] = 256 bytes, then half[3] at 2-byte alignment = 6 bytes */
    CHECK(info.static_threadgroup_memory_length >= 262);
    CHECK(info.static_threadgroup_memory_length <= 272);
    CHECK(info.param_count == 5);

    enigma_param_info pi;
    CHECK_STATUS(enigma_pipeline_get_param(p, 0, &pi), ENIGMA_OK);
    CHECK(streq(pi.name, "data") && pi.kind == ENIGMA_PARAM_BUFFER && pi.index == 0);
    CHECK(streq(pi.type_name, "device float4*") && streq(pi.element_type, "float4"));
    CHECK(pi.element_scalar == ENIGMA_SCALAR_F32 && pi.element_lanes == 4 && pi.element_size == 16);
    CHECK(!pi.is_const && !pi.is_reference && pi.attribute == NULL);
    CHECK_STATUS(enigma_pipeline_get_param(p, 1, &pi), ENIGMA_OK);
    CHECK(streq(pi.name, "p") && pi.kind == ENIGMA_PARAM_BUFFER && pi.index == 3);
    CHECK(streq(pi.type_name, "constant Params&") && streq(pi.element_type, "Params"));
    CHECK(pi.element_scalar == ENIGMA_SCALAR_NONE && pi.element_size == 8);
    CHECK(pi.is_const && pi.is_reference);
    CHECK_STATUS(enigma_pipeline_get_param(p, 2, &pi), ENIGMA_OK);
    CHECK(streq(pi.name, "scratch") && pi.kind == ENIGMA_PARAM_THREADGROUP_MEMORY && pi.index == 1);
    CHECK(streq(pi.type_name, "threadgroup float*") && pi.element_size == 4);
    CHECK_STATUS(enigma_pipeline_get_param(p, 3, &pi), ENIGMA_OK);
    CHECK(streq(pi.name, "lid") && pi.kind == ENIGMA_PARAM_ATTRIBUTE && pi.index == -1);
    CHECK(streq(pi.attribute, "thread_index_in_threadgroup") && streq(pi.type_name, "uint"));
    CHECK_STATUS(enigma_pipeline_get_param(p, 4, &pi), ENIGMA_OK);
    CHECK(streq(pi.attribute, "thread_position_in_grid") && streq(pi.type_name, "uint2"));
    CHECK(pi.element_scalar == ENIGMA_SCALAR_U32 && pi.element_lanes == 2);
    CHECK_STATUS(enigma_pipeline_get_param(p, 5, &pi), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("index 5 is out of range (kernel 'tiled' has 5 parameters)");
    CHECK(enigma_pipeline_find_param(p, "scratch") == 2);
    CHECK(enigma_pipeline_find_param(p, "nothing") == -1);
    enigma_pipeline_destroy(p);

    CHECK_STATUS(enigma_pipeline_create(lib, "add", &p), ENIGMA_OK);
    if (!p) return;
    CHECK_STATUS(enigma_pipeline_get_info(p, &info), ENIGMA_OK);
    CHECK(info.max_total_threads_per_threadgroup == 1024);
    CHECK(info.static_threadgroup_memory_length == 0);
    CHECK_STATUS(enigma_pipeline_get_param(p, 0, &pi), ENIGMA_OK);
    CHECK(streq(pi.type_name, "device const float*") && pi.is_const && !pi.is_reference);
    CHECK_STATUS(enigma_pipeline_get_param(p, 2, &pi), ENIGMA_OK);
    CHECK(streq(pi.type_name, "constant uint&") && pi.is_reference && pi.element_size == 4);
    if (!with_device) {
        enigma_command *cmd = NULL;
        CHECK_STATUS(enigma_command_create(p, &cmd), ENIGMA_ERROR_INVALID_ARGUMENT);
        CHECK_ERROR_HAS("compiled without a device");
    }
    enigma_pipeline_destroy(p);
}

static void emit(enigma_library *lib) {
    char *text = NULL;
    CHECK_STATUS(enigma_library_emit(lib, "ir", &text), ENIGMA_OK);
    CHECK(text && strstr(text, "tiled"));
    enigma_free(text);
    CHECK_STATUS(enigma_library_emit(lib, "asm", &text), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("unknown output 'asm' (expected ir, c or cuda)");
}

static const enigma_size3 one = {1, 1, 1};

static void add_kernel(enigma_device *dev, enigma_library *lib) {
    enigma_pipeline *p = NULL;
    enigma_command *cmd = NULL;
    CHECK_STATUS(enigma_pipeline_create(lib, "add", &p), ENIGMA_OK);
    CHECK_STATUS(enigma_command_create(p, &cmd), ENIGMA_OK);
    enigma_pipeline_destroy(p); /* the command keeps it */
    if (!cmd) return;

    enum { N = 1000, CAP = 1024 };
    float a[CAP];
    for (int i = 0; i < CAP; i++) a[i] = (float)rand() / (float)RAND_MAX * 200.0f - 100.0f;
    enigma_buffer *abuf = NULL, *obuf = NULL;
    CHECK_STATUS(enigma_buffer_create_with_data(dev, a, sizeof a, &abuf), ENIGMA_OK);
    CHECK_STATUS(enigma_buffer_create(dev, sizeof a, &obuf), ENIGMA_OK);

    /* by-name errors */
    CHECK_STATUS(enigma_command_set_buffer_by_name(cmd, "x", abuf, 0), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("no parameter named 'x' in kernel 'add' (parameters: a, out, n)");
    CHECK_STATUS(enigma_command_set_bytes_by_name(cmd, "tid", &a, 4), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("parameter 'tid' of kernel 'add' is the attribute [[thread_position_in_grid]]");
    CHECK_STATUS(enigma_command_set_buffer(cmd, 5, abuf, 0), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("kernel 'add' has no [[buffer(5)]] parameter (buffer indices: 0, 1, 2)");
    CHECK_STATUS(enigma_command_set_buffer(cmd, 0, abuf, sizeof a), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("offset 4096 is not inside the buffer of 4096 bytes");
    CHECK_STATUS(enigma_command_set_buffer(cmd, 0, NULL, 0), ENIGMA_ERROR_INVALID_ARGUMENT);

    /* an unbound parameter, then a reference bound to too few bytes */
    CHECK_STATUS(enigma_command_set_buffer_by_name(cmd, "a", abuf, 0), ENIGMA_OK);
    uint32_t n = N;
    CHECK_STATUS(enigma_command_set_bytes(cmd, 2, &n, 2), ENIGMA_OK);
    enigma_size3 grid = {N, 1, 1}, group = {256, 1, 1};
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_IS("buffer parameter 'out' ([[buffer(1)]]) of kernel 'add' has no binding");
    CHECK_STATUS(enigma_command_set_buffer_by_name(cmd, "out", obuf, 0), ENIGMA_OK);
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_IS("buffer parameter 'n' ([[buffer(2)]]) of kernel 'add' is a reference to one uint (4 bytes) but is bound to 2 bytes");
    CHECK_STATUS(enigma_command_set_bytes_by_name(cmd, "n", &n, sizeof n), ENIGMA_OK);

    /* geometry */
    enigma_size3 big = {64, 64, 1}, zero = {0, 1, 1};
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, one, big), ENIGMA_ERROR_LIMIT);
    CHECK_ERROR_IS("threads per threadgroup 4096 (64x64x1) exceeds the limit of 1024 for kernel 'add'");
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, one, zero), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("threads per threadgroup 0x1x1 has a zero dimension");
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, zero, group), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("threads per grid 0x1x1 has a zero dimension");
    CHECK_STATUS(enigma_command_dispatch(cmd, (enigma_dispatch_mode)7, grid, group), ENIGMA_ERROR_INVALID_ARGUMENT);

    /* the run: edge group of 1000 - 3*256 = 232 threads; the rest of out stays zero */
    CHECK_STATUS(enigma_command_wait(cmd), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("no dispatch is queued");
    CHECK_STATUS(enigma_command_enqueue(cmd, ENIGMA_DISPATCH_THREADS, grid, group), ENIGMA_OK);
    CHECK_STATUS(enigma_command_set_bytes_by_name(cmd, "n", &n, sizeof n), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("is queued on this command");
    CHECK_STATUS(enigma_command_wait(cmd), ENIGMA_OK);
    float out[CAP];
    CHECK_STATUS(enigma_buffer_read(obuf, 0, out, sizeof out), ENIGMA_OK);
    int wrong = 0;
    for (int i = 0; i < CAP; i++) {
        float want = i < N ? (float)((double)a[i] + 1.0) : 0.0f;
        wrong += out[i] != want;
    }
    CHECK(wrong == 0);
    CHECK(enigma_command_report_count(cmd) == 0);
    CHECK(streq(enigma_command_reports_text(cmd), ""));

    /* by threadgroups, with a buffer offset: out[i] = a[i + 24] + 1 for 4 groups of 250 */
    enigma_size3 groups = {4, 1, 1}, g250 = {250, 1, 1};
    CHECK_STATUS(enigma_command_set_buffer(cmd, 0, abuf, 24 * sizeof(float)), ENIGMA_OK);
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, groups, g250), ENIGMA_OK);
    CHECK_STATUS(enigma_buffer_read(obuf, 0, out, sizeof out), ENIGMA_OK);
    wrong = 0;
    for (int i = 0; i < N; i++) wrong += out[i] != (float)((double)a[i + 24] + 1.0);
    CHECK(wrong == 0);

    enigma_command_destroy(cmd);
    enigma_buffer_destroy(abuf);
    enigma_buffer_destroy(obuf);
}

static void tiled_kernel(enigma_device *dev, enigma_library *lib) {
    enigma_pipeline *p = NULL;
    enigma_command *cmd = NULL;
    CHECK_STATUS(enigma_pipeline_create(lib, "tiled", &p), ENIGMA_OK);
    CHECK_STATUS(enigma_command_create(p, &cmd), ENIGMA_OK);
    if (!cmd) {
        enigma_pipeline_destroy(p);
        return;
    }
    enigma_pipeline_info info;
    enigma_pipeline_get_info(p, &info);
    enigma_buffer *data = NULL;
    CHECK_STATUS(enigma_buffer_create(dev, 64 * 16, &data), ENIGMA_OK);
    struct { float scale; uint32_t n; } params = {(float)(rand() % 100) + 0.5f, 64};
    CHECK_STATUS(enigma_command_set_buffer(cmd, 0, data, 0), ENIGMA_OK);
    CHECK_STATUS(enigma_command_set_bytes_by_name(cmd, "p", &params, sizeof params), ENIGMA_OK);
    CHECK_STATUS(enigma_command_set_buffer_by_name(cmd, "scratch", data, 0), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("is threadgroup memory ([[threadgroup(1)]])");

    enigma_size3 grid = {64, 1, 1}, g64 = {64, 1, 1}, g512 = {512, 1, 1};
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, g64), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_IS("threadgroup memory parameter 'scratch' ([[threadgroup(1)]]) of kernel 'tiled' has no length; "
                   "set it with enigma_command_set_threadgroup_memory");
    CHECK_STATUS(enigma_command_set_threadgroup_memory(cmd, 0, 64), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("kernel 'tiled' has no [[threadgroup(0)]] parameter (threadgroup indices: 1)");
    enigma_device_info dinfo;
    enigma_device_get_info(dev, &dinfo);
    unsigned long long limit = dinfo.max_threadgroup_memory, st_len = info.static_threadgroup_memory_length;
    CHECK_STATUS(enigma_command_set_threadgroup_memory(cmd, 1, (size_t)limit), ENIGMA_OK);
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, g64), ENIGMA_ERROR_LIMIT);
    char want[256];
    snprintf(want, sizeof want,
             "threadgroup memory %llu bytes (static %llu + [[threadgroup(1)]] %llu) exceeds the device limit of %llu "
             "for kernel 'tiled'", st_len + limit, st_len, limit, limit);
    CHECK_ERROR_IS(want);
    CHECK_STATUS(enigma_command_set_threadgroup_memory(cmd, 1, 64 * sizeof(float)), ENIGMA_OK);
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, g512), ENIGMA_ERROR_LIMIT);
    CHECK_ERROR_IS("threads per threadgroup 512 (512x1x1) exceeds the limit of 256 for kernel 'tiled'");
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, g64), ENIGMA_OK);
    float out[64 * 4];
    CHECK_STATUS(enigma_buffer_read(data, 0, out, sizeof out), ENIGMA_OK);
    float half_scale = params.scale; /* x.5 below 100 is exact in half */
    int wrong = 0;
    for (int i = 0; i < 64 * 4; i++) wrong += out[i] != params.scale + half_scale;
    CHECK(wrong == 0);
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);
    enigma_buffer_destroy(data);
}

/* Metal's dispatchThreads: groups = ceil(grid / size); edge groups report their real size */
static void geometry_kernel(enigma_device *dev, enigma_library *lib) {
    enigma_pipeline *p = NULL;
    enigma_command *cmd = NULL;
    CHECK_STATUS(enigma_pipeline_create(lib, "geometry", &p), ENIGMA_OK);
    CHECK_STATUS(enigma_command_create(p, &cmd), ENIGMA_OK);
    if (!cmd) {
        enigma_pipeline_destroy(p);
        return;
    }
    enigma_size3 grid = {(uint32_t)(9 + rand() % 8), (uint32_t)(2 + rand() % 4), 2}, size = {4, 3, 1};
    size_t threads = (size_t)grid.x * grid.y * grid.z;
    enigma_buffer *out = NULL;
    CHECK_STATUS(enigma_buffer_create(dev, threads * 16, &out), ENIGMA_OK);
    CHECK_STATUS(enigma_command_set_buffer(cmd, 0, out, 0), ENIGMA_OK);
    CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, size), ENIGMA_OK);
    uint32_t *v = malloc(threads * 16);
    CHECK_STATUS(enigma_buffer_read(out, 0, v, threads * 16), ENIGMA_OK);
    uint32_t gx = (grid.x + size.x - 1) / size.x, gy = (grid.y + size.y - 1) / size.y;
    int wrong = 0;
    for (uint32_t z = 0; z < grid.z; z++)
        for (uint32_t y = 0; y < grid.y; y++)
            for (uint32_t x = 0; x < grid.x; x++) {
                size_t i = ((size_t)z * grid.y + y) * grid.x + x;
                uint32_t want_x = x / size.x == gx - 1 ? grid.x - (gx - 1) * size.x : size.x;
                uint32_t want_y = y / size.y == gy - 1 ? grid.y - (gy - 1) * size.y : size.y;
                wrong += v[4 * i] != want_x || v[4 * i + 1] != want_y || v[4 * i + 2] != gx * 100 + gy || v[4 * i + 3] != 1;
            }
    CHECK(wrong == 0);
    free(v);
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);
    enigma_buffer_destroy(out);
}

/* every threadgroup runs exactly once, each of its threads once, however the grid divides
 * among the workers (ENIGMA_NUM_THREADS picks how many: the cpu backend cuts the grid into
 * one slice per worker, and a worker done with its own takes from the others') */
static void census_kernel(const char *workers) {
    const char *was = getenv("ENIGMA_NUM_THREADS");
    char *saved = was ? strdup(was) : NULL;
    setenv("ENIGMA_NUM_THREADS", workers, 1);
    enigma_device *dev = NULL;
    enigma_library *lib = NULL;
    enigma_pipeline *p = NULL;
    enigma_command *cmd = NULL;
    CHECK_STATUS(enigma_device_open("cpu", &dev), ENIGMA_OK);
    if (saved) setenv("ENIGMA_NUM_THREADS", saved, 1);
    else unsetenv("ENIGMA_NUM_THREADS");
    free(saved);
    if (dev) CHECK_STATUS(enigma_library_create_from_source(dev, census_source, strlen(census_source), "census.metal", NULL, &lib), ENIGMA_OK);
    if (lib) CHECK_STATUS(enigma_pipeline_create(lib, "census", &p), ENIGMA_OK);
    if (p) CHECK_STATUS(enigma_command_create(p, &cmd), ENIGMA_OK);
    static const uint32_t group_counts[][3] = {{1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {7, 1, 1}, {1000, 1, 1},
                                               {5, 3, 2}, {4099, 1, 1}, {67, 17, 3}};
    for (size_t c = 0; cmd && c < sizeof group_counts / sizeof group_counts[0]; c++) {
        enigma_size3 groups = {group_counts[c][0], group_counts[c][1], group_counts[c][2]};
        enigma_size3 size = {(uint32_t)(1 + rand() % 40), 1, 1};
        size_t count = (size_t)groups.x * groups.y * groups.z;
        enigma_buffer *runs = NULL;
        CHECK_STATUS(enigma_buffer_create(dev, count * 4, &runs), ENIGMA_OK);
        uint32_t *got = calloc(count, 4);
        if (!runs || !got) break;
        CHECK_STATUS(enigma_buffer_write(runs, 0, got, count * 4), ENIGMA_OK);
        CHECK_STATUS(enigma_command_set_buffer(cmd, 0, runs, 0), ENIGMA_OK);
        CHECK_STATUS(enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADGROUPS, groups, size), ENIGMA_OK);
        CHECK_STATUS(enigma_buffer_read(runs, 0, got, count * 4), ENIGMA_OK);
        size_t wrong = 0;
        for (size_t g = 0; g < count; g++) wrong += got[g] != size.x;
        if (wrong) fprintf(stderr, "census on %s workers, %zu groups of %u: %zu groups ran a wrong number of threads\n",
                           workers, count, size.x, wrong);
        CHECK(wrong == 0);
        free(got);
        enigma_buffer_destroy(runs);
    }
    enigma_command_destroy(cmd);
    enigma_pipeline_destroy(p);
    enigma_library_destroy(lib);
    enigma_device_close(dev);
}

/* a pipeline shared by threads, each with its own command and buffers */
typedef struct shared_job {
    enigma_device *dev;
    enigma_pipeline *p;
    int wrong;
    enigma_status status;
} shared_job;

static void *run_shared(void *arg) {
    shared_job *job = arg;
    enum { N = 777 };
    float a[N], out[N];
    for (int i = 0; i < N; i++) a[i] = (float)(i % 97) * 0.25f + (float)((uintptr_t)job % 7);
    enigma_command *cmd = NULL;
    enigma_buffer *abuf = NULL, *obuf = NULL;
    uint32_t n = N;
    enigma_status st = enigma_command_create(job->p, &cmd);
    if (st == ENIGMA_OK) st = enigma_buffer_create_with_data(job->dev, a, sizeof a, &abuf);
    if (st == ENIGMA_OK) st = enigma_buffer_create(job->dev, sizeof out, &obuf);
    if (st == ENIGMA_OK) st = enigma_command_set_buffer(cmd, 0, abuf, 0);
    if (st == ENIGMA_OK) st = enigma_command_set_buffer(cmd, 1, obuf, 0);
    if (st == ENIGMA_OK) st = enigma_command_set_bytes(cmd, 2, &n, sizeof n);
    for (int rep = 0; rep < 8 && st == ENIGMA_OK; rep++) {
        enigma_size3 grid = {N, 1, 1}, group = {64, 1, 1};
        st = enigma_command_dispatch(cmd, ENIGMA_DISPATCH_THREADS, grid, group);
        if (st == ENIGMA_OK) st = enigma_buffer_read(obuf, 0, out, sizeof out);
        for (int i = 0; i < N && st == ENIGMA_OK; i++) job->wrong += out[i] != (float)((double)a[i] + 1.0);
    }
    job->status = st;
    enigma_command_destroy(cmd);
    enigma_buffer_destroy(abuf);
    enigma_buffer_destroy(obuf);
    return NULL;
}

static void shared_pipeline(enigma_device *dev, enigma_library *lib) {
    enigma_pipeline *p = NULL;
    CHECK_STATUS(enigma_pipeline_create(lib, "add", &p), ENIGMA_OK);
    if (!p) return;
    shared_job jobs[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (shared_job){.dev = dev, .p = p};
        pthread_create(&t[i], NULL, run_shared, &jobs[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].status == ENIGMA_OK);
        CHECK(jobs[i].wrong == 0);
    }
    enigma_pipeline_destroy(p);
}

int main(void) {
    srand((unsigned)time(NULL));
    enigma_library *lib = NULL;
    enigma_status st = enigma_library_create_from_source(NULL, source, strlen(source), "kernels.metal", NULL, &lib);
    if (st == ENIGMA_ERROR_COMPILE && strstr(enigma_library_diagnostics_text(lib), "not built yet")) {
        enigma_library_destroy(lib);
        RT_SKIP("the front end is not built yet");
    }
    CHECK_STATUS(st, ENIGMA_OK);
    if (st != ENIGMA_OK) fputs(enigma_library_diagnostics_text(lib), stderr);
    if (lib && st == ENIGMA_OK) {
        introspection(lib, false);
        emit(lib);
    }
    enigma_library_destroy(lib);

    enigma_device *dev = NULL;
    /* ENIGMA_TEST_BACKEND=cuda runs the same checks on a GPU */
    const char *backend = getenv("ENIGMA_TEST_BACKEND") ? getenv("ENIGMA_TEST_BACKEND") : "cpu";
    st = enigma_device_open(backend, &dev);
    if (st == ENIGMA_ERROR_UNAVAILABLE && strstr(enigma_last_error(), "not built")) {
        printf("%s backend not built yet: device tests skipped\n", backend);
        return rt_result("test_kernels");
    }
    CHECK_STATUS(st, ENIGMA_OK);
    if (!dev) return rt_result("test_kernels");
    lib = NULL;
    st = enigma_library_create_from_source(dev, source, strlen(source), "kernels.metal", NULL, &lib);
    CHECK_STATUS(st, ENIGMA_OK);
    if (st == ENIGMA_OK) {
        introspection(lib, true);
        add_kernel(dev, lib);
        tiled_kernel(dev, lib);
        geometry_kernel(dev, lib);
        shared_pipeline(dev, lib);
        if (strcmp(backend, "cpu") == 0)
            for (int i = 0; i < 4; i++) census_kernel((const char *[]){"1", "2", "3", "7"}[i]);
    } else if (lib) {
        fputs(enigma_library_diagnostics_text(lib), stderr);
    }
    enigma_library_destroy(lib);
    enigma_device_close(dev);
    return rt_result("test_kernels");
}
