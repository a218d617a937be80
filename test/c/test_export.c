/* test_export.c — the trace exporters (src/export.c), natively under ASan/UBSan. Documents are
 * parsed back with cJSON, so every check is on what a JSON reader sees. */
#include <stdlib.h>
#include <math.h>
#include "check.h"
#include "cJSON.h"
#include "internal.h"
#include "trace.h"
#include "trace_internal.h"
#include "export.h"

static uint32_t put(const char *s, uint32_t n)
{
    memcpy(ps_exchange_reserve(n + 1), s, n);
    return n;
}
static uint32_t puts_(const char *s) { return put(s, (uint32_t)strlen(s)); }

static int32_t frame(int32_t t, const char *name, const char *url, uint32_t line, uint32_t col)
{
    int32_t r = url ? ps__trace_resource(t, puts_(url)) : -1;
    return ps__trace_frame(t, puts_(name), r, line, col);
}

/* The last document as a NUL-terminated copy (caller frees). */
static char *doc(int32_t status)
{
    if (status != PS_OK) return 0;
    size_t len = ps_blob_len();
    char *s = malloc(len + 1);
    memcpy(s, ps_blob_ptr(), len);
    s[len] = 0;
    ps_blob_release();
    return s;
}

static cJSON *parse(int32_t status)
{
    char *s = doc(status);
    if (!s) return 0;
    cJSON *j = cJSON_Parse(s);
    free(s);
    return j;
}

static cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double numv(const cJSON *o, const char *k) { const cJSON *v = get(o, k); return cJSON_IsNumber(v) ? v->valuedouble : NAN; }
static const char *strv(const cJSON *o, const char *k) { const cJSON *v = get(o, k); return cJSON_IsString(v) ? v->valuestring : "<none>"; }

/* The node of a .cpuprofile with id `id`. */
static cJSON *node(const cJSON *prof, int id)
{
    cJSON *n;
    cJSON_ArrayForEach(n, get(prof, "nodes")) if (numv(n, "id") == id) return n;
    return 0;
}

TEST(an_empty_trace_exports_a_root_and_no_samples)
{
    int32_t t = ps_trace_new(10);
    cJSON *p = parse(ps_export_cpuprofile(t));
    CHECK(p != 0);
    CHECK_EQ_INT(cJSON_GetArraySize(get(p, "nodes")), 1);
    CHECK(strcmp(strv(get(node(p, 1), "callFrame"), "functionName"), "(root)") == 0);
    CHECK_EQ_INT(cJSON_GetArraySize(get(node(p, 1), "children")), 0);
    CHECK_EQ_INT(cJSON_GetArraySize(get(p, "samples")), 0);
    CHECK_EQ_INT(cJSON_GetArraySize(get(p, "timeDeltas")), 0);
    CHECK_EQ_DBL(numv(p, "startTime"), 0);
    CHECK_EQ_DBL(numv(p, "endTime"), 0);
    cJSON_Delete(p);
    p = parse(ps_export_speedscope(t, puts_("empty")));
    CHECK(p != 0);
    CHECK_EQ_INT(cJSON_GetArraySize(get(get(p, "shared"), "frames")), 0);
    cJSON *prof = cJSON_GetArrayItem(get(p, "profiles"), 0);
    CHECK(strcmp(strv(prof, "type"), "sampled") == 0);
    CHECK(strcmp(strv(prof, "name"), "empty") == 0);
    CHECK_EQ_INT(cJSON_GetArraySize(get(prof, "samples")), 0);
    CHECK_EQ_INT(cJSON_GetArraySize(get(prof, "weights")), 0);
    cJSON_Delete(p);
    p = parse(ps_export_trace_events(t, 1, 1, puts_("about:blank")));
    CHECK(p != 0);
    CHECK(cJSON_GetArraySize(get(p, "traceEvents")) == 6);
    cJSON_Delete(p);
    ps_trace_free(t);
}

