/*
 * trace.c — the ProfilerTrace of a profiling session, encoded as a trie (JS Self-Profiling
 * §The ProfilerTrace Dictionary).
 *
 * Data structure, one `trace` per session (traces are independent; several run at once):
 *   - resources: a string pool (pool.c); the pool's dense ids are the resource ids.
 *   - frame names: a second string pool, so equal names are compared as ids.
 *   - frames: columns (name id, resource id or -1, line, column; 0 = absent) plus an open
 *     hash table of frame ids keyed by all four components.
 *   - stacks: columns (parent stack id or -1, frame id) plus an open hash table keyed by
 *     (parent, frame): the trie's edges.
 *   - samples: columns (timestamp, stack id or -1, marker).
 *   - V8 import scratch: the last imported node table (records + their strings), a map from V8
 *     node id to record, and each record's stack once resolved.
 *
 * Invariants (checked by the tests on every trace): every id is < the length of the list it
 * indexes; a stack's parent id is smaller than its own id (parents are appended first, so the
 * graph is acyclic and parents precede their children); no two frames are equal component-wise,
 * no two stacks have the same (parent, frame), no two resources are equal; samples are in
 * non-decreasing timestamp order; samples <= max_samples.
 *
 * Adding a sample costs O(stack depth) hash lookups: lists are never scanned. The hash tables
 * are at most half full and double with a full rehash; they are built in batches at stop()
 * rather than on a latency-sensitive path, so an incremental rehash would buy nothing here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "trace.h"
#include "trace_internal.h"

typedef struct {
    ps_pool resources, names;
    /* frames */
    uint32_t *f_name, *f_line, *f_col;
    int32_t *f_res;
    uint32_t nframes, frames_cap;
    int32_t *f_slots;
    uint32_t f_mask;
    /* stacks */
    int32_t *s_parent;
    uint32_t *s_frame;
    uint32_t nstacks, stacks_cap;
    int32_t *s_slots;
    uint32_t s_mask;
    /* samples */
    double *ts;
    int32_t *st;
    uint8_t *mk;
    uint32_t nsamples, samples_cap, max_samples;
    int full;
    /* V8 import scratch */
    uint32_t *v8_rec;      /* count * 8 words, as given */
    uint8_t *v8_bytes;     /* the string bytes the records point into */
    int32_t *v8_stack;     /* per record: stack id, -1 empty, -2 unresolved, -3 in progress */
    uint8_t *v8_marker;    /* per record: marker of a sample at this node */
    uint32_t v8_count;
    uint32_t *v8_map;      /* open table of record index + 1 (0 = empty), keyed by V8 id */
    uint32_t v8_mask;
    /* output scratch */
    uint8_t *blob;
    uint32_t blob_cap;
} trace;

static trace **traces;
static uint32_t traces_cap;

static trace *get(int32_t h)
{
    if (h < 1 || (uint32_t)h > traces_cap) return 0;
    return traces[h - 1];
}

static uint32_t mix(uint32_t h)
{
    h ^= h >> 16; h *= 0x7feb352dU; h ^= h >> 15; h *= 0x846ca68bU; h ^= h >> 16;
    return h;
}

static uint32_t frame_hash(uint32_t name, int32_t res, uint32_t line, uint32_t col)
{
    return mix(name * 0x9e3779b1U ^ mix((uint32_t)res + 0x632be5abU) ^ mix(line * 31u + col * 0x85ebca6bU));
}

static uint32_t stack_hash(int32_t parent, uint32_t frame)
{
    return mix((uint32_t)parent * 0x9e3779b1U ^ mix(frame + 0x27d4eb2fU));
}

/* Grow `*p` (elements of `size` bytes) to at least `need`; `*cap` is updated by the caller. */
static int grow(void **p, uint32_t cap, size_t size)
{
    void *q = realloc(*p, (size_t)cap * size);
    if (!q) return PS_E_NOMEM;
    *p = q;
    return PS_OK;
}

