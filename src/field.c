/*
 * field.c — field profiling: the upload of one visit (field.h gives the byte layout), its
 * validating decoder, and aggregates of many visits.
 *
 * Encoder: a trace of the core (trace.c) with the visit's marks, measures and labels. It keeps
 * every `stride`-th sample, marks the stacks those samples use and their ancestors, the frames
 * and resources of those, and renumbers each list in its old order (so a parent still precedes
 * its child); strings are interned in a pool (pool.c) as they are written, so each is sent once.
 * O(samples + stacks + frames) and one pass over the strings.
 *
 * Decoder: every byte is hostile. The whole upload is parsed and checked into scratch arrays
 * before anything reaches the trace: the size first, every count against the bytes left (each
 * element takes at least one byte per field) before it is allocated, varints against their type,
 * ids against the lists before them, stack depth, times against 2^53 µs, strings against their
 * cap and UTF-8 (WTF-8: a lone surrogate is allowed, as a JS string can hold one), label names
 * against [a-zA-Z_][a-zA-Z0-9_]{0,63} and their values' length. Then frames and stacks are
 * interned into the trace and the samples appended. O(bytes).
 *
 * Aggregates: a trace handle used as a trie only (its frames and stacks, no samples) plus a
 * count and a time per stack. Invariants: the trie has at most `max_stacks` stacks; stack 0 is
 * "(other)"; counts and times are >= 0. Once the cap is reached, lookups add nothing (pool and
 * trie finds), so a merge can no longer grow the aggregate: a stack that is not there (and all
 * its descendants) counts under "(other)". A merge costs O(samples + stacks used) lookups.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "field.h"
#include "trace.h"
#include "trace_internal.h"

#define MAX_US 9007199254740992.0 /* 2^53: every µs count up to it is an exact double */

/* ---- writing ------------------------------------------------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t len, cap;
    int err;
} wbuf;

static void put_bytes(wbuf *w, const uint8_t *s, size_t n)
{
    if (w->err || !n) return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->len + n) cap *= 2;
        uint8_t *q = cap > PS_EXCHANGE_MAX ? 0 : realloc(w->p, cap);
        if (!q) { w->err = 1; return; }
        w->p = q;
        w->cap = cap;
    }
    memcpy(w->p + w->len, s, n);
    w->len += n;
}

static void put_var(wbuf *w, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) b[n] |= 0x80;
        n++;
    } while (v);
    put_bytes(w, b, n);
}

static uint64_t zigzag(int64_t v) { return v < 0 ? ((uint64_t)(-(v + 1)) << 1) | 1 : (uint64_t)v << 1; }
static int64_t unzigzag(uint64_t v) { return v & 1 ? -(int64_t)(v >> 1) - 1 : (int64_t)(v >> 1); }

/* ---- checks shared by both directions ------------------------------------------------------- */

/* Well-formed UTF-8, lone surrogates allowed (WTF-8): no overlong form, nothing past U+10FFFF. */
static int utf8_ok(const uint8_t *s, uint32_t n)
{
    for (uint32_t i = 0; i < n;) {
        uint8_t c = s[i];
        if (c < 0x80) { i++; continue; }
        uint32_t k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 ? 1 : 0;
        if (!k || c > 0xf4 || n - i <= k) return 0;
        uint32_t cp = c & (0x3f >> k);
        for (uint32_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80) return 0;
            cp = cp << 6 | (s[i + j] & 0x3f);
        }
        if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
        i += k + 1;
    }
    return 1;
}

static int label_name_ok(const uint8_t *s, uint32_t n)
{
    if (n < 1 || n > 64) return 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!alpha && (i == 0 || c < '0' || c > '9')) return 0;
    }
    return 1;
}

/* A time in ms as whole µs, 0 when it is not finite or past 2^53 µs. */
static int to_us(double ms, int64_t *us)
{
    double v = round(ms * 1000);
    if (!(fabs(v) <= MAX_US)) return 0;
    *us = (int64_t)v;
    return 1;
}

static int32_t bad(uint32_t what, double where)
{
    double *o = ps_out_ptr();
    o[0] = what;
    o[1] = where;
    return PS_E_PARSE;
}

/* The longest prefix of `n` UTF-8 bytes that fits PS_FIELD_MAX_STRING, cut between characters. */
static uint32_t clip(const uint8_t *s, uint32_t n)
{
    if (n <= PS_FIELD_MAX_STRING) return n;
    n = PS_FIELD_MAX_STRING;
    while (n && (s[n] & 0xc0) == 0x80) n--;
    return n;
}

/* ---- encoder ------------------------------------------------------------------------------- */

typedef struct {
    ps_pool pool;
    wbuf strings; /* the string section, in id order */
} strtab;

static uint32_t str_id(strtab *t, const uint8_t *s, uint32_t n, int *err)
{
    n = clip(s, n);
    uint32_t before = t->pool.ids;
    int32_t id = ps__pool_intern(&t->pool, s, n);
    if (id < 0) { *err = 1; return 0; }
    if ((uint32_t)id == before) { /* new: ids are dense, nothing is ever released */
        put_var(&t->strings, n);
        put_bytes(&t->strings, s, n);
    }
    return (uint32_t)id;
}