TEST(names_and_urls_are_escaped)
{
    int32_t t = ps_trace_new(10);
    const char *name = "q\"uote \\ back\nnl\ttab\x01 ctl \x1f é漢😀";
    const char *url = "file:///a \"b\"/c\\d.js";
    int32_t f = frame(t, name, url, 1, 1);
    /* A lone surrogate, WTF-8 as the shim writes it (U+D800 = ED A0 80). */
    int32_t g = ps__trace_frame(t, put("x\xED\xA0\x80y", 5), -1, 0, 0);
    int32_t s = ps__trace_stack(t, -1, (uint32_t)f);
    int32_t s2 = ps__trace_stack(t, s, (uint32_t)g);
    ps_trace_sample(t, 1, s2, 0);
    char *text = doc(ps_export_cpuprofile(t));
    CHECK(text != 0);
    CHECK(strstr(text, "\\u0001") != 0);
    CHECK(strstr(text, "\\u001f") != 0);
    CHECK(strstr(text, "x\\ud800y") != 0);   /* JSON.parse gives back the lone code unit */
    int raw_control = 0;
    for (const char *c = text; text && *c; c++) raw_control |= (unsigned char)*c < 0x20;
    CHECK(!raw_control);
    free(text);
    cJSON *p = parse(ps_export_cpuprofile(t));
    /* cJSON rejects lone surrogates, so check the rest through a trace without one. */
    cJSON_Delete(p);
    int32_t u = ps_trace_new(10);
    int32_t fu = frame(u, name, url, 1, 1);
    ps_trace_sample(u, 1, ps__trace_stack(u, -1, (uint32_t)fu), 0);
    p = parse(ps_export_cpuprofile(u));
    CHECK(p != 0);
    const cJSON *cf = get(node(p, 2), "callFrame");
    CHECK(strcmp(strv(cf, "functionName"), name) == 0);
    CHECK(strcmp(strv(cf, "url"), url) == 0);
    cJSON_Delete(p);
    p = parse(ps_export_speedscope(u, puts_("n\"ame")));
    CHECK(p != 0);
    const cJSON *fr = cJSON_GetArrayItem(get(get(p, "shared"), "frames"), 0);
    CHECK(strcmp(strv(fr, "name"), name) == 0);
    CHECK(strcmp(strv(fr, "file"), url) == 0);
    CHECK(strcmp(strv(p, "name"), "n\"ame") == 0);
    cJSON_Delete(p);
    p = parse(ps_export_trace_events(u, 7, 9, puts_(url)));
    CHECK(p != 0);
    const cJSON *started = cJSON_GetArrayItem(get(p, "traceEvents"), 2);
    CHECK(strcmp(strv(started, "name"), "TracingStartedInBrowser") == 0);
    const cJSON *main_frame = cJSON_GetArrayItem(get(get(get(started, "args"), "data"), "frames"), 0);
    CHECK(main_frame && strcmp(strv(main_frame, "url"), url) == 0);
    cJSON_Delete(p);
    p = parse(ps_export_firefox(u, puts_("t\x01"), 0, 0));
    CHECK(p != 0);
    const cJSON *sa = get(get(p, "shared"), "stringArray");
    CHECK(sa && strcmp(cJSON_GetArrayItem(sa, 0)->valuestring, name) == 0);
    CHECK(sa && strcmp(cJSON_GetArrayItem(sa, 1)->valuestring, url) == 0);
    cJSON_Delete(p);
    ps_trace_free(t);
    ps_trace_free(u);
}

