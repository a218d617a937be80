/*
 * instrument.c — samples from instrumented code (JS Self-Profiling's "take a sample", for hosts
 * whose engine gives us none).
 *
 * Data structure:
 *   - frames: the realm's frame table, indexed by the probes' frame ids: name and URL as
 *     offsets into one byte arena, line, column.
 *   - log: one block, stamps {index, time} then int32 records (an enter's frame id and depth,
 *     or ~depth for an exit: instrument.h), that the shim copies the probes' log into and hands
 *     over with ps_instrument_consume.
 *   - stack: the instrumented stack rebuilt from the log (frame ids, outermost first); frames
 *     deeper than STACK_MAX are counted but not kept.
 *   - sessions: per profiler, its trace, interval, next tick, and a map from frame id to the
 *     trace's frame id (-1 until first used), plus the stack id of the last sample, reused while
 *     the stack has not changed (`version`).
 *
 * Stamps: reading the clock costs more than the rest of a probe (50–250 ns in the four engines),
 *   so the logger (glue/instrument/source.js) stamps only some records; the others get times
 *   spread evenly between the stamps around them (a window: record i of the unstamped records
 *   from..q-1 before the stamp q takes last + (t_q - last) * (i - from + 1) / (q - from + 1)).
 *   The logger decides which records need a stamp (the gaps of frames it has seen run long are
 *   measured exactly).
 *
 * Invariants: depth <= STACK_MAX for the kept part (entries may name unregistered frames: left
 *   out of samples); a session's next tick only grows; every mapped trace frame id is < that
 *   trace's frame count; consumed times never decrease (`last_time`).
 *
 * Costs: consuming a record is O(1): a window (the records up to a stamp) that ends before
 *   the earliest pending tick is applied to the stack in one loop (a load and a store per
 *   record); only a window with a tick in it gets each record's time (a multiply-add and a
 *   compare). At a tick, O(sessions), and O(depth) per sample taken when the stack changed since
 *   that session's last sample; stamps are walked once per hand-over; registering a frame is
 *   O(bytes).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "instrument.h"
#include "trace.h"
#include "trace_internal.h"

#define STACK_MAX 4096u

typedef struct {
    uint32_t name_off, name_len, url_off, url_len, line, column;
} frame;

typedef struct {
    int32_t trace;            /* 0 = free slot */
    double interval, next, last;  /* ticks at next, next + interval, ... up to last */
    int32_t *map;             /* frame id -> trace frame id or -1 */
    uint32_t map_len;
    uint32_t version;         /* stack version of `stack_id` */
    int32_t stack_id;
    int full;
} session;

static frame *frames;
static uint32_t nframes, frames_cap;
static uint8_t *arena;
static uint32_t arena_len, arena_cap;
static ps_instrument_stamp *log_stamps;
static int32_t *log_records;
static uint32_t log_cap, stamps_cap;
static uint32_t stack[STACK_MAX];
static uint32_t depth;        /* may exceed STACK_MAX */
static uint32_t version = 1;  /* changes whenever the stack does */
static double last_time = -INFINITY; /* the last stamp consumed (or a session's start) */
static session *sessions;
static uint32_t nsessions;

static session *get(int32_t h)
{
    if (h < 1 || (uint32_t)h > nsessions || !sessions[h - 1].trace) return 0;
    return &sessions[h - 1];
}

PS_API int32_t ps_instrument_frame(uint32_t id, uint32_t name_len, uint32_t url_len, uint32_t line, uint32_t column)
{
    if (id != nframes || name_len > UINT32_MAX - url_len) return PS_E_ARG;
    if (nframes == frames_cap) {
        uint32_t cap = frames_cap ? frames_cap * 2 : 256;
        frame *p = realloc(frames, cap * sizeof *p);
        if (!p) return PS_E_NOMEM;
        frames = p;
        frames_cap = cap;
    }
    uint32_t need = name_len + url_len;
    if (arena_len + need < arena_len) return PS_E_NOMEM;
    if (arena_len + need > arena_cap) {
        uint32_t cap = arena_cap ? arena_cap : 4096;
        while (cap < arena_len + need) {
            if (cap > UINT32_MAX / 2) return PS_E_NOMEM;
            cap *= 2;
        }
        uint8_t *p = realloc(arena, cap);
        if (!p) return PS_E_NOMEM;
        arena = p;
        arena_cap = cap;
    }
    if (need) memcpy(arena + arena_len, ps__exchange_bytes(), need);
    frames[nframes] = (frame){ arena_len, name_len, arena_len + name_len, url_len, line, column };
    arena_len += need;
    return (int32_t)nframes++;
}

PS_API ps_instrument_stamp *ps_instrument_log(uint32_t records, uint32_t stamps)
{
    if (records < 1) records = 1;
    if (records > log_cap || stamps != stamps_cap) { /* the layout is the last call's */
        uint32_t cap = records > log_cap ? records : log_cap;
        size_t st = (size_t)stamps * sizeof(ps_instrument_stamp), rec = (size_t)cap * 4;
        if (st / sizeof(ps_instrument_stamp) != stamps || st + rec < st) return 0;
        void *p = realloc(log_stamps, st + rec);
        if (!p) return 0;
        log_stamps = p;
        log_records = (int32_t *)((uint8_t *)p + st);
        log_cap = cap;
        stamps_cap = stamps;
    }
    return log_stamps;
}