static void strtab_free(strtab *t)
{
    for (uint32_t i = 0; i < t->pool.ids; i++) free(t->pool.str[i]);
    free(t->pool.str); free(t->pool.len); free(t->pool.hash); free(t->pool.slots);
    ps__vec_free(&t->pool.free_ids);
    free(t->strings.p);
}

enum { E_WORDS = 5, L_WORDS = 4 };

/* Whether an (offset, length) pair of f64 names whole bytes inside the `bytes` of strings. */
static int span_ok(const double *r, uint32_t bytes)
{
    return r[0] >= 0 && r[1] >= 0 && r[0] + r[1] <= bytes && r[0] == floor(r[0]) && r[1] == floor(r[1]);
}

PS_API int32_t ps_field_encode(int32_t h, uint32_t n_entries, uint32_t n_labels, uint32_t bytes,
                               uint32_t stride, double interval_ms)
{
    if (ps_trace_info(h) != PS_OK || stride < 1) return PS_E_ARG;
    const double *o = ps_out_ptr();
    uint32_t nf = (uint32_t)o[1], ns = (uint32_t)o[2], nsm = (uint32_t)o[3];
    uint64_t words = (uint64_t)n_entries * E_WORDS + (uint64_t)n_labels * L_WORDS;
    const double *E = (const double *)(const void *)ps__exchange_read(words * 8 + bytes);
    if (!E) return PS_E_ARG;
    const double *L = E + (size_t)n_entries * E_WORDS;
    const uint8_t *b = (const uint8_t *)(L + (size_t)n_labels * L_WORDS);
    int64_t interval_us;
    if (!to_us(interval_ms, &interval_us) || interval_us < 0) interval_us = 0;
    /* The entries and labels the decoder would refuse, before any work. */
    if (n_entries > PS_FIELD_MAX_ENTRIES) return bad(PS_FIELD_BAD_COUNT, n_entries);
    if (n_labels > PS_FIELD_MAX_LABELS) return bad(PS_FIELD_BAD_COUNT, n_labels);
    for (uint32_t i = 0; i < n_entries; i++) {
        const double *e = E + (size_t)i * E_WORDS;
        int64_t us;
        if (!span_ok(e, bytes)) return PS_E_ARG;
        if (!utf8_ok(b + (size_t)e[0], (uint32_t)e[1])) return bad(PS_FIELD_BAD_UTF8, i);
        if (e[2] != 0 && e[2] != 1) return bad(PS_FIELD_BAD_ENTRY_TYPE, i);
        if (!to_us(e[3], &us) || !to_us(e[4], &us)) return bad(PS_FIELD_BAD_TIME, i);
    }
    for (uint32_t i = 0; i < n_labels; i++) {
        const double *l = L + (size_t)i * L_WORDS;
        if (!span_ok(l, bytes) || !span_ok(l + 2, bytes)) return PS_E_ARG;
        if (!label_name_ok(b + (size_t)l[0], (uint32_t)l[1])) return bad(PS_FIELD_BAD_LABEL_NAME, i);
        for (uint32_t j = 0; j < i; j++)
            if (L[j * L_WORDS + 1] == l[1] && !memcmp(b + (size_t)L[j * L_WORDS], b + (size_t)l[0], (size_t)l[1]))
                return bad(PS_FIELD_BAD_LABEL_NAME, i);
        if (l[3] > PS_FIELD_MAX_LABEL_VALUE) return bad(PS_FIELD_BAD_LABEL_VALUE, i);
        if (!utf8_ok(b + (size_t)l[2], (uint32_t)l[3])) return bad(PS_FIELD_BAD_UTF8, i);
    }
    const uint32_t *fname = ps_trace_column(h, PS_COL_FRAME_NAME);
    const int32_t *fres = ps_trace_column(h, PS_COL_FRAME_RESOURCE);
    const uint32_t *fline = ps_trace_column(h, PS_COL_FRAME_LINE);
    const uint32_t *fcol = ps_trace_column(h, PS_COL_FRAME_COLUMN);
    const int32_t *sp = ps_trace_column(h, PS_COL_STACK_PARENT);
    const uint32_t *sf = ps_trace_column(h, PS_COL_STACK_FRAME);
    const double *ts = ps_trace_column(h, PS_COL_SAMPLE_TIME);
    const int32_t *st = ps_trace_column(h, PS_COL_SAMPLE_STACK);
    const uint8_t *mk = ps_trace_column(h, PS_COL_SAMPLE_MARKER);
    uint32_t nres = ps__trace_string_count(h, PS_STRINGS_RESOURCES);
    /* New ids, -1 = not sent. Kept samples' stacks and their ancestors (parents come first, so
     * one pass downwards), their frames, those frames' resources, each renumbered in order. */
    int32_t *smap = malloc(((size_t)ns + nf + nres + 1) * 4);
    if (!smap) return PS_E_NOMEM;
    int32_t *fmap = smap + ns, *rmap = fmap + nf;
    memset(smap, 0xff, ((size_t)ns + nf + nres) * 4);
    for (uint32_t i = 0; i < nsm; i += stride)
        if (st[i] >= 0) smap[st[i]] = 0;
    for (uint32_t s = ns; s-- > 0;)
        if (smap[s] == 0 && sp[s] >= 0) smap[sp[s]] = 0;
    uint32_t n_s = 0, n_f = 0, n_r = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (smap[s] == 0) { smap[s] = (int32_t)n_s++; fmap[sf[s]] = 0; }
    for (uint32_t f = 0; f < nf; f++)
        if (fmap[f] == 0) { fmap[f] = (int32_t)n_f++; if (fres[f] >= 0) rmap[fres[f]] = 0; }
    for (uint32_t r = 0; r < nres; r++)
        if (rmap[r] == 0) rmap[r] = (int32_t)n_r++;

    strtab tab = {0};
    wbuf w = {0};
    int err = 0;
    uint32_t len;
    const uint8_t *s;
    put_var(&w, n_r);
    for (uint32_t r = 0; r < nres; r++) {
        if (rmap[r] < 0) continue;
        s = ps__trace_string(h, PS_STRINGS_RESOURCES, r, &len);
        put_var(&w, str_id(&tab, s, len, &err));
    }
    put_var(&w, n_f);
    for (uint32_t f = 0; f < nf; f++) {
        if (fmap[f] < 0) continue;
        s = ps__trace_string(h, PS_STRINGS_NAMES, fname[f], &len);
        put_var(&w, str_id(&tab, s, len, &err));
        put_var(&w, fres[f] >= 0 ? (uint64_t)rmap[fres[f]] + 1 : 0);
        put_var(&w, fline[f] <= 0x7fffffffu ? fline[f] : 0);
        put_var(&w, fcol[f] <= 0x7fffffffu ? fcol[f] : 0);
    }
    put_var(&w, n_s);
    for (uint32_t i = 0; i < ns; i++) {
        if (smap[i] < 0) continue;
        put_var(&w, (uint64_t)fmap[sf[i]]);
        put_var(&w, sp[i] >= 0 ? (uint64_t)(smap[i] - smap[sp[i]]) : 0);
    }
    uint32_t kept = nsm ? (nsm - 1) / stride + 1 : 0;
    put_var(&w, kept);
    int64_t prev = 0;
    if (kept && !to_us(ts[0], &prev)) err = 2;
    put_var(&w, zigzag(prev));
    for (uint32_t i = 0; i < nsm && !err; i += stride) {
        int64_t us;
        if (!to_us(ts[i], &us)) { err = 2; break; }
        put_var(&w, (uint64_t)(us - prev)); /* samples are in time order (trace.c) */
        prev = us;
        put_var(&w, (uint64_t)(st[i] >= 0 ? smap[st[i]] + 1 : 0) << 3 | mk[i]);
    }
    put_var(&w, n_entries);
    for (uint32_t i = 0; i < n_entries; i++) {
        const double *e = E + (size_t)i * E_WORDS;
        int64_t start = 0, dur = 0;
        to_us(e[3], &start);
        to_us(e[4], &dur);
        put_var(&w, str_id(&tab, b + (size_t)e[0], (uint32_t)e[1], &err));
        put_var(&w, (uint64_t)e[2]);
        put_var(&w, zigzag(start));
        put_var(&w, zigzag(dur));
    }
    put_var(&w, n_labels);
    for (uint32_t i = 0; i < n_labels; i++) {
        const double *l = L + (size_t)i * L_WORDS;
        put_var(&w, str_id(&tab, b + (size_t)l[0], (uint32_t)l[1], &err));
        put_var(&w, str_id(&tab, b + (size_t)l[2], (uint32_t)l[3], &err));
    }
    /* Head: magic, interval, strings; then the body. */
    wbuf out = {0};
    static const uint8_t magic[4] = {'P', 'S', 'F', 1};
    put_bytes(&out, magic, 4);
    put_var(&out, (uint64_t)interval_us);
    put_var(&out, tab.pool.ids);
    put_bytes(&out, tab.strings.p, tab.strings.len);
    put_bytes(&out, w.p, w.len);
    int32_t status = err == 2 ? bad(PS_FIELD_BAD_TIME, 0)
                     : err || w.err || out.err || tab.strings.err ? PS_E_NOMEM
                     : out.len > PS_EXCHANGE_MAX ? PS_E_NOMEM : (int32_t)out.len;
    free(smap);
    free(w.p);
    strtab_free(&tab);
    if (status < 0) { free(out.p); return status; }
    ps__blob_set(out.p, (uint32_t)out.len, 1);
    return status;
}