/* main -> a -> b, main -> c; samples at 1.0004, 2, 2 (gc, no stack), 3.5 (no stack), 5 (b). */
static int32_t small_trace(void)
{
    int32_t t = ps_trace_new(10);
    int32_t fm = frame(t, "main", "https://x/app.js", 10, 5), fa = frame(t, "a", "https://x/app.js", 20, 1);
    int32_t fb = frame(t, "b", 0, 0, 0), fc = frame(t, "c", "https://x/lib.js", 3, 3);
    int32_t sm = ps__trace_stack(t, -1, (uint32_t)fm), sa = ps__trace_stack(t, sm, (uint32_t)fa);
    int32_t sb = ps__trace_stack(t, sa, (uint32_t)fb), sc = ps__trace_stack(t, sm, (uint32_t)fc);
    ps_trace_sample(t, 1.0004, sa, 0);
    ps_trace_sample(t, 2, sc, PS_MARKER_SCRIPT);
    ps_trace_sample(t, 2, -1, PS_MARKER_GC);
    ps_trace_sample(t, 3.5, -1, 0);
    ps_trace_sample(t, 5, sb, 0);
    return t;
}

TEST(cpuprofile_nodes_children_hits_and_deltas)
{
    int32_t t = small_trace();
    cJSON *p = parse(ps_export_cpuprofile(t));
    CHECK(p != 0);
    /* root, main, a, b, c, (program), (garbage collector) */
    CHECK_EQ_INT(cJSON_GetArraySize(get(p, "nodes")), 7);
    CHECK_EQ_DBL(numv(cJSON_GetArrayItem(get(p, "nodes"), 0), "id"), 1);
    const cJSON *main_cf = get(node(p, 2), "callFrame");
    CHECK(strcmp(strv(main_cf, "functionName"), "main") == 0);
    CHECK_EQ_DBL(numv(main_cf, "lineNumber"), 9);      /* 0-based */
    CHECK_EQ_DBL(numv(main_cf, "columnNumber"), 4);
    CHECK(strcmp(strv(main_cf, "scriptId"), "1") == 0);
    const cJSON *b_cf = get(node(p, 4), "callFrame");
    CHECK_EQ_DBL(numv(b_cf, "lineNumber"), -1);        /* unknown */
    CHECK(strcmp(strv(b_cf, "url"), "") == 0);
    CHECK(strcmp(strv(b_cf, "scriptId"), "0") == 0);
    /* children: root -> (program) 6, (gc) 7, main 2; main -> a 3, c 5; a -> b 4 */
    char *kids = cJSON_PrintUnformatted(get(node(p, 1), "children"));
    CHECK(strcmp(kids, "[6,7,2]") == 0);
    free(kids);
    kids = cJSON_PrintUnformatted(get(node(p, 2), "children"));
    CHECK(strcmp(kids, "[3,5]") == 0);
    free(kids);
    CHECK(strcmp(strv(get(node(p, 6), "callFrame"), "functionName"), "(program)") == 0);
    CHECK(strcmp(strv(get(node(p, 7), "callFrame"), "functionName"), "(garbage collector)") == 0);
    CHECK_EQ_DBL(numv(node(p, 6), "hitCount"), 1);
    CHECK_EQ_DBL(numv(node(p, 7), "hitCount"), 1);
    CHECK_EQ_DBL(numv(node(p, 3), "hitCount"), 1);
    CHECK_EQ_DBL(numv(node(p, 2), "hitCount"), 0);
    char *samples = cJSON_PrintUnformatted(get(p, "samples"));
    char *deltas = cJSON_PrintUnformatted(get(p, "timeDeltas"));
    CHECK(strcmp(samples, "[3,5,7,6,4]") == 0);
    CHECK(strcmp(deltas, "[0,1000,0,1500,1500]") == 0);   /* 1.0004 ms rounds to 1000 µs */
    free(samples);
    free(deltas);
    CHECK_EQ_DBL(numv(p, "startTime"), 1000);
    CHECK_EQ_DBL(numv(p, "endTime"), 6000);   /* last sample + the mean interval (4000 / 4 µs) */
    cJSON_Delete(p);
    ps_trace_free(t);
}

