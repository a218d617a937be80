/* test_trace.c — the profiler trace trie (src/trace.c), natively under ASan/UBSan. */
#include <stdlib.h>
#include <math.h>
#include "check.h"
#include "internal.h"
#include "trace.h"
#include "trace_internal.h"

static uint32_t put(const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    memcpy(ps_exchange_reserve(n + 1), s, n);
    return n;
}

static int32_t res(int32_t t, const char *url) { return ps__trace_resource(t, put(url)); }
static int32_t frame(int32_t t, const char *name, int32_t r, uint32_t line, uint32_t col)
{
    return ps__trace_frame(t, put(name), r, line, col);
}

static double info(int32_t t, int i)
{
    ps_trace_info(t);
    return ps_out_ptr()[i];
}

/* The invariants every trace must satisfy (see trace.c's header). Returns 1 when they hold. */
static int invariants(int32_t t)
{
    if (ps_trace_info(t) != PS_OK) return 0;
    double *o = ps_out_ptr();
    uint32_t nr = (uint32_t)o[0], nf = (uint32_t)o[1], ns = (uint32_t)o[2], nsm = (uint32_t)o[3];
    uint32_t max = (uint32_t)o[5];
    int ok = nsm <= max;
    const uint32_t *fname = ps_trace_column(t, PS_COL_FRAME_NAME);
    const int32_t *fres = ps_trace_column(t, PS_COL_FRAME_RESOURCE);
    const uint32_t *fline = ps_trace_column(t, PS_COL_FRAME_LINE);
    const uint32_t *fcol = ps_trace_column(t, PS_COL_FRAME_COLUMN);
    const int32_t *sp = ps_trace_column(t, PS_COL_STACK_PARENT);
    const uint32_t *sf = ps_trace_column(t, PS_COL_STACK_FRAME);
    const double *ts = ps_trace_column(t, PS_COL_SAMPLE_TIME);
    const int32_t *st = ps_trace_column(t, PS_COL_SAMPLE_STACK);
    const uint8_t *mk = ps_trace_column(t, PS_COL_SAMPLE_MARKER);
    int32_t nnames = ps_trace_strings(t, PS_STRINGS_NAMES);
    for (uint32_t i = 0; i < nf; i++) {
        ok &= fname[i] < (uint32_t)nnames;
        ok &= fres[i] >= -1 && (fres[i] < 0 || (uint32_t)fres[i] < nr);
        for (uint32_t j = 0; j < i; j++)
            ok &= !(fname[i] == fname[j] && fres[i] == fres[j] && fline[i] == fline[j] && fcol[i] == fcol[j]);
    }
    for (uint32_t i = 0; i < ns; i++) {
        ok &= sp[i] >= -1 && sp[i] < (int32_t)i; /* parent before child: acyclic */
        ok &= sf[i] < nf;
        for (uint32_t j = 0; j < i; j++) ok &= !(sp[i] == sp[j] && sf[i] == sf[j]);
    }
    for (uint32_t i = 0; i < nsm; i++) {
        ok &= st[i] >= -1 && st[i] < (int32_t)ns;
        ok &= mk[i] < PS_MARKER_COUNT;
        ok &= isfinite(ts[i]);
        if (i) ok &= ts[i - 1] <= ts[i];
    }
    /* resources unique */
    int32_t n = ps_trace_strings(t, PS_STRINGS_RESOURCES);
    ok &= n == (int32_t)nr;
    const uint8_t *blob = ps_blob_ptr();
    uint32_t *lens = malloc((n + 1) * sizeof *lens), *offs = malloc((n + 1) * sizeof *offs);
    memcpy(lens, ps_result_ptr(), n * sizeof *lens);
    for (int32_t i = 0, at = 0; i < n; at += lens[i], i++) offs[i] = at;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < i; j++)
            ok &= !(lens[i] == lens[j] && memcmp(blob + offs[i], blob + offs[j], lens[i]) == 0);
    free(lens);
    free(offs);
    return ok;
}

TEST(handles_are_independent_and_reused)
{
    int32_t a = ps_trace_new(10), b = ps_trace_new(20);
    CHECK(a >= 1 && b >= 1 && a != b);
    CHECK_EQ_INT(res(a, "https://a/x.js"), 0);
    CHECK_EQ_INT(info(b, 0), 0);
    CHECK_EQ_DBL(info(b, 5), 20);
    CHECK_EQ_INT(ps_trace_free(a), PS_OK);
    CHECK_EQ_INT(ps_trace_free(a), PS_E_ARG);
    CHECK_EQ_INT(ps_trace_info(a), PS_E_ARG);
    CHECK_EQ_INT(ps__trace_resource(0, 0), PS_E_ARG);
    CHECK_EQ_INT(ps_trace_sample(-3, 1, -1, 0), PS_E_ARG);
    CHECK(ps_trace_column(a, PS_COL_SAMPLE_TIME) == 0);
    int32_t c = ps_trace_new(5);
    CHECK_EQ_INT(c, a);            /* the freed handle is reused */
    CHECK_EQ_INT(info(c, 0), 0);   /* and the new trace is empty */
    ps_trace_free(b);
    ps_trace_free(c);
}

