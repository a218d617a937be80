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
 * Import (the one path for every trace that comes from outside: a ProfilerTrace object, a
 * native one, a .cpuprofile or V8's own profile): the shim lays the input out as f64 records
 * (NaN = absent member, -infinity = a member of the wrong JS type), the core validates every
 * value and reports the first bad one as PS_E_PARSE with what (PS_BAD_*) and where, then
 * interns. A refused input may leave part of itself interned (a stack cycle is found while
 * interning): the shim imports into a fresh trace and frees it on failure.
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

#define NO_PARENT 0xffffffffu /* a V8 record without a parent */
#define V8_HIDDEN 0x80u       /* v8_marker bit: the node is a hidden script's (ps_trace_hide) */

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
    /* URL prefixes ('\n'-separated) of scripts whose frames the imports leave out (ps_trace_hide) */
    uint8_t *hide;
    uint32_t hide_len;
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
    free(t->hide);
    v8_clear(t);
    free(t);
    traces[h - 1] = 0;
    return PS_OK;
}

PS_API int32_t ps_trace_hide(int32_t h, uint32_t len)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    const uint8_t *in = ps__exchange_read(len);
    if (!in) return PS_E_ARG;
    uint8_t *copy = malloc((size_t)len + 1);
    if (!copy) return PS_E_NOMEM;
    memcpy(copy, in, len);
    free(t->hide);
    t->hide = copy;
    t->hide_len = len;
    return PS_OK;
}

/* Whether a script's frames are left out: its URL starts with one of the hidden prefixes. */
static int hidden(const trace *t, const uint8_t *url, uint32_t len)
{
    for (uint32_t at = 0; at < t->hide_len;) {
        uint32_t end = at;
        while (end < t->hide_len && t->hide[end] != '\n') end++;
        if (end > at && len >= end - at && memcmp(url, t->hide + at, end - at) == 0) return 1;
        at = end + 1;
    }
    return 0;
}

int32_t ps__trace_resource(int32_t h, uint32_t len)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    const uint8_t *in = ps__exchange_read(len);
    return in ? ps__pool_intern(&t->resources, in, len) : PS_E_ARG;
}

static int32_t frame_from_bytes(trace *t, const uint8_t *name, uint32_t name_len, int32_t res,
                                uint32_t line, uint32_t col)
{
    int32_t n = ps__pool_intern(&t->names, name, name_len);
    if (n < 0) return n;
    return frame_id(t, (uint32_t)n, res, line, col);
}

int32_t ps__trace_frame(int32_t h, uint32_t name_len, int32_t res, uint32_t line, uint32_t col)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    if (res < -1 || (res >= 0 && (uint32_t)res >= t->resources.ids)) return PS_E_ARG;
    const uint8_t *in = ps__exchange_read(name_len);
    return in ? frame_from_bytes(t, in, name_len, res, line, col) : PS_E_ARG;
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

int32_t ps__trace_frame_find(int32_t h, const uint8_t *name, uint32_t name_len, const uint8_t *url,
                             uint32_t url_len, uint32_t line, uint32_t col)
{
    trace *t = get(h);
    if (!t || !t->f_slots) return -1;
    int32_t res = url ? ps__pool_find(&t->resources, url, url_len) : -1;
    int32_t n = ps__pool_find(&t->names, name, name_len);
    if (n < 0 || (url && res < 0)) return -1;
    for (uint32_t i = frame_hash((uint32_t)n, res, line, col) & t->f_mask;; i = (i + 1) & t->f_mask) {
        int32_t id = t->f_slots[i];
        if (id < 0) return -1;
        if (t->f_name[id] == (uint32_t)n && t->f_res[id] == res && t->f_line[id] == line &&
            t->f_col[id] == col)
            return id;
    }
}