/* ---- decoder ------------------------------------------------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t at, len;
    uint32_t what; /* PS_FIELD_BAD_* of the first failure, 0 while all is well */
    size_t where;
} reader;

static int fail(reader *r, uint32_t what)
{
    if (!r->what) { r->what = what; r->where = r->at; }
    return 0;
}

/* A varint of at most 64 bits (`max` its largest allowed value). */
static int get_var(reader *r, uint64_t max, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (r->at >= r->len) return fail(r, PS_FIELD_BAD_TRUNCATED);
        uint8_t c = r->p[r->at++];
        if (shift == 63 && c > 1) return fail(r, PS_FIELD_BAD_VARINT);
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) break;
        if (shift == 63) return fail(r, PS_FIELD_BAD_VARINT);
    }
    if (x > max) return fail(r, PS_FIELD_BAD_VARINT);
    *v = x;
    return 1;
}

static int get_u32(reader *r, uint32_t *v)
{
    uint64_t x;
    if (!get_var(r, UINT32_MAX, &x)) return 0;
    *v = (uint32_t)x;
    return 1;
}

/* An id below `n` (`what` names the failure). */
static int get_id(reader *r, uint32_t n, uint32_t what, uint32_t *v)
{
    size_t at = r->at;
    if (!get_u32(r, v)) return 0;
    if (*v >= n) { r->at = at; return fail(r, what); }
    return 1;
}

