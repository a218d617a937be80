/*
 * timeline.c — the performance entry buffer for the entry types the core owns (mark, measure).
 *
 * Data structure:
 *   - Entries live in chunked columns (start, duration, sequence, name id, type), CHUNK entries
 *     a chunk, so growth never copies existing entries. A slot is an index into the columns.
 *     Freed slots go on a free list and are reused.
 *   - Per type: a list of slots sorted by (startTime, sequence), i.e. the spec's "chronological
 *     order with respect to startTime", ties in insertion order. Clearing one name marks its
 *     slots dead in place (type DEAD) and the type list is compacted lazily, so clearMarks(name)
 *     costs O(entries removed), not O(buffer).
 *   - Per name: for each type, a list of that name's slots in the same order; the tail of the
 *     mark list is the mark "convert a mark to a timestamp" uses.
 *
 * Invariants: a live slot is in exactly one type list and one name list; a dead slot is in one
 * type list only, and is freed when that list is compacted; per-name lists never hold dead
 * slots. Sequence numbers increase strictly with every add.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define CHUNK_BITS 12
#define CHUNK (1u << CHUNK_BITS)
#define TYPE_DEAD 0xffu
#define TYPE_FREE 0xfeu

typedef struct {
    double start[CHUNK];
    double dur[CHUNK];
    uint32_t seq[CHUNK];  /* wraps after 2^32 adds: only ties across types would misorder */
    uint32_t name[CHUNK];
    uint8_t type[CHUNK];
} chunk;

typedef struct {
    ps_vec list;      /* sorted slots, possibly with dead ones */
    uint32_t dead;    /* dead slots in list */
    uint32_t limit;   /* 0 = unbounded */
    double dropped;   /* entries not buffered because the list was full */
} type_buf;

typedef struct {
    ps_vec by_type[PS_TYPE_COUNT];
} name_rec;

static chunk **chunks;
static uint32_t n_chunks, chunks_cap;
static uint32_t high_water;      /* slots ever handed out */
static ps_vec free_slots;
static uint32_t next_seq;
static type_buf types[PS_TYPE_COUNT];
static ps_pool names;
static name_rec *recs;
static uint32_t recs_cap;

#define AT(slot) (chunks[(slot) >> CHUNK_BITS])
#define IX(slot) ((slot) & (CHUNK - 1))

double ps__timeline_start(uint32_t slot) { return AT(slot)->start[IX(slot)]; }
uint32_t ps__timeline_name_count(void) { return names.live; }

/* The mark a name converts to (User Timing §convert a mark to a timestamp: "the most recent
 * occurrence ... in the performance entry buffer"): the tail of the name's mark list, i.e. the
 * latest startTime, ties to the later one added. Chromium and Firefox both read it this way
 * (their buffers are kept in startTime order). */
int32_t ps__timeline_last_mark(uint32_t name_id)
{
    if (name_id >= recs_cap) return -1;
    const ps_vec *v = &recs[name_id].by_type[PS_TYPE_MARK];
    return v->len ? (int32_t)v->v[v->len - 1] : -1;
}

/* True when slot a comes strictly before slot b in timeline order. */
static int before(uint32_t a, uint32_t b)
{
    double sa = AT(a)->start[IX(a)], sb = AT(b)->start[IX(b)];
    if (sa != sb) return sa < sb;
    return AT(a)->seq[IX(a)] < AT(b)->seq[IX(b)];
}

static int recs_fit(uint32_t id)
{
    if (id < recs_cap) return PS_OK;
    uint32_t cap = recs_cap ? recs_cap : 64;
    while (cap <= id) cap *= 2;
    name_rec *r = realloc(recs, (size_t)cap * sizeof(name_rec));
    if (!r) return PS_E_NOMEM;
    memset(r + recs_cap, 0, (size_t)(cap - recs_cap) * sizeof(name_rec));
    recs = r;
    recs_cap = cap;
    return PS_OK;
}

PS_API int32_t ps_timeline_intern(uint32_t len)
{
    int32_t id = ps__pool_intern(&names, ps__exchange_bytes(), len);
    if (id < 0) return id;
    if (recs_fit((uint32_t)id) != PS_OK) return PS_E_NOMEM;
    return id;
}

static int64_t slot_alloc(void)
{
    if (free_slots.len) return free_slots.v[--free_slots.len];
    if ((high_water >> CHUNK_BITS) >= n_chunks) {
        if (n_chunks == chunks_cap) {
            uint32_t cap = chunks_cap ? chunks_cap * 2 : 16;
            chunk **c = realloc(chunks, (size_t)cap * sizeof(chunk *));
            if (!c) return PS_E_NOMEM;
            chunks = c;
            chunks_cap = cap;
        }
        chunk *c = malloc(sizeof(chunk));
        if (!c) return PS_E_NOMEM;
        chunks[n_chunks++] = c;
    }
    if (high_water == UINT32_MAX) return PS_E_NOMEM;
    return high_water++;
}