static uint32_t next_cap(uint32_t cap, uint32_t need)
{
    uint32_t c = cap ? cap : 64;
    while (c < need) {
        if (c > UINT32_MAX / 2) return 0;
        c *= 2;
    }
    return c;
}

/* A fresh table of 2 * `n` (at least 64) slots, rounded up to a power of two. */
static int32_t *table_new(uint32_t n, uint32_t *mask)
{
    uint32_t size = 64;
    while (size < n * 2) size *= 2;
    int32_t *t = malloc((size_t)size * sizeof(int32_t));
    if (!t) return 0;
    memset(t, 0xff, (size_t)size * sizeof(int32_t));
    *mask = size - 1;
    return t;
}

static int frames_rehash(trace *t)
{
    uint32_t mask;
    int32_t *slots = table_new(t->nframes + 1, &mask);
    if (!slots) return PS_E_NOMEM;
    for (uint32_t id = 0; id < t->nframes; id++) {
        uint32_t i = frame_hash(t->f_name[id], t->f_res[id], t->f_line[id], t->f_col[id]) & mask;
        while (slots[i] >= 0) i = (i + 1) & mask;
        slots[i] = (int32_t)id;
    }
    free(t->f_slots);
    t->f_slots = slots;
    t->f_mask = mask;
    return PS_OK;
}

static int stacks_rehash(trace *t)
{
    uint32_t mask;
    int32_t *slots = table_new(t->nstacks + 1, &mask);
    if (!slots) return PS_E_NOMEM;
    for (uint32_t id = 0; id < t->nstacks; id++) {
        uint32_t i = stack_hash(t->s_parent[id], t->s_frame[id]) & mask;
        while (slots[i] >= 0) i = (i + 1) & mask;
        slots[i] = (int32_t)id;
    }
    free(t->s_slots);
    t->s_slots = slots;
    t->s_mask = mask;
    return PS_OK;
}

/* §get an element ID, for frames: the id of the frame equal component-wise, appended if new. */
static int32_t frame_id(trace *t, uint32_t name, int32_t res, uint32_t line, uint32_t col)
{
    if (!t->f_slots || (t->nframes + 1) * 2 > t->f_mask + 1) {
        if (frames_rehash(t) != PS_OK) return PS_E_NOMEM;
    }
    uint32_t i = frame_hash(name, res, line, col) & t->f_mask;
    for (;; i = (i + 1) & t->f_mask) {
        int32_t id = t->f_slots[i];
        if (id < 0) break;
        if (t->f_name[id] == name && t->f_res[id] == res && t->f_line[id] == line && t->f_col[id] == col)
            return id;
    }
    if (t->nframes == t->frames_cap) {
        uint32_t cap = next_cap(t->frames_cap, t->nframes + 1);
        if (!cap || grow((void **)&t->f_name, cap, 4) || grow((void **)&t->f_res, cap, 4) ||
            grow((void **)&t->f_line, cap, 4) || grow((void **)&t->f_col, cap, 4))
            return PS_E_NOMEM;
        t->frames_cap = cap;
    }
    uint32_t id = t->nframes++;
    PS_ASSERT(res >= -1 && (res < 0 || (uint32_t)res < t->resources.ids));
    PS_ASSERT(name < t->names.ids);
    t->f_name[id] = name;
    t->f_res[id] = res;
    t->f_line[id] = line;
    t->f_col[id] = col;
    t->f_slots[i] = (int32_t)id;
    return (int32_t)id;
}

/* §get an element ID, for stacks: the trie edge (parent, frame). */
static int32_t stack_id(trace *t, int32_t parent, uint32_t frame)
{
    if (!t->s_slots || (t->nstacks + 1) * 2 > t->s_mask + 1) {
        if (stacks_rehash(t) != PS_OK) return PS_E_NOMEM;
    }
    uint32_t i = stack_hash(parent, frame) & t->s_mask;
    for (;; i = (i + 1) & t->s_mask) {
        int32_t id = t->s_slots[i];
        if (id < 0) break;
        if (t->s_parent[id] == parent && t->s_frame[id] == frame) return id;
    }
    if (t->nstacks == t->stacks_cap) {
        uint32_t cap = next_cap(t->stacks_cap, t->nstacks + 1);
        if (!cap || grow((void **)&t->s_parent, cap, 4) || grow((void **)&t->s_frame, cap, 4))
            return PS_E_NOMEM;
        t->stacks_cap = cap;
    }
    uint32_t id = t->nstacks++;
    PS_ASSERT(parent < (int32_t)id && frame < t->nframes); /* parents first: acyclic */
    t->s_parent[id] = parent;
    t->s_frame[id] = frame;
    t->s_slots[i] = (int32_t)id;
    return (int32_t)id;
}

