/*
 * export.c — trace exporters: a trace of the core (trace.c) written as JSON for other tools.
 *
 * Data structure: one growable byte buffer (the export buffer) holding the last document, and a
 * JSON writer over it whose allocation failure is sticky (every later write is dropped and the
 * exporter returns PS_E_NOMEM). Numbers are written as integers (µs) or as fixed-point ms with
 * three decimals, so no printf is linked into the module.
 *
 * Each exporter walks the trie once or twice, never recursively:
 *   - the trace's stack ids are parent-before-child (trace.c's invariant), so a stack's node in
 *     any tree format is its id plus a fixed offset, and a pass in id order meets parents first;
 *   - children lists (the .cpuprofile wants them) come from one counting pass over the parent
 *     column (a compressed sparse row: offsets per stack, then the child ids);
 *   - speedscope's root-first frame lists come from walking the parent column into a scratch
 *     array of at most `stacks` + 2 ids (a stack, then at most the two meta frames on top).
 * Invariants of the output (checked by test/c/test_export.c and the node suites): every node or
 * frame index written is in range; the root / meta nodes appear only once; samples appear in the
 * trace's (time) order; time deltas sum back to each sample's time in whole µs.
 *
 * Samples without a stack go to synthetic nodes as V8 writes them: "(garbage collector)" for the
 * gc marker, "(program)" otherwise; they are emitted only when a sample uses them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "trace_internal.h"
#include "export.h"

/* ---- the JSON writer ------------------------------------------------------------------------ */

/* The writer's calls stay calls: inlined, each `raw(w, "...")` becomes a copy loop and the
 * exporters grow by kilobytes (the module's size matters more than their speed). */
#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

typedef struct {
    uint8_t *b;
    size_t len, cap;
    int err;
} writer;

static writer W;

NOINLINE static int room(writer *w, size_t n)
{
    if (w->err) return 0;
    if (w->len + n <= w->cap) return 1;
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n) {
        if (cap > SIZE_MAX / 2) { w->err = 1; return 0; }
        cap *= 2;
    }
    uint8_t *q = realloc(w->b, cap);
    if (!q) { w->err = 1; return 0; }
    w->b = q;
    w->cap = cap;
    return 1;
}

NOINLINE static void put(writer *w, const void *s, size_t n)
{
    if (!room(w, n)) return;
    memcpy(w->b + w->len, s, n);
    w->len += n;
}

NOINLINE static void raw(writer *w, const char *s) { put(w, s, strlen(s)); }

NOINLINE static void ch(writer *w, char c)
{
    if (room(w, 1)) w->b[w->len++] = (uint8_t)c;
}

static const char HEX[] = "0123456789abcdef";

NOINLINE static void u_escape(writer *w, uint32_t code)
{
    char e[6] = { '\\', 'u', HEX[(code >> 12) & 15], HEX[(code >> 8) & 15], HEX[(code >> 4) & 15], HEX[code & 15] };
    put(w, e, 6);
}

/* A JSON string (RFC 8259 §7): quote, backslash and control characters escaped. The core holds
 * names as WTF-8 (glue/loader.js putString), so a lone surrogate (ED A0..BF xx) is written as its
 * \u escape, which JSON.parse turns back into the same UTF-16 code unit. */
NOINLINE static void str_body(writer *w, const uint8_t *s, uint32_t n)
{
    uint32_t run = 0; /* start of the bytes copied as they are */
    for (uint32_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        const char *esc = 0;
        int surrogate = c == 0xED && i + 2 < n && s[i + 1] >= 0xA0 && s[i + 1] <= 0xBF;
        if (c >= 0x20 && c != '"' && c != '\\' && !surrogate) continue;
        put(w, s + run, i - run);
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        if (esc) raw(w, esc);
        else if (surrogate) {
            u_escape(w, 0xD000u | ((uint32_t)(s[i + 1] & 0x3f) << 6) | (s[i + 2] & 0x3f));
            i += 2;
        } else u_escape(w, c);
        run = i + 1;
    }
    put(w, s + run, n - run);
}

NOINLINE static void str(writer *w, const uint8_t *s, uint32_t n)
{
    ch(w, '"');
    str_body(w, s, n);
    ch(w, '"');
}

NOINLINE static void cstr(writer *w, const char *s) { str(w, (const uint8_t *)s, (uint32_t)strlen(s)); }

NOINLINE static void num(writer *w, long long v)
{
    char d[24];
    int k = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do { d[k++] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) ch(w, '-');
    while (k) ch(w, d[--k]);
}