TEST(speedscope_samples_are_root_first_with_weights_to_the_next_sample)
{
    int32_t t = small_trace();
    cJSON *p = parse(ps_export_speedscope(t, puts_("p")));
    CHECK(p != 0);
    const cJSON *frames = get(get(p, "shared"), "frames");
    CHECK_EQ_INT(cJSON_GetArraySize(frames), 6);   /* main a b c (program) (gc) */
    CHECK(strcmp(strv(cJSON_GetArrayItem(frames, 4), "name"), "(program)") == 0);
    CHECK(strcmp(strv(cJSON_GetArrayItem(frames, 5), "name"), "(garbage collector)") == 0);
    CHECK_EQ_DBL(numv(cJSON_GetArrayItem(frames, 0), "line"), 10);   /* 1-based, as given */
    CHECK(get(cJSON_GetArrayItem(frames, 2), "line") == 0);          /* absent when unknown */
    const cJSON *prof = cJSON_GetArrayItem(get(p, "profiles"), 0);
    char *samples = cJSON_PrintUnformatted(get(prof, "samples"));
    /* gc on top of the stack that was running, (program) on top of that (speedscope's import). */
    CHECK(strcmp(samples, "[[0,1],[0,3],[0,3,5],[0,3,5,4],[0,1,2]]") == 0);
    free(samples);
    char *weights = cJSON_PrintUnformatted(get(prof, "weights"));
    CHECK(strcmp(weights, "[1,0,1.5,1.5,1]") == 0);   /* last: the mean interval */
    free(weights);
    CHECK_EQ_DBL(numv(prof, "startValue"), 1);
    CHECK_EQ_DBL(numv(prof, "endValue"), 6);
    CHECK(strcmp(strv(prof, "unit"), "milliseconds") == 0);
    cJSON_Delete(p);
    ps_trace_free(t);
}

TEST(speedscope_names_anonymous_functions_as_its_cpuprofile_import_does)
{
    int32_t t = ps_trace_new(10);
    int32_t f0 = frame(t, "", "https://x/dir/app.js?v=1", 7, 2), f1 = frame(t, "", 0, 0, 0);
    int32_t f2 = frame(t, "", "file:///a \"q\".js", 0, 0), f3 = frame(t, "named", "https://x/b.js", 1, 1);
    int32_t s0 = ps__trace_stack(t, -1, (uint32_t)f0), s1 = ps__trace_stack(t, s0, (uint32_t)f1);
    int32_t s2 = ps__trace_stack(t, s1, (uint32_t)f2), s3 = ps__trace_stack(t, s2, (uint32_t)f3);
    ps_trace_sample(t, 1, s3, 0);
    cJSON *p = parse(ps_export_speedscope(t, puts_("anon")));
    CHECK(p != 0);
    const cJSON *frames = get(get(p, "shared"), "frames");
    CHECK(strcmp(strv(cJSON_GetArrayItem(frames, 0), "name"), "(anonymous app.js?v=1:7)") == 0);
    CHECK(strcmp(strv(cJSON_GetArrayItem(frames, 1), "name"), "(anonymous)") == 0);
    CHECK(strcmp(strv(cJSON_GetArrayItem(frames, 2), "name"), "(anonymous a \"q\".js:0)") == 0);
    CHECK(strcmp(strv(cJSON_GetArrayItem(frames, 3), "name"), "named") == 0);
    CHECK(strcmp(strv(cJSON_GetArrayItem(frames, 0), "file"), "https://x/dir/app.js?v=1") == 0);
    cJSON_Delete(p);
    ps_trace_free(t);
}