static int samples_reserve(trace *t, uint32_t n)
{
    if (n <= t->samples_cap) return PS_OK;
    uint32_t cap = next_cap(t->samples_cap, n);
    if (!cap || grow((void **)&t->ts, cap, 8) || grow((void **)&t->st, cap, 4) ||
        grow((void **)&t->mk, cap, 1))
        return PS_E_NOMEM;
    t->samples_cap = cap;
    return PS_OK;
}

static void v8_clear(trace *t)
{
    free(t->v8_rec); free(t->v8_bytes); free(t->v8_stack);
    free(t->v8_marker); free(t->v8_map);
    t->v8_rec = t->v8_map = 0;
    t->v8_bytes = t->v8_marker = 0;
    t->v8_stack = 0;
    t->v8_count = t->v8_mask = 0;
}

static void pool_free(ps_pool *p)
{
    for (uint32_t i = 0; i < p->ids; i++) free(p->str[i]);
    free(p->str); free(p->len); free(p->hash); free(p->slots);
    ps__vec_free(&p->free_ids);
}

PS_API int32_t ps_trace_new(uint32_t max_samples)
{
    uint32_t slot = 0;
    while (slot < traces_cap && traces[slot]) slot++;
    if (slot == traces_cap) {
        uint32_t cap = traces_cap ? traces_cap * 2 : 8;
        if (cap > 0x40000000u) return PS_E_NOMEM;
        trace **p = realloc(traces, (size_t)cap * sizeof(*p));
        if (!p) return PS_E_NOMEM;
        memset(p + traces_cap, 0, (size_t)(cap - traces_cap) * sizeof(*p));
        traces = p;
        traces_cap = cap;
    }
    trace *t = calloc(1, sizeof(trace));
    if (!t) return PS_E_NOMEM;
    t->max_samples = max_samples;
    traces[slot] = t;
    return (int32_t)slot + 1;
}

PS_API int32_t ps_trace_free(int32_t h)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    pool_free(&t->resources);
    pool_free(&t->names);
    free(t->f_name); free(t->f_res); free(t->f_line); free(t->f_col); free(t->f_slots);
    free(t->s_parent); free(t->s_frame); free(t->s_slots);
    free(t->ts); free(t->st); free(t->mk);
    if (ps_blob_ptr() == t->blob) ps_blob_release(); /* a borrowed blob dies with its trace */
    free(t->blob);
    v8_clear(t);
    free(t);
    traces[h - 1] = 0;
    return PS_OK;
}

PS_API int32_t ps_trace_resource(int32_t h, uint32_t len)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    return ps__pool_intern(&t->resources, ps__exchange_bytes(), len);
}

static int32_t frame_from_bytes(trace *t, const uint8_t *name, uint32_t name_len, int32_t res,
                                uint32_t line, uint32_t col)
{
    int32_t n = ps__pool_intern(&t->names, name, name_len);
    if (n < 0) return n;
    return frame_id(t, (uint32_t)n, res, line, col);
}

PS_API int32_t ps_trace_frame(int32_t h, uint32_t name_len, int32_t res, uint32_t line, uint32_t col)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    if (res < -1 || (res >= 0 && (uint32_t)res >= t->resources.ids)) return PS_E_ARG;
    return frame_from_bytes(t, ps__exchange_bytes(), name_len, res, line, col);
}

