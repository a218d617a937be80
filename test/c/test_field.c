/* test_field.c — field uploads (src/field.c): encode/decode round trip, downsampling, the decoder
 * on hostile bytes (every refusal reason, every truncation), and capped aggregates. */
#include <stdlib.h>
#include <math.h>
#include "check.h"
#include "internal.h"
#include "trace.h"
#include "trace_internal.h"
#include "field.h"

static uint32_t put(const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    memcpy(ps_exchange_reserve(n + 1), s, n);
    return n;
}

static int32_t frame(int32_t t, const char *name, const char *url, uint32_t line, uint32_t col)
{
    int32_t r = url ? ps__trace_resource(t, put(url)) : -1;
    return ps__trace_frame(t, put(name), r, line, col);
}

static double info(int32_t t, int i)
{
    ps_trace_info(t);
    return ps_out_ptr()[i];
}

/* A trace: main -> work -> hot (x3), main -> work (x1), a stackless gc sample. */
static int32_t sample_trace(void)
{
    int32_t t = ps_trace_new(1000);
    int32_t fm = frame(t, "main", "https://a.example/app.js", 1, 1);
    int32_t fw = frame(t, "work", "https://a.example/app.js", 10, 3);
    int32_t fh = frame(t, "hot", "https://a.example/lib.js", 5, 7);
    int32_t sm = ps__trace_stack(t, -1, (uint32_t)fm);
    int32_t sw = ps__trace_stack(t, sm, (uint32_t)fw);
    int32_t sh = ps__trace_stack(t, sw, (uint32_t)fh);
    ps_trace_sample(t, 100.0, sh, PS_MARKER_SCRIPT);
    ps_trace_sample(t, 110.0, sh, PS_MARKER_NONE);
    ps_trace_sample(t, 120.5, sh, PS_MARKER_NONE);
    ps_trace_sample(t, 130.25, sw, PS_MARKER_NONE);
    ps_trace_sample(t, 140.0, -1, PS_MARKER_GC);
    return t;
}

/* Lay out entries and labels as ps_field_encode reads them; returns `bytes`. */
typedef struct { const char *name; double type, start, dur; } entry;
typedef struct { const char *name, *value; } label;
static uint32_t layout(const entry *e, uint32_t ne, const label *l, uint32_t nl)
{
    uint32_t words = ne * 5 + nl * 4;
    double *rec = (double *)(void *)ps_exchange_reserve(words * 8 + 4096);
    uint8_t *b = (uint8_t *)(rec + words);
    uint32_t at = 0, w = 0;
    for (uint32_t i = 0; i < ne; i++) {
        uint32_t n = (uint32_t)strlen(e[i].name);
        memcpy(b + at, e[i].name, n);
        rec[w++] = at; rec[w++] = n; rec[w++] = e[i].type; rec[w++] = e[i].start; rec[w++] = e[i].dur;
        at += n;
    }
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t n = (uint32_t)strlen(l[i].name), m = (uint32_t)strlen(l[i].value);
        memcpy(b + at, l[i].name, n);
        memcpy(b + at + n, l[i].value, m);
        rec[w++] = at; rec[w++] = n; rec[w++] = at + n; rec[w++] = m;
        at += n + m;
    }
    return at;
}

static uint8_t upload[1 << 16];
static uint32_t upload_len;

static int32_t encode(int32_t t, uint32_t stride)
{
    entry e[] = {{"load", 1, 95.5, 50.0}, {"ready", 0, 145.0, 0}};
    label l[] = {{"release", "v2"}, {"route", "/cart"}};
    uint32_t bytes = layout(e, 2, l, 2);
    int32_t n = ps_field_encode(t, 2, 2, bytes, stride, 10);
    if (n > 0) {
        memcpy(upload, ps_blob_ptr(), (size_t)n);
        upload_len = (uint32_t)n;
        ps_blob_release();
    }
    return n;
}

static int32_t decode(const uint8_t *b, uint32_t n, int32_t *t)
{
    *t = ps_trace_new(1 << 20);
    memcpy(ps_exchange_reserve(n + 1), b, n);
    return ps_field_decode(*t, n);
}