int32_t ps__trace_stack_find(int32_t h, int32_t parent, uint32_t frame)
{
    trace *t = get(h);
    if (!t || !t->s_slots) return -1;
    for (uint32_t i = stack_hash(parent, frame) & t->s_mask;; i = (i + 1) & t->s_mask) {
        int32_t id = t->s_slots[i];
        if (id < 0) return -1;
        if (t->s_parent[id] == parent && t->s_frame[id] == frame) return id;
    }
}

/* §get a stack ID, iteratively from the outermost frame: one (parent, frame) lookup per frame. */
int32_t ps__trace_stack_of(int32_t h, const uint32_t *frames, uint32_t depth, int32_t *stack)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    int32_t id = -1;
    for (uint32_t k = 0; k < depth; k++) {
        if (frames[k] >= t->nframes) return PS_E_ARG;
        id = stack_id(t, id, frames[k]);
        if (id < 0) return id;
    }
    *stack = id;
    return PS_OK;
}

int32_t ps__trace_stack(int32_t h, int32_t parent, uint32_t frame)
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

/* A validation failure: PS_E_PARSE with what (PS_BAD_*) and where in the out registers. */
static int32_t bad(uint32_t what, double index, double sub)
{
    double *o = ps_out_ptr();
    o[0] = what;
    o[1] = index;
    o[2] = sub;
    return PS_E_PARSE;
}

/* An id: an integer in [0, n). False for NaN (absent) and -infinity (not a number in JS). */
static int is_id(double v, double n) { return v >= 0 && v < n && v == floor(v); }

/* Input record fields (f64) of a V8 node. */
enum { N_ID = 0, N_PARENT = 1, N_NAME_OFF = 2, N_NAME_LEN = 3, N_URL_OFF = 4, N_URL_LEN = 5,
       N_LINE = 6, N_COL = 7, N_CHILD_AT = 8, N_CHILD_N = 9, N_WORDS = 10 };

