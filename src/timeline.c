/*
 * timeline.c — the performance entry buffer for the entry types the core owns (mark, measure).
 *
 * Data structure (one set per entry type):
 *   - Entries live in chunked columns (start, sequence, state; a duration column for measures
 *     only: a mark's is 0), CHUNK entries a chunk, so growth never
 *     copies existing entries. A slot is (index << 1 | type): each type has its own chunks.
 *     Indexes are handed out from a high-water mark over the type's chunks; freed indexes go on
 *     a free list, reused first.
 *   - The type list: every slot of the type, a sorted prefix [0, sorted) in (startTime, sequence)
 *     order — the spec's "chronological order with respect to startTime", ties in insertion
 *     order — then an unsorted tail of later adds. An add that keeps the order extends the
 *     prefix; any other add appends to the tail. A query that needs order first sorts the tail
 *     and merges it into the prefix (`normalize`), so insertion in any order is amortised O(1)
 *     and each entry is sorted once per merge it takes part in.
 *   - Per name and type: a record with that name's slots, contiguous (one slot inline, so a
 *     name used once, such as a request id, allocates nothing), in insertion order with an
 *     "unsorted" bit; a query that finds them unsorted sorts them in place, once. Arrays that
 *     grew past BIG slots are listed (`big`) as they grow. The latest
 *     mark (max startTime, ties to the later added) is kept as entries are added: "convert a mark
 *     to a timestamp" is O(1).
 *   - Names: the shim keeps each string once (its name -> id map); the core hands out dense ids
 *     (released ones reused first) and keeps a byte per id. Records per name and type are
 *     arrays indexed by id.
 *   - Clearing one name marks its slots dead in place (state DEAD) and the type list is
 *     compacted lazily, so clearMarks(name) costs O(entries removed); removing one entry
 *     (ps_timeline_remove) does the same for its slot, plus O(entries of its name).
 *   - Clearing a whole type touches no entry, no chunk and no name: it resets the high-water
 *     mark to 0 (the type's chunks become spares, reused in order by the next adds), frees the
 *     type list and free list (one block each), bumps the type's epoch (per-name records of an
 *     older epoch read as empty) and swaps the `big` list into `retired`. Later adds give the
 *     memory back a bounded amount at a time (`trim`): one retired big array per add, one spare
 *     chunk per CHUNK adds (from the highest index down, so a refill and the trimming meet
 *     halfway); one spare chunk per type is kept. A retired record that its name refilled first
 *     keeps its array (it is listed in `big` again).
 *
 * Invariants (checked in debug builds): a live slot is in its type list exactly once and in its
 * name's record; a dead slot is in the type list only and is freed when the list is compacted;
 * name records never hold dead slots; the prefix [0, sorted) is in timeline order; sequence numbers
 * increase strictly with every add; chunks [0, ceil(high_water / CHUNK)) hold the type's slots,
 * the rest up to n_chunks are spares; a current record with `in_big` is in `big`, a stale one
 * with `in_big` in `retired` (or in `big`, when its name refilled it after the clear).
 *
 * Costs: add O(1) amortised (plus a chunk allocation every CHUNK entries unless a spare is
 * reused, plus at most one free of a retired array and one of a spare chunk); query by type
 * O(n + k log k) for k entries added out of order since the last query, else O(n); query by
 * name O(entries of the name), a copy (+ a sort the first time after out-of-order adds); clear
 * by name O(removed); clear of a type O(1) (O(retired) when a second clear comes before the
 * adds trimmed the first one's retired arrays); the latest mark O(1).
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define CHUNK_BITS 12
#define CHUNK (1u << CHUNK_BITS)
enum { LIVE = 0, DEAD = 1, FREE = 2 };

typedef struct {
    double start[CHUNK];
    uint32_t seq[CHUNK];  /* wraps after 2^32 adds: only ties across types would misorder */
#if defined(PS_DEBUG)
    uint32_t name[CHUNK]; /* debug builds only, to check name records (the shim keeps names) */