/* `us` microseconds written as milliseconds: integer part, then up to three decimals. */
NOINLINE static void ms(writer *w, long long us)
{
    unsigned long long u = us < 0 ? 0ull - (unsigned long long)us : (unsigned long long)us;
    if (us < 0) ch(w, '-');
    num(w, (long long)(u / 1000));
    unsigned frac = (unsigned)(u % 1000);
    if (!frac) return;
    char d[4] = { '.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10) };
    int k = 4;
    while (d[k - 1] == '0') k--;
    put(w, d, (size_t)k);
}

/* A trace timestamp (ms, finite) as whole µs, clamped to what a double holds exactly. */
static long long to_us(double t)
{
    double v = nearbyint(t * 1000.0);
    if (v > 9e15) v = 9e15;
    if (v < -9e15) v = -9e15;
    return (long long)v;
}

static int32_t finish(writer *w)
{
    if (w->err) {
        free(w->b);
        memset(w, 0, sizeof *w);
        return PS_E_NOMEM;
    }
    /* The document becomes the blob (no copy); the next export starts a new buffer. */
    ps__blob_set(w->b, (uint32_t)w->len, 1);
    memset(w, 0, sizeof *w);
    return PS_OK;
}

/* ---- a read-only view of a trace ------------------------------------------------------------ */

typedef struct {
    int32_t h;
    uint32_t nr, nf, ns, nsm;
    const uint32_t *fname, *fline, *fcol, *sframe;
    const int32_t *fres, *sparent, *sstack;
    const double *ts;
    const uint8_t *mk;
    uint32_t prog_hits, gc_hits;
} view;

static int view_of(int32_t h, view *v)
{
    if (ps_trace_info(h) != PS_OK) return PS_E_ARG;
    const double *o = ps_out_ptr();
    memset(v, 0, sizeof *v);
    v->h = h;
    v->nr = (uint32_t)o[0]; v->nf = (uint32_t)o[1]; v->ns = (uint32_t)o[2]; v->nsm = (uint32_t)o[3];
    v->fname = ps_trace_column(h, PS_COL_FRAME_NAME);
    v->fres = ps_trace_column(h, PS_COL_FRAME_RESOURCE);
    v->fline = ps_trace_column(h, PS_COL_FRAME_LINE);
    v->fcol = ps_trace_column(h, PS_COL_FRAME_COLUMN);
    v->sparent = ps_trace_column(h, PS_COL_STACK_PARENT);
    v->sframe = ps_trace_column(h, PS_COL_STACK_FRAME);
    v->ts = ps_trace_column(h, PS_COL_SAMPLE_TIME);
    v->sstack = ps_trace_column(h, PS_COL_SAMPLE_STACK);
    v->mk = ps_trace_column(h, PS_COL_SAMPLE_MARKER);
    for (uint32_t i = 0; i < v->nsm; i++) {
        if (v->sstack[i] >= 0) continue;
        if (v->mk[i] == PS_MARKER_GC) v->gc_hits++;
        else v->prog_hits++;
    }
    return PS_OK;
}

NOINLINE static void string_of(writer *w, const view *v, uint32_t kind, int32_t id)
{
    uint32_t len = 0;
    const uint8_t *s = id >= 0 ? ps__trace_string(v->h, kind, (uint32_t)id, &len) : 0;
    str(w, s ? s : (const uint8_t *)"", s ? len : 0);
}

/* ---- Chrome DevTools .cpuprofile --------------------------------------------------------------
 * Follows the DevTools protocol's Profiler.Profile / ProfileNode / Runtime.CallFrame
 * (chromedevtools.github.io/devtools-protocol/tot/Profiler): node ids are integers, the root
 * "(root)" is nodes[0], callFrame positions are 0-based (-1 unknown), scriptId is a string,
 * startTime/endTime and timeDeltas are µs, samples are node ids. */

enum { ROOT_ID = 1 };

/* Node ids: root 1, stack s -> s + 2, then the meta nodes. */
typedef struct { uint32_t prog, gc; } meta_ids;

static meta_ids meta_of(const view *v)
{
    meta_ids m = { 0, 0 };
    uint32_t next = v->ns + 2;
    if (v->prog_hits) m.prog = next++;
    if (v->gc_hits) m.gc = next++;
    return m;
}

static uint32_t node_of_sample(const view *v, const meta_ids *m, uint32_t i)
{
    if (v->sstack[i] >= 0) return (uint32_t)v->sstack[i] + 2;
    return v->mk[i] == PS_MARKER_GC ? m->gc : m->prog;
}

NOINLINE static void call_frame(writer *w, const view *v, int32_t frame, const char *meta)
{
    raw(w, "\"callFrame\":{\"functionName\":");
    if (meta) cstr(w, meta);
    else string_of(w, v, PS_STRINGS_NAMES, (int32_t)v->fname[frame]);
    int32_t res = meta ? -1 : v->fres[frame];
    raw(w, ",\"scriptId\":\"");
    num(w, res + 1);   /* "0" for no script, as V8 writes native frames */
    raw(w, "\",\"url\":");
    string_of(w, v, PS_STRINGS_RESOURCES, res);
    raw(w, ",\"lineNumber\":");
    num(w, meta ? -1 : (long long)v->fline[frame] - 1);
    raw(w, ",\"columnNumber\":");
    num(w, meta ? -1 : (long long)v->fcol[frame] - 1);
    ch(w, '}');
}

/* The node list. With `parents`, each node names its parent (the trace-event ProfileChunk's
 * form); otherwise each lists its children and hitCount (the .cpuprofile's). */
static int nodes(writer *w, const view *v, const meta_ids *m, int parents)
{
    uint32_t *hits = 0, *off = 0, *kids = 0;
    if (!parents) {
        hits = calloc((size_t)v->ns + 1, 4);
        off = calloc((size_t)v->ns + 2, 4);
        kids = malloc((size_t)v->ns * 4 + 4);
        if (!hits || !off || !kids) { free(hits); free(off); free(kids); return PS_E_NOMEM; }
        for (uint32_t i = 0; i < v->nsm; i++)
            if (v->sstack[i] >= 0) hits[v->sstack[i]]++;
        /* Children in compressed rows: off[p]..off[p+1] are the children of stack p. */
        for (uint32_t s = 0; s < v->ns; s++)
            if (v->sparent[s] >= 0) off[v->sparent[s] + 1]++;
        for (uint32_t s = 0; s < v->ns; s++) off[s + 1] += off[s];
        uint32_t *at = malloc((size_t)v->ns * 4 + 4);
        if (!at) { free(hits); free(off); free(kids); return PS_E_NOMEM; }
        memcpy(at, off, (size_t)v->ns * 4);
        for (uint32_t s = 0; s < v->ns; s++)
            if (v->sparent[s] >= 0) kids[at[v->sparent[s]]++] = s;
        free(at);
    }
    raw(w, "[{\"id\":1,");
    call_frame(w, v, -1, "(root)");
    if (!parents) {
        raw(w, ",\"hitCount\":0,\"children\":[");
        int first = 1;
        if (m->prog) { num(w, m->prog); first = 0; }
        if (m->gc) { if (!first) ch(w, ','); num(w, m->gc); first = 0; }
        for (uint32_t s = 0; s < v->ns; s++) {
            if (v->sparent[s] >= 0) continue;
            if (!first) ch(w, ',');
            num(w, (long long)s + 2);
            first = 0;
        }
        ch(w, ']');
    }
    ch(w, '}');
    const char *meta_name[2] = { "(program)", "(garbage collector)" };
    uint32_t meta_id[2] = { m->prog, m->gc }, meta_hits[2] = { v->prog_hits, v->gc_hits };
    for (int k = 0; k < 2; k++) {
        if (!meta_id[k]) continue;
        raw(w, ",{\"id\":");
        num(w, meta_id[k]);
        ch(w, ',');
        call_frame(w, v, -1, meta_name[k]);
        if (parents) raw(w, ",\"parent\":1}");
        else {
            raw(w, ",\"hitCount\":");
            num(w, meta_hits[k]);
            raw(w, ",\"children\":[]}");
        }
    }
    for (uint32_t s = 0; s < v->ns; s++) {
        raw(w, ",{\"id\":");
        num(w, (long long)s + 2);
        ch(w, ',');
        call_frame(w, v, (int32_t)v->sframe[s], 0);
        if (parents) {
            raw(w, ",\"parent\":");
            num(w, v->sparent[s] >= 0 ? (long long)v->sparent[s] + 2 : ROOT_ID);
            ch(w, '}');
            continue;
        }
        raw(w, ",\"hitCount\":");
        num(w, hits[s]);
        raw(w, ",\"children\":[");
        for (uint32_t k = off[s]; k < off[s + 1]; k++) {
            if (k > off[s]) ch(w, ',');
            num(w, (long long)kids[k] + 2);
        }
        raw(w, "]}");
    }
    ch(w, ']');
    free(hits); free(off); free(kids);
    return PS_OK;
}

/* "samples":[node ids],"timeDeltas":[µs]: deltas between whole-µs times, the first from `start`. */
static void samples_and_deltas(writer *w, const view *v, const meta_ids *m, long long start)
{
    raw(w, "\"samples\":[");
    for (uint32_t i = 0; i < v->nsm; i++) {
        if (i) ch(w, ',');
        num(w, node_of_sample(v, m, i));
    }
    raw(w, "],\"timeDeltas\":[");
    long long prev = start;
    for (uint32_t i = 0; i < v->nsm; i++) {
        long long t = to_us(v->ts[i]);
        if (i) ch(w, ',');
        num(w, t - prev);
        prev = t;
    }
    ch(w, ']');
}

PS_API int32_t ps_export_cpuprofile(int32_t h)
{
    view v;
    if (view_of(h, &v) != PS_OK) return PS_E_ARG;
    meta_ids m = meta_of(&v);
    writer *w = &W;
    w->len = 0;
    /* endTime is when sampling ended, one mean interval after the last sample (1 ms for a single
     * sample), as V8 writes it (its endTime is past its last sample): readers that keep samples
     * with time < endTime (the Firefox Profiler's Chrome import) would drop one at endTime. */
    long long start = v.nsm ? to_us(v.ts[0]) : 0, last = v.nsm ? to_us(v.ts[v.nsm - 1]) : 0;
    long long end = !v.nsm ? 0 : v.nsm > 1 ? last + (last - start) / (long long)(v.nsm - 1) : last + 1000;
    if (v.nsm && end <= last) end = last + 1;
    raw(w, "{\"nodes\":");
    int32_t status = nodes(w, &v, &m, 0);
    if (status != PS_OK) return status;
    raw(w, ",\"startTime\":");
    num(w, start);
    raw(w, ",\"endTime\":");
    num(w, end);
    ch(w, ',');
    samples_and_deltas(w, &v, &m, start);
    ch(w, '}');
    return finish(w);
}

/* ---- Chrome trace events ----------------------------------------------------------------------
 * The Trace Event Format (docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
 * metadata events (ph "M": process_name, thread_name), TracingStartedInBrowser (its frame's url
 * is the page's) and one RunTask (ph "X") from 1 µs before the first sample to one interval
 * after the last, as DevTools' Performance panel expects of a page's main thread
 * (the same events push-based/cpu-prof writes for DevTools), and the CPU profile as Chrome's tracing
 * writes it for DevTools: a "Profile" sample event (ph "P", category
 * disabled-by-default-v8.cpu_profiler, id) with data.startTime, then "ProfileChunk" events with
 * the same id carrying data.cpuProfile {nodes (each with its parent), samples} and
 * data.timeDeltas. All ts in µs on the trace's clock (ms since the time origin * 1000). */

NOINLINE static void event_head(writer *w, const char *name, const char *ph, const char *cat,
                       uint32_t pid, uint32_t tid, long long ts)
{
    raw(w, "{\"name\":");
    cstr(w, name);
    raw(w, ",\"ph\":");
    cstr(w, ph);
    raw(w, ",\"cat\":");
    cstr(w, cat);
    raw(w, ",\"pid\":");
    num(w, pid);
    raw(w, ",\"tid\":");
    num(w, tid);
    raw(w, ",\"ts\":");
    num(w, ts);
}

PS_API int32_t ps_export_trace_events(int32_t h, uint32_t pid, uint32_t tid, uint32_t url_len)
{
    view v;
    if (view_of(h, &v) != PS_OK) return PS_E_ARG;
    const uint8_t *in = ps__exchange_read(url_len);
    if (!in) return PS_E_ARG;
    uint8_t *url = malloc((size_t)url_len + 1);
    if (!url) return PS_E_NOMEM;
    memcpy(url, in, url_len);
    meta_ids m = meta_of(&v);
    writer *w = &W;
    w->len = 0;
    long long start = v.nsm ? to_us(v.ts[0]) : 0, end = v.nsm ? to_us(v.ts[v.nsm - 1]) : 0;
    /* One mean sample interval: the last sample's share of time, after it. The task starts 1 µs
     * before the first sample: DevTools nests an event in a sample's call that starts and ends
     * with it, and the task must hold the calls, as in Chromium's own traces. */
    long long interval = v.nsm > 1 ? (end - start) / (long long)(v.nsm - 1) : 0;
    long long task = start > 0 ? start - 1 : start;
    raw(w, "{\"traceEvents\":[");
    event_head(w, "process_name", "M", "__metadata", pid, tid, 0);
    raw(w, ",\"args\":{\"name\":\"perfshim\"}},\n");
    /* DevTools finds the page's main thread by this name. */
    event_head(w, "thread_name", "M", "__metadata", pid, tid, 0);
    raw(w, ",\"args\":{\"name\":\"CrRendererMain\"}},\n");
    /* The event DevTools' Performance panel starts a recording at. Its main frame's url must be
     * a URL (DevTools' trace engine parses it and drops a renderer process whose url does not
     * parse, and with it the main thread and its call tree): the shim passes the page's. */
    event_head(w, "TracingStartedInBrowser", "I", "disabled-by-default-devtools.timeline", pid, tid, task);
    raw(w, ",\"s\":\"t\",\"args\":{\"data\":{\"frameTreeNodeId\":1,\"persistentIds\":true,"
           "\"frames\":[{\"frame\":\"perfshim\",\"url\":");
    str(w, url, url_len);
    raw(w, ",\"name\":\"\",\"isInPrimaryMainFrame\":true,\"isOutermostMainFrame\":true,\"processId\":");
    num(w, pid);
    raw(w, "}]}}},\n");
    free(url);
    /* One task around the recording: DevTools' main-thread track draws samples inside tasks. It
     * ends one sample interval after the last sample (the time that sample stands for): ending
     * at the last sample would split that sample off the task. */
    event_head(w, "RunTask", "X", "devtools.timeline", pid, tid, task);
    raw(w, ",\"dur\":");
    num(w, end + interval - task);
    raw(w, ",\"args\":{}},\n");
    event_head(w, "Profile", "P", "disabled-by-default-v8.cpu_profiler", pid, tid, start);
    raw(w, ",\"id\":\"0x1\",\"args\":{\"data\":{\"startTime\":");
    num(w, start);
    raw(w, "}}},\n");
    event_head(w, "ProfileChunk", "P", "disabled-by-default-v8.cpu_profiler", pid, tid, end);
    raw(w, ",\"id\":\"0x1\",\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":");
    int32_t status = nodes(w, &v, &m, 1);
    if (status != PS_OK) return status;
    /* samples inside cpuProfile, timeDeltas beside it, as Chrome writes the chunk. */
    raw(w, ",\"samples\":[");
    for (uint32_t i = 0; i < v.nsm; i++) {
        if (i) ch(w, ',');
        num(w, node_of_sample(&v, &m, i));
    }
    raw(w, "]},\"timeDeltas\":[");
    long long prev = start;
    for (uint32_t i = 0; i < v.nsm; i++) {
        long long t = to_us(v.ts[i]);
        if (i) ch(w, ',');
        num(w, t - prev);
        prev = t;
    }
    raw(w, "]}}}\n]}");
    return finish(w);
}

/* ---- speedscope --------------------------------------------------------------------------------
 * speedscope's file format (github.com/jlfwong/speedscope src/lib/file-format-spec.ts, schema
 * https://www.speedscope.app/file-format-schema.json): shared.frames [{name, file?, line?, col?}],
 * one "sampled" profile whose samples are frame-index lists outermost first, with one weight per
 * sample (here the time to the next sample; the last gets the mean interval), unit milliseconds.
 * line/col are written as the trace has them (1-based), as speedscope's own importers do.
 * Two things follow speedscope's own .cpuprofile import (src/import/chrome.ts), so a profile looks
 * the same either way: a function without a name is "(anonymous <file's last path segment>:<line>)"
 * ("(anonymous)" without a file), and a stackless sample ("(garbage collector)", "(program)") sits
 * on top of the stack the previous sample left open, or cuts that stack back to where the same
 * meta frame already is, instead of standing alone at the root. */

/* Whether frame f has no name (an anonymous function). */
static int anonymous(const view *v, uint32_t f)
{
    uint32_t len = 0;
    const uint8_t *name = ps__trace_string(v->h, PS_STRINGS_NAMES, v->fname[f], &len);
    return !name || !len;
}

/* A frame's display name: its own, or speedscope's name for an anonymous function. */
static void speedscope_name(writer *w, const view *v, uint32_t f)
{
    uint32_t len = 0, flen = 0;
    const uint8_t *name = ps__trace_string(v->h, PS_STRINGS_NAMES, v->fname[f], &len);
    if (name && len) { str(w, name, len); return; }
    const uint8_t *file =
        v->fres[f] >= 0 ? ps__trace_string(v->h, PS_STRINGS_RESOURCES, (uint32_t)v->fres[f], &flen) : 0;
    if (!file || !flen) { raw(w, "\"(anonymous)\""); return; }
    uint32_t base = flen;
    while (base && file[base - 1] != '/') base--;
    raw(w, "\"(anonymous ");
    str_body(w, file + base, flen - base);
    ch(w, ':');
    num(w, v->fline[f]);
    raw(w, ")\"");
}

PS_API int32_t ps_export_speedscope(int32_t h, uint32_t name_len)
{
    view v;
    const uint8_t *xb = ps__exchange_read(name_len);
    if (!xb) return PS_E_ARG;
    uint8_t *name = malloc((size_t)name_len + 1);
    if (!name) return PS_E_NOMEM;
    memcpy(name, xb, name_len);
    if (view_of(h, &v) != PS_OK) { free(name); return PS_E_ARG; }
    /* The open stack, root first: a stack's frames, plus at most the two meta frames on top. */
    uint32_t *path = malloc((size_t)v.ns * 4 + 8);
    if (!path) { free(name); return PS_E_NOMEM; }
    writer *w = &W;
    w->len = 0;
    uint32_t prog_frame = v.nf, gc_frame = v.nf + (v.prog_hits ? 1 : 0);
    raw(w, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[");
    for (uint32_t f = 0; f < v.nf; f++) {
        if (f) ch(w, ',');
        raw(w, "{\"name\":");
        speedscope_name(w, &v, f);
        if (v.fres[f] >= 0) { raw(w, ",\"file\":"); string_of(w, &v, 0, v.fres[f]); }
        if (v.fline[f]) { raw(w, ",\"line\":"); num(w, v.fline[f]); }
        if (v.fcol[f]) { raw(w, ",\"col\":"); num(w, v.fcol[f]); }
        ch(w, '}');
    }
    if (v.prog_hits) { if (v.nf) ch(w, ','); raw(w, "{\"name\":\"(program)\"}"); }
    if (v.gc_hits) { if (v.nf || v.prog_hits) ch(w, ','); raw(w, "{\"name\":\"(garbage collector)\"}"); }
    raw(w, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":");
    str(w, name, name_len);
    long long start = v.nsm ? to_us(v.ts[0]) : 0, last = v.nsm ? to_us(v.ts[v.nsm - 1]) : 0;
    long long tail = v.nsm > 1 ? (last - start) / (long long)(v.nsm - 1) : 0;
    raw(w, ",\"unit\":\"milliseconds\",\"startValue\":");
    ms(w, start);
    raw(w, ",\"endValue\":");
    ms(w, last + tail);
    raw(w, ",\"samples\":[");
    uint32_t depth = 0;
    for (uint32_t i = 0; i < v.nsm; i++) {
        if (i) ch(w, ',');
        ch(w, '[');
        int32_t s = v.sstack[i];
        if (s >= 0) {
            depth = 0;
            for (int32_t k = s; k >= 0 && depth < v.ns; k = v.sparent[k]) depth++;
            uint32_t d = depth;
            for (int32_t k = s; d; k = v.sparent[k]) path[--d] = v.sframe[k];
        } else {
            uint32_t meta = v.mk[i] == PS_MARKER_GC ? gc_frame : prog_frame, k = 0;
            while (k < depth && path[k] != meta) k++;
            if (k < depth) depth = k + 1;
            else path[depth++] = meta;
        }
        for (uint32_t k = 0; k < depth; k++) {
            if (k) ch(w, ',');
            num(w, path[k]);
        }
        ch(w, ']');
    }
    raw(w, "],\"weights\":[");
    for (uint32_t i = 0; i < v.nsm; i++) {
        if (i) ch(w, ',');
        ms(w, i + 1 < v.nsm ? to_us(v.ts[i + 1]) - to_us(v.ts[i]) : tail);
    }
    raw(w, "]}],\"name\":");
    str(w, name, name_len);
    raw(w, ",\"activeProfileIndex\":0,\"exporter\":\"perfshim\"}");
    free(path);
    free(name);
    return finish(w);
}

/* ---- Firefox Profiler ------------------------------------------------------------------------
 * The processed profile format, version 58 (firefox-devtools/profiler: src/types/profile.ts, the
 * Profile / RawThread / tables types; docs-developer/CHANGELOG-formats.md for the versions:
 * processed 58 puts stringArray and the sources table in profile.shared, gecko format 31). The
 * profiler upgrades older processed versions on load, so a file written for 58 keeps opening.
 * Tables are structs of arrays; our trie maps onto them directly: stackTable.prefix is the
 * parent column (null for roots), one func and one frame per trace frame (a trace frame is a
 * function at its definition position), one resource and one source per trace resource (type
 * 5 = url). Strings: frame names, then resources, then "(garbage collector)" when a gc sample
 * needs a frame (stackless gc samples get that frame's stack; other stackless samples have a
 * null stack), then one name per anonymous frame, "(anonymous file.js:line)" as speedscope
 * names it (the profiler shows a func's name as it is). Categories: 0 Other (grey, the
 * default), 1 JavaScript, 2 GC / CC. Sample times are ms after meta.startTime, which is the
 * time origin. Checked with the profiler's own loader (unserializeProfileOfArbitraryFormat,
 * upgraded 58 -> 70, then its call tree), stop 21. */

NOINLINE static void nulls_or(writer *w, const char *key, uint32_t n, const uint32_t *col, uint32_t extra)
{
    ch(w, '"');
    raw(w, key);
    raw(w, "\":[");
    for (uint32_t i = 0; i < n + extra; i++) {
        if (i) ch(w, ',');
        if (i < n && col && col[i]) num(w, col[i]);
        else raw(w, "null");
    }
    ch(w, ']');
}

NOINLINE static void repeat(writer *w, const char *key, const char *value, uint32_t n)
{
    ch(w, '"');
    raw(w, key);
    raw(w, "\":[");
    for (uint32_t i = 0; i < n; i++) {
        if (i) ch(w, ',');
        raw(w, value);
    }
    ch(w, ']');
}

/* "key":[first, first+1, ..., first+n-1] */
/* ",key":[...]: for each of `n` functions, whether its frame has a resource (a script) equals
 * `scripted`; functions past the trace's frames (meta frames) have none. */
NOINLINE static void by_resource(writer *w, const char *key, const view *v, uint32_t n, int scripted)
{
    raw(w, "],\"");
    raw(w, key);
    raw(w, "\":[");
    for (uint32_t f = 0; f < n; f++) {
        if (f) ch(w, ',');
        int has = f < v->nf && v->fres[f] >= 0;
        int relevant = scripted ? has : f < v->nf && !has;
        raw(w, relevant ? "true" : "false");
    }
}

NOINLINE static void counting(writer *w, const char *key, long long first, uint32_t n)
{
    ch(w, '"');
    raw(w, key);
    raw(w, "\":[");
    for (uint32_t i = 0; i < n; i++) {
        if (i) ch(w, ',');
        num(w, first + i);
    }
    ch(w, ']');
}

NOINLINE static void length(writer *w, uint32_t n)
{
    raw(w, ",\"length\":");
    num(w, n);
    ch(w, '}');
}

PS_API int32_t ps_export_firefox(int32_t h, uint32_t name_len, double start_ms, double interval_ms)
{
    view v;
    const uint8_t *in = ps__exchange_read(name_len);
    if (!in || !isfinite(start_ms) || isnan(interval_ms)) return PS_E_ARG;
    uint8_t *name = malloc((size_t)name_len + 1);
    if (!name) return PS_E_NOMEM;
    memcpy(name, in, name_len);
    if (view_of(h, &v) != PS_OK) { free(name); return PS_E_ARG; }
    uint32_t nn = ps__trace_string_count(h, PS_STRINGS_NAMES), gc = v.gc_hits ? 1 : 0;
    writer *w = &W;
    w->len = 0;
    long long first = v.nsm ? to_us(v.ts[0]) : 0, last = v.nsm ? to_us(v.ts[v.nsm - 1]) : 0;
    long long interval = interval_ms > 0 ? to_us(interval_ms)
                       : v.nsm > 1 ? (last - first) / (long long)(v.nsm - 1) : 1000;
    if (interval < 1) interval = 1;

    raw(w, "{\"meta\":{\"interval\":");
    ms(w, interval);
    raw(w, ",\"startTime\":");
    ms(w, to_us(start_ms));
    if (v.nsm) {
        raw(w, ",\"profilingStartTime\":");
        ms(w, first);
        raw(w, ",\"profilingEndTime\":");
        ms(w, last + interval);
    }
    raw(w, ",\"processType\":0,\"product\":");
    str(w, name, name_len);
    raw(w, ",\"stackwalk\":0,\"version\":31,\"preprocessedProfileVersion\":58,"
           "\"symbolicated\":true,\"importedFrom\":\"perfshim\",\"usesOnlyOneStackType\":true,"
           "\"sourceCodeIsNotOnSearchfox\":true,\"markerSchema\":[],\"categories\":["
           "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
           "{\"name\":\"JavaScript\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
           "{\"name\":\"GC / CC\",\"color\":\"orange\",\"subcategories\":[\"Other\"]}]},"
           "\"libs\":[],\"shared\":{\"stringArray\":[");
    for (uint32_t i = 0; i < nn; i++) {
        if (i) ch(w, ',');
        string_of(w, &v, 1, (int32_t)i);
    }
    for (uint32_t i = 0; i < v.nr; i++) {
        if (i || nn) ch(w, ',');
        string_of(w, &v, 0, (int32_t)i);
    }
    if (gc) { if (nn || v.nr) ch(w, ','); raw(w, "\"(garbage collector)\""); }
    /* An anonymous function's name, as speedscope names it (the profiler shows a func's name as
     * it is: an empty one would be a blank row), one string per such frame after the others. */
    uint32_t anon = nn + v.nr + gc;
    for (uint32_t f = 0, k = anon; f < v.nf; f++) {
        if (!anonymous(&v, f)) continue;
        if (k++) ch(w, ',');
        speedscope_name(w, &v, f);
    }
    raw(w, "],\"sources\":{");
    repeat(w, "uuid", "null", v.nr);
    ch(w, ',');
    counting(w, "filename", (long long)nn, v.nr);
    length(w, v.nr);
    raw(w, "},\"threads\":[{\"processType\":\"default\",\"processStartupTime\":0,"
           "\"processShutdownTime\":null,\"registerTime\":0,\"unregisterTime\":null,"
           "\"pausedRanges\":[],\"name\":");
    str(w, name, name_len);
    raw(w, ",\"isMainThread\":true,\"pid\":\"1\",\"tid\":1,");

    /* samples */
    uint32_t gc_stack = v.ns;
    raw(w, "\"samples\":{\"stack\":[");
    for (uint32_t i = 0; i < v.nsm; i++) {
        if (i) ch(w, ',');
        if (v.sstack[i] >= 0) num(w, v.sstack[i]);
        else if (v.mk[i] == PS_MARKER_GC) num(w, gc_stack);
        else raw(w, "null");
    }
    raw(w, "],\"time\":[");
    for (uint32_t i = 0; i < v.nsm; i++) {
        if (i) ch(w, ',');
        ms(w, to_us(v.ts[i]));
    }
    raw(w, "],\"weight\":null,\"weightType\":\"samples\"");
    length(w, v.nsm);
    raw(w, ",\"markers\":{\"data\":[],\"name\":[],\"startTime\":[],\"endTime\":[],\"phase\":[],"
           "\"category\":[],\"length\":0}");

    /* stackTable: prefix = the trie's parent column */
    raw(w, ",\"stackTable\":{\"frame\":[");
    for (uint32_t s = 0; s < v.ns + gc; s++) {
        if (s) ch(w, ',');
        num(w, s < v.ns ? v.sframe[s] : v.nf);
    }
    raw(w, "],\"prefix\":[");
    for (uint32_t s = 0; s < v.ns + gc; s++) {
        if (s) ch(w, ',');
        if (s < v.ns && v.sparent[s] >= 0) num(w, v.sparent[s]);
        else raw(w, "null");
    }
    ch(w, ']');
    length(w, v.ns + gc);

    /* frameTable: frame i is func i */
    uint32_t nf = v.nf + gc;
    raw(w, ",\"frameTable\":{");
    repeat(w, "address", "-1", nf);
    ch(w, ',');
    repeat(w, "inlineDepth", "0", nf);
    raw(w, ",\"category\":[");
    for (uint32_t f = 0; f < nf; f++) {
        if (f) ch(w, ',');
        ch(w, f < v.nf ? '1' : '2');
    }
    raw(w, "],");
    repeat(w, "subcategory", "0", nf);
    raw(w, ",\"func\":[");
    for (uint32_t f = 0; f < nf; f++) {
        if (f) ch(w, ',');
        num(w, f);
    }
    raw(w, "],");
    repeat(w, "nativeSymbol", "null", nf);
    ch(w, ',');
    repeat(w, "innerWindowID", "0", nf);
    ch(w, ',');
    nulls_or(w, "line", v.nf, v.fline, gc);
    ch(w, ',');
    nulls_or(w, "column", v.nf, v.fcol, gc);
    length(w, nf);

    /* funcTable */
    raw(w, ",\"funcTable\":{\"name\":[");
    for (uint32_t f = 0, k = anon; f < nf; f++) {
        if (f) ch(w, ',');
        if (f >= v.nf) num(w, (long long)nn + v.nr);
        else num(w, anonymous(&v, f) ? k++ : v.fname[f]);
    }
    by_resource(w, "isJS", &v, nf, 1);
    by_resource(w, "relevantForJS", &v, nf, 0);
    raw(w, "],\"resource\":[");
    for (uint32_t f = 0; f < nf; f++) {
        if (f) ch(w, ',');
        num(w, f < v.nf ? v.fres[f] : -1);
    }
    raw(w, "],\"source\":[");
    for (uint32_t f = 0; f < nf; f++) {
        if (f) ch(w, ',');
        if (f < v.nf && v.fres[f] >= 0) num(w, v.fres[f]);
        else raw(w, "null");
    }
    raw(w, "],");
    nulls_or(w, "lineNumber", v.nf, v.fline, gc);
    ch(w, ',');
    nulls_or(w, "columnNumber", v.nf, v.fcol, gc);
    length(w, nf);

    /* resourceTable */
    raw(w, ",\"resourceTable\":{");
    repeat(w, "lib", "null", v.nr);
    ch(w, ',');
    counting(w, "name", (long long)nn, v.nr);
    ch(w, ',');
    repeat(w, "host", "null", v.nr);
    ch(w, ',');
    repeat(w, "type", "5", v.nr);
    length(w, v.nr);
    raw(w, ",\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],"
           "\"length\":0}}]}");
    free(name);
    return finish(w);
}