TEST(resources_frames_and_stacks_are_interned)
{
    int32_t t = ps_trace_new(100);
    int32_t r0 = res(t, "https://a/x.js"), r1 = res(t, "https://a/y.js");
    CHECK_EQ_INT(r0, 0);
    CHECK_EQ_INT(r1, 1);
    CHECK_EQ_INT(res(t, "https://a/x.js"), 0);
    int32_t f = frame(t, "foo", r0, 3, 7);
    CHECK_EQ_INT(f, 0);
    CHECK_EQ_INT(frame(t, "foo", r0, 3, 7), 0);
    /* Each component makes a frame different. */
    CHECK_EQ_INT(frame(t, "bar", r0, 3, 7), 1);
    CHECK_EQ_INT(frame(t, "foo", r1, 3, 7), 2);
    CHECK_EQ_INT(frame(t, "foo", r0, 4, 7), 3);
    CHECK_EQ_INT(frame(t, "foo", r0, 3, 8), 4);
    CHECK_EQ_INT(frame(t, "foo", -1, 0, 0), 5);
    CHECK_EQ_INT(frame(t, "foo", -1, 0, 0), 5);
    CHECK_EQ_INT(frame(t, "", -1, 0, 0), 6);
    CHECK_EQ_INT(frame(t, "foo", 2, 1, 1), PS_E_ARG);   /* no resource 2 */
    CHECK_EQ_INT(frame(t, "foo", -2, 1, 1), PS_E_ARG);
    int32_t s0 = ps__trace_stack(t, -1, 0), s1 = ps__trace_stack(t, s0, 1);
    CHECK_EQ_INT(s0, 0);
    CHECK_EQ_INT(s1, 1);
    CHECK_EQ_INT(ps__trace_stack(t, -1, 0), 0);
    CHECK_EQ_INT(ps__trace_stack(t, 0, 1), 1);
    CHECK_EQ_INT(ps__trace_stack(t, 1, 1), 2);           /* same frame, other parent */
    CHECK_EQ_INT(ps__trace_stack(t, 3, 1), PS_E_ARG);    /* parent must exist already */
    CHECK_EQ_INT(ps__trace_stack(t, -1, 7), PS_E_ARG);   /* no frame 7 */
    CHECK(invariants(t));
    ps_trace_free(t);
}

TEST(samples_keep_time_order_and_stop_at_the_limit)
{
    int32_t t = ps_trace_new(4);
    frame(t, "f", -1, 0, 0);
    int32_t s = ps__trace_stack(t, -1, 0);
    CHECK_EQ_INT(ps_trace_sample(t, 10, s, PS_MARKER_SCRIPT), 0);
    CHECK_EQ_INT(ps_trace_sample(t, 30, -1, PS_MARKER_NONE), 1);
    CHECK_EQ_INT(ps_trace_sample(t, 20, s, PS_MARKER_GC), 1);   /* inserted before 30 */
    CHECK_EQ_INT(ps_trace_sample(t, 5, 1, 0), PS_E_ARG);        /* no stack 1 */
    CHECK_EQ_INT(ps_trace_sample(t, 5, -1, PS_MARKER_COUNT), PS_E_ARG);
    CHECK_EQ_INT(ps_trace_sample(t, NAN, -1, 0), PS_E_ARG);
    CHECK_EQ_DBL(info(t, 4), 0);
    CHECK_EQ_INT(ps_trace_sample(t, 40, -1, 0), 3);
    CHECK_EQ_INT(ps_trace_sample(t, 50, -1, 0), PS_E_LIMIT);
    CHECK_EQ_DBL(info(t, 3), 4);
    CHECK_EQ_DBL(info(t, 4), 1);
    const double *ts = ps_trace_column(t, PS_COL_SAMPLE_TIME);
    const uint8_t *mk = ps_trace_column(t, PS_COL_SAMPLE_MARKER);
    CHECK_EQ_DBL(ts[1], 20);
    CHECK_EQ_INT(mk[1], PS_MARKER_GC);
    CHECK(invariants(t));
    ps_trace_free(t);

    int32_t z = ps_trace_new(0);   /* maxBufferSize 0: the first sample already finds it full */
    CHECK_EQ_INT(ps_trace_sample(z, 1, -1, 0), PS_E_LIMIT);
    CHECK_EQ_DBL(info(z, 4), 1);
    ps_trace_free(z);
}

/* A sample whose stack is `depth` frame ids, outermost first, as the instrumentation source
 * (instrument.c) takes one: the stack's id from the trie, then the sample. */
static int32_t sample_path(int32_t t, double ts, const uint32_t *frames, uint32_t depth)
{
    int32_t stack;
    int32_t r = ps__trace_stack_of(t, frames, depth, &stack);
    return r < 0 ? r : ps_trace_sample(t, ts, stack, PS_MARKER_NONE);
}

TEST(stack_of_frames_walks_the_trie)
{
    int32_t t = ps_trace_new(1000);
    for (int i = 0; i < 4; i++) frame(t, (const char[][2]){"a", "b", "c", "d"}[i], -1, 0, 0);
    uint32_t abc[] = {0, 1, 2}, abd[] = {0, 1, 3}, ab[] = {0, 1}, c[] = {2};
    CHECK_EQ_INT(sample_path(t, 1, abc, 3), 0);
    CHECK_EQ_DBL(info(t, 2), 3);
    CHECK_EQ_INT(sample_path(t, 2, abd, 3), 1);
    CHECK_EQ_DBL(info(t, 2), 4);      /* shares the prefix a/b */
    CHECK_EQ_INT(sample_path(t, 3, ab, 2), 2);
    CHECK_EQ_DBL(info(t, 2), 4);      /* a/b already exists */
    CHECK_EQ_INT(sample_path(t, 4, c, 1), 3);
    CHECK_EQ_DBL(info(t, 2), 5);      /* c at the top is another stack */
    CHECK_EQ_INT(sample_path(t, 5, c, 0), 4); /* empty stack */
    const int32_t *st = ps_trace_column(t, PS_COL_SAMPLE_STACK);
    CHECK_EQ_INT(st[4], -1);
    CHECK_EQ_INT(st[2], 1);
    uint32_t bad[] = {0, 9};
    CHECK_EQ_INT(sample_path(t, 6, bad, 2), PS_E_ARG);
    CHECK_EQ_DBL(info(t, 2), 5);      /* nothing half-added */
    CHECK(invariants(t));
    ps_trace_free(t);
}