#endif
    uint8_t state[CHUNK];
    double dur[];         /* measures only */
} chunk;

typedef struct {
    union {
        uint32_t *v;      /* the slots when cap_step > 0 (kept across clears for reuse) */
        uint32_t one;     /* cap_step == 0: at most one slot, inline */
    };
    uint32_t len;
    uint32_t last_mark;   /* the latest of the slots (marks: the one a name converts to) */
    uint32_t epoch : 24;  /* the record is empty unless this is its type's epoch */
    uint32_t unsorted : 1; /* the slots are not in timeline order */
    uint32_t in_big : 1;  /* the id is in its type's `big` list */
    uint32_t cap_step : 6; /* room for rec_cap(cap_step) slots in v; 0: no array */
} name_rec;               /* a name used once (a request id) costs this much per type */
#if defined(__wasm32__)
_Static_assert(sizeof(name_rec) == 16, "a name record is 16 bytes in wasm32");
#endif

#define EPOCH_MASK 0xffffffu
#define BIG 64            /* arrays past this many slots are given back after a clear of the type */

typedef struct {
    chunk **chunks;
    uint32_t n_chunks, chunks_cap;  /* chunks allocated: in use, then spares */
    uint32_t high_water;  /* indexes handed out since the last clear of the type */
    ps_vec free_idx;
    ps_vec list;          /* [0, sorted) in timeline order, then the unsorted tail */
    uint32_t sorted;
    uint32_t dead;        /* dead slots in list */
    uint32_t limit;       /* 0 = unbounded */
    double dropped;       /* entries not buffered because the list was full */
    uint32_t epoch;       /* bumped by a clear of the whole type */
    name_rec *recs;       /* name id -> this type's record */
    ps_vec big;           /* ids whose array grew past BIG since the last clear of the type */
    ps_vec retired;       /* `big` of an older epoch: arrays to give back, one per add */
    uint32_t recs_cap;
} type_buf;

static type_buf types[PS_TYPE_COUNT] = { { .epoch = 1 }, { .epoch = 1 } };
static uint32_t next_seq;
/* Entry names: the shim keeps the strings (one copy, its name -> id map); the core hands out
 * dense ids, reused after release, and keeps one byte per id. */
static uint8_t *name_used;   /* id -> 1 while handed out */
static uint32_t names_hw, names_cap;
static ps_vec free_names;
static ps_vec scratch;    /* sort and merge space for queries */

#define TYPE(slot) ((slot) & 1u)
#define AT(slot) (types[TYPE(slot)].chunks[(slot) >> (CHUNK_BITS + 1)])
#define IX(slot) (((slot) >> 1) & (CHUNK - 1))

double ps__timeline_start(uint32_t slot) { return AT(slot)->start[IX(slot)]; }

static int name_live(int32_t id) { return id >= 0 && (uint32_t)id < names_hw && name_used[id]; }

/* The record of a name for a type, or NULL when the name has no entries of that type. */
static name_rec *rec_of(uint32_t type, uint32_t name_id)
{
    type_buf *t = &types[type];
    if (name_id >= t->recs_cap) return 0;
    name_rec *r = &t->recs[name_id];
    return r->epoch == (t->epoch & EPOCH_MASK) && r->len ? r : 0;
}

/* True when slot a comes strictly before slot b in timeline order. */
static int before(uint32_t a, uint32_t b)
{
    double sa = AT(a)->start[IX(a)], sb = AT(b)->start[IX(b)];
    if (sa != sb) return sa < sb;
    return AT(a)->seq[IX(a)] < AT(b)->seq[IX(b)];
}

/* The mark a name converts to (User Timing §convert a mark to a timestamp: "the most recent
 * occurrence ... in the performance entry buffer"): the latest startTime, ties to the later one
 * added. Chromium and Firefox both read it this way (their buffers are kept in startTime
 * order). */