static void slot_free(uint32_t slot)
{
    AT(slot)->type[IX(slot)] = TYPE_FREE;
    if (ps__vec_push(&free_slots, slot) != PS_OK) {
        /* No room to remember it: the slot is leaked rather than corrupting anything. */
    }
}

/* Insert a freshly added slot (largest sequence so far) keeping the list sorted. */
static int insert_sorted(ps_vec *v, uint32_t slot)
{
    if (ps__vec_reserve(v, v->len + 1) != PS_OK) return PS_E_NOMEM;
    double s = AT(slot)->start[IX(slot)];
    uint32_t pos = v->len;
    if (pos && AT(v->v[pos - 1])->start[IX(v->v[pos - 1])] > s) {
        uint32_t lo = 0, hi = pos; /* first index whose start > s */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (AT(v->v[mid])->start[IX(v->v[mid])] > s) hi = mid; else lo = mid + 1;
        }
        pos = lo;
        memmove(v->v + pos + 1, v->v + pos, (size_t)(v->len - pos) * sizeof(uint32_t));
    }
    v->v[pos] = slot;
    v->len++;
    PS_ASSERT(pos == 0 || !before(slot, v->v[pos - 1]));
    PS_ASSERT(pos + 1 == v->len || before(slot, v->v[pos + 1]));
    return PS_OK;
}

/* Drop dead slots from a type list and free them. */
static void compact(type_buf *t)
{
    if (!t->dead) return;
    uint32_t w = 0;
    for (uint32_t r = 0; r < t->list.len; r++) {
        uint32_t slot = t->list.v[r];
        if (AT(slot)->type[IX(slot)] == TYPE_DEAD) slot_free(slot);
        else t->list.v[w++] = slot;
    }
    t->list.len = w;
    t->dead = 0;
    for (uint32_t i = 1; i < w; i++) PS_ASSERT(before(t->list.v[i - 1], t->list.v[i]));
}

PS_API int32_t ps_timeline_add(uint32_t type, uint32_t name_id, double start, double duration)
{
    if (type >= PS_TYPE_COUNT || name_id >= names.ids || !names.str[name_id]) return PS_E_ARG;
    type_buf *t = &types[type];
    if (t->limit && t->list.len - t->dead >= t->limit) {
        t->dropped += 1;  /* "determine if a performance entry buffer is full" */
        return PS_E_LIMIT;
    }
    name_rec *r = &recs[name_id];
    if (ps__vec_reserve(&t->list, t->list.len + 1) != PS_OK ||
        ps__vec_reserve(&r->by_type[type], r->by_type[type].len + 1) != PS_OK)
        return PS_E_NOMEM;
    int64_t got = slot_alloc();
    if (got < 0) return (int32_t)got;
    uint32_t slot = (uint32_t)got;
    PS_ASSERT(slot >= high_water - 1 || AT(slot)->type[IX(slot)] == TYPE_FREE);
    chunk *c = AT(slot);
    c->start[IX(slot)] = start;
    c->dur[IX(slot)] = duration;
    c->seq[IX(slot)] = next_seq++;
    c->name[IX(slot)] = name_id;
    c->type[IX(slot)] = (uint8_t)type;
    insert_sorted(&t->list, slot);          /* capacity reserved above: cannot fail */
    insert_sorted(&r->by_type[type], slot);
    if (t->dead > 1024 && t->dead > t->list.len / 2) compact(t);
    return (int32_t)slot;
}

/* Merge two sorted slot lists into the result buffer; dead slots are skipped. */
static int32_t merge_out(const ps_vec *a, const ps_vec *b)
{
    uint32_t n = a->len + b->len;
    uint32_t *out = ps__result_reserve(n ? n : 1);
    if (!out) return PS_E_NOMEM;
    uint32_t i = 0, j = 0, k = 0;
    while (i < a->len || j < b->len) {
        uint32_t s;
        if (j == b->len || (i < a->len && before(a->v[i], b->v[j]))) s = a->v[i++];
        else s = b->v[j++];
        if (AT(s)->type[IX(s)] != TYPE_DEAD) out[k++] = s;
    }
    return (int32_t)k;
}

