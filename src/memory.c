/*
 * memory.c — Measure Memory result building: from an intermediate measurement (JSON, see
 * memory.h) to the MemoryMeasurement dictionary (JSON).
 *
 * Data structure: the parsed input stays a cJSON tree; beside it, one `realm` record per input
 * realm (its resolved memory attribution token) and one `entry` record per intermediate entry
 * (bytes, its attribution list as a cJSON array, its types as a cJSON array, and the key of the
 * cross-origin container it is aggregated under, if any), plus per-realm scratch arrays (the
 * parent chain being resolved, per-entry stamps for deduplicating attributions, the entry each
 * aggregation key folds into), so the whole build is linear in realms + entries + attributions.
 * The output is a new cJSON tree printed once into a string.
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
#include "memory.h"
#include "cJSON.h"

typedef struct {
    int state;              /* 0 unresolved, 1 resolving, 2 resolved */
    const cJSON *src;       /* the input object */
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
    cJSON *attribution;     /* array, owned until moved into the output */
    cJSON *types;           /* array of strings, a set */
    int key;                /* -1 or the owner realm of its single aggregated attribution */
    int merged;             /* folded into an earlier entry */
} entry;

typedef struct {
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

/* "Randomize the order of the items": Fisher–Yates over a cJSON array, relinking its items. */
static int shuffle_array(ctx *c, cJSON *arr)
{
    int n = cJSON_GetArraySize(arr);
    if (n < 2) return PS_OK;
    cJSON **items = malloc((size_t)n * sizeof *items);
    if (!items) return PS_E_NOMEM;
    int i = 0;
    for (cJSON *it = arr->child; it; it = it->next) items[i++] = it;
    for (i = n - 1; i > 0; i--) {
        int j = (int)rnd(c, (uint32_t)i + 1);
        cJSON *t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
    for (i = 0; i < n; i++) {
        items[i]->prev = i ? items[i - 1] : items[n - 1]; /* cJSON: child->prev is the tail */
        items[i]->next = i + 1 < n ? items[i + 1] : NULL;
    }
    arr->child = items[0];
    free(items);
    return PS_OK;
}

static const char *opt_string(const cJSON *obj, const char *key, const char *dflt, int *bad)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v || cJSON_IsNull(v)) return dflt;
    if (!cJSON_IsString(v)) { *bad = 1; return dflt; }
    return v->valuestring;
}

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* Extract container element attributes: iframe and frame give their src attribute, object its
 * data attribute; an absent attribute is the empty string. */