int32_t ps__timeline_last_mark(uint32_t name_id)
{
    name_rec *r = rec_of(PS_TYPE_MARK, name_id);
    return r ? (int32_t)r->last_mark : -1;
}

PS_API int32_t ps_timeline_name_new(void)
{
    uint32_t id;
    if (free_names.len) {
        id = free_names.v[--free_names.len];
    } else {
        if (names_hw == 1u << 30) return PS_E_NOMEM;
        if (names_hw == names_cap) {
            uint32_t cap = names_cap ? names_cap * 2 : 256;
            uint8_t *u = realloc(name_used, cap);
            if (!u) return PS_E_NOMEM;
            name_used = u;
            names_cap = cap;
        }
        id = names_hw++;
    }
    name_used[id] = 1;
    return (int32_t)id;
}

static int recs_fit(type_buf *t, uint32_t id)
{
    if (id < t->recs_cap) return PS_OK;
    uint32_t cap = t->recs_cap ? t->recs_cap : 64;
    while (cap <= id) cap *= 2;
    name_rec *r = realloc(t->recs, (size_t)cap * sizeof(name_rec));
    if (!r) return PS_E_NOMEM;
    memset(r + t->recs_cap, 0, (size_t)(cap - t->recs_cap) * sizeof(name_rec));
    t->recs = r;
    t->recs_cap = cap;
    return PS_OK;
}

static size_t chunk_size(uint32_t type)
{
    return sizeof(chunk) + (type == PS_TYPE_MEASURE ? CHUNK * sizeof(double) : 0);
}

static int64_t slot_alloc(uint32_t type)
{
    type_buf *t = &types[type];
    if (t->free_idx.len) return (int64_t)t->free_idx.v[--t->free_idx.len] << 1 | type;
    if (t->high_water == 1u << 30) return PS_E_NOMEM; /* slots stay positive int32 */
    if ((t->high_water >> CHUNK_BITS) >= t->n_chunks) {  /* else a chunk (or a spare) has room */
        if (t->n_chunks == t->chunks_cap) {
            uint32_t cap = t->chunks_cap ? t->chunks_cap * 2 : 16;
            chunk **c = realloc(t->chunks, (size_t)cap * sizeof(chunk *));
            if (!c) return PS_E_NOMEM;
            t->chunks = c;
            t->chunks_cap = cap;
        }
        chunk *c = malloc(chunk_size(type));
        if (!c) return PS_E_NOMEM;
        t->chunks[t->n_chunks++] = c;
    }
    return (int64_t)t->high_water++ << 1 | type;
}

static void slot_free(uint32_t slot)
{
    AT(slot)->state[IX(slot)] = FREE;
    if (ps__vec_push(&types[TYPE(slot)].free_idx, slot >> 1) != PS_OK) {
        /* No room to remember it: the slot is leaked rather than corrupting anything. */
    }
}

/* Sort n slots into timeline order (bottom-up merge sort through tmp, n u32 of room); O(n) when
 * already sorted. */
static void sort_slots(uint32_t *a, uint32_t n, uint32_t *tmp)
{
    uint32_t i = 1;
    while (i < n && !before(a[i], a[i - 1])) i++;
    if (i >= n) return;
    uint32_t *src = a, *dst = tmp;
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t p = lo, q = mid, k = lo;
            while (p < mid && q < hi) dst[k++] = before(src[q], src[p]) ? src[q++] : src[p++];
            while (p < mid) dst[k++] = src[p++];
            while (q < hi) dst[k++] = src[q++];
        }
        uint32_t *x = src; src = dst; dst = x;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof(uint32_t));
}

static uint32_t *scratch_for(uint32_t n)
{
    return ps__vec_reserve(&scratch, n ? n : 1) == PS_OK ? scratch.v : 0;
}

/* Array sizes of name records by step: 4, 6, 8, 12, 16, 24, ... (by about 1.4 a step: these
 * arrays hold every slot of a name, so their slack is per entry). 0 past 2^30. */