TEST(trace_events_carry_the_profile_as_one_chunk_with_parents)
{
    int32_t t = small_trace();
    cJSON *p = parse(ps_export_trace_events(t, 3, 4, puts_("https://a.test/page")));
    CHECK(p != 0);
    const cJSON *ev = get(p, "traceEvents"), *chunk = 0, *profile = 0, *task = 0, *e;
    cJSON_ArrayForEach(e, ev) {
        CHECK_EQ_DBL(numv(e, "pid"), 3);
        CHECK_EQ_DBL(numv(e, "tid"), 4);
        if (!strcmp(strv(e, "name"), "ProfileChunk")) chunk = e;
        if (!strcmp(strv(e, "name"), "Profile")) profile = e;
        if (!strcmp(strv(e, "name"), "RunTask")) task = e;
    }
    CHECK(chunk && profile && task);
    /* Samples at 1000..5000 µs, 5 of them: the task starts 1 µs before the first and ends one
     * mean interval (1000) after the last. */
    if (task) { CHECK_EQ_DBL(numv(task, "ts"), 999); CHECK_EQ_DBL(numv(task, "dur"), 5001); }
    if (chunk && profile) {
        CHECK(strcmp(strv(chunk, "id"), strv(profile, "id")) == 0);
        CHECK_EQ_DBL(numv(get(get(profile, "args"), "data"), "startTime"), 1000);
        const cJSON *data = get(get(chunk, "args"), "data");
        const cJSON *nodes = get(get(data, "cpuProfile"), "nodes"), *n;
        int seen_root = 0;
        cJSON_ArrayForEach(n, nodes) {
            if (numv(n, "id") == 1) { seen_root = 1; CHECK(get(n, "parent") == 0); }
            else CHECK(numv(n, "parent") >= 1);
        }
        CHECK(seen_root);
        char *d = cJSON_PrintUnformatted(get(data, "timeDeltas"));
        CHECK(strcmp(d, "[0,1000,0,1500,1500]") == 0);
        free(d);
    }
    cJSON_Delete(p);
    ps_trace_free(t);
}

TEST(firefox_tables_map_the_trie_with_prefix_as_parent)
{
    int32_t t = small_trace();
    cJSON *p = parse(ps_export_firefox(t, puts_("thread \"1\""), 1.7e12, 0));
    CHECK(p != 0);
    const cJSON *meta = get(p, "meta");
    CHECK_EQ_DBL(numv(meta, "preprocessedProfileVersion"), 58);
    CHECK_EQ_DBL(numv(meta, "version"), 31);
    CHECK_EQ_DBL(numv(meta, "startTime"), 1.7e12);
    CHECK_EQ_DBL(numv(meta, "interval"), 1);   /* (5 - 1) ms over 4 intervals */
    const cJSON *th = cJSON_GetArrayItem(get(p, "threads"), 0);
    CHECK(strcmp(strv(th, "name"), "thread \"1\"") == 0);
    char *prefix = cJSON_PrintUnformatted(get(get(th, "stackTable"), "prefix"));
    char *frame = cJSON_PrintUnformatted(get(get(th, "stackTable"), "frame"));
    char *stack = cJSON_PrintUnformatted(get(get(th, "samples"), "stack"));
    char *time = cJSON_PrintUnformatted(get(get(th, "samples"), "time"));
    char *strs = cJSON_PrintUnformatted(get(get(p, "shared"), "stringArray"));
    CHECK(strcmp(prefix, "[null,0,1,0,null]") == 0);   /* + the gc stack */
    CHECK(strcmp(frame, "[0,1,2,3,4]") == 0);
    CHECK(strcmp(stack, "[1,3,4,null,2]") == 0);
    CHECK(strcmp(time, "[1,2,2,3.5,5]") == 0);
    CHECK(strcmp(strs, "[\"main\",\"a\",\"b\",\"c\",\"https://x/app.js\",\"https://x/lib.js\",\"(garbage collector)\"]") == 0);
    free(prefix); free(frame); free(stack); free(time); free(strs);
    const cJSON *func = get(th, "funcTable");
    char *res = cJSON_PrintUnformatted(get(func, "resource"));
    char *line = cJSON_PrintUnformatted(get(func, "lineNumber"));
    char *isjs = cJSON_PrintUnformatted(get(func, "isJS"));
    CHECK(strcmp(res, "[0,0,-1,1,-1]") == 0);
    CHECK(strcmp(line, "[10,20,null,3,null]") == 0);
    CHECK(strcmp(isjs, "[true,true,false,true,false]") == 0);
    free(res); free(line); free(isjs);
    CHECK_EQ_DBL(numv(get(th, "frameTable"), "length"), 5);
    CHECK_EQ_DBL(numv(get(th, "resourceTable"), "length"), 2);
    cJSON_Delete(p);
    CHECK_EQ_INT(ps_export_firefox(t, 0, NAN, 0), PS_E_ARG);
    ps_trace_free(t);
    /* An empty trace: empty tables, no gc string. */
    t = ps_trace_new(1);
    p = parse(ps_export_firefox(t, puts_("e"), 0, 2));
    CHECK(p != 0);
    CHECK_EQ_INT(cJSON_GetArraySize(get(get(p, "shared"), "stringArray")), 0);
    CHECK_EQ_DBL(numv(get(p, "meta"), "interval"), 2);
    cJSON_Delete(p);
    ps_trace_free(t);
}