static int extract_container(ctx *c, realm *r, const cJSON *el)
{
    int bad = 0;
    if (!cJSON_IsObject(el)) return fail(c, "a nested Window needs a container element");
    const char *local = opt_string(el, "localName", NULL, &bad);
    r->c_id = opt_string(el, "id", "", &bad);
    if (same(local, "iframe") || same(local, "frame")) r->c_src = opt_string(el, "src", "", &bad);
    else if (same(local, "object")) r->c_src = opt_string(el, "data", "", &bad);
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
    const cJSON *el = cJSON_GetObjectItemCaseSensitive(r->src, "container");
    if (r->parent < 0) {
        if (el && !cJSON_IsNull(el)) return fail(c, "a top-level Window has no container");
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

static int explicit_token(ctx *c, int i, const cJSON *tok)
{
    realm *r = &c->realms[i];
    const cJSON *cont = cJSON_GetObjectItemCaseSensitive(tok, "container");
    const cJSON *agg = cJSON_GetObjectItemCaseSensitive(tok, "crossOriginAggregated");
    int bad = 0;
    if (!cJSON_IsObject(tok) || (agg && !cJSON_IsBool(agg))) return fail(c, "malformed token");
    r->aggregated = cJSON_IsTrue(agg);
    r->owner = i;
    r->host_token = 1;
    if (!cont || cJSON_IsNull(cont)) {
        r->c_id = r->c_src = NULL;
    } else if (cJSON_IsObject(cont)) {
        r->c_id = opt_string(cont, "id", "", &bad);
        r->c_src = opt_string(cont, "src", "", &bad);
    } else {
        bad = 1;
    }
    return bad ? fail(c, "malformed token container") : PS_OK;
}

static int resolve_one(ctx *c, int i)
{
    realm *r = &c->realms[i];
    r->top = r->parent < 0 ? r->origin : c->realms[r->parent].top;
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(r->src, "token");
    if (tok && !cJSON_IsNull(tok)) return explicit_token(c, i, tok);
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

static int parse_realms(ctx *c, const cJSON *arr)
{
    if (arr && !cJSON_IsArray(arr)) return fail(c, "realms must be an array");
    c->n_realms = cJSON_GetArraySize(arr);
    if (!c->n_realms) return PS_OK;
    size_t n = (size_t)c->n_realms;
    c->realms = calloc(n, sizeof *c->realms);
    c->chain = calloc(n, sizeof *c->chain);
    c->seen_self = calloc(n, sizeof *c->seen_self);
    c->seen_agg = calloc(n, sizeof *c->seen_agg);
    c->fold_into = calloc(n, sizeof *c->fold_into);
    if (!c->realms || !c->chain || !c->seen_self || !c->seen_agg || !c->fold_into) return PS_E_NOMEM;
    int i = 0;
    for (const cJSON *it = arr->child; it; it = it->next, i++) {
        realm *r = &c->realms[i];
        int bad = 0;
        if (!cJSON_IsObject(it)) return fail(c, "a realm must be an object");
        r->src = it;
        r->url = opt_string(it, "url", NULL, &bad);
        r->scope = opt_string(it, "scope", NULL, &bad);
        r->origin = opt_string(it, "origin", NULL, &bad);
        if (bad || !r->url || !r->scope) return fail(c, "a realm needs string url and scope");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "parent");
        r->parent = -1;
        if (p && !cJSON_IsNull(p)) {
            if (!cJSON_IsNumber(p) || p->valuedouble < 0 || p->valuedouble >= c->n_realms ||
                p->valuedouble != floor(p->valuedouble) || (int)p->valuedouble == i)
                return fail(c, "realm parent must be the index of another realm");
            r->parent = (int)p->valuedouble;
        }
    }
    for (i = 0; i < c->n_realms; i++) {
        int st = resolve(c, i);
        if (st != PS_OK) return st;
    }
    return PS_OK;
}

/* Create a new memory attribution (§ Converting an intermediate memory measurement). */
static cJSON *new_attribution(const realm *r)
{
    cJSON *a = cJSON_CreateObject();
    if (!a) return NULL;
    int ok = cJSON_AddStringToObject(a, "url", r->aggregated ? "cross-origin-url" : r->url) != NULL;
    if (ok && r->c_id) {
        cJSON *cont = cJSON_AddObjectToObject(a, "container");
        ok = cont && cJSON_AddStringToObject(cont, "id", r->c_id) &&
             cJSON_AddStringToObject(cont, "src", r->c_src);
    }
    ok = ok && cJSON_AddStringToObject(a, "scope", r->aggregated ? "cross-origin-aggregated" : r->scope);
    if (!ok) { cJSON_Delete(a); return NULL; }
    return a;
}

static int has_string(const cJSON *arr, const char *s)
{
    for (const cJSON *it = arr->child; it; it = it->next)
        if (strcmp(it->valuestring, s) == 0) return 1;
    return 0;
}

/* Append the strings of `from` (validated) to the set `to`. */
static int union_types(ctx *c, cJSON *to, const cJSON *from)
{
    if (!from) return PS_OK;
    if (!cJSON_IsArray(from)) return fail(c, "types must be an array of strings");
    for (const cJSON *it = from->child; it; it = it->next) {
        if (!cJSON_IsString(it)) return fail(c, "types must be an array of strings");
        if (has_string(to, it->valuestring)) continue;
        cJSON *s = cJSON_CreateString(it->valuestring);
        if (!s || !cJSON_AddItemToArray(to, s)) { cJSON_Delete(s); return PS_E_NOMEM; }
    }
    return PS_OK;
}

static int parse_bytes(const cJSON *v, double *out)
{
    if (!cJSON_IsNumber(v)) return 0;
    double b = v->valuedouble;
    if (!(b >= 0) || b > 9007199254740992.0 || b != floor(b)) return 0;
    *out = b;
    return 1;
}

/* One intermediate entry: its attribution (one per distinct realm; realms aggregated under the
 * same cross-origin container give that container's attribution once) and its types. */
static int parse_entry(ctx *c, int index, const cJSON *it)
{
    entry *e = &c->entries[index];
    if (!cJSON_IsObject(it)) return fail(c, "an entry must be an object");
    if (!parse_bytes(cJSON_GetObjectItemCaseSensitive(it, "bytes"), &e->bytes))
        return fail(c, "entry bytes must be an integer in [0, 2^53]");
    const cJSON *remote = cJSON_GetObjectItemCaseSensitive(it, "remote");
    if (remote && !cJSON_IsBool(remote)) return fail(c, "entry remote must be a boolean");
    if (cJSON_IsTrue(remote)) e->bytes = 0; /* outside the current address space */
    e->key = -1;
    e->attribution = cJSON_CreateArray();
    e->types = cJSON_CreateArray();
    if (!e->attribution || !e->types) return PS_E_NOMEM;
    int st = union_types(c, e->types, cJSON_GetObjectItemCaseSensitive(it, "types"));
    if (st != PS_OK) return st;
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(it, "realms");
    if (rs && !cJSON_IsArray(rs)) return fail(c, "entry realms must be an array");
    int n = 0, aggregated = 0, key = -1, stamp = index + 1;
    for (const cJSON *ri = rs ? rs->child : NULL; ri; ri = ri->next) {
        if (!cJSON_IsNumber(ri) || ri->valuedouble < 0 || ri->valuedouble >= c->n_realms ||
            ri->valuedouble != floor(ri->valuedouble))
            return fail(c, "entry realms must be realm indexes");
        const realm *r = &c->realms[(int)ri->valuedouble];
        /* A set of realms; aggregated realms collapse onto their container's attribution. */
        int *seen = r->aggregated ? &c->seen_agg[r->owner] : &c->seen_self[(int)ri->valuedouble];
        if (*seen == stamp) continue;
        *seen = stamp;
        cJSON *a = new_attribution(r);
        if (!a || !cJSON_AddItemToArray(e->attribution, a)) { cJSON_Delete(a); return PS_E_NOMEM; }
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
        int st = union_types(c, e->types, f->types);
        if (st != PS_OK) return st;
        f->merged = 1;
    }
    return PS_OK;
}

static cJSON *new_entry_object(double bytes, cJSON *attribution, cJSON *types)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddNumberToObject(o, "bytes", bytes)) goto fail;
    if (!cJSON_AddItemToObject(o, "attribution", attribution)) goto fail;
    attribution = NULL;
    if (!cJSON_AddItemToObject(o, "types", types)) goto fail;
    return o;
fail:
    cJSON_Delete(o);
    cJSON_Delete(attribution);
    cJSON_Delete(types);
    return NULL;
}