static uint32_t rec_cap(uint32_t step)
{
    uint32_t k = step - 1, shift = k / 2 + 1;
    return !step || shift > 28 ? 0 : (k & 1 ? 3u : 2u) << shift;
}

static uint32_t *rec_slots(name_rec *r) { return r->cap_step ? r->v : &r->one; }

/* Room in a name's record for one more slot (the record made current first). */
static int rec_reserve(type_buf *t, uint32_t name_id)
{
    name_rec *r = &t->recs[name_id];
    if (r->epoch != (t->epoch & EPOCH_MASK)) {
        /* Stale since the type was cleared: start over, keep the array (a retired big one is
         * listed again, for the next clear to retire). */
        if (r->in_big && ps__vec_push(&t->big, name_id) != PS_OK) return PS_E_NOMEM;
        r->len = 0;
        r->unsorted = 0;
        r->epoch = t->epoch & EPOCH_MASK;
    }
    uint32_t cap = r->cap_step ? rec_cap(r->cap_step) : 1;
    if (r->len < cap) return PS_OK;
    uint32_t step = r->cap_step + 1;
    cap = rec_cap(step);
    if (!cap) return PS_E_NOMEM;
    if (cap > BIG && !r->in_big) {
        if (ps__vec_push(&t->big, name_id) != PS_OK) return PS_E_NOMEM;
        r->in_big = 1;
    }
    uint32_t *v = realloc(r->cap_step ? r->v : 0, (size_t)cap * sizeof(uint32_t));
    if (!v) return PS_E_NOMEM;
    if (!r->cap_step) v[0] = r->one;
    r->v = v;
    r->cap_step = step;
    return PS_OK;
}

/* A name's slots in timeline order (sorted in place the first time they are found unsorted). */
static uint32_t *rec_sorted(name_rec *r)
{
    uint32_t *v = rec_slots(r);
    if (r->unsorted) {
        uint32_t *tmp = scratch_for(r->len);
        if (!tmp) return 0;
        sort_slots(v, r->len, tmp);
        r->unsorted = 0;
    }
    for (uint32_t i = 1; i < r->len; i++) PS_ASSERT(before(v[i - 1], v[i]));
    return v;
}

static void rec_free(name_rec *r)
{
    if (r->cap_step) free(r->v);
    memset(r, 0, sizeof *r);
}

/* Sort the unsorted tail of a type list and merge it into the prefix. */
static int normalize(type_buf *t)
{
    uint32_t n = t->list.len, s = t->sorted, k = n - s;
    if (k == 0) return PS_OK;
    uint32_t *tmp = scratch_for(k);
    if (!tmp) return PS_E_NOMEM;
    uint32_t *v = t->list.v;
    sort_slots(v + s, k, tmp);
    if (s && before(v[s], v[s - 1])) {
        /* Merge from the back: the tail waits in tmp, the prefix moves right as needed. */
        memcpy(tmp, v + s, (size_t)k * sizeof(uint32_t));
        uint32_t i = s, j = k, w = n;
        while (j > 0) {
            if (i > 0 && before(tmp[j - 1], v[i - 1])) v[--w] = v[--i];
            else v[--w] = tmp[--j];
        }
    }
    t->sorted = n;
    for (uint32_t i = 1; i < n; i++) PS_ASSERT(before(v[i - 1], v[i]));
    return PS_OK;
}

/* Drop dead slots from a type list and free them; the prefix stays a prefix. */
static void compact(type_buf *t)
{
    if (!t->dead) return;
    uint32_t w = 0, sorted = 0;
    for (uint32_t r = 0; r < t->list.len; r++) {
        uint32_t slot = t->list.v[r];
        if (AT(slot)->state[IX(slot)] == DEAD) {
            slot_free(slot);
            continue;
        }
        if (r < t->sorted) sorted++;
        t->list.v[w++] = slot;
    }
    t->list.len = w;
    t->sorted = sorted;
    t->dead = 0;
    for (uint32_t i = 1; i < sorted; i++) PS_ASSERT(before(t->list.v[i - 1], t->list.v[i]));
}