/* The trace's frame id of frame `f` in session `s`, interned on first use. */
static int32_t trace_frame(session *s, uint32_t f)
{
    if (f >= s->map_len) {
        uint32_t len = nframes;
        int32_t *p = realloc(s->map, (size_t)len * sizeof *p);
        if (!p) return PS_E_NOMEM;
        for (uint32_t i = s->map_len; i < len; i++) p[i] = -1;
        s->map = p;
        s->map_len = len;
    }
    if (s->map[f] < 0) {
        const frame *fr = &frames[f];
        int32_t id = ps__trace_frame_of(s->trace, arena + fr->name_off, fr->name_len,
                                        fr->url_len ? arena + fr->url_off : 0, fr->url_len, fr->line, fr->column);
        if (id < 0) return id;
        s->map[f] = id;
    }
    return s->map[f];
}

/* The trace's stack id of the current stack (-1 when empty) in `*st`; PS_OK or a negative status. */
static int32_t current_stack(session *s, int32_t *st)
{
    if (s->version == version) {
        *st = s->stack_id;
        return PS_OK;
    }
    uint32_t n = depth < STACK_MAX ? depth : STACK_MAX;
    uint32_t *ids = ps__result_reserve(n ? n : 1);
    if (!ids) return PS_E_NOMEM;
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (stack[k] >= nframes) continue; /* an unregistered frame */
        int32_t id = trace_frame(s, stack[k]);
        if (id < 0) return id;
        ids[m++] = (uint32_t)id;
    }
    int32_t r = ps__trace_stack_of(s->trace, ids, m, st);
    if (r < 0) return r;
    s->version = version;
    s->stack_id = *st;
    return PS_OK;
}

/* §take a sample for every tick of `s` before `t` (or up to it when `inclusive`). */
static int32_t ticks(session *s, double t, int inclusive)
{
    if (t > s->last) {
        t = s->last;
        inclusive = 1;
    }
    while (!s->full && (s->next < t || (inclusive && s->next == t))) {
        int32_t st;
        int32_t r = current_stack(s, &st);
        if (r < 0) return r;
        r = ps_trace_sample(s->trace, s->next, st, PS_MARKER_NONE);
        if (r == PS_E_LIMIT) s->full = 1;
        else if (r < 0) return r;
        s->next += s->interval;
    }
    return PS_OK;
}

PS_API int32_t ps_instrument_start(int32_t trace, double interval_ms, double start_ms, uint32_t d)
{
    if (trace < 1 || !(interval_ms > 0) || !isfinite(interval_ms) || !isfinite(start_ms)) return PS_E_ARG;
    const uint8_t *b = ps__exchange_bytes();
    uint32_t n = d < STACK_MAX ? d : STACK_MAX;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t f;
        memcpy(&f, b + 4 * (size_t)k, 4);
        if (f >= nframes) return PS_E_ARG;
    }
    uint32_t h = 0;
    while (h < nsessions && sessions[h].trace) h++;
    if (h == nsessions) {
        session *p = realloc(sessions, (size_t)(nsessions + 1) * sizeof *p);
        if (!p) return PS_E_NOMEM;
        sessions = p;
        nsessions++;
    }
    memcpy(stack, b, 4 * (size_t)n);
    depth = d;
    version++;
    if (!(last_time >= start_ms)) last_time = start_ms;
    sessions[h] = (session){ trace, interval_ms, start_ms + interval_ms, INFINITY, 0, 0, 0, -1, 0 };
    return (int32_t)h + 1;
}

/* The next usable stamp at or after stamps[*k] for records from `i` on (index an integer in
 * [i, count), time finite), or 0. */
static const ps_instrument_stamp *next_stamp(uint32_t *k, uint32_t nstamps, uint32_t i, uint32_t count)
{
    for (; *k < nstamps; ++*k) {
        const ps_instrument_stamp *p = &log_stamps[*k];
        if (p->index >= i && p->index < count && p->index == floor(p->index) && isfinite(p->time)) return p;
    }
    return 0;
}

/* The time step between the unstamped records from `from` on, up to the stamp `next`. */
static double window_step(const ps_instrument_stamp *next, uint32_t from)
{
    if (!next || !isfinite(last_time)) return 0; /* at the last stamp's time (or no start yet) */
    double end = next->time > last_time ? next->time : last_time;
    return (end - last_time) / (next->index - from + 1);
}

/* Where the replay is among the stamps: the next usable stamp (0: none), the first record
 * after the last stamp passed, and the time step between the unstamped records up to `next`. */
typedef struct {
    uint32_t k, nstamps, count, from;
    const ps_instrument_stamp *next;
    double step;
} stamp_cursor;

/* The time of stamp `p`, never before the last one (the last stamp's time when `p` is 0). */
static double stamp_time(const ps_instrument_stamp *p)
{
    return p && p->time > last_time ? p->time : last_time;
}