PS_API int32_t ps_trace_import_v8_nodes(int32_t h, uint32_t count, uint32_t nchildren, uint32_t bytes)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    v8_clear(t);
    const double *in = (const double *)(const void *)ps__exchange_read(
        ((uint64_t)count * N_WORDS + nchildren) * 8 + bytes);
    if (!in) return PS_E_ARG;
    const double *kids = in + (size_t)count * N_WORDS;
    const uint8_t *b = (const uint8_t *)(kids + nchildren);
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
    memcpy(t->v8_bytes, b, bytes);
    t->v8_count = count;
    memset(map, 0, ((size_t)mask + 1) * 4);
    t->v8_map = (uint32_t *)map;
    t->v8_mask = mask;
    int32_t st = PS_OK;
    int children = 0, parents = 0;
    for (uint32_t i = 0; i < count && st == PS_OK; i++) {
        const double *n = in + (size_t)i * N_WORDS;
        uint32_t *r = t->v8_rec + (size_t)i * R_WORDS;
        t->v8_stack[i] = -2;
        t->v8_marker[i] = PS_MARKER_NONE;
        if (!is_id(n[N_ID], UINT32_MAX)) { st = bad(PS_BAD_NODE_ID, i, 0); break; }
        /* V8 positions are 0-based, -1 unknown: stored 1-based, 0 absent. */
        if (!is_id(n[N_LINE] + 1, UINT32_MAX)) { st = bad(PS_BAD_NODE_LINE, i, 0); break; }
        if (!is_id(n[N_COL] + 1, UINT32_MAX)) { st = bad(PS_BAD_NODE_COLUMN, i, 0); break; }
        /* Strings must lie inside the byte region (the shim's own layout: an argument error). */
        if (n[N_NAME_OFF] + n[N_NAME_LEN] > bytes || n[N_URL_OFF] + n[N_URL_LEN] > bytes ||
            !(n[N_NAME_OFF] >= 0 && n[N_NAME_LEN] >= 0 && n[N_URL_OFF] >= 0 && n[N_URL_LEN] >= 0) ||
            (n[N_CHILD_N] > 0 && !(n[N_CHILD_AT] >= 0 && n[N_CHILD_AT] + n[N_CHILD_N] <= nchildren))) {
            st = PS_E_ARG;
            break;
        }
        r[R_ID] = (uint32_t)n[N_ID];
        r[R_PARENT] = NO_PARENT;
        r[R_NAME_OFF] = (uint32_t)n[N_NAME_OFF];
        r[R_NAME_LEN] = (uint32_t)n[N_NAME_LEN];
        r[R_URL_OFF] = (uint32_t)n[N_URL_OFF];
        r[R_URL_LEN] = (uint32_t)n[N_URL_LEN];
        r[R_LINE] = (uint32_t)(n[N_LINE] + 1);
        r[R_COL] = (uint32_t)(n[N_COL] + 1);
        if (v8_lookup(t, r[R_ID]) >= 0) { st = bad(PS_BAD_NODE_DUPLICATE, i, 0); break; }
        uint32_t j = mix(r[R_ID]) & mask;
        while (t->v8_map[j]) j = (j + 1) & mask;
        t->v8_map[j] = i + 1;
        children |= n[N_CHILD_N] >= 0;
        parents |= !isnan(n[N_PARENT]);
    }
    /* Each node has at most one parent: from the children lists (the .cpuprofile's form) or
     * the parent members (the trace-event ProfileChunk's form). */
    for (uint32_t i = 0; i < count && st == PS_OK; i++) {
        const double *n = in + (size_t)i * N_WORDS;
        if (children) {
            for (uint32_t k = 0; n[N_CHILD_N] > 0 && k < (uint32_t)n[N_CHILD_N]; k++) {
                double c = kids[(size_t)n[N_CHILD_AT] + k];
                int32_t ci = is_id(c, UINT32_MAX) ? v8_lookup(t, (uint32_t)c) : -1;
                if (ci < 0) { st = bad(PS_BAD_NODE_CHILD, i, k); break; }
                uint32_t *p = &t->v8_rec[(size_t)ci * R_WORDS + R_PARENT];
                if (*p != NO_PARENT && *p != rec(t, i, R_ID)) { st = bad(PS_BAD_NODE_TWO_PARENTS, ci, 0); break; }
                *p = rec(t, i, R_ID);
            }
        } else if (parents && !isnan(n[N_PARENT])) {
            if (!is_id(n[N_PARENT], UINT32_MAX) || v8_lookup(t, (uint32_t)n[N_PARENT]) < 0) {
                st = bad(PS_BAD_NODE_PARENT, i, 0);
                break;
            }
            t->v8_rec[(size_t)i * R_WORDS + R_PARENT] = (uint32_t)n[N_PARENT];
        }
    }
    /* No cycles: walk up from each node, marking finished nodes (v8_stack: -2 new, -3 on the
     * current walk, -4 done), so each node is visited once overall. */
    for (uint32_t i = 0; i < count && st == PS_OK; i++) {
        int32_t c = (int32_t)i;
        while (c >= 0 && t->v8_stack[c] == -2) {
            t->v8_stack[c] = -3;
            uint32_t p = rec(t, (uint32_t)c, R_PARENT);
            c = p == NO_PARENT ? -1 : v8_lookup(t, p);
        }
        if (c >= 0 && t->v8_stack[c] == -3) { st = bad(PS_BAD_NODE_CYCLE, c, 0); break; }
        for (c = (int32_t)i; c >= 0 && t->v8_stack[c] == -3;) {
            t->v8_stack[c] = -4;
            uint32_t p = rec(t, (uint32_t)c, R_PARENT);
            c = p == NO_PARENT ? -1 : v8_lookup(t, p);
        }
    }
    if (st != PS_OK) {
        v8_clear(t);
        return st;
    }
    for (uint32_t i = 0; i < count; i++) t->v8_stack[i] = -2;
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
        if (p == NO_PARENT) break;
        cur = (uint32_t)v8_lookup(t, p);
    }
    while (path.len) {
        uint32_t i = path.v[--path.len];
        if (status != PS_OK) { t->v8_stack[i] = -2; continue; }
        const uint8_t *name = t->v8_bytes + rec(t, i, R_NAME_OFF);
        const uint8_t *url = t->v8_bytes + rec(t, i, R_URL_OFF);
        uint32_t name_len = rec(t, i, R_NAME_LEN), url_len = rec(t, i, R_URL_LEN);
        int root = rec(t, i, R_PARENT) == NO_PARENT && is_meta(name, name_len, "(root)");
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
        /* A hidden script's node is transparent: its samples and children get its parent's
         * stack. So is a Node built-in ("node:...") that a hidden node called (the inspector
         * session's post, which the Profiler itself calls). */
        uint32_t pid = rec(t, i, R_PARENT);
        int32_t pr = pid == NO_PARENT ? -1 : v8_lookup(t, pid);
        int from_hidden = pr >= 0 && (t->v8_marker[pr] & V8_HIDDEN);
        if (url_len && (hidden(t, url, url_len) ||
                        (from_hidden && url_len > 5 && memcmp(url, "node:", 5) == 0))) {
            t->v8_marker[i] |= V8_HIDDEN;
            t->v8_stack[i] = parent_stack;
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
    const double *in = (const double *)(const void *)ps__exchange_read((uint64_t)count * 16);
    if (!in) return PS_E_ARG;
    double *ts = malloc((size_t)count * 8);
    uint32_t *rs = malloc((size_t)count * 4);
    if (!ts || !rs) { free(ts); free(rs); return PS_E_NOMEM; }
    double us = start_us, off_us = offset_ms * 1000.0;
    uint32_t n = 0;
    int32_t status = PS_OK;
    for (uint32_t k = 0; k < count; k++) {
        double id = in[k], delta = in[count + k];
        int32_t r = t->v8_map && is_id(id, UINT32_MAX) ? v8_lookup(t, (uint32_t)id) : -1;
        if (r < 0) { status = bad(PS_BAD_SAMPLE_NODE, k, 0); break; }
        /* V8 writes whole µs; the import keeps µs resolution. A delta has no other limit (the
         * format's are JSON numbers: an idle gap of hours is one delta). */
        if (!isfinite(delta)) { status = bad(PS_BAD_TIME_DELTA, k, 0); break; }
        us += nearbyint(delta);
        double ms = nearbyint(us - off_us) / 1000.0;
        /* The sum or the offset can leave the doubles (offset_ms 1e306 is 1e309 µs): refused,
         * never dropped as if out of range. */
        if (!isfinite(ms)) { status = bad(PS_BAD_SAMPLE_TIME, k, 0); break; }
        if (!(ms > after_ms) || ms > until_ms) continue;
        ts[n] = ms;
        rs[n++] = (uint32_t)r;
    }
    if (status == PS_OK) status = sort_pairs(ts, rs, n);
    int32_t added = 0;
    for (uint32_t k = 0; status == PS_OK && k < n; k++) {
        int32_t s = v8_resolve(t, rs[k]);
        if (s < -1) { status = s; break; }
        int32_t r = append_sample(t, ts[k], s, t->v8_marker[rs[k]] & ~V8_HIDDEN);
        if (r == PS_E_LIMIT) break;
        if (r < 0) { status = r; break; }
        added++;
    }
    free(ts);
    free(rs);
    return status != PS_OK ? status : added;
}

/* ---- ProfilerTrace import ------------------------------------------------------------------- */

/* Input record sizes (f64) of a ProfilerTrace's lists. */
enum { TR_WORDS = 2, TF_WORDS = 5, TS_WORDS = 2, TM_WORDS = 3 };

/* JS Self-Profiling §The ProfilerTrace Dictionary, read back: every id in range, positions
 * positive integers, no cycle among stacks, finite timestamps, known markers; then each element
 * re-interned (§get an element ID), so duplicates collapse and the trace obeys the invariants. */
PS_API int32_t ps_trace_import(int32_t h, uint32_t nr, uint32_t nf, uint32_t ns, uint32_t nsm,
                               uint32_t bytes, double after_ms, double until_ms)
{
    trace *t = get(h);
    if (!t) return PS_E_ARG;
    uint64_t words = (uint64_t)nr * TR_WORDS + (uint64_t)nf * TF_WORDS + (uint64_t)ns * TS_WORDS +
                     (uint64_t)nsm * TM_WORDS;
    const double *R = (const double *)(const void *)ps__exchange_read(words * 8 + bytes);
    if (!R || isnan(after_ms) || isnan(until_ms)) return PS_E_ARG;
    const double *F = R + (size_t)nr * TR_WORDS, *S = F + (size_t)nf * TF_WORDS;
    const double *M = S + (size_t)ns * TS_WORDS;
    const uint8_t *b = (const uint8_t *)(M + (size_t)nsm * TM_WORDS);
    for (uint32_t i = 0; i < nr; i++)
        if (!(R[2 * i] >= 0 && R[2 * i + 1] >= 0 && R[2 * i] + R[2 * i + 1] <= bytes)) return PS_E_ARG;
    for (uint32_t i = 0; i < nf; i++) {
        const double *f = F + (size_t)i * TF_WORDS;
        if (!(f[0] >= 0 && f[1] >= 0 && f[0] + f[1] <= bytes)) return PS_E_ARG;
        if (!isnan(f[2]) && !is_id(f[2], nr)) return bad(PS_BAD_RESOURCE_ID, i, 0);
        if (!isnan(f[3]) && !is_id(f[3], UINT32_MAX)) return bad(PS_BAD_LINE, i, 0);
        if (!isnan(f[4]) && !is_id(f[4], UINT32_MAX)) return bad(PS_BAD_COLUMN, i, 0);
    }
    for (uint32_t i = 0; i < ns; i++) {
        if (!is_id(S[2 * i], nf)) return bad(PS_BAD_FRAME_ID, i, 0);
        if (!isnan(S[2 * i + 1]) && !is_id(S[2 * i + 1], ns)) return bad(PS_BAD_PARENT_ID, i, 0);
    }
    for (uint32_t i = 0; i < nsm; i++) {
        const double *m = M + (size_t)i * TM_WORDS;
        if (!isfinite(m[0])) return bad(PS_BAD_TIMESTAMP, i, 0);
        if (!isnan(m[1]) && !is_id(m[1], ns)) return bad(PS_BAD_STACK_ID, i, 0);
        if (!is_id(m[2], PS_MARKER_COUNT)) return bad(PS_BAD_MARKER, i, 0);
    }
    int32_t *map = malloc(((size_t)nr + nf + ns + 1) * 4);
    double *ts = malloc(((size_t)nsm + 1) * 8);
    uint32_t *ix = malloc(((size_t)nsm + 1) * 4);
    ps_vec chain = {0};
    int32_t st = map && ts && ix ? PS_OK : PS_E_NOMEM, added = 0;
    int32_t *rmap = map, *fmap = map + nr, *smap = map + nr + nf;
    /* A hidden script's resource, frames and stacks are left out (HIDE): a stack of such a frame
     * maps to its parent's. */
    enum { HIDE = -5 };
    for (uint32_t i = 0; i < nr && st == PS_OK; i++) {
        const uint8_t *url = b + (size_t)R[2 * i];
        uint32_t len = (uint32_t)R[2 * i + 1];
        rmap[i] = hidden(t, url, len) ? HIDE : ps__pool_intern(&t->resources, url, len);
        if (rmap[i] < 0 && rmap[i] != HIDE) st = rmap[i];
    }
    for (uint32_t i = 0; i < nf && st == PS_OK; i++) {
        const double *f = F + (size_t)i * TF_WORDS;
        if (!isnan(f[2]) && rmap[(uint32_t)f[2]] == HIDE) { fmap[i] = HIDE; continue; }
        fmap[i] = frame_from_bytes(t, b + (size_t)f[0], (uint32_t)f[1], isnan(f[2]) ? -1 : rmap[(uint32_t)f[2]],
                                   isnan(f[3]) ? 0 : (uint32_t)f[3], isnan(f[4]) ? 0 : (uint32_t)f[4]);
        if (fmap[i] < 0) st = fmap[i];
    }
    /* Stacks may name a parent that comes later: walk up to a resolved ancestor (smap -2
     * unresolved, -3 on the current chain: meeting it again is a cycle), then intern downwards.
     * Iterative, so a deep trace cannot overflow the C stack. */
    for (uint32_t i = 0; i < ns && st == PS_OK; i++) smap[i] = -2;
    for (uint32_t i = 0; i < ns && st == PS_OK; i++) {
        double cur = i;
        chain.len = 0;
        while (!isnan(cur) && smap[(uint32_t)cur] == -2 && st == PS_OK) {
            smap[(uint32_t)cur] = -3;
            st = ps__vec_push(&chain, (uint32_t)cur);
            cur = S[2 * (size_t)cur + 1];
        }
        if (st != PS_OK) break;
        if (!isnan(cur) && smap[(uint32_t)cur] == -3) { st = bad(PS_BAD_STACK_CYCLE, cur, 0); break; }
        int32_t parent = isnan(cur) ? -1 : smap[(uint32_t)cur];
        while (chain.len && st == PS_OK) {
            uint32_t id = chain.v[--chain.len];
            int32_t f = fmap[(uint32_t)S[2 * (size_t)id]];
            if (f == HIDE) { smap[id] = parent; continue; }
            parent = smap[id] = stack_id(t, parent, (uint32_t)f);
            if (parent < 0) st = parent;
        }
    }
    /* Samples in time order (stable), those in (after_ms, until_ms] only. */
    uint32_t n = 0;
    for (uint32_t i = 0; i < nsm && st == PS_OK; i++) {
        double when = M[(size_t)i * TM_WORDS];
        if (when > until_ms || when <= after_ms) continue;
        ts[n] = when;
        ix[n++] = i;
    }
    if (st == PS_OK) st = sort_pairs(ts, ix, n);
    for (uint32_t k = 0; k < n && st == PS_OK; k++) {
        const double *m = M + (size_t)ix[k] * TM_WORDS;
        int32_t r = append_sample(t, m[0], isnan(m[1]) ? -1 : smap[(uint32_t)m[1]], (uint32_t)m[2]);
        if (r == PS_E_LIMIT) break;
        if (r < 0) st = r;
        else added++;
    }
    ps__vec_free(&chain);
    free(map);
    free(ts);
    free(ix);
    return st != PS_OK ? st : added;
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
    o[7] = t->nsamples ? t->ts[t->nsamples - 1] : -INFINITY;
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
    if (!t || kind > PS_STRINGS_NAMES) return PS_E_ARG;
    const ps_pool *p = kind != PS_STRINGS_RESOURCES ? &t->names : &t->resources;
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
    if (!t || kind > PS_STRINGS_NAMES) return 0;
    const ps_pool *p = kind != PS_STRINGS_RESOURCES ? &t->names : &t->resources;
    if (id >= p->ids) return 0;
    *len = p->len[id];
    return (const uint8_t *)p->str[id];
}

uint32_t ps__trace_string_count(int32_t h, uint32_t kind)
{
    trace *t = get(h);
    if (!t || kind > PS_STRINGS_NAMES) return 0;
    return kind != PS_STRINGS_RESOURCES ? t->names.ids : t->resources.ids;
}
