/*
 * exchange.c — the buffers that carry data across the WebAssembly boundary.
 *
 * This is the C half of the one io layer (glue/io.js is the JS half). Every crossing is one of:
 *   - `in`:   bytes written by the shim before a call that reads them: strings as WTF-8 (UTF-8
 *             that keeps lone surrogates as their 3-byte form, so every JS string round-trips),
 *             u32/i32/f64 arrays, JSON. Growable, one lifetime (the module).
 *   - `res`:  u32 results (entry slots, ids, string lengths) written by a call, read after it.
 *   - `out`:  a fixed block of eight f64 registers for calls that return several numbers.
 *   - `blob`: one byte blob out (a JSON document, concatenated strings) as {ptr, len}, set by
 *             the call that produced it and held until ps_blob_release (or the next blob):
 *             owned blobs are freed then, borrowed ones (a trace's string scratch) forgotten.
 * `in` and `res` may be reallocated when they grow and memory may grow under any call, so the
 * shim re-derives its typed-array views after any call that may allocate. Costs: amortised
 * O(1) per byte reserved; a blob is handed over without a copy.
 * Bounds: `in` never holds more than PS_EXCHANGE_MAX bytes, and a call that reads it asks
 * ps__exchange_read for the whole extent it computed from its counts (in 64 bits), so counts
 * that do not match what the shim reserved are refused instead of read past the buffer.
 */
#include <stdlib.h>
#include "internal.h"

static uint8_t *in_buf;
static uint32_t in_cap;
static uint32_t *res_buf;
static uint32_t res_cap;
static double out_regs[8];

static uint32_t grow_cap(uint32_t cap, uint32_t need)
{
    uint32_t c = cap ? cap : 256;
    while (c < need) {
        if (c > UINT32_MAX / 2) return need;
        c *= 2;
    }
    return c;
}

PS_API uint8_t *ps_exchange_reserve(uint32_t bytes)
{
    if (bytes > PS_EXCHANGE_MAX) return 0;
    if (bytes > in_cap) {
        uint32_t cap = grow_cap(in_cap, bytes);
        if (cap > PS_EXCHANGE_MAX) cap = PS_EXCHANGE_MAX;
        uint8_t *p = realloc(in_buf, cap);
        if (!p) return 0;
        in_buf = p;
        in_cap = cap;
    }
    return in_buf ? in_buf : ps_exchange_reserve(1);
}

const uint8_t *ps__exchange_bytes(void) { return in_buf; }

const uint8_t *ps__exchange_read(uint64_t bytes)
{
    if (bytes > in_cap) return 0;
    return in_buf ? in_buf : (const uint8_t *)"";
}

uint32_t *ps__result_reserve(uint32_t count)
{
    if (count > res_cap) {
        uint32_t cap = grow_cap(res_cap, count);
        if (cap > UINT32_MAX / sizeof(uint32_t)) return 0;
        uint32_t *p = realloc(res_buf, (size_t)cap * sizeof(uint32_t));
        if (!p) return 0;
        res_buf = p;
        res_cap = cap;
    }
    return res_buf ? res_buf : ps__result_reserve(1);
}

PS_API uint32_t *ps_result_ptr(void) { return res_buf; }

PS_API double *ps_out_ptr(void) { return out_regs; }

static const uint8_t *blob_ptr;
static uint32_t blob_len;
static int blob_owned;

PS_API void ps_blob_release(void)
{
    if (blob_owned) free((void *)blob_ptr);
    blob_ptr = 0;
    blob_len = 0;
    blob_owned = 0;
}

void ps__blob_set(const uint8_t *ptr, uint32_t len, int owned)
{
    if (ptr != blob_ptr) ps_blob_release();
    blob_ptr = ptr;
    blob_len = len;
    blob_owned = owned;
}

PS_API const uint8_t *ps_blob_ptr(void) { return blob_ptr; }

PS_API uint32_t ps_blob_len(void) { return blob_len; }