/* Pass the stamp c->next (its record is being consumed): the clock moves to its time, the
 * cursor to the next usable stamp. */
static void pass_stamp(stamp_cursor *c)
{
    last_time = stamp_time(c->next);
    c->from = (uint32_t)c->next->index + 1;
    c->k++;
    c->next = next_stamp(&c->k, c->nstamps, c->from, c->count);
    c->step = window_step(c->next, c->from);
}

/* The earliest tick a session may still take (INFINITY if none): records before it need no
 * look at the sessions. */
static double earliest_tick(void)
{
    double e = INFINITY;
    for (uint32_t h = 0; h < nsessions; h++) {
        const session *s = &sessions[h];
        if (s->trace && !s->full && s->next <= s->last && s->next < e) e = s->next;
    }
    return e;
}

/* Apply records [from, to) to the stack, with no look at the sessions. */
static void apply(uint32_t from, uint32_t to)
{
    uint32_t d = depth;
    for (uint32_t i = from; i < to; i++) {
        int32_t v = log_records[i];
        if (v < 0 && v >= PS_INSTRUMENT_HERE_END) {
            d = (uint32_t)~v;
            continue;
        }
        if (v >= 0) d = (uint32_t)v >> PS_INSTRUMENT_ID_BITS;
        if (d < STACK_MAX) stack[d] = (uint32_t)v & (v < 0 ? ~(uint32_t)PS_INSTRUMENT_HERE : PS_INSTRUMENT_ID_MASK);
        if (d < UINT32_MAX) d++;
    }
    depth = d;
    if (to > from) version++;
}

PS_API int32_t ps_instrument_consume(uint32_t count, uint32_t nstamps)
{
    if (count > log_cap || nstamps > stamps_cap) return PS_E_ARG;
    stamp_cursor c = { 0, nstamps, count, 0, 0, 0 };
    c.next = next_stamp(&c.k, nstamps, 0, count);
    c.step = window_step(c.next, 0);
    double tick = earliest_tick();
    uint32_t i = 0;
    while (i < count) {
        /* The window: records up to the next stamp (included), or the rest of the log at the
         * last stamp's time. Its times never pass `end_time`: when the earliest tick is not
         * before it, no session looks at its records, which are applied in one go (under a
         * coarse clock most stamps read a tick's time exactly). */
        uint32_t end = c.next ? (uint32_t)c.next->index + 1 : count;
        double end_time = stamp_time(c.next);
        if (end_time <= tick) {
            apply(i, end);
            i = end;
            if (c.next) pass_stamp(&c);
            continue;
        }
        for (; i < end; i++) {
            double t;
            if (c.next && c.next->index == i) {
                pass_stamp(&c);
                t = last_time;
            } else {
                t = last_time + c.step * (i - c.from + 1);
                if (t > end_time) t = end_time; /* (rounding) */
            }
            if (tick < t) {
                for (uint32_t h = 0; h < nsessions; h++) {
                    if (!sessions[h].trace) continue;
                    int32_t st = ticks(&sessions[h], t, 0);
                    if (st < 0) return st;
                }
                tick = earliest_tick();
            }
            apply(i, i + 1);
        }
    }
    return PS_OK;
}

PS_API int32_t ps_instrument_advance(int32_t h, double until_ms)
{
    session *s = get(h);
    if (!s || isnan(until_ms)) return PS_E_ARG;
    if (isfinite(until_ms)) {
        int32_t st = ticks(s, until_ms, 1);
        if (st < 0) return st;
    }
    return s->full;
}

PS_API int32_t ps_instrument_sample(int32_t h, double time, uint32_t d)
{
    session *s = get(h);
    if (!s || !isfinite(time)) return PS_E_ARG;
    if (s->full) return 1;
    const uint8_t *b = ps__exchange_bytes();
    uint32_t n = d < STACK_MAX ? d : STACK_MAX;
    uint32_t *ids = ps__result_reserve(n ? n : 1);
    if (!ids) return PS_E_NOMEM;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t f;
        memcpy(&f, b + 4 * (size_t)k, 4);
        if (f >= nframes) return PS_E_ARG;
        int32_t id = trace_frame(s, f);
        if (id < 0) return id;
        ids[k] = (uint32_t)id;
    }
    int32_t st;
    int32_t r = ps__trace_stack_of(s->trace, ids, n, &st);
    if (r < 0) return r;
    r = ps_trace_sample(s->trace, time, st, PS_MARKER_NONE);
    if (r == PS_E_LIMIT) s->full = 1;
    else if (r < 0) return r;
    return s->full;
}

PS_API int32_t ps_instrument_until(int32_t h, double until_ms)
{
    session *s = get(h);
    if (!s || isnan(until_ms)) return PS_E_ARG;
    s->last = until_ms;
    return PS_OK;
}

PS_API int32_t ps_instrument_stop(int32_t h)
{
    session *s = get(h);
    if (!s) return PS_E_ARG;
    free(s->map);
    *s = (session){ 0 };
    return PS_OK;
}
