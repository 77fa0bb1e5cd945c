/* cache_entries.h — what the cache tests count: the entries of a cache folder by suffix. */
#ifndef ENIGMA_TEST_CACHE_ENTRIES_H
#define ENIGMA_TEST_CACHE_ENTRIES_H

#include <dirent.h>
#include <string.h>

/* the files of folder `dir` whose names end in `suffix` (".so", ".alias") */
static inline int cache_entries(const char *dir, const char *suffix) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name), sl = strlen(suffix);
        n += len > sl && strcmp(e->d_name + len - sl, suffix) == 0;
    }
    if (d) closedir(d);
    return n;
}

#endif