/* A count of elements of at least `min_bytes` bytes each, at most `limit`: bounded by the bytes
 * left before anything is allocated for it. */
static int get_count(reader *r, uint32_t min_bytes, uint32_t limit, uint32_t *n)
{
    size_t at = r->at;
    if (!get_u32(r, n)) return 0;
    if (*n > limit || (uint64_t)*n * min_bytes > r->len - r->at) { r->at = at; return fail(r, PS_FIELD_BAD_COUNT); }
    return 1;
}

/* A time in µs, zigzag-encoded, within 2^53. */
static int get_time(reader *r, int64_t *v)
{
    uint64_t x;
    size_t at = r->at;
    if (!get_var(r, UINT64_MAX, &x)) return 0;
    *v = unzigzag(x);
    if (!(fabs((double)*v) <= MAX_US)) { r->at = at; return fail(r, PS_FIELD_BAD_TIME); }
    return 1;
}

/* What the last decode kept for ps_field_labels / ps_field_entries. */
static struct {
    uint8_t *bytes;       /* a copy of the upload the strings point into */
    uint32_t *str_at, *str_len;
    uint32_t *label;      /* 2 per label: name id, value id */
    uint32_t nlabels;
    uint32_t *entry_name; /* 1 per entry */
    double *entry;        /* 3 per entry */
    uint32_t nentries;
    uint8_t *blob;
} last;

static void last_clear(void)
{
    if (last.blob && ps_blob_ptr() == last.blob) ps_blob_release();
    free(last.bytes); free(last.str_at); free(last.str_len); free(last.label);
    free(last.entry_name); free(last.entry); free(last.blob);
    memset(&last, 0, sizeof(last));
}

typedef struct {
    uint32_t nstr, nres, nf, ns, nsm;
    uint32_t *str_at, *str_len, *res, *frame, *stack, *sample_stack;
    uint8_t *sample_marker;
    double *sample_time;
    double interval_ms;
} visit;

static void visit_free(visit *v)
{
    free(v->str_at); free(v->str_len); free(v->res); free(v->frame); free(v->stack);
    free(v->sample_stack); free(v->sample_marker); free(v->sample_time);
}

/* Parse and check the whole upload into `v` and `last` (lists allocated once their count is
 * bounded). Returns 1, or 0 with r->what set, or -1 out of memory. */