static size_t count_of(const uint8_t *b, size_t n, const char *s)
{
    size_t k = strlen(s), c = 0;
    for (size_t i = 0; i + k <= n; i++) c += memcmp(b + i, s, k) == 0;
    return c;
}

TEST(round_trip)
{
    int32_t t = sample_trace(), d;
    CHECK(encode(t, 1) > 0);
    CHECK_EQ_INT(memcmp(upload, "PSF\x01", 4), 0);
    /* Strings once each: the app.js URL is shared by two frames. */
    CHECK_EQ_INT(count_of(upload, upload_len, "https://a.example/app.js"), 1);
    CHECK_EQ_INT(decode(upload, upload_len, &d), 5);
    CHECK_EQ_DBL(ps_out_ptr()[0], 10);
    CHECK_EQ_INT(info(d, 1), 3); /* frames */
    CHECK_EQ_INT(info(d, 2), 3); /* stacks */
    const double *ts = ps_trace_column(d, PS_COL_SAMPLE_TIME);
    const int32_t *st = ps_trace_column(d, PS_COL_SAMPLE_STACK);
    const uint8_t *mk = ps_trace_column(d, PS_COL_SAMPLE_MARKER);
    const int32_t *sp = ps_trace_column(d, PS_COL_STACK_PARENT);
    CHECK_EQ_DBL(ts[0], 100.0);
    CHECK_EQ_DBL(ts[2], 120.5);
    CHECK_EQ_DBL(ts[3], 130.25);
    CHECK_EQ_INT(mk[0], PS_MARKER_SCRIPT);
    CHECK_EQ_INT(st[4], -1);
    CHECK_EQ_INT(mk[4], PS_MARKER_GC);
    CHECK_EQ_INT(sp[st[0]], st[3]); /* hot's parent is work */
    uint32_t len;
    const uint32_t *fl = ps_trace_column(d, PS_COL_FRAME_LINE);
    const uint32_t *fn = ps_trace_column(d, PS_COL_FRAME_NAME);
    const uint8_t *name = ps__trace_string(d, PS_STRINGS_NAMES, fn[2], &len);
    CHECK(len == 3 && !memcmp(name, "hot", 3));
    CHECK_EQ_INT(fl[2], 5);
    /* Labels and entries. */
    CHECK_EQ_INT(ps_field_labels(), 4);
    const uint32_t *lens = ps_result_ptr();
    CHECK(lens[0] == 7 && !memcmp(ps_blob_ptr(), "releasev2route/cart", 19));
    CHECK_EQ_INT(ps_field_entries(), 2);
    CHECK(!memcmp(ps_blob_ptr(), "loadready", 9));
    const double *et = ps_field_entry_times();
    CHECK_EQ_DBL(et[0], 1);
    CHECK_EQ_DBL(et[1], 95.5);
    CHECK_EQ_DBL(et[2], 50);
    CHECK_EQ_DBL(et[3], 0);
    ps_trace_free(t);
    ps_trace_free(d);
}

TEST(downsampled)
{
    int32_t t = sample_trace(), d;
    CHECK(encode(t, 1) > 0);
    uint32_t full = upload_len;
    CHECK(encode(t, 4) > 0);  /* samples 0 and 4: hot and the gc one */
    CHECK(upload_len < full);
    CHECK_EQ_INT(decode(upload, upload_len, &d), 2);
    CHECK_EQ_INT(info(d, 2), 3); /* hot's stack and its ancestors */
    ps_trace_free(d);
    /* Only work's stack left: hot's frame and lib.js are not sent. */
    int32_t t2 = ps_trace_new(10);
    int32_t fm = frame(t2, "main", "https://a.example/app.js", 1, 1);
    int32_t fh = frame(t2, "unused", "https://a.example/lib.js", 5, 7);
    int32_t sm = ps__trace_stack(t2, -1, (uint32_t)fm);
    ps__trace_stack(t2, sm, (uint32_t)fh);
    ps_trace_sample(t2, 1, sm, 0);
    CHECK(encode(t2, 1) > 0);
    CHECK_EQ_INT(count_of(upload, upload_len, "lib.js"), 0);
    CHECK_EQ_INT(count_of(upload, upload_len, "unused"), 0);
    ps_trace_free(t);
    ps_trace_free(t2);
}

