/*
 * internal.h — helpers shared between the core's C files; not part of the ABI.
 */
#ifndef PERFSHIM_INTERNAL_H
#define PERFSHIM_INTERNAL_H

#include "perfshim.h"

/* Invariant checks: compiled in for the debug build (-DPS_DEBUG) and the native tests, where a
 * broken invariant traps (a RuntimeError in JS, an abort natively); free in release builds. */
#if defined(PS_DEBUG)
#define PS_ASSERT(cond) do { if (!(cond)) __builtin_trap(); } while (0)
#else
#define PS_ASSERT(cond) ((void)0)
#endif

/* The bytes last written into the exchange buffer (valid until the next reserve). */
const uint8_t *ps__exchange_bytes(void);
/* The same, for a call that reads `bytes` bytes of it (an extent computed from its arguments in
 * 64 bits): 0 when the buffer holds fewer, so the caller refuses the call (PS_E_ARG). */
const uint8_t *ps__exchange_read(uint64_t bytes);
/* Room for `count` u32 results in the result buffer (0 on allocation failure). */
uint32_t *ps__result_reserve(uint32_t count);
/* Hand the shim a blob of `len` bytes (replacing and releasing the previous one). `owned`: the
 * blob was malloc'd and ps_blob_release frees it; otherwise it is borrowed from its producer. */
void ps__blob_set(const uint8_t *ptr, uint32_t len, int owned);

/* A growable u32 vector. */
typedef struct {
    uint32_t *v;
    uint32_t len, cap;
} ps_vec;
int ps__vec_push(ps_vec *a, uint32_t x);
int ps__vec_reserve(ps_vec *a, uint32_t n);
void ps__vec_free(ps_vec *a);

/* String pool with interning: open addressing (linear probing, backward-shift deletion).
 * Ids are dense small integers reused after release. */
typedef struct {
    char **str;        /* id -> bytes (malloc'd, not NUL-terminated) */
    uint32_t *len;     /* id -> byte length */
    uint32_t *hash;    /* id -> hash */
    uint32_t ids;      /* ids handed out so far (high-water mark) */
    uint32_t ids_cap;
    ps_vec free_ids;   /* released ids, reused first */
    int32_t *slots;    /* table: id or -1 */
    uint32_t mask;     /* table size - 1 */
    uint32_t live;     /* interned strings */
    size_t bytes;      /* bytes of string data */
} ps_pool;

int32_t ps__pool_intern(ps_pool *p, const uint8_t *s, uint32_t len);
/* The id of an interned string, or -1 (nothing is added). */
int32_t ps__pool_find(const ps_pool *p, const uint8_t *s, uint32_t len);
void ps__pool_release(ps_pool *p, uint32_t id);
size_t ps__pool_bytes(const ps_pool *p);

/* Timeline internals used by usertiming.c. */
int32_t ps__timeline_last_mark(uint32_t name_id);  /* slot or -1 */
double ps__timeline_start(uint32_t slot);
/* For the C tests and fuzz targets only (not exported): a buffered entry's type, with its start
 * time in out[0] and duration in out[1] (PS_E_NOT_FOUND for a free or cleared slot); the
 * buffered entries of a type; the bytes the timeline holds (entries, spares, indexes, names). */
int32_t ps__timeline_entry(uint32_t slot);
uint32_t ps__timeline_count(uint32_t type);
double ps__timeline_bytes(void);

#endif