/* A V8 node table writer: f64 records (the parent form: no children lists) then strings, as
 * the glue writes them. */
typedef struct { uint32_t id, parent; const char *name, *url; int line, col; } node;

/* Returns the byte region's length. Equal strings are written once, as the glue does. */
static uint32_t put_nodes(const node *n, uint32_t count)
{
    size_t bytes = count * 80;
    for (uint32_t i = 0; i < count; i++) bytes += strlen(n[i].name) + strlen(n[i].url);
    uint8_t *b = ps_exchange_reserve((uint32_t)bytes + 1);
    uint8_t *region = b + count * 80;
    uint32_t at = 0;
    const char *last_url = 0;
    uint32_t last_url_off = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t nl = (uint32_t)strlen(n[i].name), ul = (uint32_t)strlen(n[i].url);
        uint32_t name_off = at;
        memcpy(region + at, n[i].name, nl); at += nl;
        uint32_t url_off;
        if (last_url && strcmp(last_url, n[i].url) == 0) url_off = last_url_off;
        else { url_off = at; memcpy(region + at, n[i].url, ul); at += ul; last_url = n[i].url; last_url_off = url_off; }
        double r[10] = {n[i].id, n[i].parent == 0xffffffffu ? NAN : n[i].parent, name_off, nl, url_off, ul,
                        n[i].line, n[i].col, 0, -1};
        memcpy(b + i * 80, r, 80);
    }
    return at;
}

static int32_t import_nodes(int32_t t, const node *n, uint32_t count)
{
    uint32_t bytes = put_nodes(n, count);
    return ps_trace_import_v8_nodes(t, count, 0, bytes);
}

static void put_samples(const int32_t *ids, const int32_t *deltas, uint32_t count)
{
    double *b = (double *)(void *)ps_exchange_reserve(count * 16 + 1);
    for (uint32_t k = 0; k < count; k++) {
        b[k] = ids[k];
        b[count + k] = deltas[k];
    }
}

/* The PS_BAD_* code and index of the last refused import. */
static int bad_is(int32_t status, int what, int index)
{
    return status == PS_E_PARSE && ps_out_ptr()[0] == what && ps_out_ptr()[1] == index;
}

#define NONE 0xffffffffu
static const node PROFILE[] = {
    {1, NONE, "(root)", "", -1, -1},
    {2, 1, "(program)", "", -1, -1},
    {3, 1, "(idle)", "", -1, -1},
    {4, 1, "(garbage collector)", "", -1, -1},
    {5, 1, "", "file:///app/main.js", -1, -1},     /* module top level: no position */
    {6, 5, "work", "file:///app/main.js", 9, 0},
    {7, 6, "leaf", "file:///app/lib.js", 0, 15},
    {8, 5, "idleHelper", "file:///app/lib.js", 3, 2}, /* never sampled */
    {9, 6, "evaluate", "", -1, -1},                    /* a native function: name only */
};
#undef NONE

TEST(v8_profile_is_converted)
{
    int32_t t = ps_trace_new(100);
    CHECK_EQ_INT(import_nodes(t, PROFILE, 9), PS_OK);
    /* times: start 1,000,000 µs; offset 900 ms -> ms = us/1000 - 900 */
    int32_t ids[] = {7, 2, 7, 4, 3, 9, 6}, deltas[] = {1000, 1000, 1000, 1000, 1000, 1000, -500};
    put_samples(ids, deltas, 7);
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 7, 1e6, 900.0006, -INFINITY, INFINITY), 7);
    CHECK(invariants(t));
    ps_trace_info(t);
    double *o = ps_out_ptr();
    CHECK_EQ_DBL(o[0], 2);   /* main.js, lib.js */
    CHECK_EQ_DBL(o[1], 4);   /* "", work, leaf, evaluate: idleHelper was never sampled */
    CHECK_EQ_DBL(o[2], 4);
    CHECK_EQ_DBL(o[3], 7);
    const double *ts = ps_trace_column(t, PS_COL_SAMPLE_TIME);
    const int32_t *st = ps_trace_column(t, PS_COL_SAMPLE_STACK);
    const uint8_t *mk = ps_trace_column(t, PS_COL_SAMPLE_MARKER);
    const uint32_t *line = ps_trace_column(t, PS_COL_FRAME_LINE);
    const uint32_t *col = ps_trace_column(t, PS_COL_FRAME_COLUMN);
    const int32_t *fres = ps_trace_column(t, PS_COL_FRAME_RESOURCE);
    const int32_t *sp = ps_trace_column(t, PS_COL_STACK_PARENT);
    /* Stacks are numbered by first use, parents first: "" (0) > work (1) > leaf (2). */
    CHECK_EQ_INT(st[0], 2);
    CHECK_EQ_INT(sp[2], 1);
    CHECK_EQ_INT(sp[1], 0);
    CHECK_EQ_INT(sp[0], -1);   /* the root is dropped */
    CHECK_EQ_INT(line[2], 1);  /* 0-based 0 -> 1-based 1 */
    CHECK_EQ_INT(col[2], 16);
    CHECK_EQ_INT(line[1], 10);
    CHECK_EQ_INT(line[0], 0);  /* top level: absent */
    CHECK_EQ_INT(fres[3], -1); /* native: no resource */
    CHECK_EQ_DBL(ts[0], 100.999);  /* rounded to the µs */
    CHECK_EQ_INT(st[1], -1);       /* (program) */
    CHECK_EQ_INT(mk[1], PS_MARKER_NONE);
    CHECK_EQ_INT(st[3], -1);       /* (garbage collector) */
    CHECK_EQ_INT(mk[3], PS_MARKER_GC);
    CHECK_EQ_INT(st[4], -1);       /* (idle) */
    /* The last delta is negative: that sample moves before its predecessor. */
    CHECK_EQ_DBL(ts[5], 105.499);
    CHECK_EQ_INT(st[5], 1);
    CHECK_EQ_DBL(ts[6], 105.999);
    CHECK_EQ_INT(st[6], 3);
    ps_trace_free(t);
}

