/*
 * exchange.c — the buffers that carry data across the WebAssembly boundary.
 *
 * Two growable buffers with one lifetime each (the whole module):
 *   - `in`:  bytes written by the shim (UTF-8 strings) before a call that reads them;
 *   - `res`: u32 results (entry slots, ids) written by a query, read by the shim after it.
 * Both may be reallocated when they grow, so the shim re-derives its typed-array views after
 * any call that may allocate. `out` is a fixed block of f64 registers for multi-value returns.
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
    if (bytes > in_cap) {
        uint32_t cap = grow_cap(in_cap, bytes);
        uint8_t *p = realloc(in_buf, cap);
        if (!p) return 0;
        in_buf = p;
        in_cap = cap;
    }
    return in_buf ? in_buf : ps_exchange_reserve(1);
}

const uint8_t *ps__exchange_bytes(void) { return in_buf; }

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