/* Give back the array of a retired record, unless its name refilled it since (it is current
 * again and listed in `big`). */
static void retire_one(type_buf *t, uint32_t id)
{
    name_rec *r = &t->recs[id];
    if (r->epoch == (t->epoch & EPOCH_MASK)) return;
    if (rec_cap(r->cap_step) > BIG) {
        free(r->v);
        r->v = 0;
        r->cap_step = 0;
    }
    r->in_big = 0;
}

/* After a clear of the type: give back a bounded amount (see the file header). */
static void trim(type_buf *t)
{
    if (t->retired.len) retire_one(t, t->retired.v[--t->retired.len]);
    if ((next_seq & (CHUNK - 1)) == 0 &&
        t->n_chunks > ((t->high_water + CHUNK - 1) >> CHUNK_BITS) + 1)
        free(t->chunks[--t->n_chunks]);
}

PS_API int32_t ps_timeline_add(uint32_t type, uint32_t name_id, double start, double duration)
{
    if (type >= PS_TYPE_COUNT || !name_live((int32_t)name_id)) return PS_E_ARG;
    type_buf *t = &types[type];
    if (t->limit && t->list.len - t->dead >= t->limit) {
        t->dropped += 1;  /* "determine if a performance entry buffer is full" */
        return PS_E_LIMIT;
    }
    if (ps__vec_reserve(&t->list, t->list.len + 1) != PS_OK || recs_fit(t, name_id) != PS_OK ||
        rec_reserve(t, name_id) != PS_OK)
        return PS_E_NOMEM;
    int64_t got = slot_alloc(type);
    if (got < 0) return (int32_t)got;
    uint32_t slot = (uint32_t)got;
    chunk *c = AT(slot);
    uint32_t ix = IX(slot);
    PS_ASSERT((slot >> 1) >= t->high_water - 1 || c->state[ix] == FREE);
    c->start[ix] = start;
    if (type == PS_TYPE_MEASURE) c->dur[ix] = duration;
    c->seq[ix] = next_seq++;
#if defined(PS_DEBUG)
    c->name[ix] = name_id;
#endif
    c->state[ix] = LIVE;
    /* The new slot has the largest sequence: it is in order when it starts no earlier. */
    uint32_t n = t->list.len;
    if (t->sorted == n && (n == 0 || !before(slot, t->list.v[n - 1]))) t->sorted++;
    t->list.v[t->list.len++] = slot;
    name_rec *r = &t->recs[name_id];  /* made current, with room, by rec_reserve */
    uint32_t *v = rec_slots(r);
    if (r->len == 0) {
        r->last_mark = slot;
    } else {
        if (before(slot, v[r->len - 1])) r->unsorted = 1;
        if (!before(slot, r->last_mark)) r->last_mark = slot;
    }
    v[r->len++] = slot;
    if (t->dead > 1024 && t->dead > t->list.len / 2) compact(t);
    trim(&types[PS_TYPE_MARK]);
    trim(&types[PS_TYPE_MEASURE]);
    return (int32_t)slot;
}

/* Merge two sorted slot runs into out, skipping dead slots; returns the count. */
static uint32_t merge_into(uint32_t *out, const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
    uint32_t i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        uint32_t s;
        if (j == nb || (i < na && before(a[i], b[j]))) s = a[i++];
        else s = b[j++];
        if (AT(s)->state[IX(s)] != DEAD) out[k++] = s;
    }
    return k;
}

/* getEntriesByName(name) over both types: each record in order, then merged. */
static int32_t query_name_all(uint32_t name_id)
{
    name_rec *m = rec_of(PS_TYPE_MARK, name_id), *e = rec_of(PS_TYPE_MEASURE, name_id);
    uint32_t nm = m ? m->len : 0, ne = e ? e->len : 0;
    const uint32_t *a = m ? rec_sorted(m) : 0, *b = e ? rec_sorted(e) : 0;
    if ((m && !a) || (e && !b)) return PS_E_NOMEM;
    uint32_t *out = ps__result_reserve(nm + ne ? nm + ne : 1);
    if (!out) return PS_E_NOMEM;
    uint32_t n = merge_into(out, a, nm, b, ne);
    for (uint32_t i = 0; i < n; i++) PS_ASSERT(AT(out[i])->name[IX(out[i])] == name_id);
    return (int32_t)n;
}

