/*
 * memory.c — Measure Memory result building: from an intermediate measurement (JSON, see
 * memory.h) to the MemoryMeasurement dictionary (JSON).
 *
 * Data structure: the parsed input stays a JSON tree (json.h); beside it, one `realm` record per
 * input realm (its resolved memory attribution token) and one `entry` record per intermediate
 * entry (bytes, its attribution list as realm indexes, its types as offsets of the tree's
 * strings, and the key of the cross-origin container it is aggregated under, if any), plus
 * per-realm scratch arrays (the parent chain being resolved, per-entry stamps for deduplicating
 * attributions, the entry each aggregation key folds into), so the whole build is linear in
 * realms + entries + attributions. The output is written once by json.h's writer (byte counts
 * are integers: no printf, no strtod in the module).
 *
 * Invariants: a realm's token is resolved at most once and after its parent's (state 0 → 1 → 2;
 * meeting state 1 again is a parent cycle and an input error); after aggregation every live
 * entry has a distinct aggregation key or none, and the sum of live entries' bytes equals the
 * sum of the input's (remote entries counted as 0). The result (or a constant message) is
 * handed to the shim as the exchange's blob.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "json.h"
#include "memory.h"

typedef const ps_json_node node;

typedef struct {
    int state;              /* 0 unresolved, 1 resolving, 2 resolved */
    node *src;              /* the input object */
    const char *url, *scope, *origin;
    const char *top;        /* the top-level origin: the origin at the root of its parents */
    int parent;             /* -1: none */
    /* the token */
    const char *c_id, *c_src; /* container, or c_id == NULL for a null container */
    int aggregated;
    int owner;              /* the realm whose container started the aggregation (key) */
    int host_token;         /* the token came with the input: its entries are kept as given */
} realm;

typedef struct {
    double bytes;
    ps_vec attribution;     /* realm indexes, one attribution each */
    ps_vec types;           /* a set of strings: offsets into the input's strings */
    int key;                /* -1 or the owner realm of its single aggregated attribution */
    int merged;             /* folded into an earlier entry */
} entry;

typedef struct {
    ps_json_doc in;
    realm *realms;
    int n_realms;
    entry *entries;
    int n_entries;
    const char *msg;        /* constant message for PS_E_PARSE */
    uint64_t rng;
    /* Scratch, n_realms each: the parent chain being resolved; per realm, the last entry
     * (index + 1) that named it as itself / as its aggregated container; per owner realm, the
     * entry that aggregation folds into (index + 1). */
    int *chain;
    int *seen_self, *seen_agg, *fold_into;
} ctx;

static void set_result_msg(const char *msg)
{
    ps__blob_set((const uint8_t *)msg, (uint32_t)strlen(msg), 0);
}

static int fail(ctx *c, const char *msg)
{
    c->msg = msg;
    return PS_E_PARSE;
}