TEST(v8_samples_are_filtered_by_time_and_capped)
{
    int32_t t = ps_trace_new(3);
    CHECK_EQ_INT(import_nodes(t, PROFILE, 9), PS_OK);
    int32_t ids[] = {7, 7, 7, 7, 7, 7}, deltas[] = {1000, 1000, 1000, 1000, 1000, 1000};
    put_samples(ids, deltas, 6);
    /* times 1..6 ms; keep (1, 5]: 2, 3, 4, 5 -> capped at 3 */
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 6, 0, 0, 1, 5), 3);
    CHECK_EQ_DBL(info(t, 3), 3);
    CHECK_EQ_DBL(info(t, 4), 1);
    const double *ts = ps_trace_column(t, PS_COL_SAMPLE_TIME);
    CHECK_EQ_DBL(ts[0], 2);
    CHECK_EQ_DBL(ts[2], 4);
    CHECK(invariants(t));
    ps_trace_free(t);

    /* A second chunk appends after the first (the sampler hands over between sessions). */
    t = ps_trace_new(100);
    import_nodes(t, PROFILE, 9);
    put_samples(ids, deltas, 3);
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 3, 0, 0, -INFINITY, INFINITY), 3);
    node other[] = {{10, 0xffffffffu, "(root)", "", -1, -1}, {11, 10, "leaf", "file:///app/lib.js", 0, 15}};
    CHECK_EQ_INT(import_nodes(t, other, 2), PS_OK);
    int32_t ids2[] = {11, 11, 11}, d2[] = {2500, 1000, 1000};
    put_samples(ids2, d2, 3);
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 3, 0, 0, 3, INFINITY), 2);   /* 2.5 is dropped */
    CHECK_EQ_DBL(info(t, 3), 5);
    CHECK_EQ_DBL(info(t, 1), 3);  /* leaf at the top is a frame already known ... */
    CHECK_EQ_DBL(info(t, 2), 4);  /* ... on a new stack */
    CHECK(invariants(t));
    ps_trace_free(t);
}

TEST(malformed_v8_tables_are_refused)
{
    int32_t t = ps_trace_new(10);
    node unknown_parent[] = {{1, 0xffffffffu, "(root)", "", -1, -1}, {2, 42, "f", "u", 0, 0}};
    CHECK(bad_is(import_nodes(t, unknown_parent, 2), PS_BAD_NODE_PARENT, 1));
    node dup[] = {{1, 0xffffffffu, "(root)", "", -1, -1}, {1, 1, "f", "u", 0, 0}};
    CHECK(bad_is(import_nodes(t, dup, 2), PS_BAD_NODE_DUPLICATE, 1));
    node low_line[] = {{1, 0xffffffffu, "(root)", "", -1, -1}, {2, 1, "f", "u", -2, 0}};
    CHECK(bad_is(import_nodes(t, low_line, 2), PS_BAD_NODE_LINE, 1));
    uint32_t bytes = put_nodes(PROFILE, 9);
    CHECK_EQ_INT(ps_trace_import_v8_nodes(t, 9, 0, bytes - 1), PS_E_ARG); /* a string past the end */
    node cycle[] = {{1, 2, "f", "u", 0, 0}, {2, 1, "g", "u", 0, 0}};
    CHECK(bad_is(import_nodes(t, cycle, 2), PS_BAD_NODE_CYCLE, 0));
    int32_t ids[] = {1}, deltas[] = {1};
    put_samples(ids, deltas, 1);
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 1, 0, 0, -INFINITY, INFINITY), PS_E_PARSE);  /* no table */
    import_nodes(t, PROFILE, 9);
    int32_t missing[] = {77};
    put_samples(missing, deltas, 1);
    CHECK(bad_is(ps_trace_import_v8_samples(t, 1, 0, 0, -INFINITY, INFINITY), PS_BAD_SAMPLE_NODE, 0));
    CHECK_EQ_DBL(info(t, 3), 0);
    CHECK(invariants(t));
    ps_trace_free(t);
}