int32_t ps__trace_frame_of(int32_t h, const uint8_t *name, uint32_t name_len, const uint8_t *url,
                           uint32_t url_len, uint32_t line, uint32_t col)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    int32_t res = -1;
    if (url) {
        res = ps__pool_intern(&t->resources, url, url_len);
        if (res < 0) return res;
    }
    return frame_from_bytes(t, name, name_len, res, line, col);
}

int32_t ps__trace_stack_of(int32_t h, const uint32_t *frames, uint32_t depth)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    int32_t stack = -1;
    for (uint32_t k = 0; k < depth; k++) {
        if (frames[k] >= t->nframes) return PS_E_ARG;
        stack = stack_id(t, stack, frames[k]);
        if (stack < 0) return stack;
    }
    return stack;
}

PS_API int32_t ps_trace_stack(int32_t h, int32_t parent, uint32_t frame)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    if (parent < -1 || (parent >= 0 && (uint32_t)parent >= t->nstacks) || frame >= t->nframes)
        return PS_E_ARG;
    return stack_id(t, parent, frame);
}

/* §take a sample, steps 1–6, with the stack already resolved. */
static int32_t append_sample(trace *t, double ts, int32_t stack, uint32_t marker)
{
    if (t->nsamples >= t->max_samples) {
        t->full = 1;
        return PS_E_LIMIT;
    }
    if (samples_reserve(t, t->nsamples + 1) != PS_OK) return PS_E_NOMEM;
    uint32_t i = t->nsamples;
    /* Keep time order: a sample older than the last one is inserted at its place. */
    while (i > 0 && t->ts[i - 1] > ts) {
        t->ts[i] = t->ts[i - 1];
        t->st[i] = t->st[i - 1];
        t->mk[i] = t->mk[i - 1];
        i--;
    }
    t->ts[i] = ts;
    t->st[i] = stack;
    t->mk[i] = (uint8_t)marker;
    t->nsamples++;
    PS_ASSERT(t->nsamples <= t->max_samples);
    PS_ASSERT(i + 1 == t->nsamples || t->ts[i] <= t->ts[i + 1]);
    return (int32_t)i;
}

PS_API int32_t ps_trace_sample(int32_t h, double ts, int32_t stack, uint32_t marker)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    if (stack < -1 || (stack >= 0 && (uint32_t)stack >= t->nstacks) || marker >= PS_MARKER_COUNT ||
        !isfinite(ts))
        return PS_E_ARG;
    return append_sample(t, ts, stack, marker);
}

/* §get a stack ID, iteratively from the outermost frame: one (parent, frame) lookup per frame. */
PS_API int32_t ps_trace_sample_frames(int32_t h, double ts, uint32_t depth, uint32_t marker)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    if (marker >= PS_MARKER_COUNT || !isfinite(ts)) return PS_E_ARG;
    if (t->nsamples >= t->max_samples) {
        t->full = 1;
        return PS_E_LIMIT;
    }
    const uint8_t *b = ps__exchange_bytes();
    for (uint32_t k = 0; k < depth; k++) {
        uint32_t f;
        memcpy(&f, b + 4 * (size_t)k, 4);
        if (f >= t->nframes) return PS_E_ARG;
    }
    int32_t stack = -1;
    for (uint32_t k = 0; k < depth; k++) {
        uint32_t f;
        memcpy(&f, b + 4 * (size_t)k, 4);
        stack = stack_id(t, stack, f);
        if (stack < 0) return stack;
    }
    return append_sample(t, ts, stack, marker);
}

/* ---- V8 CPU profile import ---------------------------------------------------------------- */

/* Record fields. */
enum { R_ID = 0, R_PARENT = 1, R_NAME_OFF = 2, R_NAME_LEN = 3, R_URL_OFF = 4, R_URL_LEN = 5,
       R_LINE = 6, R_COL = 7, R_WORDS = 8 };

static uint32_t rec(const trace *t, uint32_t i, uint32_t field) { return t->v8_rec[i * R_WORDS + field]; }