/* Performance Timeline §filter buffer map by name and type (for the types owned here). */
PS_API int32_t ps_timeline_query(int32_t type, int32_t name_id)
{
    if (type >= PS_TYPE_COUNT || type < -1) return PS_E_ARG;
    if (name_id >= 0) {
        if (!name_live(name_id)) return 0;
        if (type < 0) return query_name_all((uint32_t)name_id);
        name_rec *r = rec_of((uint32_t)type, (uint32_t)name_id);
        if (!r) return 0;
        const uint32_t *v = rec_sorted(r);
        uint32_t *out = v ? ps__result_reserve(r->len) : 0;
        if (!out) return PS_E_NOMEM;
        memcpy(out, v, (size_t)r->len * sizeof(uint32_t));
        for (uint32_t i = 0; i < r->len; i++)
            PS_ASSERT(AT(out[i])->name[IX(out[i])] == (uint32_t)name_id);
        return (int32_t)r->len;
    }
    for (int i = 0; i < PS_TYPE_COUNT; i++) {
        compact(&types[i]);
        if (normalize(&types[i]) != PS_OK) return PS_E_NOMEM;
    }
    const ps_vec *a = type < 0 ? &types[PS_TYPE_MARK].list : &types[type].list;
    const ps_vec *b = type < 0 ? &types[PS_TYPE_MEASURE].list : 0;
    uint32_t n = a->len + (b ? b->len : 0);
    uint32_t *out = ps__result_reserve(n ? n : 1);
    if (!out) return PS_E_NOMEM;
    return (int32_t)merge_into(out, a->v, a->len, b ? b->v : 0, b ? b->len : 0);
}

/* Empty a type in O(1); nothing is allocated. Per-name records go stale by epoch; chunks become
 * spares and big arrays retired, given back a few at a time by later adds (trim). */
static uint32_t clear_type(type_buf *t)
{
    uint32_t n = t->list.len - t->dead;
    t->high_water = 0;
    ps__vec_free(&t->free_idx);
    ps__vec_free(&t->list);
    t->sorted = t->dead = 0;
    while (t->retired.len) retire_one(t, t->retired.v[--t->retired.len]);
    ps_vec x = t->retired;
    t->retired = t->big;
    t->big = x;
    if (++t->epoch > EPOCH_MASK) {
        /* After 2^24 clears the epoch wraps: forget every record for real, once. */
        for (uint32_t id = 0; id < t->recs_cap; id++) rec_free(&t->recs[id]);
        t->retired.len = t->big.len = 0;
        t->epoch = 1;
    }
    return n;
}

PS_API int32_t ps_timeline_clear(uint32_t type, int32_t name_id)
{
    if (type >= PS_TYPE_COUNT) return PS_E_ARG;
    type_buf *t = &types[type];
    if (name_id < 0) return (int32_t)clear_type(t);
    if (!name_live(name_id)) return 0;
    name_rec *r = rec_of(type, (uint32_t)name_id);
    if (!r) return 0;
    uint32_t n = r->len, *v = rec_slots(r);
    uint32_t *out = ps__result_reserve(n);
    if (!out) return PS_E_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        out[i] = v[i];
        AT(v[i])->state[IX(v[i])] = DEAD;
    }
    r->len = 0;
    r->unsorted = 0;
    if (rec_cap(r->cap_step) > BIG) {  /* a big array is given back; small ones stay for reuse */
        free(r->v);
        r->v = 0;
        r->cap_step = 0;
    }
    t->dead += n;
    if (t->dead > 1024 && t->dead > t->list.len / 2) compact(t);
    return (int32_t)n;
}