TEST(deep_v8_stacks_do_not_recurse)
{
    enum { DEPTH = 50000 };
    node *n = malloc(sizeof(node) * DEPTH);
    n[0] = (node){1, 0xffffffffu, "(root)", "", -1, -1};
    for (uint32_t i = 1; i < DEPTH; i++) n[i] = (node){i + 1, i, "rec", "file:///r.js", 0, 0};
    int32_t t = ps_trace_new(10);
    CHECK_EQ_INT(import_nodes(t, n, DEPTH), PS_OK);
    int32_t ids[] = {DEPTH}, deltas[] = {1};
    put_samples(ids, deltas, 1);
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 1, 0, 0, -INFINITY, INFINITY), 1);
    CHECK_EQ_DBL(info(t, 1), 1);
    CHECK_EQ_DBL(info(t, 2), DEPTH - 1);
    free(n);
    ps_trace_free(t);
}

/* Random stacks against a naive model: the number of stacks is the number of distinct
 * prefixes, and every sample's stack spells its frames back. */
TEST(random_stacks_match_a_naive_model)
{
    enum { N = 1500, F = 12, D = 9 };
    int32_t t = ps_trace_new(N);
    char name[16];
    for (int i = 0; i < F; i++) { snprintf(name, sizeof name, "f%d", i); frame(t, name, -1, 0, 0); }
    static uint32_t paths[N][D];
    static uint32_t depth[N];
    uint32_t seed = 12345;
    for (int s = 0; s < N; s++) {
        depth[s] = (seed = seed * 1103515245u + 12345u) >> 16 & 7;
        depth[s] += 1;
        for (uint32_t k = 0; k < depth[s]; k++) paths[s][k] = ((seed = seed * 1103515245u + 12345u) >> 16) % 3 + (k % 4) * 3;
        CHECK(sample_path(t, s, paths[s], depth[s]) >= 0);
    }
    /* distinct prefixes, naively: prefix (s, d) is new unless an earlier sample starts with it */
    uint32_t distinct = 0;
    for (int s = 0; s < N; s++)
        for (uint32_t d = 1; d <= depth[s]; d++) {
            int seen = 0;
            for (int q = 0; q < s && !seen; q++)
                seen = depth[q] >= d && memcmp(paths[q], paths[s], d * 4) == 0;
            distinct += !seen;
        }
    CHECK_EQ_DBL(info(t, 2), distinct);
    const int32_t *st = ps_trace_column(t, PS_COL_SAMPLE_STACK);
    const int32_t *sp = ps_trace_column(t, PS_COL_STACK_PARENT);
    const uint32_t *sf = ps_trace_column(t, PS_COL_STACK_FRAME);
    int spelled = 1;
    for (int s = 0; s < N; s++) {
        int32_t id = st[s];
        for (uint32_t k = depth[s]; k-- > 0;) {
            spelled &= id >= 0 && sf[id] == paths[s][k];
            if (id < 0) break;
            id = sp[id];
        }
        spelled &= id == -1;
    }
    CHECK(spelled);
    CHECK(invariants(t));
    ps_trace_free(t);
}

/* A ProfilerTrace laid out as the glue writes it: f64 records, then the strings. */
static uint32_t put_trace(const char **res_, uint32_t nr, const double *frames, const char **names, uint32_t nf,
                          const double *stacks, uint32_t ns, const double *samples, uint32_t nsm)
{
    size_t words = nr * 2 + nf * 5 + ns * 2 + nsm * 3, bytes = 0;
    for (uint32_t i = 0; i < nr; i++) bytes += strlen(res_[i]);
    for (uint32_t i = 0; i < nf; i++) bytes += strlen(names[i]);
    double *w = (double *)(void *)ps_exchange_reserve((uint32_t)(words * 8 + bytes + 1));
    char *region = (char *)(w + words);
    uint32_t at = 0;
    for (uint32_t i = 0; i < nr; i++, w += 2) {
        uint32_t l = (uint32_t)strlen(res_[i]);
        memcpy(region + at, res_[i], l);
        w[0] = at; w[1] = l; at += l;
    }
    for (uint32_t i = 0; i < nf; i++, w += 5) {
        uint32_t l = (uint32_t)strlen(names[i]);
        memcpy(region + at, names[i], l);
        w[0] = at; w[1] = l; at += l;
        memcpy(w + 2, frames + 3 * i, 24);
    }
    memcpy(w, stacks, ns * 16); w += ns * 2;
    memcpy(w, samples, nsm * 24);
    return at;
}

TEST(a_profiler_trace_is_validated_then_reinterned)
{
    const char *res_[] = {"https://x/a.js", "https://x/a.js"};
    const char *names[] = {"f", "g", "f"};
    double frames[] = {0, 1, 1,  NAN, NAN, NAN,  1, 1, 1};   /* frame 2 equals frame 0 */
    double stacks[] = {0, 2,  1, NAN,  2, 1};                  /* stack 0's parent comes later */
    double samples[] = {3, 0, PS_MARKER_SCRIPT,  1, 1, 0,  2, NAN, PS_MARKER_GC};
    int32_t t = ps_trace_new(100);
    uint32_t bytes = put_trace(res_, 2, frames, names, 3, stacks, 3, samples, 3);
    CHECK_EQ_INT(ps_trace_import(t, 2, 3, 3, 3, bytes, -INFINITY, INFINITY), 3);
    CHECK(invariants(t));
    CHECK_EQ_DBL(info(t, 0), 1);   /* one resource */
    CHECK_EQ_DBL(info(t, 1), 2);   /* f, g */
    CHECK_EQ_DBL(info(t, 2), 3);   /* g, g > f, g > f > f: frame 2 is frame 0 */
    const double *ts = ps_trace_column(t, PS_COL_SAMPLE_TIME);
    const uint8_t *mk = ps_trace_column(t, PS_COL_SAMPLE_MARKER);
    CHECK(ts[0] == 1 && ts[1] == 2 && ts[2] == 3);               /* time order */
    CHECK_EQ_INT(mk[1], PS_MARKER_GC);
    /* (after, until] */
    int32_t u = ps_trace_new(100);
    bytes = put_trace(res_, 2, frames, names, 3, stacks, 3, samples, 3);
    CHECK_EQ_INT(ps_trace_import(u, 2, 3, 3, 3, bytes, 1, 2), 1);
    ps_trace_free(u);
    ps_trace_free(t);
}

