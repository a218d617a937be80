/*
 * vec.c — growable u32 vectors (slot lists and id lists). Growth doubles; a vector owns its
 * array and is freed with ps__vec_free.
 */
#include <stdlib.h>
#include "internal.h"

int ps__vec_reserve(ps_vec *a, uint32_t n)
{
    if (n <= a->cap) return PS_OK;
    uint32_t cap = a->cap ? a->cap : 4;
    while (cap < n) {
        if (cap > UINT32_MAX / 8) return PS_E_NOMEM;
        cap *= 2;
    }
    uint32_t *p = realloc(a->v, (size_t)cap * sizeof(uint32_t));
    if (!p) return PS_E_NOMEM;
    a->v = p;
    a->cap = cap;
    return PS_OK;
}

int ps__vec_push(ps_vec *a, uint32_t x)
{
    if (a->len == a->cap && ps__vec_reserve(a, a->len + 1) != PS_OK) return PS_E_NOMEM;
    a->v[a->len++] = x;
    return PS_OK;
}

void ps__vec_free(ps_vec *a)
{
    free(a->v);
    a->v = 0;
    a->len = a->cap = 0;
}