TEST(deep_stacks_export_without_recursion)
{
    int32_t t = ps_trace_new(10);
    int32_t s = -1;
    for (int i = 0; i < 20000; i++) {
        char n[16];
        int k = snprintf(n, sizeof n, "f%d", i % 7);
        s = ps__trace_stack(t, s, (uint32_t)ps__trace_frame(t, put(n, (uint32_t)k), -1, 0, 0));
    }
    ps_trace_sample(t, 0.5, s, 0);
    char *text = doc(ps_export_speedscope(t, puts_("deep")));
    CHECK(text && strstr(text, "[[0,1,2,3,4,5,6,0,1,") != 0);
    free(text);
    text = doc(ps_export_cpuprofile(t));
    CHECK(text && strstr(text, "\"samples\":[20001]") != 0);
    free(text);
    ps_trace_free(t);
}

TEST(bad_handles_are_refused)
{
    CHECK_EQ_INT(ps_export_cpuprofile(0), PS_E_ARG);
    CHECK_EQ_INT(ps_export_cpuprofile(999), PS_E_ARG);
    CHECK_EQ_INT(ps_export_speedscope(-1, 0), PS_E_ARG);
    CHECK_EQ_INT(ps_export_trace_events(12345, 1, 1, 0), PS_E_ARG);
    CHECK_EQ_INT(ps_export_firefox(0, 0, 0, 0), PS_E_ARG);
    ps_blob_release();
    ps_blob_release();   /* twice is fine */
}

/* A name or URL longer than the exchange buffer holds is refused, never copied from past it. */
TEST(string_arguments_are_read_only_within_the_exchange)
{
    int32_t t = small_trace();
    uint32_t far = 1u << 26; /* 64 MB: more than any earlier test reserved */
    ps_exchange_reserve(16);
    CHECK_EQ_INT(ps_export_speedscope(t, far), PS_E_ARG);
    CHECK_EQ_INT(ps_export_trace_events(t, 1, 1, far), PS_E_ARG);
    CHECK_EQ_INT(ps_export_firefox(t, far, 0, 0), PS_E_ARG);
    CHECK(ps_export_speedscope(t, puts_("ok")) >= 0);
    ps_blob_release();
    ps_trace_free(t);
}

int main(void)
{
    RUN(an_empty_trace_exports_a_root_and_no_samples);
    RUN(names_and_urls_are_escaped);
    RUN(cpuprofile_nodes_children_hits_and_deltas);
    RUN(speedscope_samples_are_root_first_with_weights_to_the_next_sample);
    RUN(speedscope_names_anonymous_functions_as_its_cpuprofile_import_does);
    RUN(trace_events_carry_the_profile_as_one_chunk_with_parents);
    RUN(firefox_tables_map_the_trie_with_prefix_as_parent);
    RUN(deep_stacks_export_without_recursion);
    RUN(bad_handles_are_refused);
    RUN(string_arguments_are_read_only_within_the_exchange);
    return CHECK_DONE();
}