/* Performance Timeline §filter buffer map by name and type (for the types owned here). */
PS_API int32_t ps_timeline_query(int32_t type, int32_t name_id)
{
    static const ps_vec empty;
    if (type >= PS_TYPE_COUNT || type < -1) return PS_E_ARG;
    if (name_id >= 0) {
        if ((uint32_t)name_id >= recs_cap || (uint32_t)name_id >= names.ids || !names.str[name_id])
            return 0;
        name_rec *r = &recs[name_id];
        if (type >= 0) return merge_out(&r->by_type[type], &empty);
        return merge_out(&r->by_type[PS_TYPE_MARK], &r->by_type[PS_TYPE_MEASURE]);
    }
    for (int i = 0; i < PS_TYPE_COUNT; i++) compact(&types[i]);
    if (type >= 0) return merge_out(&types[type].list, &empty);
    return merge_out(&types[PS_TYPE_MARK].list, &types[PS_TYPE_MEASURE].list);
}

PS_API int32_t ps_timeline_clear(uint32_t type, int32_t name_id)
{
    if (type >= PS_TYPE_COUNT) return PS_E_ARG;
    type_buf *t = &types[type];
    if (name_id >= 0) {
        if ((uint32_t)name_id >= recs_cap || (uint32_t)name_id >= names.ids || !names.str[name_id])
            return 0;
        ps_vec *v = &recs[name_id].by_type[type];
        uint32_t n = v->len;
        uint32_t *out = ps__result_reserve(n ? n : 1);
        if (!out) return PS_E_NOMEM;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s = v->v[i];
            out[i] = s;
            AT(s)->type[IX(s)] = TYPE_DEAD;
        }
        t->dead += n;
        v->len = 0;
        if (v->cap > 64) ps__vec_free(v);
        if (t->dead > 1024 && t->dead > t->list.len / 2) compact(t);
        return (int32_t)n;
    }
    uint32_t *out = ps__result_reserve(t->list.len ? t->list.len : 1);
    if (!out) return PS_E_NOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->list.len; i++) {
        uint32_t s = t->list.v[i];
        if (AT(s)->type[IX(s)] != TYPE_DEAD) out[k++] = s;
        slot_free(s);
    }
    t->list.len = 0;
    t->dead = 0;
    if (t->list.cap > 4096) ps__vec_free(&t->list);
    for (uint32_t id = 0; id < names.ids && id < recs_cap; id++) {
        ps_vec *v = &recs[id].by_type[type];
        v->len = 0;
        if (v->cap > 64) ps__vec_free(v);
    }
    return (int32_t)k;
}

PS_API int32_t ps_timeline_entry(uint32_t slot)
{
    if (slot >= high_water) return PS_E_NOT_FOUND;
    chunk *c = AT(slot);
    uint8_t type = c->type[IX(slot)];
    if (type >= PS_TYPE_COUNT) return PS_E_NOT_FOUND;
    double *out = ps_out_ptr();
    out[0] = c->start[IX(slot)];
    out[1] = c->dur[IX(slot)];
    out[2] = c->name[IX(slot)];
    return type;
}

PS_API uint32_t ps_timeline_count(uint32_t type)
{
    return type < PS_TYPE_COUNT ? types[type].list.len - types[type].dead : 0;
}

PS_API double ps_timeline_dropped(uint32_t type)
{
    return type < PS_TYPE_COUNT ? types[type].dropped : 0;
}

PS_API int32_t ps_timeline_set_limit(uint32_t type, uint32_t max_entries)
{
    if (type >= PS_TYPE_COUNT) return PS_E_ARG;
    types[type].limit = max_entries;
    return PS_OK;
}

PS_API int32_t ps_timeline_release_names(void)
{
    uint32_t *out = ps__result_reserve(names.ids ? names.ids : 1);
    if (!out) return PS_E_NOMEM;
    uint32_t k = 0;
    for (uint32_t id = 0; id < names.ids; id++) {
        if (!names.str[id]) continue;
        name_rec *r = &recs[id];
        int used = 0;
        for (int t = 0; t < PS_TYPE_COUNT; t++) used |= r->by_type[t].len != 0;
        if (used) continue;
        for (int t = 0; t < PS_TYPE_COUNT; t++) ps__vec_free(&r->by_type[t]);
        ps__pool_release(&names, id);
        out[k++] = id;
    }
    return (int32_t)k;
}

PS_API double ps_timeline_bytes(void)
{
    double b = (double)n_chunks * sizeof(chunk) + (double)chunks_cap * sizeof(chunk *) +
               (double)free_slots.cap * 4 + (double)recs_cap * sizeof(name_rec) +
               (double)ps__pool_bytes(&names);
    for (int t = 0; t < PS_TYPE_COUNT; t++) b += (double)types[t].list.cap * 4;
    for (uint32_t id = 0; id < names.ids && id < recs_cap; id++)
        for (int t = 0; t < PS_TYPE_COUNT; t++) b += (double)recs[id].by_type[t].cap * 4;
    return b;
}