/* Create a new memory measurement, and inside it create a new memory breakdown entry for each
 * intermediate entry (§ Converting an intermediate memory measurement to the result): total,
 * the extra zero-byte entry, then the order of breakdown and of each types list randomized. */
static int create_measurement(ctx *c, int with_breakdown, cJSON **out)
{
    double bytes = 0;
    for (int i = 0; i < c->n_entries; i++)
        if (!c->entries[i].merged) bytes += c->entries[i].bytes;
    cJSON *m = cJSON_CreateObject();
    if (!m) return PS_E_NOMEM;
    *out = m; /* freed by the caller, also on failure */
    if (!cJSON_AddNumberToObject(m, "bytes", bytes)) return PS_E_NOMEM;
    cJSON *bd = cJSON_AddArrayToObject(m, "breakdown");
    if (!bd) return PS_E_NOMEM;
    if (!with_breakdown) return PS_OK;
    cJSON *zero = new_entry_object(0, cJSON_CreateArray(), cJSON_CreateArray());
    if (!zero || !cJSON_AddItemToArray(bd, zero)) { cJSON_Delete(zero); return PS_E_NOMEM; }
    for (int i = 0; i < c->n_entries; i++) {
        entry *e = &c->entries[i];
        if (e->merged) continue;
        int st = shuffle_array(c, e->types);
        if (st != PS_OK) return st;
        cJSON *o = new_entry_object(e->bytes, e->attribution, e->types);
        e->attribution = e->types = NULL; /* moved (or freed on failure) */
        if (!o || !cJSON_AddItemToArray(bd, o)) { cJSON_Delete(o); return PS_E_NOMEM; }
    }
    return shuffle_array(c, bd);
}

static int build(ctx *c, const cJSON *in, cJSON **out)
{
    if (!cJSON_IsObject(in)) return fail(c, "the intermediate measurement must be a JSON object");
    int st = parse_realms(c, cJSON_GetObjectItemCaseSensitive(in, "realms"));
    if (st != PS_OK) return st;
    const cJSON *es = cJSON_GetObjectItemCaseSensitive(in, "entries");
    if (es && !cJSON_IsArray(es)) return fail(c, "entries must be an array");
    c->n_entries = cJSON_GetArraySize(es);
    if (c->n_entries) {
        c->entries = calloc((size_t)c->n_entries, sizeof *c->entries);
        if (!c->entries) return PS_E_NOMEM;
        int i = 0;
        for (const cJSON *it = es->child; it; it = it->next, i++)
            if ((st = parse_entry(c, i, it)) != PS_OK) return st;
    }
    if ((st = aggregate(c)) != PS_OK) return st;
    const cJSON *bd = cJSON_GetObjectItemCaseSensitive(in, "breakdown");
    if (bd && !cJSON_IsBool(bd)) return fail(c, "breakdown must be a boolean");
    return create_measurement(c, !cJSON_IsFalse(bd), out);
}

PS_API int32_t ps_memory_build(uint32_t len, uint32_t seed)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.rng = ((uint64_t)seed << 32) ^ seed ^ 0x5DEECE66Dull;
    cJSON *in = cJSON_ParseWithLength((const char *)ps__exchange_bytes(), len);
    cJSON *out = NULL;
    int st = in ? build(&c, in, &out) : fail(&c, "the intermediate measurement is not valid JSON");
    for (int i = 0; i < c.n_entries; i++) {
        cJSON_Delete(c.entries[i].attribution);
        cJSON_Delete(c.entries[i].types);
    }
    free(c.entries);
    free(c.realms);
    free(c.chain);
    free(c.seen_self);
    free(c.seen_agg);
    free(c.fold_into);
    cJSON_Delete(in);
    if (st == PS_OK) {
        char *s = cJSON_PrintUnformatted(out);
        if (!s) st = PS_E_NOMEM;
        else ps__blob_set((const uint8_t *)s, (uint32_t)strlen(s), 1);
    }
    cJSON_Delete(out);
    if (st == PS_E_PARSE) set_result_msg(c.msg);
    else if (st != PS_OK) set_result_msg("out of memory while building the measurement");
    return st;
}
