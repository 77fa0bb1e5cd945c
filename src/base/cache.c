/* cache.c — the on-disk cache: where it lives, unique temporary names, atomic publish.
 * Needs: a POSIX file system where rename(2) within one folder is atomic. */
#include "cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* mkdir -p: each missing component, tolerating a concurrent creator */
static bool make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int r = mkdir(path, 0700);
        *p = '/';
        if (r != 0 && errno != EEXIST) return false;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

enigma_status en_cache_dir(en_buf *dir, en_buf *err) {
    const char *explicit_dir = getenv("ENIGMA_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    dir->len = 0;
    if (explicit_dir && *explicit_dir) en_buf_puts(dir, explicit_dir);
    else if (xdg && *xdg) en_buf_printf(dir, "%s/enigma", xdg);
    else if (home && *home) en_buf_printf(dir, "%s/.cache/enigma", home);
    else {
        en_buf_puts(err, "no cache folder: set ENIGMA_CACHE_DIR, XDG_CACHE_HOME or HOME");
        return ENIGMA_ERROR_IO;
    }
    if (dir->out_of_memory) return ENIGMA_ERROR_OUT_OF_MEMORY;
    while (dir->len > 1 && dir->data[dir->len - 1] == '/') dir->data[--dir->len] = 0;
    if (!make_dirs(dir->data)) {
        en_buf_printf(err, "cannot create the cache folder %s: %s", dir->data, strerror(errno));
        return ENIGMA_ERROR_IO;
    }
    return ENIGMA_OK;
}

void en_cache_entry_path(const char *dir, const char *key, const char *suffix, en_buf *out) {
    out->len = 0;
    en_buf_printf(out, "%s/%s%s", dir, key, suffix);
}

void en_cache_temp_path(const char *dir, const char *suffix, en_buf *out) {
    /* pid + per-process counter + clock make the name unique across processes and threads */
    static atomic_uint counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned n = atomic_fetch_add(&counter, 1);
    out->len = 0;
    en_buf_printf(out, "%s/tmp-%ld-%u-%lx%s", dir, (long)getpid(), n,
                  (unsigned long)ts.tv_nsec, suffix);
}

enigma_status en_cache_publish(const char *temp_path, const char *entry_path, en_buf *err) {
    if (rename(temp_path, entry_path) != 0) {
        en_buf_printf(err, "cannot move %s to %s: %s", temp_path, entry_path, strerror(errno));
        unlink(temp_path);
        return ENIGMA_ERROR_IO;
    }
    return ENIGMA_OK;
}

enigma_status en_cache_write(const char *dir, const char *entry_path, const void *data,
                             size_t n, en_buf *err) {
    en_buf temp = {0};
    en_cache_temp_path(dir, ".part", &temp);
    if (temp.out_of_memory) return ENIGMA_ERROR_OUT_OF_MEMORY;
    int fd = open(temp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        en_buf_printf(err, "cannot write %s: %s", temp.data, strerror(errno));
        en_buf_free(&temp);
        return ENIGMA_ERROR_IO;
    }
    const char *p = data;
    size_t left = n;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            en_buf_printf(err, "cannot write %s: %s", temp.data, strerror(errno));
            close(fd);
            unlink(temp.data);
            en_buf_free(&temp);
            return ENIGMA_ERROR_IO;
        }
        p += w;
        left -= (size_t)w;
    }
    close(fd);
    enigma_status st = en_cache_publish(temp.data, entry_path, err);
    en_buf_free(&temp);
    return st;
}

bool en_cache_read(const char *entry_path, en_buf *out) {
    FILE *f = fopen(entry_path, "rb");
    if (!f) return false;
    char chunk[65536];
    size_t got;
    out->len = 0;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) en_buf_putn(out, chunk, got);
    bool ok = !ferror(f) && !out->out_of_memory;
    fclose(f);
    return ok;
}

enigma_status en_cache_write_alias(const char *dir, const char *key, const char *batch_key, int index,
                                   const char *kernel, en_buf *err) {
    en_buf entry = {0}, text = {0};
    en_cache_entry_path(dir, key, ".alias", &entry);
    en_buf_printf(&text, "%s %d %s\n", batch_key, index, kernel);
    enigma_status st = entry.out_of_memory || text.out_of_memory
                           ? ENIGMA_ERROR_OUT_OF_MEMORY
                           : en_cache_write(dir, entry.data, text.data, text.len, err);
    en_buf_free(&entry);
    en_buf_free(&text);
    return st;
}

bool en_cache_read_alias(const char *dir, const char *key, const char *kernel, char batch_key[65], int *index) {
    en_buf entry = {0}, text = {0};
    en_cache_entry_path(dir, key, ".alias", &entry);
    bool ok = !entry.out_of_memory && en_cache_read(entry.data, &text) && text.len < 4096;
    if (ok) {
        en_buf_putn(&text, "", 1); /* a terminating zero for sscanf */
        char hex[65] = {0};
        int n = -1, name_at = -1;
        ok = !text.out_of_memory && sscanf(text.data, "%64[0-9a-f] %d %n", hex, &n, &name_at) == 2 &&
             strlen(hex) == 64 && n >= 0 && name_at > 0;
        if (ok) { /* the rest of the line is the kernel's name */
            const char *name = text.data + name_at;
            size_t len = strcspn(name, "\n");
            ok = len == strlen(kernel) && strncmp(name, kernel, len) == 0;
        }
        if (ok) {
            memcpy(batch_key, hex, 65);
            *index = n;
        }
    }
    en_buf_free(&entry);
    en_buf_free(&text);
    return ok;
}
