/* cache.h — the content-addressed on-disk cache of compiled code, shared by the backends.
 *
 * Entries are named by a hex key (a cryptographic hash of everything that determines the
 * bytes: BLAKE2b for the CPU's .so, SHA-256 for NVRTC's cubins) and a
 * suffix (".so", ".cubin"). They are written to a unique temporary file in the same
 * folder and renamed into place, so a reader never sees half an entry and concurrent
 * processes may fill the same cache. A reader must still verify what it loads (a foreign
 * or corrupt entry is rebuilt, never trusted): the cache gives no integrity guarantee. */
#ifndef ENIGMA_CACHE_H
#define ENIGMA_CACHE_H

#include "../../include/enigma.h"
#include "base.h"

/* The cache folder: $ENIGMA_CACHE_DIR, else $XDG_CACHE_HOME/enigma, else
 * $HOME/.cache/enigma; created (with parents) if missing. */
EN_INTERNAL enigma_status en_cache_dir(en_buf *dir, en_buf *err);
/* dir/key+suffix */
EN_INTERNAL void en_cache_entry_path(const char *dir, const char *key, const char *suffix,
                                     en_buf *out);
/* a fresh name in dir for a temporary file that will be renamed into place */
EN_INTERNAL void en_cache_temp_path(const char *dir, const char *suffix, en_buf *out);
/* atomically moves a finished temporary file to its entry path (rename(2)) */
EN_INTERNAL enigma_status en_cache_publish(const char *temp_path, const char *entry_path,
                                           en_buf *err);
/* writes bytes as an entry: temporary file, then rename */
EN_INTERNAL enigma_status en_cache_write(const char *dir, const char *entry_path,
                                         const void *data, size_t n, en_buf *err);
/* reads a whole entry; false if it is missing or unreadable */
EN_INTERNAL bool en_cache_read(const char *entry_path, en_buf *out);

/* Aliases. A kernel built as one of a batch (several kernels in one program, as
 * `enigma compile` builds a library) has no entry of its own, yet a host that later makes
 * that kernel's pipeline builds it alone, under the key of its code alone. An alias entry,
 * `KEY.alias`, names the batch entry that holds the kernel, its index there and its name,
 * so that build finds it. The cpu backend also aliases the key of a compile's inputs (jit.c
 * input_key) to the entry built from them, naming its first kernel. Like any entry an
 * alias is only a hint: the entry it names is verified as usual, and an alias naming
 * another kernel is not followed. */
EN_INTERNAL enigma_status en_cache_write_alias(const char *dir, const char *key, const char *batch_key,
                                               int index, const char *kernel, en_buf *err);
/* the alias of key for the kernel named `kernel`: batch_key (64 hex digits) and the
 * kernel's index; false when there is none, it is malformed or names another kernel */
EN_INTERNAL bool en_cache_read_alias(const char *dir, const char *key, const char *kernel, char batch_key[65],
                                     int *index);

#endif