static int32_t v8_lookup(const trace *t, uint32_t id)
{
    uint32_t i = mix(id) & t->v8_mask;
    for (;; i = (i + 1) & t->v8_mask) {
        uint32_t r = t->v8_map[i];
        if (!r) return -1;
        if (rec(t, r - 1, R_ID) == id) return (int32_t)(r - 1);
    }
}

static int is_meta(const uint8_t *name, uint32_t len, const char *what)
{
    size_t n = strlen(what);
    return len == n && memcmp(name, what, n) == 0;
}

PS_API int32_t ps_trace_import_v8_nodes(int32_t h, uint32_t count, uint32_t bytes)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    v8_clear(t);
    if (count > (UINT32_MAX / (4 * R_WORDS)) - 1) return PS_E_ARG;
    const uint8_t *b = ps__exchange_bytes();
    size_t words = (size_t)count * R_WORDS;
    t->v8_rec = malloc(words * 4 + 4);
    t->v8_stack = malloc((size_t)count * 4 + 4);
    t->v8_marker = malloc((size_t)count + 1);
    t->v8_bytes = malloc((size_t)bytes + 1);
    uint32_t mask;
    int32_t *map = table_new(count + 1, &mask);
    if (!t->v8_rec || !t->v8_stack || !t->v8_marker || !t->v8_bytes || !map) {
        free(map);
        v8_clear(t);
        return PS_E_NOMEM;
    }
    memcpy(t->v8_rec, b, words * 4);
    memcpy(t->v8_bytes, b + words * 4, bytes);
    t->v8_count = count;
    memset(map, 0, ((size_t)mask + 1) * 4);
    t->v8_map = (uint32_t *)map;
    t->v8_mask = mask;
    for (uint32_t i = 0; i < count; i++) {
        t->v8_stack[i] = -2;
        t->v8_marker[i] = PS_MARKER_NONE;
        /* Strings must lie inside the byte region. */
        if ((uint64_t)rec(t, i, R_NAME_OFF) + rec(t, i, R_NAME_LEN) > bytes ||
            (uint64_t)rec(t, i, R_URL_OFF) + rec(t, i, R_URL_LEN) > bytes) {
            v8_clear(t);
            return PS_E_PARSE;
        }
        uint32_t id = rec(t, i, R_ID);
        if (v8_lookup(t, id) >= 0) { v8_clear(t); return PS_E_PARSE; }
        uint32_t j = mix(id) & mask;
        while (t->v8_map[j]) j = (j + 1) & mask;
        t->v8_map[j] = i + 1;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t p = rec(t, i, R_PARENT);
        if (p != PS_NO_PARENT && v8_lookup(t, p) < 0) { v8_clear(t); return PS_E_PARSE; }
    }
    return PS_OK;
}

/* The stack of record `r`, interning its frame and its ancestors' on first use (§get a stack
 * ID: the root is dropped; meta nodes have no frame). Iterative, so deep stacks cannot overflow
 * the C stack; a cycle in the table is PS_E_PARSE. */