static int parse(reader *r, visit *v)
{
    uint64_t x;
    if (r->len < 4 || memcmp(r->p, "PSF\x01", 4)) return fail(r, PS_FIELD_BAD_MAGIC);
    r->at = 4;
    if (!get_var(r, (uint64_t)MAX_US, &x)) return 0;
    v->interval_ms = (double)x / 1000;
    /* strings */
    if (!get_count(r, 1, UINT32_MAX, &v->nstr)) return 0;
    v->str_at = malloc(((size_t)v->nstr + 1) * 4);
    v->str_len = malloc(((size_t)v->nstr + 1) * 4);
    if (!v->str_at || !v->str_len) return -1;
    for (uint32_t i = 0; i < v->nstr; i++) {
        uint32_t n;
        size_t at = r->at;
        if (!get_u32(r, &n)) return 0;
        if (n > PS_FIELD_MAX_STRING) { r->at = at; return fail(r, PS_FIELD_BAD_STRING); }
        if (n > r->len - r->at) return fail(r, PS_FIELD_BAD_TRUNCATED);
        if (!utf8_ok(r->p + r->at, n)) return fail(r, PS_FIELD_BAD_UTF8);
        v->str_at[i] = (uint32_t)r->at;
        v->str_len[i] = n;
        r->at += n;
    }
    /* resources */
    if (!get_count(r, 1, UINT32_MAX, &v->nres)) return 0;
    if (!(v->res = malloc(((size_t)v->nres + 1) * 4))) return -1;
    for (uint32_t i = 0; i < v->nres; i++)
        if (!get_id(r, v->nstr, PS_FIELD_BAD_STRING_ID, &v->res[i])) return 0;
    /* frames: name, resource + 1, line, column */
    if (!get_count(r, 4, UINT32_MAX, &v->nf)) return 0;
    if (!(v->frame = malloc(((size_t)v->nf * 4 + 1) * 4))) return -1;
    for (uint32_t i = 0; i < v->nf; i++) {
        uint32_t *f = v->frame + (size_t)i * 4;
        if (!get_id(r, v->nstr, PS_FIELD_BAD_STRING_ID, &f[0])) return 0;
        if (!get_id(r, v->nres + 1, PS_FIELD_BAD_RESOURCE_ID, &f[1])) return 0;
        for (int k = 2; k < 4; k++)
            if (!get_id(r, 0x80000000u, PS_FIELD_BAD_LINE, &f[k])) return 0;
    }
    /* stacks: frame, gap to the parent; depth from the parent's, which comes first */
    if (!get_count(r, 2, UINT32_MAX, &v->ns)) return 0;
    if (!(v->stack = malloc(((size_t)v->ns * 3 + 1) * 4))) return -1;
    for (uint32_t i = 0; i < v->ns; i++) {
        uint32_t *s = v->stack + (size_t)i * 3, gap;
        if (!get_id(r, v->nf, PS_FIELD_BAD_FRAME_ID, &s[0])) return 0;
        if (!get_id(r, i + 1, PS_FIELD_BAD_PARENT, &gap)) return 0;
        s[1] = gap ? i - gap : UINT32_MAX;
        s[2] = gap ? v->stack[(size_t)s[1] * 3 + 2] + 1 : 1;
        if (s[2] > PS_FIELD_MAX_DEPTH) return fail(r, PS_FIELD_BAD_DEPTH);
    }
    /* samples: first time, then (delta, stack + 1 << 3 | marker) */
    if (!get_count(r, 2, UINT32_MAX, &v->nsm)) return 0;
    int64_t t;
    if (!get_time(r, &t)) return 0;
    v->sample_time = malloc(((size_t)v->nsm + 1) * 8);
    v->sample_stack = malloc(((size_t)v->nsm + 1) * 4);
    v->sample_marker = malloc((size_t)v->nsm + 1);
    if (!v->sample_time || !v->sample_stack || !v->sample_marker) return -1;
    for (uint32_t i = 0; i < v->nsm; i++) {
        size_t at = r->at;
        if (!get_var(r, (uint64_t)MAX_US * 2, &x)) return 0;
        t += (int64_t)x;
        if (!(fabs((double)t) <= MAX_US)) { r->at = at; return fail(r, PS_FIELD_BAD_TIME); }
        at = r->at;
        if (!get_var(r, UINT64_MAX, &x)) return 0;
        if ((x >> 3) > v->ns) { r->at = at; return fail(r, PS_FIELD_BAD_STACK_ID); }
        if ((x & 7) >= PS_MARKER_COUNT) { r->at = at; return fail(r, PS_FIELD_BAD_MARKER); }
        v->sample_time[i] = (double)t / 1000;
        v->sample_stack[i] = (uint32_t)(x >> 3); /* stack + 1, 0 = none */
        v->sample_marker[i] = (uint8_t)(x & 7);
    }
    /* entries: name, type, start, duration */
    if (!get_count(r, 4, PS_FIELD_MAX_ENTRIES, &last.nentries)) return 0;
    last.entry_name = malloc(((size_t)last.nentries + 1) * 4);
    last.entry = malloc(((size_t)last.nentries * 3 + 1) * 8);
    if (!last.entry_name || !last.entry) return -1;
    for (uint32_t i = 0; i < last.nentries; i++) {
        uint32_t type;
        int64_t start, dur;
        if (!get_id(r, v->nstr, PS_FIELD_BAD_STRING_ID, &last.entry_name[i])) return 0;
        if (!get_id(r, 2, PS_FIELD_BAD_ENTRY_TYPE, &type)) return 0;
        if (!get_time(r, &start) || !get_time(r, &dur)) return 0;
        last.entry[i * 3] = type;
        last.entry[i * 3 + 1] = (double)start / 1000;
        last.entry[i * 3 + 2] = (double)dur / 1000;
    }
    /* labels: name, value */
    if (!get_count(r, 2, PS_FIELD_MAX_LABELS, &last.nlabels)) return 0;
    if (!(last.label = malloc(((size_t)last.nlabels * 2 + 1) * 4))) return -1;
    for (uint32_t i = 0; i < last.nlabels; i++) {
        uint32_t *l = last.label + (size_t)i * 2;
        size_t at = r->at;
        if (!get_id(r, v->nstr, PS_FIELD_BAD_STRING_ID, &l[0])) return 0;
        int ok = label_name_ok(r->p + v->str_at[l[0]], v->str_len[l[0]]);
        for (uint32_t j = 0; j < i && ok; j++) ok = last.label[j * 2] != l[0]; /* strings are unique */
        if (!ok) { r->at = at; return fail(r, PS_FIELD_BAD_LABEL_NAME); }
        at = r->at;
        if (!get_id(r, v->nstr, PS_FIELD_BAD_STRING_ID, &l[1])) return 0;
        if (v->str_len[l[1]] > PS_FIELD_MAX_LABEL_VALUE) { r->at = at; return fail(r, PS_FIELD_BAD_LABEL_VALUE); }
    }
    if (r->at != r->len) return fail(r, PS_FIELD_BAD_TRAILING);
    return 1;
}