TEST(encoder_refuses_bad_labels)
{
    int32_t t = sample_trace();
    label bad_name[] = {{"9lives", "x"}};
    CHECK_EQ_INT(ps_field_encode(t, 0, 1, layout(0, 0, bad_name, 1), 1, 10), PS_E_PARSE);
    CHECK_EQ_DBL(ps_out_ptr()[0], PS_FIELD_BAD_LABEL_NAME);
    label twice[] = {{"a", "x"}, {"a", "y"}};
    CHECK_EQ_INT(ps_field_encode(t, 0, 2, layout(0, 0, twice, 2), 1, 10), PS_E_PARSE);
    char longv[300];
    memset(longv, 'v', 299);
    longv[299] = 0;
    label too_long[] = {{"a", longv}};
    CHECK_EQ_INT(ps_field_encode(t, 0, 1, layout(0, 0, too_long, 1), 1, 10), PS_E_PARSE);
    CHECK_EQ_DBL(ps_out_ptr()[0], PS_FIELD_BAD_LABEL_VALUE);
    entry inf[] = {{"x", 0, INFINITY, 0}};
    CHECK_EQ_INT(ps_field_encode(t, 1, 0, layout(inf, 1, 0, 0), 1, 10), PS_E_PARSE);
    CHECK_EQ_DBL(ps_out_ptr()[0], PS_FIELD_BAD_TIME);
    CHECK_EQ_INT(ps_field_encode(t, 0, 0, 0, 0, 10), PS_E_ARG); /* stride 0 */
    ps_trace_free(t);
}

/* A hand-made upload: a small writer for the hostile cases. */
static uint8_t hb[1 << 21];
static uint32_t hn;
static void hv(uint64_t v) { do { hb[hn++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)); v >>= 7; } while (v); }
static void hs(const char *s) { uint32_t n = (uint32_t)strlen(s); hv(n); memcpy(hb + hn, s, n); hn += n; }
static void head(void) { hn = 0; memcpy(hb, "PSF\x01", 4); hn = 4; hv(10000); }

/* Decoding hb must fail for `what`, adding nothing. */
static void refused(uint32_t what, int line)
{
    int32_t t;
    int32_t st = decode(hb, hn, &t);
    if (st != PS_E_PARSE || ps_out_ptr()[0] != what) {
        check_failed++;
        fprintf(stderr, "test_field.c:%d: status %d reason %g, expected reason %u\n", line, st, ps_out_ptr()[0], what);
    } else check_passed++;
    CHECK_EQ_INT(info(t, 1) + info(t, 2) + info(t, 3), 0);
    ps_trace_free(t);
}
#define REFUSED(what) refused(what, __LINE__)

/* strings ("f", "u"), resource "u", frame f@u:1:1, one stack; then the rest by the caller. */
static void valid_prefix(void)
{
    head();
    hv(2); hs("f"); hs("u");
    hv(1); hv(1);
    hv(1); hv(0); hv(1); hv(1); hv(1);
    hv(1); hv(0); hv(0);
}