static int32_t v8_resolve(trace *t, uint32_t r)
{
    if (t->v8_stack[r] >= -1) return t->v8_stack[r];
    ps_vec path = {0};
    uint32_t cur = r;
    int32_t status = PS_OK, parent_stack = -1;
    for (;;) {
        if (t->v8_stack[cur] == -3) { status = PS_E_PARSE; break; }
        if (t->v8_stack[cur] >= -1) { parent_stack = t->v8_stack[cur]; break; }
        if (ps__vec_push(&path, cur) != PS_OK) { status = PS_E_NOMEM; break; }
        t->v8_stack[cur] = -3;
        uint32_t p = rec(t, cur, R_PARENT);
        if (p == PS_NO_PARENT) break;
        cur = (uint32_t)v8_lookup(t, p);
    }
    while (path.len) {
        uint32_t i = path.v[--path.len];
        if (status != PS_OK) { t->v8_stack[i] = -2; continue; }
        const uint8_t *name = t->v8_bytes + rec(t, i, R_NAME_OFF);
        const uint8_t *url = t->v8_bytes + rec(t, i, R_URL_OFF);
        uint32_t name_len = rec(t, i, R_NAME_LEN), url_len = rec(t, i, R_URL_LEN);
        int root = rec(t, i, R_PARENT) == PS_NO_PARENT && is_meta(name, name_len, "(root)");
        int meta = url_len == 0 && (is_meta(name, name_len, "(program)") ||
                                    is_meta(name, name_len, "(idle)") ||
                                    is_meta(name, name_len, "(garbage collector)"));
        if (root || meta) {
            /* No frame: its samples (and any children) have the parent's stack, i.e. none. */
            if (meta && is_meta(name, name_len, "(garbage collector)")) t->v8_marker[i] = PS_MARKER_GC;
            parent_stack = -1;
            t->v8_stack[i] = -1;
            continue;
        }
        int32_t res = -1;
        if (url_len) {
            res = ps__pool_intern(&t->resources, url, url_len);
            if (res < 0) { status = res; t->v8_stack[i] = -2; continue; }
        }
        int32_t f = frame_from_bytes(t, name, name_len, res, rec(t, i, R_LINE), rec(t, i, R_COL));
        int32_t s = f < 0 ? f : stack_id(t, parent_stack, (uint32_t)f);
        if (s < 0) { status = s; t->v8_stack[i] = -2; continue; }
        t->v8_stack[i] = s;
        parent_stack = s;
    }
    ps__vec_free(&path);
    return status != PS_OK ? status : t->v8_stack[r];
}

/* Stable merge sort of `n` (time, payload) pairs by time. */
static int sort_pairs(double *ts, uint32_t *pl, uint32_t n)
{
    uint32_t i = 1;
    while (i < n && ts[i - 1] <= ts[i]) i++;
    if (i >= n) return PS_OK;
    double *ts2 = malloc((size_t)n * 8);
    uint32_t *pl2 = malloc((size_t)n * 4);
    if (!ts2 || !pl2) { free(ts2); free(pl2); return PS_E_NOMEM; }
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                if (ts[b] < ts[a]) { ts2[k] = ts[b]; pl2[k++] = pl[b++]; }
                else { ts2[k] = ts[a]; pl2[k++] = pl[a++]; }
            }
            while (a < mid) { ts2[k] = ts[a]; pl2[k++] = pl[a++]; }
            while (b < hi) { ts2[k] = ts[b]; pl2[k++] = pl[b++]; }
        }
        memcpy(ts, ts2, (size_t)n * 8);
        memcpy(pl, pl2, (size_t)n * 4);
    }
    free(ts2);
    free(pl2);
    return PS_OK;
}

/* §take a sample for each V8 sample, in time order, up to the sample buffer size limit. */
PS_API int32_t ps_trace_import_v8_samples(int32_t h, uint32_t count, double start_us,
                                          double offset_ms, double after_ms, double until_ms)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    if (!isfinite(start_us) || !isfinite(offset_ms) || isnan(after_ms) || isnan(until_ms))
        return PS_E_ARG;
    if (!count) return 0;
    if (count > UINT32_MAX / 8) return PS_E_ARG;
    const uint8_t *b = ps__exchange_bytes();
    double *ts = malloc((size_t)count * 8);
    uint32_t *rs = malloc((size_t)count * 4);
    if (!ts || !rs) { free(ts); free(rs); return PS_E_NOMEM; }
    double us = start_us, off_us = offset_ms * 1000.0;
    uint32_t n = 0;
    int32_t status = PS_OK;
    for (uint32_t k = 0; k < count; k++) {
        int32_t id, delta;
        memcpy(&id, b + 4 * (size_t)k, 4);
        memcpy(&delta, b + 4 * ((size_t)count + k), 4);
        us += delta;
        int32_t r = v8_lookup(t, (uint32_t)id);
        if (r < 0 || !t->v8_map) { status = PS_E_PARSE; break; }
        double ms = nearbyint(us - off_us) / 1000.0;
        if (!(ms > after_ms) || ms > until_ms) continue;
        ts[n] = ms;
        rs[n++] = (uint32_t)r;
    }
    if (status == PS_OK) status = sort_pairs(ts, rs, n);
    int32_t added = 0;
    for (uint32_t k = 0; status == PS_OK && k < n; k++) {
        int32_t s = v8_resolve(t, rs[k]);
        if (s < -1) { status = s; break; }
        int32_t r = append_sample(t, ts[k], s, t->v8_marker[rs[k]]);
        if (r == PS_E_LIMIT) break;
        if (r < 0) { status = r; break; }
        added++;
    }
    free(ts);
    free(rs);
    return status != PS_OK ? status : added;
}