PS_API int32_t ps_field_decode(int32_t h, uint32_t len)
{
    if (ps_trace_info(h) != PS_OK) return PS_E_ARG;
    if (len > PS_FIELD_MAX_BYTES) return bad(PS_FIELD_BAD_SIZE, PS_FIELD_MAX_BYTES);
    const uint8_t *in = ps__exchange_read(len);
    if (!in) return PS_E_ARG;
    last_clear();
    if (!(last.bytes = malloc(len ? len : 1))) return PS_E_NOMEM;
    memcpy(last.bytes, in, len);
    reader r = {last.bytes, 0, len, 0, 0};
    visit v = {0};
    int ok = parse(&r, &v);
    int32_t st = ok < 0 ? PS_E_NOMEM : ok == 0 ? bad(r.what, (double)r.where) : PS_OK;
    /* Valid: intern frames and stacks (in order: a parent's id is known before its child's). */
    int32_t *fmap = st == PS_OK ? malloc(((size_t)v.nf + v.ns + 1) * 4) : 0;
    if (st == PS_OK && !fmap) st = PS_E_NOMEM;
    int32_t *smap = fmap ? fmap + v.nf : 0, added = 0;
    for (uint32_t i = 0; i < v.nf && st == PS_OK; i++) {
        const uint32_t *f = v.frame + (size_t)i * 4;
        const uint8_t *url = 0;
        uint32_t url_len = 0;
        if (f[1]) {
            uint32_t s = v.res[f[1] - 1];
            url = last.bytes + v.str_at[s];
            url_len = v.str_len[s];
        }
        fmap[i] = ps__trace_frame_of(h, last.bytes + v.str_at[f[0]], v.str_len[f[0]], url, url_len, f[2], f[3]);
        if (fmap[i] < 0) st = fmap[i];
    }
    for (uint32_t i = 0; i < v.ns && st == PS_OK; i++) {
        const uint32_t *s = v.stack + (size_t)i * 3;
        smap[i] = ps__trace_stack(h, s[1] == UINT32_MAX ? -1 : smap[s[1]], (uint32_t)fmap[s[0]]);
        if (smap[i] < 0) st = smap[i];
    }
    for (uint32_t i = 0; i < v.nsm && st == PS_OK; i++) {
        uint32_t s = v.sample_stack[i];
        int32_t k = ps_trace_sample(h, v.sample_time[i], s ? smap[s - 1] : -1, v.sample_marker[i]);
        if (k == PS_E_LIMIT) break;
        if (k < 0) st = k;
        else added++;
    }
    free(fmap);
    if (st == PS_OK) {
        last.str_at = v.str_at;
        last.str_len = v.str_len;
        v.str_at = v.str_len = 0;
        double *o = ps_out_ptr();
        o[0] = v.interval_ms;
        o[1] = last.nlabels;
        o[2] = last.nentries;
    } else {
        uint32_t what = r.what;
        size_t where = r.where;
        last_clear();
        if (st == PS_E_PARSE) bad(what, (double)where);
    }
    visit_free(&v);
    return st == PS_OK ? added : st;
}

/* The strings `ids[0..n)` of the last upload as the blob (borrowed), lengths as results. */
static int32_t strings_out(const uint32_t *ids, uint32_t n)
{
    if (!last.bytes) return PS_E_ARG;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += last.str_len[ids[i]];
    uint32_t *lens = ps__result_reserve(n ? n : 1);
    uint8_t *blob = malloc(total ? total : 1);
    if (!lens || !blob) { free(blob); return PS_E_NOMEM; }
    for (size_t i = 0, at = 0; i < n; i++) {
        memcpy(blob + at, last.bytes + last.str_at[ids[i]], last.str_len[ids[i]]);
        at += lens[i] = last.str_len[ids[i]];
    }
    if (last.blob && ps_blob_ptr() == last.blob) ps_blob_release();
    free(last.blob);
    last.blob = blob;
    ps__blob_set(blob, (uint32_t)total, 0);
    return (int32_t)n;
}

PS_API int32_t ps_field_labels(void) { return strings_out(last.label, last.nlabels * 2); }
PS_API int32_t ps_field_entries(void) { return strings_out(last.entry_name, last.nentries); }
PS_API const double *ps_field_entry_times(void) { return last.entry; }

/* ---- aggregates ---------------------------------------------------------------------------- */

typedef struct {
    int32_t trie;          /* a trace handle: frames and stacks only */
    double *count, *time;  /* per stack */
    uint32_t cap, max_stacks;
    uint32_t nstacks;      /* the trie's stacks (ids are given in order), kept here as it grows */
    double samples, ms;
} agg;

static agg **aggs;
static uint32_t aggs_cap;

static agg *agg_get(int32_t h)
{
    return h >= 1 && (uint32_t)h <= aggs_cap ? aggs[h - 1] : 0;
}