static void hide(int32_t t, const char *prefixes)
{
    uint32_t len = (uint32_t)strlen(prefixes);
    memcpy(ps_exchange_reserve(len + 1), prefixes, len);
    CHECK_EQ_INT(ps_trace_hide(t, len), PS_OK);
}

TEST(hidden_scripts_leave_out_their_frames_and_resources)
{
    /* user > lib (hidden) > callback (user): the callback's stack skips the hidden frame; a
     * sample inside the hidden frame is its caller's; one at the root inside it has no stack. */
    const char *res_[] = {"https://x/app.js", "https://x/dist/perfshim.auto.js"};
    const char *names[] = {"user", "lib", "callback"};
    double frames[] = {0, 1, 1,  1, 1, 1,  0, 5, 1};
    double stacks[] = {0, NAN,  1, 0,  2, 1,  1, NAN};
    double samples[] = {1, 2, 0,  2, 1, 0,  3, 3, 0};
    int32_t t = ps_trace_new(100);
    hide(t, "https://x/glue/\nhttps://x/dist/");
    uint32_t bytes = put_trace(res_, 2, frames, names, 3, stacks, 4, samples, 3);
    CHECK_EQ_INT(ps_trace_import(t, 2, 3, 4, 3, bytes, -INFINITY, INFINITY), 3);
    CHECK(invariants(t));
    CHECK_EQ_DBL(info(t, 0), 1);   /* app.js only */
    CHECK_EQ_DBL(info(t, 1), 2);   /* user, callback */
    CHECK_EQ_DBL(info(t, 2), 2);   /* user, user > callback */
    const int32_t *st = ps_trace_column(t, PS_COL_SAMPLE_STACK);
    const int32_t *sp = ps_trace_column(t, PS_COL_STACK_PARENT);
    CHECK_EQ_INT(st[0], 1);        /* user > callback */
    CHECK_EQ_INT(sp[1], 0);
    CHECK_EQ_INT(st[1], 0);        /* inside lib: user's */
    CHECK_EQ_INT(st[2], -1);       /* lib at the root: no stack */
    ps_trace_free(t);

    /* The same in a V8 profile, where a "node:" built-in the hidden script called is left out
     * too, and one the user's code called is kept. */
    static const node P[] = {
        {1, 0xffffffffu, "(root)", "", -1, -1},
        {2, 1, "main", "file:///app/main.js", 0, 0},
        {3, 2, "start", "file:///pkg/glue/profiler.js", 0, 0},
        {4, 3, "post", "node:inspector", 0, 0},
        {5, 4, "inner", "node:internal/util", 0, 0},
        {6, 2, "now", "node:internal/perf/performance", 0, 0},
        {7, 3, "observer", "file:///app/main.js", 5, 0},
    };
    t = ps_trace_new(100);
    hide(t, "file:///pkg/glue/\nfile:///pkg/dist/");
    CHECK_EQ_INT(import_nodes(t, P, 7), PS_OK);
    int32_t ids[] = {3, 4, 5, 6, 7}, deltas[] = {1000, 1000, 1000, 1000, 1000};
    put_samples(ids, deltas, 5);
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 5, 0, 0, -INFINITY, INFINITY), 5);
    CHECK(invariants(t));
    CHECK_EQ_DBL(info(t, 0), 2);   /* main.js, node:internal/perf/performance */
    CHECK_EQ_DBL(info(t, 1), 3);   /* main, now, observer */
    st = ps_trace_column(t, PS_COL_SAMPLE_STACK);
    sp = ps_trace_column(t, PS_COL_STACK_PARENT);
    CHECK(st[0] == 0 && st[1] == 0 && st[2] == 0);   /* start, post, inner: main's */
    CHECK_EQ_INT(sp[st[3]], 0);                       /* main > now */
    CHECK_EQ_INT(sp[st[4]], 0);                       /* main > observer */
    CHECK(st[3] != st[4]);
    ps_trace_free(t);
}