/* ---- merging -------------------------------------------------------------------------------- */

/* Restore time order (stable) after appending samples out of order. */
static int order_samples(trace *t)
{
    uint32_t n = t->nsamples, i = 1;
    while (i < n && t->ts[i - 1] <= t->ts[i]) i++;
    if (i >= n) return PS_OK;
    double *ts = malloc((size_t)n * 8);
    uint32_t *ix = malloc((size_t)n * 4);
    int32_t *st = malloc((size_t)n * 4);
    uint8_t *mk = malloc(n);
    int status = ts && ix && st && mk ? PS_OK : PS_E_NOMEM;
    if (status == PS_OK) {
        memcpy(ts, t->ts, (size_t)n * 8);
        for (uint32_t k = 0; k < n; k++) ix[k] = k;
        status = sort_pairs(ts, ix, n);
    }
    if (status == PS_OK) {
        memcpy(st, t->st, (size_t)n * 4);
        memcpy(mk, t->mk, n);
        for (uint32_t k = 0; k < n; k++) {
            t->ts[k] = ts[k];
            t->st[k] = st[ix[k]];
            t->mk[k] = mk[ix[k]];
        }
    }
    free(ts); free(ix); free(st); free(mk);
    for (uint32_t k = 1; status == PS_OK && k < n; k++) PS_ASSERT(t->ts[k - 1] <= t->ts[k]);
    return status;
}

PS_API int32_t ps_trace_merge(int32_t hd, int32_t hs)
{
    trace *d = get(hd), *s = get(hs);
    if (!d || !s || d == s) return PS_E_ARG;
    int32_t *rmap = malloc(((size_t)s->resources.ids + 1) * 4);
    int32_t *fmap = malloc(((size_t)s->nframes + 1) * 4);
    int32_t *smap = malloc(((size_t)s->nstacks + 1) * 4);
    int32_t status = PS_OK, added = 0;
    if (!rmap || !fmap || !smap) { status = PS_E_NOMEM; goto out; }
    for (uint32_t i = 0; i < s->resources.ids && status == PS_OK; i++) {
        rmap[i] = ps__pool_intern(&d->resources, (const uint8_t *)s->resources.str[i], s->resources.len[i]);
        if (rmap[i] < 0) status = rmap[i];
    }
    for (uint32_t i = 0; i < s->nframes && status == PS_OK; i++) {
        uint32_t n = s->f_name[i];
        int32_t r = s->f_res[i] >= 0 ? rmap[s->f_res[i]] : -1;
        fmap[i] = frame_from_bytes(d, (const uint8_t *)s->names.str[n], s->names.len[n], r,
                                   s->f_line[i], s->f_col[i]);
        if (fmap[i] < 0) status = fmap[i];
    }
    /* Parents precede children, so one pass in id order maps every stack. */
    for (uint32_t i = 0; i < s->nstacks && status == PS_OK; i++) {
        int32_t p = s->s_parent[i] >= 0 ? smap[s->s_parent[i]] : -1;
        smap[i] = stack_id(d, p, (uint32_t)fmap[s->s_frame[i]]);
        if (smap[i] < 0) status = smap[i];
    }
    /* Append in src order (up to dst's limit), then restore time order in one sort. */
    uint32_t room = d->max_samples > d->nsamples ? d->max_samples - d->nsamples : 0;
    uint32_t take = s->nsamples < room ? s->nsamples : room;
    if (take < s->nsamples) d->full = 1;
    if (status == PS_OK && samples_reserve(d, d->nsamples + take) != PS_OK) status = PS_E_NOMEM;
    for (uint32_t i = 0; i < take && status == PS_OK; i++) {
        uint32_t k = d->nsamples++;
        d->ts[k] = s->ts[i];
        d->st[k] = s->st[i] >= 0 ? smap[s->st[i]] : -1;
        d->mk[k] = s->mk[i];
        added++;
    }
    if (status == PS_OK) status = order_samples(d);
out:
    free(rmap);
    free(fmap);
    free(smap);
    return status != PS_OK ? status : added;
}