TEST(hostile)
{
    int32_t t;
    /* A valid minimal upload decodes. */
    valid_prefix();
    hv(1); hv(0); hv(0); hv(1 << 3);
    hv(0); hv(0);
    CHECK_EQ_INT(decode(hb, hn, &t), 1);
    ps_trace_free(t);
    uint32_t good = hn;
    /* Every truncation is refused, and so is a trailing byte. */
    for (uint32_t cut = 0; cut < good; cut++) {
        hn = cut;
        CHECK_EQ_INT(decode(hb, hn, &t), PS_E_PARSE);
        ps_trace_free(t);
    }
    hn = good;
    hb[hn++] = 0;
    REFUSED(PS_FIELD_BAD_TRAILING);
    hn = 0; memcpy(hb, "PSF\x02", 4); hn = 4; REFUSED(PS_FIELD_BAD_MAGIC);
    /* A varint past 64 bits; a count the bytes cannot hold; a string past the cap; bad UTF-8. */
    head(); for (int i = 0; i < 11; i++) hb[hn++] = 0xff; REFUSED(PS_FIELD_BAD_VARINT);
    head(); hv(0xffffffffu); REFUSED(PS_FIELD_BAD_COUNT);
    head(); hv(1); hv(5000); memset(hb + hn, 'a', 5000); hn += 5000; REFUSED(PS_FIELD_BAD_STRING);
    head(); hv(1); hv(2); hb[hn++] = 0xc0; hb[hn++] = 0x80; REFUSED(PS_FIELD_BAD_UTF8);
    head(); hv(1); hv(1); hb[hn++] = 0xe2; REFUSED(PS_FIELD_BAD_UTF8);
    head(); hv(1); hv(4); memcpy(hb + hn, "\xf4\x90\x80\x80", 4); hn += 4; REFUSED(PS_FIELD_BAD_UTF8);
    /* Ids out of range. */
    head(); hv(1); hs("u"); hv(1); hv(1); REFUSED(PS_FIELD_BAD_STRING_ID);
    head(); hv(1); hs("f"); hv(0); hv(1); hv(0); hv(1); hv(0); hv(0); REFUSED(PS_FIELD_BAD_RESOURCE_ID);
    head(); hv(1); hs("f"); hv(0); hv(1); hv(0); hv(0); hv(0x80000000u); hv(0); REFUSED(PS_FIELD_BAD_LINE);
    head(); hv(1); hs("f"); hv(0); hv(1); hv(0); hv(0); hv(0); hv(0); hv(1); hv(1); hv(0); REFUSED(PS_FIELD_BAD_FRAME_ID);
    /* A parent gap reaching before the first stack (a cycle cannot be written). */
    head(); hv(1); hs("f"); hv(0); hv(1); hv(0); hv(0); hv(0); hv(0);
    hv(2); hv(0); hv(0); hv(0); hv(2); REFUSED(PS_FIELD_BAD_PARENT);
    /* A chain deeper than the cap. */
    head(); hv(1); hs("f"); hv(0); hv(1); hv(0); hv(0); hv(0); hv(0);
    hv(PS_FIELD_MAX_DEPTH + 1); hv(0); hv(0);
    for (int i = 0; i < PS_FIELD_MAX_DEPTH; i++) { hv(0); hv(1); }
    REFUSED(PS_FIELD_BAD_DEPTH);
    /* Samples: a stack id past the stacks, a marker past the enum, times past 2^53 µs. */
    valid_prefix(); hv(1); hv(0); hv(0); hv(2 << 3); REFUSED(PS_FIELD_BAD_STACK_ID);
    valid_prefix(); hv(1); hv(0); hv(0); hv(1 << 3 | 7); REFUSED(PS_FIELD_BAD_MARKER);
    valid_prefix(); hv(1); hv((uint64_t)1 << 60); REFUSED(PS_FIELD_BAD_TIME);
    valid_prefix(); hv(2); hv(0); hv((uint64_t)1 << 53); hv(8); hv((uint64_t)1 << 53); hv(8); REFUSED(PS_FIELD_BAD_TIME);
    /* Entries and labels. */
    valid_prefix(); hv(0); hv(0); hv(1); hv(0); hv(2); hv(0); hv(0); hv(0); REFUSED(PS_FIELD_BAD_ENTRY_TYPE);
    valid_prefix(); hv(0); hv(0); hv(PS_FIELD_MAX_ENTRIES + 1); REFUSED(PS_FIELD_BAD_COUNT);
    head(); hv(2); hs("a-b"); hs("v"); hv(0); hv(0); hv(0); hv(0); hv(0); hv(0); hv(1); hv(0); hv(1);
    REFUSED(PS_FIELD_BAD_LABEL_NAME);
    head(); hv(2); hs("ok"); hs("v"); hv(0); hv(0); hv(0); hv(0); hv(0); hv(0); hv(2); hv(0); hv(1); hv(0); hv(1);
    REFUSED(PS_FIELD_BAD_LABEL_NAME); /* repeated */
    head(); hv(2); hs("ok"); hv(300); memset(hb + hn, 'v', 300); hn += 300;
    hv(0); hv(0); hv(0); hv(0); hv(0); hv(0); hv(1); hv(0); hv(1);
    REFUSED(PS_FIELD_BAD_LABEL_VALUE);
    /* Past the size cap: refused before a byte is read. */
    hn = PS_FIELD_MAX_BYTES + 1;
    REFUSED(PS_FIELD_BAD_SIZE);
}

