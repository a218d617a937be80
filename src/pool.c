/*
 * pool.c — string interning.
 *
 * Data structure: strings are stored once each (one malloc'd block per string, so that a
 * released name gives its memory back) and identified by a dense id. The lookup table is an
 * open-addressing array of ids with linear probing; deletion uses backward shift, so there are
 * no tombstones and probe sequences stay short.
 *
 * Invariants: the table is at most half full; every live id is in the table exactly once;
 * a released id is in `free_ids` and its `str` is NULL.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static uint32_t hash_bytes(const uint8_t *s, uint32_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (uint32_t i = 0; i < len; i++) {
        h ^= s[i];
        h *= 16777619u;
    }
    return h;
}

static int table_grow(ps_pool *p)
{
    uint32_t size = p->mask ? (p->mask + 1) * 2 : 64;
    int32_t *slots = malloc((size_t)size * sizeof(int32_t));
    if (!slots) return PS_E_NOMEM;
    memset(slots, 0xff, (size_t)size * sizeof(int32_t));
    for (uint32_t i = 0; p->slots && i <= p->mask; i++) {
        int32_t id = p->slots[i];
        if (id < 0) continue;
        uint32_t j = p->hash[id] & (size - 1);
        while (slots[j] >= 0) j = (j + 1) & (size - 1);
        slots[j] = id;
    }
    free(p->slots);
    p->slots = slots;
    p->mask = size - 1;
    return PS_OK;
}

static int ids_grow(ps_pool *p)
{
    uint32_t cap = p->ids_cap ? p->ids_cap * 2 : 64;
    char **str = realloc(p->str, (size_t)cap * sizeof(char *));
    if (!str) return PS_E_NOMEM;
    p->str = str;
    uint32_t *len = realloc(p->len, (size_t)cap * sizeof(uint32_t));
    if (!len) return PS_E_NOMEM;
    p->len = len;
    uint32_t *hash = realloc(p->hash, (size_t)cap * sizeof(uint32_t));
    if (!hash) return PS_E_NOMEM;
    p->hash = hash;
    p->ids_cap = cap;
    return PS_OK;
}

int32_t ps__pool_find(const ps_pool *p, const uint8_t *s, uint32_t len)
{
    if (!p->mask) return -1;
    uint32_t h = hash_bytes(s, len);
    for (uint32_t i = h & p->mask;; i = (i + 1) & p->mask) {
        int32_t id = p->slots[i];
        if (id < 0) return -1;
        if (p->hash[id] == h && p->len[id] == len && memcmp(p->str[id], s, len) == 0) return id;
    }
}

int32_t ps__pool_intern(ps_pool *p, const uint8_t *s, uint32_t len)
{
    if ((p->live + 1) * 2 > (p->mask ? p->mask + 1 : 0) && table_grow(p) != PS_OK) return PS_E_NOMEM;
    uint32_t h = hash_bytes(s, len);
    uint32_t i = h & p->mask;
    for (;; i = (i + 1) & p->mask) {
        int32_t id = p->slots[i];
        if (id < 0) break;
        if (p->hash[id] == h && p->len[id] == len && memcmp(p->str[id], s, len) == 0) return id;
    }
    char *copy = malloc(len ? len : 1);
    if (!copy) return PS_E_NOMEM;
    memcpy(copy, s, len);
    uint32_t id;
    if (p->free_ids.len) {
        id = p->free_ids.v[--p->free_ids.len];
    } else {
        if (p->ids == p->ids_cap && ids_grow(p) != PS_OK) {
            free(copy);
            return PS_E_NOMEM;
        }
        id = p->ids++;
    }
    p->str[id] = copy;
    p->len[id] = len;
    p->hash[id] = h;
    p->slots[i] = (int32_t)id;
    p->live++;
    p->bytes += len;
    return (int32_t)id;
}

void ps__pool_release(ps_pool *p, uint32_t id)
{
    if (id >= p->ids || !p->str[id]) return;
    uint32_t i = p->hash[id] & p->mask;
    while (p->slots[i] != (int32_t)id) i = (i + 1) & p->mask;
    /* Backward-shift deletion: move later members of the probe run into the hole. */
    uint32_t hole = i;
    for (uint32_t j = (i + 1) & p->mask; p->slots[j] >= 0; j = (j + 1) & p->mask) {
        uint32_t home = p->hash[p->slots[j]] & p->mask;
        /* j may fill the hole if its home is not cyclically in (hole, j]. */
        int movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            p->slots[hole] = p->slots[j];
            hole = j;
        }
    }
    p->slots[hole] = -1;
    p->bytes -= p->len[id];
    free(p->str[id]);
    p->str[id] = 0;
    p->live--;
    if (ps__vec_push(&p->free_ids, id) != PS_OK) {
        /* Out of memory for the free list: the id is simply not reused. */
    }
}

size_t ps__pool_bytes(const ps_pool *p)
{
    return p->bytes + (size_t)p->ids_cap * (sizeof(char *) + 8) +
           (p->mask ? (size_t)(p->mask + 1) * sizeof(int32_t) : 0) + p->free_ids.cap * 4u;
}