/* splitmix64: small, well mixed, and seedable for reproducible tests. */
static uint32_t rnd(ctx *c, uint32_t bound)
{
    uint64_t z = (c->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (uint32_t)(z % bound);
}

/* "Randomize the order of the items": Fisher–Yates. */
static void shuffle(ctx *c, uint32_t *items, uint32_t n)
{
    for (uint32_t i = n - 1; n > 1 && i > 0; i--) {
        uint32_t j = rnd(c, i + 1), t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}

static node *get(ctx *c, node *obj, const char *key) { return ps__json_get(&c->in, obj, key); }
static node *first(ctx *c, node *v) { return v ? ps__json_at(&c->in, v->child) : NULL; }
static node *next(ctx *c, node *v) { return ps__json_at(&c->in, v->next); }
static int is(node *v, int type) { return v && v->type == type; }
static int is_null(node *v) { return !v || v->type == PSJ_NULL; } /* absent or null */
static int is_bool(node *v) { return is(v, PSJ_TRUE) || is(v, PSJ_FALSE); }
static const char *str_of(ctx *c, node *v) { return ps__json_str(&c->in, v->str); }

static const char *opt_string(ctx *c, node *obj, const char *key, const char *dflt, int *bad)
{
    node *v = get(c, obj, key);
    if (is_null(v)) return dflt;
    if (!is(v, PSJ_STR)) { *bad = 1; return dflt; }
    return str_of(c, v);
}

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* Extract container element attributes: iframe and frame give their src attribute, object its
 * data attribute; an absent attribute is the empty string. */
static int extract_container(ctx *c, realm *r, node *el)
{
    int bad = 0;
    if (!is(el, PSJ_OBJ)) return fail(c, "a nested Window needs a container element");
    const char *local = opt_string(c, el, "localName", NULL, &bad);
    r->c_id = opt_string(c, el, "id", "", &bad);
    if (same(local, "iframe") || same(local, "frame")) r->c_src = opt_string(c, el, "src", "", &bad);
    else if (same(local, "object")) r->c_src = opt_string(c, el, "data", "", &bad);
    else return fail(c, "container.localName must be \"iframe\", \"frame\" or \"object\"");
    return bad ? fail(c, "container attributes must be strings") : PS_OK;
}

/* Obtain a window memory attribution token (§ Creating or obtaining a memory attribution
 * token), with one reading the current draft leaves open. For a Window whose parent is not of
 * the top-level origin the draft returns the parent's token; that step came with WICG
 * performance-measure-memory PR #18 (issue #17) so that a same-origin iframe inside a
 * cross-origin one does not expose its own container's attributes. Taken literally it would
 * also aggregate that iframe, yet the draft's example "same-and-cross-origin-iframes" reveals it
 * (its url, scope "Window") under the top-most cross-origin container. We follow the example:
 * such a Window of the top-level origin gets the parent token's container, not aggregated;
 * any other Window there gets the parent token. */
static int window_token(ctx *c, int i)
{
    realm *r = &c->realms[i];
    node *el = get(c, r->src, "container");
    if (r->parent < 0) {
        if (!is_null(el)) return fail(c, "a top-level Window has no container");
        r->c_id = r->c_src = NULL;
        r->aggregated = 0;
        r->owner = i;
        return PS_OK;
    }
    realm *p = &c->realms[r->parent];
    if (strcmp(p->scope, "Window") != 0) return fail(c, "a Window's parent must be a Window");
    const char *top = r->top;
    if (!r->origin || !p->origin || !top) return fail(c, "nested Windows need origins");
    if (!same(p->origin, top)) {
        r->c_id = p->c_id;
        r->c_src = p->c_src;
        r->owner = p->owner;
        r->aggregated = same(r->origin, top) ? 0 : p->aggregated;
        return PS_OK;
    }
    int st = extract_container(c, r, el);
    if (st != PS_OK) return st;
    r->aggregated = !same(r->origin, top);
    r->owner = i;
    return PS_OK;
}

/* Obtain a worker memory attribution token: a dedicated worker (or a host's worker-like realm
 * with an owner) takes its owner's token; shared and service workers get a fresh one, and so
 * does a realm without an owner in this measurement (the root of a measurement taken inside a
 * worker, or a host's main thread). */
static int worker_token(ctx *c, int i)
{
    realm *r = &c->realms[i];
    int shared = same(r->scope, "SharedWorkerGlobalScope") || same(r->scope, "ServiceWorkerGlobalScope");
    if (shared || r->parent < 0) {
        r->c_id = r->c_src = NULL;
        r->aggregated = 0;
        r->owner = i;
        return PS_OK;
    }
    realm *p = &c->realms[r->parent];
    r->c_id = p->c_id;
    r->c_src = p->c_src;
    r->aggregated = p->aggregated;
    r->owner = p->owner;
    return PS_OK;
}

static int explicit_token(ctx *c, int i, node *tok)
{
    realm *r = &c->realms[i];
    node *cont = get(c, tok, "container");
    node *agg = get(c, tok, "crossOriginAggregated");
    int bad = 0;
    if (!is(tok, PSJ_OBJ) || (agg && !is_bool(agg))) return fail(c, "malformed token");
    r->aggregated = is(agg, PSJ_TRUE);
    r->owner = i;
    r->host_token = 1;
    if (is_null(cont)) {
        r->c_id = r->c_src = NULL;
    } else if (is(cont, PSJ_OBJ)) {
        r->c_id = opt_string(c, cont, "id", "", &bad);
        r->c_src = opt_string(c, cont, "src", "", &bad);
    } else {
        bad = 1;
    }
    return bad ? fail(c, "malformed token container") : PS_OK;
}

static int resolve_one(ctx *c, int i)
{
    realm *r = &c->realms[i];
    r->top = r->parent < 0 ? r->origin : c->realms[r->parent].top;
    node *tok = get(c, r->src, "token");
    if (!is_null(tok)) return explicit_token(c, i, tok);
    return strcmp(r->scope, "Window") == 0 ? window_token(c, i) : worker_token(c, i);
}

/* Resolve realm i's token after its ancestors', iteratively (chains can be long: no deep
 * recursion). State 1 marks the chain being walked, so meeting it again is a cycle. */
static int resolve(ctx *c, int i)
{
    int n = 0;
    for (int j = i;;) {
        realm *r = &c->realms[j];
        if (r->state == 2) break;
        if (r->state == 1) return fail(c, "realm parents form a cycle");
        r->state = 1;
        c->chain[n++] = j;
        if (r->parent < 0) break;
        j = r->parent;
    }
    while (n > 0) {
        int k = c->chain[--n];
        int st = resolve_one(c, k);
        if (st != PS_OK) return st;
        c->realms[k].state = 2;
    }
    return PS_OK;
}

/* An integer in [0, n) (NaN, a non-integer, fails every comparison). */
static int is_index(node *v, int n)
{
    return is(v, PSJ_NUM) && v->num >= 0 && v->num < n && v->num == floor(v->num);
}

/* The realm records and their scratch arrays, n of each. */
static int alloc_realms(ctx *c, size_t n)
{
    c->n_realms = (int)n;
    if (!n) return PS_OK;
    c->realms = calloc(n, sizeof *c->realms);
    c->chain = calloc(n, sizeof *c->chain);
    c->seen_self = calloc(n, sizeof *c->seen_self);
    c->seen_agg = calloc(n, sizeof *c->seen_agg);
    c->fold_into = calloc(n, sizeof *c->fold_into);
    if (!c->realms || !c->chain || !c->seen_self || !c->seen_agg || !c->fold_into) return PS_E_NOMEM;
    return PS_OK;
}

static int parse_realms(ctx *c, node *arr)
{
    if (arr && !is(arr, PSJ_ARR)) return fail(c, "realms must be an array");
    int st = alloc_realms(c, arr ? arr->count : 0);
    if (st != PS_OK || !c->n_realms) return st;
    int i = 0;
    for (node *it = first(c, arr); it; it = next(c, it), i++) {
        realm *r = &c->realms[i];
        int bad = 0;
        if (!is(it, PSJ_OBJ)) return fail(c, "a realm must be an object");
        r->src = it;
        r->url = opt_string(c, it, "url", NULL, &bad);
        r->scope = opt_string(c, it, "scope", NULL, &bad);
        r->origin = opt_string(c, it, "origin", NULL, &bad);
        if (bad || !r->url || !r->scope) return fail(c, "a realm needs string url and scope");
        node *p = get(c, it, "parent");
        r->parent = -1;
        if (!is_null(p)) {
            if (!is_index(p, c->n_realms) || (int)p->num == i)
                return fail(c, "realm parent must be the index of another realm");
            r->parent = (int)p->num;
        }
    }
    for (i = 0; i < c->n_realms; i++) {
        int st = resolve(c, i);
        if (st != PS_OK) return st;
    }
    return PS_OK;
}

/* Write a new memory attribution (§ Converting an intermediate memory measurement). */
static void write_attribution(ps_json_writer *w, const realm *r)
{
    ps__json_raw(w, "{\"url\":");
    ps__json_cstr(w, r->aggregated ? "cross-origin-url" : r->url);
    if (r->c_id) {
        ps__json_raw(w, ",\"container\":{\"id\":");
        ps__json_cstr(w, r->c_id);
        ps__json_raw(w, ",\"src\":");
        ps__json_cstr(w, r->c_src);
        ps__json_raw(w, "}");
    }
    ps__json_raw(w, ",\"scope\":");
    ps__json_cstr(w, r->aggregated ? "cross-origin-aggregated" : r->scope);
    ps__json_raw(w, "}");
}

/* Add the string at offset `s` to the set `to`. */
static int add_type(ctx *c, ps_vec *to, uint32_t s)
{
    for (uint32_t k = 0; k < to->len; k++)
        if (strcmp(ps__json_str(&c->in, to->v[k]), ps__json_str(&c->in, s)) == 0) return PS_OK;
    return ps__vec_push(to, s);
}

/* Add the strings of `from` (validated) to the set `to`. */
static int union_types(ctx *c, ps_vec *to, node *from)
{
    if (!from) return PS_OK;
    if (!is(from, PSJ_ARR)) return fail(c, "types must be an array of strings");
    for (node *it = first(c, from); it; it = next(c, it)) {
        if (!is(it, PSJ_STR)) return fail(c, "types must be an array of strings");
        int st = add_type(c, to, it->str);
        if (st != PS_OK) return st;
    }
    return PS_OK;
}

static int parse_bytes(node *v, double *out)
{
    if (!is(v, PSJ_NUM)) return 0;
    double b = v->num;
    if (!(b >= 0) || b > 9007199254740992.0 || b != floor(b)) return 0;
    *out = b;
    return 1;
}

/* One intermediate entry: its attribution (one per distinct realm; realms aggregated under the
 * same cross-origin container give that container's attribution once) and its types. */
static int parse_entry(ctx *c, int index, node *it)
{
    entry *e = &c->entries[index];
    if (!is(it, PSJ_OBJ)) return fail(c, "an entry must be an object");
    if (!parse_bytes(get(c, it, "bytes"), &e->bytes))
        return fail(c, "entry bytes must be an integer in [0, 2^53]");
    node *remote = get(c, it, "remote");
    if (remote && !is_bool(remote)) return fail(c, "entry remote must be a boolean");
    if (is(remote, PSJ_TRUE)) e->bytes = 0; /* outside the current address space */
    e->key = -1;
    int st = union_types(c, &e->types, get(c, it, "types"));
    if (st != PS_OK) return st;
    node *rs = get(c, it, "realms");
    if (rs && !is(rs, PSJ_ARR)) return fail(c, "entry realms must be an array");
    int n = 0, aggregated = 0, key = -1, stamp = index + 1;
    for (node *ri = first(c, rs); ri; ri = next(c, ri)) {
        if (!is_index(ri, c->n_realms)) return fail(c, "entry realms must be realm indexes");
        const realm *r = &c->realms[(int)ri->num];
        /* A set of realms; aggregated realms collapse onto their container's attribution. */
        int *seen = r->aggregated ? &c->seen_agg[r->owner] : &c->seen_self[(int)ri->num];
        if (*seen == stamp) continue;
        *seen = stamp;
        if (ps__vec_push(&e->attribution, (uint32_t)ri->num) != PS_OK) return PS_E_NOMEM;
        n++;
        if (r->aggregated) { aggregated++; key = r->host_token ? -1 : r->owner; }
    }
    if (n == 1 && aggregated == 1) e->key = key; /* -1 for a host's token: no folding */
    return PS_OK;
}

/* Memory of realms aggregated under one cross-origin container is reported as one entry
 * attributed to that container: entries with the same key are folded into the first. Entries
 * of host-resolved tokens (a browser's native result) keep the browser's own granularity. */
static int aggregate(ctx *c)
{
    for (int i = 0; i < c->n_entries; i++) {
        entry *f = &c->entries[i];
        if (f->key < 0) continue;
        int into = c->fold_into[f->key] - 1;
        if (into < 0) { c->fold_into[f->key] = i + 1; continue; }
        entry *e = &c->entries[into];
        e->bytes += f->bytes;
        for (uint32_t k = 0; k < f->types.len; k++) {
            int st = add_type(c, &e->types, f->types.v[k]);
            if (st != PS_OK) return st;
        }
        f->merged = 1;
    }
    return PS_OK;
}

static void write_entry(ctx *c, ps_json_writer *w, const entry *e)
{
    ps__json_raw(w, "{\"bytes\":");
    ps__json_uint(w, e ? e->bytes : 0);
    ps__json_raw(w, ",\"attribution\":[");
    for (uint32_t k = 0; e && k < e->attribution.len; k++) {
        if (k) ps__json_raw(w, ",");
        write_attribution(w, &c->realms[e->attribution.v[k]]);
    }
    ps__json_raw(w, "],\"types\":[");
    for (uint32_t k = 0; e && k < e->types.len; k++) {
        if (k) ps__json_raw(w, ",");
        ps__json_cstr(w, ps__json_str(&c->in, e->types.v[k]));
    }
    ps__json_raw(w, "]}");
}

/* Create a new memory measurement, and inside it create a new memory breakdown entry for each
 * intermediate entry (§ Converting an intermediate memory measurement to the result): total,
 * the extra zero-byte entry, then the order of breakdown and of each types list randomized. */
static int create_measurement(ctx *c, int with_breakdown)
{
    double bytes = 0;
    ps_vec order = { 0 }; /* breakdown: entry index + 1, 0 for the zero-byte entry */
    for (int i = 0; i < c->n_entries; i++)
        if (!c->entries[i].merged) bytes += c->entries[i].bytes;
    if (with_breakdown) {
        if (ps__vec_push(&order, 0) != PS_OK) return PS_E_NOMEM;
        for (int i = 0; i < c->n_entries; i++) {
            entry *e = &c->entries[i];
            if (e->merged) continue;
            shuffle(c, e->types.v, e->types.len);
            if (ps__vec_push(&order, (uint32_t)i + 1) != PS_OK) { ps__vec_free(&order); return PS_E_NOMEM; }
        }
        shuffle(c, order.v, order.len);
    }
    ps_json_writer w = { 0 };
    ps__json_raw(&w, "{\"bytes\":");
    ps__json_uint(&w, bytes);
    ps__json_raw(&w, ",\"breakdown\":[");
    for (uint32_t k = 0; k < order.len; k++) {
        if (k) ps__json_raw(&w, ",");
        write_entry(c, &w, order.v[k] ? &c->entries[order.v[k] - 1] : NULL);
    }
    ps__json_raw(&w, "]}");
    ps__vec_free(&order);
    return ps__json_finish(&w);
}

/* One attribution of a native result as a realm with a host-resolved token (kept as given). */
static int native_realm(ctx *c, int i, node *a)
{
    realm *r = &c->realms[i];
    int bad = !is(a, PSJ_OBJ);
    r->url = opt_string(c, a, "url", "", &bad);
    r->scope = opt_string(c, a, "scope", "", &bad);
    r->parent = -1;
    r->owner = i;
    r->host_token = 1;
    r->aggregated = same(r->scope, "cross-origin-aggregated");
    node *cont = get(c, a, "container");
    if (!is_null(cont)) {
        r->c_id = opt_string(c, cont, "id", "", &bad);
        r->c_src = opt_string(c, cont, "src", "", &bad);
        bad |= !is(cont, PSJ_OBJ);
    }
    return bad ? fail(c, "a native attribution needs string url, scope and container") : PS_OK;
}

/* A browser's native MemoryMeasurement (memory.h, "native"): one realm per attribution, one
 * entry per breakdown entry but the draft's zero-byte one (create_measurement adds its own),
 * and the bytes of the total beyond the breakdown's sum as an unattributed entry. */
static int parse_native(ctx *c, node *m)
{
    node *bd = get(c, m, "breakdown");
    if (bd && !is(bd, PSJ_ARR)) return fail(c, "a native breakdown must be an array");
    size_t n_attr = 0;
    for (node *e = first(c, bd); e; e = next(c, e)) {
        node *a = get(c, e, "attribution");
        if (a && !is(a, PSJ_ARR)) return fail(c, "a native attribution must be an array");
        n_attr += a ? a->count : 0;
    }
    int st = alloc_realms(c, n_attr);
    c->entries = st == PS_OK ? calloc((bd ? bd->count : 0) + 1, sizeof *c->entries) : NULL;
    if (!c->entries) return PS_E_NOMEM;
    double sum = 0, total;
    int n = 0;
    for (node *it = first(c, bd); it; it = next(c, it)) {
        entry *e = &c->entries[c->n_entries++]; /* counted at once: freed on failure */
        e->key = -1;
        if (!parse_bytes(get(c, it, "bytes"), &e->bytes))
            return fail(c, "entry bytes must be an integer in [0, 2^53]");
        node *types = get(c, it, "types"); /* or the older draft's name */
        st = union_types(c, &e->types, types ? types : get(c, it, "userAgentSpecificTypes"));
        if (st != PS_OK) return st;
        for (node *a = first(c, get(c, it, "attribution")); a; a = next(c, a), n++) {
            if ((st = native_realm(c, n, a)) != PS_OK) return st;
            if (ps__vec_push(&e->attribution, (uint32_t)n) != PS_OK) return PS_E_NOMEM;
        }
        sum += e->bytes;
        if (!e->bytes && !e->attribution.len && !e->types.len) c->n_entries--; /* nothing owned */
    }
    if (parse_bytes(get(c, m, "bytes"), &total) && total > sum)
        c->entries[c->n_entries++] = (entry){ .bytes = total - sum, .key = -1 };
    return PS_OK;
}

static int build(ctx *c, uint32_t len)
{
    const uint8_t *json = ps__exchange_read(len);
    if (!json) return PS_E_ARG;
    int st = ps__json_parse(&c->in, json, len);
    if (st == PS_E_PARSE) return fail(c, "the intermediate measurement is not valid JSON");
    if (st != PS_OK) return st;
    node *in = ps__json_at(&c->in, 0);
    if (!is(in, PSJ_OBJ)) return fail(c, "the intermediate measurement must be a JSON object");
    node *native = get(c, in, "native");
    if (native) {
        if (!is(native, PSJ_OBJ)) return fail(c, "native must be an object");
        st = parse_native(c, native);
        return st != PS_OK ? st : create_measurement(c, 1);
    }
    st = parse_realms(c, get(c, in, "realms"));
    if (st != PS_OK) return st;
    node *es = get(c, in, "entries");
    if (es && !is(es, PSJ_ARR)) return fail(c, "entries must be an array");
    c->n_entries = es ? (int)es->count : 0;
    if (c->n_entries) {
        c->entries = calloc((size_t)c->n_entries, sizeof *c->entries);
        if (!c->entries) return PS_E_NOMEM;
        int i = 0;
        for (node *it = first(c, es); it; it = next(c, it), i++)
            if ((st = parse_entry(c, i, it)) != PS_OK) return st;
    }
    if ((st = aggregate(c)) != PS_OK) return st;
    node *bd = get(c, in, "breakdown");
    if (bd && !is_bool(bd)) return fail(c, "breakdown must be a boolean");
    return create_measurement(c, !is(bd, PSJ_FALSE));
}

PS_API int32_t ps_memory_build(uint32_t len, uint32_t seed)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.rng = ((uint64_t)seed << 32) ^ seed ^ 0x5DEECE66Dull;
    int st = build(&c, len);
    for (int i = 0; i < c.n_entries; i++) {
        ps__vec_free(&c.entries[i].attribution);
        ps__vec_free(&c.entries[i].types);
    }
    free(c.entries);
    free(c.realms);
    free(c.chain);
    free(c.seen_self);
    free(c.seen_agg);
    free(c.fold_into);
    ps__json_free(&c.in);
    if (st == PS_E_PARSE) set_result_msg(c.msg);
    else if (st != PS_OK) set_result_msg("out of memory while building the measurement");
    return st;
}
