/* test_buffers.c — buffers on the cpu device (or $ENIGMA_TEST_BACKEND's): zero fill, write/read round trips at
 * offsets, the bounds messages with their numbers, map/unmap, and destroy order (a
 * buffer outliving its device's close). Skips while the cpu backend is not built. */
#include "rt_test.h"

int main(void) {
    enigma_device *dev = NULL;
    /* ENIGMA_TEST_BACKEND=cuda runs the same checks on a GPU (map through a host copy) */
    const char *backend = getenv("ENIGMA_TEST_BACKEND") ? getenv("ENIGMA_TEST_BACKEND") : "cpu";
    enigma_status st = enigma_device_open(backend, &dev);
    if (st == ENIGMA_ERROR_UNAVAILABLE) RT_SKIP(enigma_last_error());
    CHECK_STATUS(st, ENIGMA_OK);
    if (!dev) return rt_result("test_buffers");

    enigma_buffer *buf = NULL;
    CHECK_STATUS(enigma_buffer_create(dev, 0, &buf), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("bytes is 0");
    CHECK(buf == NULL);
    CHECK_STATUS(enigma_buffer_create(dev, 32, NULL), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(enigma_buffer_create_with_data(dev, NULL, 8, &buf), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("data is NULL");

    CHECK_STATUS(enigma_buffer_create(dev, 32, &buf), ENIGMA_OK);
    CHECK(enigma_buffer_size(buf) == 32);
    unsigned char bytes[32];
    memset(bytes, 0xAB, sizeof bytes);
    CHECK_STATUS(enigma_buffer_read(buf, 0, bytes, 32), ENIGMA_OK);
    for (int i = 0; i < 32; i++) CHECK(bytes[i] == 0); /* created zero-filled */

    /* bounds, with the numbers */
    CHECK_STATUS(enigma_buffer_write(buf, 16, bytes, 24), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("offset 16 + 24 bytes exceeds buffer size 32");
    CHECK_STATUS(enigma_buffer_read(buf, 33, bytes, 0), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("offset 33 + 0 bytes exceeds buffer size 32");
    CHECK_STATUS(enigma_buffer_read(buf, (size_t)-1, bytes, 2), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(enigma_buffer_write(buf, 0, NULL, 4), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("src is NULL");

    /* a write at an offset lands there and nowhere else */
    unsigned char pattern[8];
    for (int i = 0; i < 8; i++) pattern[i] = (unsigned char)(rand() % 255 + 1);
    CHECK_STATUS(enigma_buffer_write(buf, 12, pattern, 8), ENIGMA_OK);
    CHECK_STATUS(enigma_buffer_read(buf, 0, bytes, 32), ENIGMA_OK);
    for (int i = 0; i < 32; i++) CHECK(bytes[i] == (i >= 12 && i < 20 ? pattern[i - 12] : 0));

    /* map: the same bytes; writes through the map are seen by read */
    void *host = NULL;
    CHECK_STATUS(enigma_buffer_map(buf, &host), ENIGMA_OK);
    CHECK(host != NULL);
    if (host) {
        CHECK(memcmp((unsigned char *)host + 12, pattern, 8) == 0);
        ((unsigned char *)host)[31] = 0x5A;
    }
    CHECK_STATUS(enigma_buffer_unmap(buf), ENIGMA_OK);
    CHECK_STATUS(enigma_buffer_unmap(buf), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("not mapped");
    unsigned char last = 0;
    CHECK_STATUS(enigma_buffer_read(buf, 31, &last, 1), ENIGMA_OK);
    CHECK(last == 0x5A);

    /* create_with_data copies */
    float src[5];
    for (int i = 0; i < 5; i++) src[i] = (float)rand() / (float)RAND_MAX + 0.5f;
    enigma_buffer *copy = NULL;
    CHECK_STATUS(enigma_buffer_create_with_data(dev, src, sizeof src, &copy), ENIGMA_OK);
    float back[5] = {0};
    src[0] += 1.0f; /* changing the source afterwards does not change the buffer */
    CHECK_STATUS(enigma_buffer_read(copy, 0, back, sizeof back), ENIGMA_OK);
    CHECK(back[0] == src[0] - 1.0f);
    for (int i = 1; i < 5; i++) CHECK(back[i] == src[i]);

    /* create_from_memory borrows: the caller's bytes are the buffer's, both ways, and destroy
     * leaves them to the caller (ASan reports a double free if it did not) */
    enigma_buffer *none = NULL;
    CHECK_STATUS(enigma_buffer_create_from_memory(dev, NULL, 8, &none), ENIGMA_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_HAS("memory is NULL");
    CHECK(none == NULL);
    if (strcmp(backend, "cpu") == 0) {
        float *mine = malloc(6 * sizeof *mine);
        for (int i = 0; i < 6; i++) mine[i] = (float)rand() / (float)RAND_MAX + 1.0f;
        enigma_buffer *borrowed = NULL;
        CHECK_STATUS(enigma_buffer_create_from_memory(dev, mine, 6 * sizeof *mine, &borrowed), ENIGMA_OK);
        float seen[6] = {0};
        CHECK_STATUS(enigma_buffer_read(borrowed, 0, seen, sizeof seen), ENIGMA_OK);
        for (int i = 0; i < 6; i++) CHECK(seen[i] == mine[i]); /* not zero-filled: in place */
        float seven = 7.25f;
        CHECK_STATUS(enigma_buffer_write(borrowed, 2 * sizeof(float), &seven, sizeof seven), ENIGMA_OK);
        CHECK(mine[2] == 7.25f);
        void *mapped = NULL;
        CHECK_STATUS(enigma_buffer_map(borrowed, &mapped), ENIGMA_OK);
        CHECK(mapped == (void *)mine);
        CHECK_STATUS(enigma_buffer_unmap(borrowed), ENIGMA_OK);
        enigma_buffer_destroy(borrowed);
        mine[0] = 3.0f; /* still the caller's */
        free(mine);
    }

    /* the device may be closed first: buffers keep it alive until they go */
    enigma_device_close(dev);
    CHECK_STATUS(enigma_buffer_read(copy, 4, back, 4), ENIGMA_OK);
    CHECK(back[0] == src[1]);
    enigma_buffer_destroy(copy);
    enigma_buffer_destroy(buf);
    return rt_result("test_buffers");
}