static uint32_t agg_stacks(const agg *a) { return a->nstacks; }

/* The frame (name, url, line, column) of the aggregate, added while under the cap, else found
 * or -1. */
static int32_t agg_frame(agg *a, const uint8_t *name, uint32_t nlen, const uint8_t *url, uint32_t ulen,
                         uint32_t line, uint32_t col)
{
    if (agg_stacks(a) < a->max_stacks) return ps__trace_frame_of(a->trie, name, nlen, url, ulen, line, col);
    int32_t f = ps__trace_frame_find(a->trie, name, nlen, url, ulen, line, col);
    return f < 0 ? -1 : f;
}

/* The stack (parent, frame `f` of the aggregate) of the aggregate, added while under the cap,
 * else found or -1. */
static int32_t agg_stack(agg *a, int32_t parent, int32_t f)
{
    if (f < 0) return -1;
    if (agg_stacks(a) >= a->max_stacks) return ps__trace_stack_find(a->trie, parent, (uint32_t)f);
    int32_t s = ps__trace_stack(a->trie, parent, (uint32_t)f);
    if (s < 0) return s;
    if ((uint32_t)s >= a->nstacks) a->nstacks = (uint32_t)s + 1;
    if ((uint32_t)s >= a->cap) {
        uint32_t cap = a->cap * 2;
        while (cap <= (uint32_t)s) cap *= 2;
        double *c = realloc(a->count, (size_t)cap * 8);
        if (c) a->count = c;
        double *t = c ? realloc(a->time, (size_t)cap * 8) : 0;
        if (!t) return PS_E_NOMEM;
        a->time = t;
        memset(a->count + a->cap, 0, (size_t)(cap - a->cap) * 8);
        memset(a->time + a->cap, 0, (size_t)(cap - a->cap) * 8);
        a->cap = cap;
    }
    return s;
}

/* The root stack named `n` (a marker's, "(other)"). */
static int32_t agg_root(agg *a, const char *n)
{
    return agg_stack(a, -1, agg_frame(a, (const uint8_t *)n, (uint32_t)strlen(n), 0, 0, 0, 0));
}

PS_API int32_t ps_field_agg_new(uint32_t max_stacks)
{
    if (max_stacks < 2) return PS_E_ARG;
    uint32_t slot = 0;
    while (slot < aggs_cap && aggs[slot]) slot++;
    if (slot == aggs_cap) {
        uint32_t cap = aggs_cap ? aggs_cap * 2 : 8;
        agg **p = cap > 0x40000000u ? 0 : realloc(aggs, (size_t)cap * sizeof(*p));
        if (!p) return PS_E_NOMEM;
        memset(p + aggs_cap, 0, (size_t)(cap - aggs_cap) * sizeof(*p));
        aggs = p;
        aggs_cap = cap;
    }
    agg *a = calloc(1, sizeof(agg));
    if (!a) return PS_E_NOMEM;
    a->max_stacks = max_stacks;
    a->cap = 64;
    a->count = calloc(a->cap, 8);
    a->time = calloc(a->cap, 8);
    a->trie = ps_trace_new(0);
    if (!a->count || !a->time || a->trie < 0 || agg_root(a, "(other)") != 0) {
        if (a->trie > 0) ps_trace_free(a->trie);
        free(a->count); free(a->time); free(a);
        return PS_E_NOMEM;
    }
    aggs[slot] = a;
    return (int32_t)slot + 1;
}

PS_API int32_t ps_field_agg_free(int32_t h)
{
    agg *a = agg_get(h);
    if (!a) return PS_E_ARG;
    ps_trace_free(a->trie);
    free(a->count); free(a->time); free(a);
    aggs[h - 1] = 0;
    return PS_OK;
}

static const char *const MARKER_ROOT[PS_MARKER_COUNT] = {
    "(idle)", "(script)", "(garbage collector)", "(style)", "(layout)", "(paint)", "(other work)"};