/* ---- output ---------------------------------------------------------------------------------- */

PS_API int32_t ps_trace_info(int32_t h)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    double *o = ps_out_ptr();
    o[0] = t->resources.ids;
    o[1] = t->nframes;
    o[2] = t->nstacks;
    o[3] = t->nsamples;
    o[4] = t->full;
    o[5] = t->max_samples;
    o[6] = (double)(ps__pool_bytes(&t->resources) + ps__pool_bytes(&t->names) +
                    (size_t)t->frames_cap * 16 + (t->f_slots ? (size_t)(t->f_mask + 1) * 4 : 0) +
                    (size_t)t->stacks_cap * 8 + (t->s_slots ? (size_t)(t->s_mask + 1) * 4 : 0) +
                    (size_t)t->samples_cap * 13);
    return PS_OK;
}

PS_API const void *ps_trace_column(int32_t h, uint32_t col)
{
    trace *t = get(h);
    if (!t) return 0;
    switch (col) {
    case PS_COL_FRAME_NAME: return t->f_name;
    case PS_COL_FRAME_RESOURCE: return t->f_res;
    case PS_COL_FRAME_LINE: return t->f_line;
    case PS_COL_FRAME_COLUMN: return t->f_col;
    case PS_COL_STACK_PARENT: return t->s_parent;
    case PS_COL_STACK_FRAME: return t->s_frame;
    case PS_COL_SAMPLE_TIME: return t->ts;
    case PS_COL_SAMPLE_STACK: return t->st;
    case PS_COL_SAMPLE_MARKER: return t->mk;
    default: return 0;
    }
}

PS_API int32_t ps_trace_strings(int32_t h, uint32_t kind)
{
    trace *t = get(h);
    if (!t || kind > 1) return PS_E_ARG;
    const ps_pool *p = kind ? &t->names : &t->resources;
    size_t total = 0;
    for (uint32_t i = 0; i < p->ids; i++) total += p->len[i];
    if (total > UINT32_MAX - 1) return PS_E_NOMEM;
    if (total + 1 > t->blob_cap) {
        uint8_t *q = realloc(t->blob, total + 1);
        if (!q) return PS_E_NOMEM;
        t->blob = q;
        t->blob_cap = (uint32_t)total + 1;
    }
    uint32_t *lens = ps__result_reserve(p->ids ? p->ids : 1);
    if (!lens) return PS_E_NOMEM;
    size_t at = 0;
    for (uint32_t i = 0; i < p->ids; i++) {
        memcpy(t->blob + at, p->str[i], p->len[i]);
        at += p->len[i];
        lens[i] = p->len[i];
    }
    ps__blob_set(t->blob, (uint32_t)total, 0);
    return (int32_t)p->ids;
}

/* For the exporters (trace_internal.h): one string without copying the pool into the blob. */
const uint8_t *ps__trace_string(int32_t h, uint32_t kind, uint32_t id, uint32_t *len)
{
    trace *t = get(h);
    if (!t || kind > 1) return 0;
    const ps_pool *p = kind ? &t->names : &t->resources;
    if (id >= p->ids) return 0;
    *len = p->len[id];
    return (const uint8_t *)p->str[id];
}

uint32_t ps__trace_string_count(int32_t h, uint32_t kind)
{
    trace *t = get(h);
    if (!t || kind > 1) return 0;
    return kind ? t->names.ids : t->resources.ids;
}