/* Remove one entry, `slot` named `name_id`, and no other of its name (the same-named entries of
 * other code stay). O(entries of the name). The name's latest mark is found again when it was
 * this one. */
PS_API int32_t ps_timeline_remove(uint32_t slot, int32_t name_id)
{
    type_buf *t = &types[TYPE(slot)];
    if ((slot >> 1) >= t->high_water || AT(slot)->state[IX(slot)] != LIVE || !name_live(name_id))
        return 0;
    name_rec *r = rec_of(TYPE(slot), (uint32_t)name_id);
    uint32_t *v = r ? rec_slots(r) : 0, k = 0;
    while (r && k < r->len && v[k] != slot) k++;
    if (!r || k == r->len) return 0;
    memmove(v + k, v + k + 1, (size_t)(r->len - k - 1) * sizeof(uint32_t));
    r->len--;
    if (r->last_mark == slot && r->len) {
        r->last_mark = v[0];
        for (uint32_t i = 1; i < r->len; i++)
            if (!before(v[i], r->last_mark)) r->last_mark = v[i];
    }
    AT(slot)->state[IX(slot)] = DEAD;
    t->dead += 1;
    if (t->dead > 1024 && t->dead > t->list.len / 2) compact(t);
    return 1;
}

int32_t ps__timeline_entry(uint32_t slot)
{
    type_buf *t = &types[TYPE(slot)];
    if ((slot >> 1) >= t->high_water) return PS_E_NOT_FOUND;
    chunk *c = AT(slot);
    if (c->state[IX(slot)] != LIVE) return PS_E_NOT_FOUND;
    double *out = ps_out_ptr();
    out[0] = c->start[IX(slot)];
    out[1] = TYPE(slot) == PS_TYPE_MEASURE ? c->dur[IX(slot)] : 0;
    return (int32_t)TYPE(slot);
}

uint32_t ps__timeline_count(uint32_t type)
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

static int name_unused(uint32_t id)
{
    if (!name_used[id]) return 0;
    for (uint32_t t = 0; t < PS_TYPE_COUNT; t++)
        if (rec_of(t, id)) return 0;
    return 1;
}

/* Two passes (count, then release) so that only the room needed is reserved. */
PS_API int32_t ps_timeline_release_names(void)
{
    uint32_t n = 0;
    for (uint32_t id = 0; id < names_hw; id++) n += (uint32_t)name_unused(id);
    uint32_t *out = ps__result_reserve(n ? n : 1);
    if (!out || ps__vec_reserve(&free_names, free_names.len + n) != PS_OK) return PS_E_NOMEM;
    uint32_t k = 0;
    for (uint32_t id = 0; id < names_hw; id++) {
        if (!name_unused(id)) continue;
        for (uint32_t t = 0; t < PS_TYPE_COUNT; t++)
            if (id < types[t].recs_cap) rec_free(&types[t].recs[id]);
        name_used[id] = 0;
        free_names.v[free_names.len++] = id;  /* room reserved above */
        out[k++] = id;
    }
    PS_ASSERT(k == n);
    return (int32_t)k;
}

double ps__timeline_bytes(void)
{
    double b = (double)names_cap + (double)free_names.cap * 4 + (double)scratch.cap * 4;
    for (uint32_t i = 0; i < PS_TYPE_COUNT; i++) {
        const type_buf *t = &types[i];
        b += (double)t->n_chunks * chunk_size(i) + (double)t->chunks_cap * sizeof(chunk *) +
             (double)t->free_idx.cap * 4 + (double)t->list.cap * 4 + (double)t->big.cap * 4 +
             (double)t->retired.cap * 4 +
             (double)t->recs_cap * sizeof(name_rec);
        for (uint32_t id = 0; id < t->recs_cap; id++) b += (double)rec_cap(t->recs[id].cap_step) * 4;
    }
    return b;
}