TEST(aggregate)
{
    int32_t a = ps_field_agg_new(100), t = sample_trace();
    CHECK(a > 0);
    CHECK_EQ_INT(ps_field_agg_add(a, t, 10, 0, UINT32_MAX, -1), 5);
    CHECK_EQ_INT(ps_field_agg_add(a, t, 10, 0, UINT32_MAX, -1), 5);
    ps_field_agg_info(a);
    double *o = ps_out_ptr();
    CHECK_EQ_DBL(o[0], 5); /* (other), main, work, hot, (garbage collector) */
    CHECK_EQ_DBL(o[2], 10);
    CHECK_EQ_DBL(o[3], 100); /* 2 × (10 + 10.5 + 9.75 + 9.75 + the last one's interval, 10) */
    const double *count = ps_field_agg_column(a, PS_FIELD_COL_COUNT);
    const double *time = ps_field_agg_column(a, PS_FIELD_COL_TIME);
    CHECK_EQ_DBL(count[3], 6); /* hot */
    CHECK_EQ_DBL(time[3], 2 * (10 + 10.5 + 9.75));
    CHECK_EQ_DBL(count[2], 2); /* work */
    CHECK_EQ_DBL(count[1], 0); /* main: no self samples */
    CHECK_EQ_DBL(count[4], 2);
    uint32_t len;
    const uint32_t *fn = ps_trace_column(ps_field_agg_trace(a), PS_COL_FRAME_NAME);
    const uint8_t *n = ps__trace_string(ps_field_agg_trace(a), PS_STRINGS_NAMES, fn[4], &len);
    CHECK(len == 19 && !memcmp(n, "(garbage collector)", len));
    ps_field_agg_free(a);
    ps_trace_free(t);
    CHECK_EQ_INT(ps_field_agg_new(1), PS_E_ARG);
}

/* A range of samples merges alone, each weighing the time to the trace's next sample (the
 * range's last included), and ranges that split a trace add up to the whole. */
TEST(aggregate_range)
{
    int32_t a = ps_field_agg_new(100), b = ps_field_agg_new(100), t = sample_trace();
    CHECK_EQ_INT(ps_field_agg_add(a, t, 10, 1, 3, -1), 2); /* samples 1 and 2: hot, hot */
    ps_field_agg_info(a);
    CHECK_EQ_DBL(ps_out_ptr()[2], 2);
    CHECK_EQ_DBL(ps_out_ptr()[3], 10.5 + 9.75);
    CHECK_EQ_DBL(ps_field_agg_column(a, PS_FIELD_COL_TIME)[3], 10.5 + 9.75);
    CHECK_EQ_INT(ps_field_agg_add(a, t, 10, 0, 1, -1), 1);
    CHECK_EQ_INT(ps_field_agg_add(a, t, 10, 3, UINT32_MAX, -1), 2);
    CHECK_EQ_INT(ps_field_agg_add(b, t, 10, 0, UINT32_MAX, -1), 5);
    ps_field_agg_info(a);
    double ms = ps_out_ptr()[3];
    ps_field_agg_info(b);
    CHECK_EQ_DBL(ms, ps_out_ptr()[3]);
    /* Under a root: the samples' stacks hang from it, apart from the same stacks at the top. */
    memcpy(ps_exchange_reserve(8), "measure1", 8);
    int32_t r = ps_field_agg_root(a, 8);
    CHECK(r > 0);
    memcpy(ps_exchange_reserve(8), "measure1", 8);
    CHECK_EQ_INT(ps_field_agg_root(a, 8), r);
    ps_field_agg_info(a);
    double stacks = ps_out_ptr()[0];
    CHECK_EQ_INT(ps_field_agg_add(a, t, 10, 0, UINT32_MAX, r), 5);
    ps_field_agg_info(a);
    CHECK_EQ_DBL(ps_out_ptr()[0], stacks + 4); /* main, work, hot, (garbage collector) below it */
    const int32_t *sp = ps_trace_column(ps_field_agg_trace(a), PS_COL_STACK_PARENT);
    CHECK_EQ_INT(sp[(int32_t)stacks], r);
    CHECK_EQ_INT(ps_field_agg_add(a, t, 10, 0, UINT32_MAX, 999), PS_E_ARG);
    CHECK_EQ_INT(ps_field_agg_add(a, t, 10, 4, 4, -1), 0); /* empty */
    CHECK_EQ_INT(ps_field_agg_add(a, t, 10, 9, 20, -1), 0); /* past the end */
    ps_field_agg_free(a);
    ps_field_agg_free(b);
    ps_trace_free(t);
}