PS_API int32_t ps_field_agg_add(int32_t h, int32_t t, double interval_ms, uint32_t first, uint32_t end,
                                int32_t root)
{
    agg *a = agg_get(h);
    if (!a || a->trie == t || root < -1 || (root >= 0 && (uint32_t)root >= a->nstacks) ||
        ps_trace_info(t) != PS_OK)
        return PS_E_ARG;
    uint32_t nf = (uint32_t)ps_out_ptr()[1], ns = (uint32_t)ps_out_ptr()[2], nsm = (uint32_t)ps_out_ptr()[3];
    if (end > nsm) end = nsm;
    if (first >= end) return 0;
    const uint32_t *fname = ps_trace_column(t, PS_COL_FRAME_NAME);
    const int32_t *fres = ps_trace_column(t, PS_COL_FRAME_RESOURCE);
    const uint32_t *fline = ps_trace_column(t, PS_COL_FRAME_LINE);
    const uint32_t *fcol = ps_trace_column(t, PS_COL_FRAME_COLUMN);
    const int32_t *sp = ps_trace_column(t, PS_COL_STACK_PARENT);
    const uint32_t *sf = ps_trace_column(t, PS_COL_STACK_FRAME);
    const double *ts = ps_trace_column(t, PS_COL_SAMPLE_TIME);
    const int32_t *st = ps_trace_column(t, PS_COL_SAMPLE_STACK);
    const uint8_t *mk = ps_trace_column(t, PS_COL_SAMPLE_MARKER);
    if (!(interval_ms > 0) || !isfinite(interval_ms))
        interval_ms = nsm > 1 ? (ts[nsm - 1] - ts[0]) / (nsm - 1) : 0;
    /* The aggregate's stack of each source stack a sample uses: -2 not yet, 0 "(other)"; and its
     * frame of each source frame (-2 not yet, -1 none past the cap), so that a frame's strings are
     * looked up once per trace, not once per stack. Parents precede children, so each stack is
     * resolved from its parent's, walking up only to the first resolved ancestor (iteratively). */
    int32_t *map = malloc(((size_t)ns + nf + 1) * 4), *fmap = map + ns;
    ps_vec chain = {0};
    if (!map) return PS_E_NOMEM;
    for (uint32_t i = 0; i < ns + nf; i++) map[i] = -2;
    int32_t roots[PS_MARKER_COUNT], st_ = PS_OK;
    for (int k = 0; k < PS_MARKER_COUNT; k++) roots[k] = -2;
    for (uint32_t i = first; i < end && st_ == PS_OK; i++) {
        int32_t s = st[i], to;
        if (s < 0) {
            uint32_t m = mk[i] < PS_MARKER_COUNT ? mk[i] : 0;
            if (roots[m] == -2) {
                const char *n = MARKER_ROOT[m];
                roots[m] = root == 0 ? 0 : agg_stack(a, root, agg_frame(a, (const uint8_t *)n, (uint32_t)strlen(n), 0, 0, 0, 0));
                if (roots[m] == -1) roots[m] = 0;
            }
            to = roots[m];
        } else {
            chain.len = 0;
            for (int32_t c = s; c >= 0 && map[c] == -2; c = sp[c])
                if ((st_ = ps__vec_push(&chain, (uint32_t)c)) != PS_OK) break;
            while (chain.len && st_ == PS_OK) {
                uint32_t c = chain.v[--chain.len];
                int32_t parent = sp[c] >= 0 ? map[sp[c]] : root;
                if (parent == 0) { map[c] = 0; continue; } /* under "(other)" */
                uint32_t f = sf[c];
                if (fmap[f] == -2) {
                    uint32_t nlen, ulen = 0;
                    const uint8_t *name = ps__trace_string(t, PS_STRINGS_NAMES, fname[f], &nlen);
                    const uint8_t *url = fres[f] >= 0 ? ps__trace_string(t, PS_STRINGS_RESOURCES, (uint32_t)fres[f], &ulen) : 0;
                    fmap[f] = agg_frame(a, name, nlen, url, ulen, fline[f], fcol[f]);
                    if (fmap[f] < -1) { st_ = fmap[f]; break; }
                }
                int32_t id = agg_stack(a, parent, fmap[f]);
                if (id < -1) st_ = id;
                map[c] = id < 0 ? 0 : id;
            }
            to = map[s];
        }
        if (st_ != PS_OK || to < 0) { if (to < -2) st_ = to; break; }
        double w = i + 1 < nsm ? ts[i + 1] - ts[i] : interval_ms;
        a->count[to] += 1;
        a->time[to] += w > 0 ? w : 0;
        a->samples += 1;
        a->ms += w > 0 ? w : 0;
    }
    ps__vec_free(&chain);
    free(map);
    return st_ == PS_OK ? (int32_t)(end - first) : st_;
}

PS_API int32_t ps_field_agg_root(int32_t h, uint32_t len)
{
    agg *a = agg_get(h);
    const uint8_t *name = ps__exchange_read(len);
    if (!a || !name || len > PS_FIELD_MAX_STRING) return PS_E_ARG;
    int32_t s = agg_stack(a, -1, agg_frame(a, name, len, 0, 0, 0, 0));
    return s == -1 ? 0 : s;
}

PS_API int32_t ps_field_agg_trace(int32_t h)
{
    agg *a = agg_get(h);
    return a ? a->trie : PS_E_ARG;
}

PS_API const double *ps_field_agg_column(int32_t h, uint32_t col)
{
    agg *a = agg_get(h);
    if (!a) return 0;
    return col == PS_FIELD_COL_COUNT ? a->count : col == PS_FIELD_COL_TIME ? a->time : 0;
}

PS_API int32_t ps_field_agg_info(int32_t h)
{
    agg *a = agg_get(h);
    if (!a) return PS_E_ARG;
    ps_trace_info(a->trie);
    double *o = ps_out_ptr();
    double stacks = o[2], frames = o[1], held = o[6];
    o[0] = stacks;
    o[1] = frames;
    o[2] = a->samples;
    o[3] = a->ms;
    o[4] = a->count[0];
    o[5] = held + (double)a->cap * 16 + sizeof(agg);
    return PS_OK;
}