TEST(a_bad_profiler_trace_names_the_member)
{
    const char *res_[] = {"r"};
    const char *names[] = {"f"};
    int32_t t = ps_trace_new(10);
    double f_bad_res[] = {3, NAN, NAN}, f_bad_line[] = {NAN, 1.5, NAN}, f_ok[] = {0, 2, NAN};
    double s_ok[] = {0, NAN}, s_bad_frame[] = {4, NAN}, s_self[] = {0, 0}, m_ok[] = {1, 0, 0};
    double m_nan[] = {NAN, 0, 0}, m_bad_stack[] = {1, 5, 0}, m_bad_marker[] = {1, NAN, -1};
    uint32_t b;
    b = put_trace(res_, 1, f_bad_res, names, 1, s_ok, 1, m_ok, 1);
    CHECK(bad_is(ps_trace_import(t, 1, 1, 1, 1, b, -INFINITY, INFINITY), PS_BAD_RESOURCE_ID, 0));
    b = put_trace(res_, 1, f_bad_line, names, 1, s_ok, 1, m_ok, 1);
    CHECK(bad_is(ps_trace_import(t, 1, 1, 1, 1, b, -INFINITY, INFINITY), PS_BAD_LINE, 0));
    b = put_trace(res_, 1, f_ok, names, 1, s_bad_frame, 1, m_ok, 1);
    CHECK(bad_is(ps_trace_import(t, 1, 1, 1, 1, b, -INFINITY, INFINITY), PS_BAD_FRAME_ID, 0));
    b = put_trace(res_, 1, f_ok, names, 1, s_self, 1, m_ok, 1);
    CHECK(bad_is(ps_trace_import(t, 1, 1, 1, 1, b, -INFINITY, INFINITY), PS_BAD_STACK_CYCLE, 0));
    b = put_trace(res_, 1, f_ok, names, 1, s_ok, 1, m_nan, 1);
    CHECK(bad_is(ps_trace_import(t, 1, 1, 1, 1, b, -INFINITY, INFINITY), PS_BAD_TIMESTAMP, 0));
    b = put_trace(res_, 1, f_ok, names, 1, s_ok, 1, m_bad_stack, 1);
    CHECK(bad_is(ps_trace_import(t, 1, 1, 1, 1, b, -INFINITY, INFINITY), PS_BAD_STACK_ID, 0));
    b = put_trace(res_, 1, f_ok, names, 1, s_ok, 1, m_bad_marker, 1);
    CHECK(bad_is(ps_trace_import(t, 1, 1, 1, 1, b, -INFINITY, INFINITY), PS_BAD_MARKER, 0));
    b = put_trace(res_, 1, f_ok, names, 1, s_ok, 1, m_ok, 1);
    CHECK_EQ_INT(ps_trace_import(t, 1, 1, 1, 1, b - 1, -INFINITY, INFINITY), PS_E_ARG);  /* past the region */
    CHECK_EQ_INT(ps_trace_import(t, 1, 1, 1, 1, b, -INFINITY, INFINITY), 1);
    CHECK(invariants(t));
    ps_trace_free(t);
}

TEST(v8_children_lists_give_the_parents)
{
    /* root(1) > a(2) > b(3), children lists only; then b listed under root too: two parents. */
    const char *s = "(root)ab";
    double rec[3][10] = {{1, NAN, 0, 6, 0, 0, -1, -1, 0, 1}, {2, NAN, 6, 1, 0, 0, 0, 0, 1, 1},
                         {3, NAN, 7, 1, 0, 0, 4, 2, 0, -1}};
    double kids[] = {2, 3};
    int32_t t = ps_trace_new(10);
    uint8_t *b = ps_exchange_reserve(3 * 80 + 16 + 8);
    memcpy(b, rec, sizeof rec);
    memcpy(b + 240, kids, 16);
    memcpy(b + 256, s, 8);
    CHECK_EQ_INT(ps_trace_import_v8_nodes(t, 3, 2, 8), PS_OK);
    int32_t ids[] = {3}, deltas[] = {5};
    put_samples(ids, deltas, 1);
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 1, 0, 0, -INFINITY, INFINITY), 1);
    CHECK_EQ_DBL(info(t, 2), 2);  /* a > b */
    rec[0][9] = 2;                /* root's children: 2, 3 */
    b = ps_exchange_reserve(3 * 80 + 16 + 8);
    memcpy(b, rec, sizeof rec);
    memcpy(b + 240, kids, 16);
    memcpy(b + 256, s, 8);
    CHECK(bad_is(ps_trace_import_v8_nodes(t, 3, 2, 8), PS_BAD_NODE_TWO_PARENTS, 2));
    CHECK(invariants(t));
    ps_trace_free(t);
}

TEST(strings_come_out_as_a_borrowed_blob_with_lengths)
{
    int32_t t = ps_trace_new(1);
    frame(t, "plain", -1, 0, 0);
    CHECK_EQ_INT(ps_trace_strings(t, PS_STRINGS_NAMES), 1);
    CHECK_EQ_INT(ps_blob_len(), 5);
    frame(t, "caf\xc3\xa9", -1, 0, 0);
    frame(t, "a\xed\xa0\x80" "b", -1, 0, 0);   /* WTF-8: a lone surrogate, kept as is */
    CHECK_EQ_INT(ps_trace_strings(t, PS_STRINGS_NAMES), 3);
    CHECK_EQ_INT(ps_blob_len(), 15);
    CHECK_EQ_INT(ps_result_ptr()[1], 5);
    CHECK_EQ_INT(ps_result_ptr()[2], 5);
    CHECK(memcmp(ps_blob_ptr(), "plaincaf\xc3\xa9" "a\xed\xa0\x80" "b", 15) == 0);
    CHECK_EQ_INT(ps_trace_strings(t, PS_STRINGS_RESOURCES), 0);
    CHECK_EQ_INT(ps_trace_strings(t, 2), PS_E_ARG);
    CHECK_EQ_INT(ps_trace_strings(t, PS_STRINGS_NAMES), 3);
    ps_trace_free(t);
    CHECK(ps_blob_ptr() == 0);   /* the borrowed blob went with its trace */
}