/* Past the cap, new stacks count under "(other)" and the aggregate stops growing. */
TEST(aggregate_capped)
{
    int32_t a = ps_field_agg_new(50);
    double held = 0;
    for (int round = 0; round < 40; round++) {
        int32_t t = ps_trace_new(100);
        char name[32];
        int32_t parent = -1;
        for (int d = 0; d < 5; d++) {
            snprintf(name, sizeof name, "f%d_%d", round, d);
            parent = ps__trace_stack(t, parent, (uint32_t)frame(t, name, "https://x/y.js", 1, 1));
            ps_trace_sample(t, round * 100 + d, parent, 0);
        }
        CHECK_EQ_INT(ps_field_agg_add(a, t, 1, 0, UINT32_MAX, -1), 5);
        ps_trace_free(t);
        ps_field_agg_info(a);
        if (round == 20) held = ps_out_ptr()[5];
    }
    ps_field_agg_info(a);
    double *o = ps_out_ptr();
    CHECK_EQ_DBL(o[0], 50);
    CHECK(o[1] <= 50);
    CHECK_EQ_DBL(o[2], 200);
    CHECK_EQ_DBL(o[4], 200 - 49);
    CHECK_EQ_DBL(o[5], held);
    /* Known stacks still count as themselves once the cap is reached. */
    int32_t t = ps_trace_new(10);
    int32_t s = ps__trace_stack(t, -1, (uint32_t)frame(t, "f0_0", "https://x/y.js", 1, 1));
    ps_trace_sample(t, 1, s, 0);
    ps_field_agg_add(a, t, 1, 0, UINT32_MAX, -1);
    CHECK_EQ_DBL(ps_field_agg_column(a, PS_FIELD_COL_COUNT)[1], 2);
    ps_trace_free(t);
    ps_field_agg_free(a);
}

/* A decoded upload merges like any trace. */
TEST(decode_then_aggregate)
{
    int32_t t = sample_trace(), d, a = ps_field_agg_new(1000);
    CHECK(encode(t, 1) > 0);
    CHECK_EQ_INT(decode(upload, upload_len, &d), 5);
    CHECK_EQ_INT(ps_field_agg_add(a, d, ps_out_ptr()[0], 0, UINT32_MAX, -1), 5);
    ps_field_agg_info(a);
    CHECK_EQ_DBL(ps_out_ptr()[3], 50);
    ps_field_agg_free(a);
    ps_trace_free(t);
    ps_trace_free(d);
}

int main(void)
{
    RUN(round_trip);
    RUN(downsampled);
    RUN(encoder_refuses_bad_labels);
    RUN(hostile);
    RUN(aggregate);
    RUN(aggregate_range);
    RUN(aggregate_capped);
    RUN(decode_then_aggregate);
    return CHECK_DONE();
}