TEST(many_traces_at_once)
{
    int32_t h[40];
    for (int i = 0; i < 40; i++) {
        h[i] = ps_trace_new(1000);
        char u[32];
        snprintf(u, sizeof u, "https://t/%d.js", i);
        res(h[i], u);
        frame(h[i], "f", 0, (uint32_t)i + 1, 1);
        ps_trace_sample(h[i], i, ps__trace_stack(h[i], -1, 0), 0);
    }
    int ok = 1;
    for (int i = 0; i < 40; i++) {
        const uint32_t *line = ps_trace_column(h[i], PS_COL_FRAME_LINE);
        ok &= line[0] == (uint32_t)i + 1 && info(h[i], 3) == 1;
    }
    CHECK(ok);
    for (int i = 0; i < 40; i += 2) ps_trace_free(h[i]);
    for (int i = 1; i < 40; i += 2) ok &= info(h[i], 1) == 1;
    CHECK(ok);
    for (int i = 1; i < 40; i += 2) ps_trace_free(h[i]);
}

/* Every import reads only what the exchange buffer holds: counts whose records (a JS length
 * times a record size, which the shim could wrap past 2^32) reach past it are refused, never
 * read (ASan reports a read past the buffer before the bound). */
TEST(imports_read_only_what_the_exchange_holds)
{
    int32_t t = ps_trace_new(10);
    memset(ps_exchange_reserve(64), 0, 64);
    uint32_t far = 1u << 26; /* 64 MB: more than any earlier test reserved */
    CHECK_EQ_INT(ps_trace_hide(t, far), PS_E_ARG);
    CHECK_EQ_INT(ps_trace_import_v8_nodes(t, far / 80, 0, 1), PS_E_ARG);
    CHECK_EQ_INT(ps_trace_import_v8_nodes(t, 0, far / 8, 0), PS_E_ARG);
    CHECK_EQ_INT(import_nodes(t, PROFILE, 9), PS_OK);
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, far / 16, 0, 0, -INFINITY, INFINITY), PS_E_ARG);
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 268435457u, 0, 0, -INFINITY, INFINITY), PS_E_ARG);
    memset(ps_exchange_reserve(64), 0, 64);
    CHECK_EQ_INT(ps_trace_import(t, 1, 0, 0, 0, far, -INFINITY, INFINITY), PS_E_ARG);
    CHECK_EQ_INT(ps_trace_import(t, 0, 0, 0, far / 24, 0, -INFINITY, INFINITY), PS_E_ARG);
    CHECK_EQ_INT(ps_trace_import(t, 0, 107374183u, 0, 0, 0, -INFINITY, INFINITY), PS_E_ARG);
    CHECK_EQ_INT(ps__trace_resource(t, far), PS_E_ARG);
    CHECK_EQ_DBL(info(t, 3), 0);
    CHECK(invariants(t));
    /* The buffer itself stops at PS_EXCHANGE_MAX, below the 4 GiB a wasm32 memory can hold. */
    CHECK(ps_exchange_reserve(PS_EXCHANGE_MAX + 1u) == 0);
    CHECK(ps_exchange_reserve(0xffffffffu) == 0);
    ps_trace_free(t);
}

/* A .cpuprofile's deltas are JSON numbers: a gap of 2^31 µs (35.8 min) or more imports; a
 * sample time that leaves the doubles (an offset of 1e306 ms) is refused, not dropped. */
TEST(v8_deltas_have_no_int32_limit)
{
    int32_t t = ps_trace_new(10);
    CHECK_EQ_INT(import_nodes(t, PROFILE, 9), PS_OK);
    double *b = (double *)(void *)ps_exchange_reserve(4 * 8);
    b[0] = 7; b[1] = 7; b[2] = 1000; b[3] = 3e9; /* ids 7, 7; deltas 1 ms, 50 min */
    CHECK_EQ_INT(ps_trace_import_v8_samples(t, 2, 0, 0, -INFINITY, INFINITY), 2);
    const double *ts = ps_trace_column(t, PS_COL_SAMPLE_TIME);
    CHECK_EQ_DBL(ts[0], 1);
    CHECK_EQ_DBL(ts[1], 3000001);
    b = (double *)(void *)ps_exchange_reserve(4 * 8);
    b[0] = 7; b[1] = 7; b[2] = 1000; b[3] = 1000;
    CHECK(bad_is(ps_trace_import_v8_samples(t, 2, 0, 1e306, -INFINITY, INFINITY), PS_BAD_SAMPLE_TIME, 0));
    b[3] = INFINITY;
    CHECK(bad_is(ps_trace_import_v8_samples(t, 2, 0, 0, -INFINITY, INFINITY), PS_BAD_TIME_DELTA, 1));
    CHECK_EQ_DBL(info(t, 3), 2);
    CHECK(invariants(t));
    ps_trace_free(t);
}

int main(void)
{
    RUN(handles_are_independent_and_reused);
    RUN(resources_frames_and_stacks_are_interned);
    RUN(samples_keep_time_order_and_stop_at_the_limit);
    RUN(stack_of_frames_walks_the_trie);
    RUN(v8_profile_is_converted);
    RUN(v8_samples_are_filtered_by_time_and_capped);
    RUN(malformed_v8_tables_are_refused);
    RUN(deep_v8_stacks_do_not_recurse);
    RUN(random_stacks_match_a_naive_model);
    RUN(a_profiler_trace_is_validated_then_reinterned);
    RUN(hidden_scripts_leave_out_their_frames_and_resources);
    RUN(a_bad_profiler_trace_names_the_member);
    RUN(v8_children_lists_give_the_parents);
    RUN(strings_come_out_as_a_borrowed_blob_with_lengths);
    RUN(many_traces_at_once);
    RUN(imports_read_only_what_the_exchange_holds);
    RUN(v8_deltas_have_no_int32_limit);
    return CHECK_DONE();
}
