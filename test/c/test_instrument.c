/* test_instrument.c — the instrumentation source's log-to-samples conversion (src/instrument.c):
 * ticks take the stack active at their time, idle ticks have no stack, unstamped records get
 * times spread between the stamps around them, the buffer limit holds, and bad input is refused. Natively under ASan/UBSan. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "internal.h"
#include "instrument.h"
#include "trace.h"
#include "trace_internal.h"

static int32_t reg(uint32_t id, const char *name, const char *url, uint32_t line)
{
    uint32_t n = (uint32_t)strlen(name), u = (uint32_t)strlen(url);
    uint8_t *b = ps_exchange_reserve(n + u + 1);
    memcpy(b, name, n);
    memcpy(b + n, url, u);
    return ps_instrument_frame(id, n, u, line, 1);
}

/* An enter record: frame id pushed at depth d (instrument.h). */
#define ENTER(d, id) ((int32_t)((uint32_t)(d) << PS_INSTRUMENT_ID_BITS | (uint32_t)(id)))

/* Hand over a log: n records (ENTER, or ~depth for an exit) and ns stamps {index, time}. */
static int32_t consume(const int32_t *rec, uint32_t n, const double *stamps, uint32_t ns)
{
    ps_instrument_stamp *st = ps_instrument_log(n, ns);
    if (!st) return PS_E_NOMEM;
    memcpy(st, stamps, ns * sizeof *st);
    memcpy((uint8_t *)st + 16 * (size_t)ns, rec, 4 * (size_t)n);
    return ps_instrument_consume(n, ns);
}

static uint32_t samples(int32_t t)
{
    ps_trace_info(t);
    return (uint32_t)ps_out_ptr()[3];
}

/* The frame names of sample i's stack, innermost first, joined with '<' into buf. */
static const char *stack_of(int32_t t, uint32_t i, char *buf)
{
    const int32_t *st = ps_trace_column(t, PS_COL_SAMPLE_STACK);
    const int32_t *sp = ps_trace_column(t, PS_COL_STACK_PARENT);
    const uint32_t *sf = ps_trace_column(t, PS_COL_STACK_FRAME);
    const uint32_t *fname = ps_trace_column(t, PS_COL_FRAME_NAME);
    buf[0] = 0;
    for (int32_t s = st[i]; s >= 0; s = sp[s]) {
        uint32_t len;
        const uint8_t *name = ps__trace_string(t, 1, fname[sf[s]], &len);
        if (buf[0]) strcat(buf, "<");
        strncat(buf, (const char *)name, len);
    }
    return buf;
}

TEST(ticks_take_the_stack_active_at_their_time)
{
    CHECK_EQ_INT(reg(0, "main", "a.js", 1), 0);
    CHECK_EQ_INT(reg(1, "work", "a.js", 5), 1);
    CHECK_EQ_INT(reg(5, "gap", "a.js", 9), PS_E_ARG); /* ids are dense */
    int32_t t = ps_trace_new(100);
    int32_t s = ps_instrument_start(t, 10, 0, 0);
    CHECK(s >= 1);
    /* main enters at 5, work at 12 (until 35), main exits at 41. */
    CHECK_EQ_INT(consume((int32_t[]){ ENTER(0, 0), ENTER(1, 1), ~1, ~0 }, 4, (double[]){ 0, 5, 1, 12, 2, 35, 3, 41 }, 4), PS_OK);
    CHECK_EQ_INT(ps_instrument_advance(s, 60), 0);
    /* ticks at 10, 20, 30, 40, 50, 60 */
    CHECK_EQ_INT(samples(t), 6);
    char buf[256];
    CHECK(strcmp(stack_of(t, 0, buf), "main") == 0);
    CHECK(strcmp(stack_of(t, 1, buf), "work<main") == 0);
    CHECK(strcmp(stack_of(t, 2, buf), "work<main") == 0);
    CHECK(strcmp(stack_of(t, 3, buf), "main") == 0);
    CHECK(strcmp(stack_of(t, 4, buf), "") == 0); /* idle: no stack */
    const double *ts = ps_trace_column(t, PS_COL_SAMPLE_TIME);
    CHECK_EQ_DBL(ts[5], 60);
    CHECK_EQ_INT(ps_instrument_stop(s), PS_OK);
    CHECK_EQ_INT(ps_instrument_stop(s), PS_E_ARG);
    ps_trace_free(t);
}

TEST(the_buffer_limit_holds_and_sessions_are_independent)
{
    int32_t a = ps_trace_new(3), b = ps_trace_new(100);
    uint8_t *ex = ps_exchange_reserve(4);
    uint32_t main_id = 0;
    memcpy(ex, &main_id, 4);
    int32_t sa = ps_instrument_start(a, 1, 0, 1);
    int32_t sb = ps_instrument_start(b, 5, 0, 1);
    CHECK_EQ_INT(ps_instrument_advance(sa, 100), 1);
    CHECK_EQ_INT(samples(a), 3);
    CHECK_EQ_INT(ps_instrument_advance(sb, 100), 0);
    CHECK_EQ_INT(samples(b), 20);
    /* A bound: no tick after it, whatever the log or an advance says. */
    int32_t c = ps_trace_new(100);
    int32_t sc = ps_instrument_start(c, 10, 0, 0);
    CHECK_EQ_INT(ps_instrument_until(sc, 25), PS_OK);
    CHECK_EQ_INT(consume((int32_t[]){ ENTER(0, 0) }, 1, (double[]){ 0, 70 }, 1), PS_OK);
    CHECK_EQ_INT(ps_instrument_advance(sc, 100), 0);
    CHECK_EQ_INT(samples(c), 2);
    ps_instrument_stop(sc);
    ps_trace_free(c);
    /* A shared-stack snapshot goes into the same trie. */
    uint32_t two[2] = { 0, 1 };
    memcpy(ps_exchange_reserve(8), two, 8);
    CHECK_EQ_INT(ps_instrument_sample(sb, 101, 2), 0);
    char buf[256];
    CHECK(strcmp(stack_of(b, 20, buf), "work<main") == 0);
    memcpy(ps_exchange_reserve(4), &(uint32_t){ 99 }, 4);
    CHECK_EQ_INT(ps_instrument_sample(sb, 102, 1), PS_E_ARG);
    CHECK_EQ_INT(ps_instrument_start(b, 0, 0, 0), PS_E_ARG);
    CHECK_EQ_INT(ps_instrument_consume(1u << 30, 0), PS_E_ARG);
    CHECK_EQ_INT(ps_instrument_consume(0, 1u << 30), PS_E_ARG);
    ps_instrument_stop(sa);
    ps_instrument_stop(sb);
    ps_trace_free(a);
    ps_trace_free(b);
}

TEST(unstamped_records_are_spread_between_the_stamps_around_them)
{
    /* frames 0 (main) and 1 (work) from the first test */
    int32_t t = ps_trace_new(100);
    int32_t s = ps_instrument_start(t, 1, 1000, 0);
    CHECK(s >= 1);
    /* main enters at 1000 (stamped); work enters and exits unstamped; main exits at 1030: the
     * two unstamped records take 1010 and 1020, so work is on top for the ticks 1010..1019.
     * Then an unstamped run with no stamp after it in this block: at the last stamp's time. */
    CHECK_EQ_INT(consume((int32_t[]){ ENTER(0, 0), ENTER(1, 1), ~1, ~0, ENTER(0, 0), ENTER(1, 1) }, 6, (double[]){ 0, 1000, 3, 1030 }, 2), PS_OK);
    CHECK_EQ_INT(ps_instrument_advance(s, 1032), 0);
    CHECK_EQ_INT(samples(t), 32); /* ticks 1001..1032 */
    char buf[256];
    uint32_t work = 0, main_only = 0;
    for (uint32_t i = 0; i < 29; i++) {
        const char *st = stack_of(t, i, buf);
        if (strcmp(st, "work<main") == 0) work++;
        else if (strcmp(st, "main") == 0) main_only++;
    }
    CHECK_EQ_INT(work, 10);      /* 1010..1019 */
    CHECK_EQ_INT(main_only, 19); /* 1001..1009, 1020..1029 */
    /* the trailing run took 1030, before the tick at 1030: work<main from then on */
    for (uint32_t i = 29; i < 32; i++) CHECK(strcmp(stack_of(t, i, buf), "work<main") == 0);
    /* a stamp earlier than the last one counts as the last one's time (times never go back) */
    CHECK_EQ_INT(consume((int32_t[]){ ~1 }, 1, (double[]){ 0, 900 }, 1), PS_OK);
    CHECK_EQ_INT(ps_instrument_advance(s, 1033), 0);
    CHECK(strcmp(stack_of(t, 32, buf), "main") == 0);
    ps_instrument_stop(s);
    ps_trace_free(t);
}

TEST(a_push_cuts_the_stack_to_its_depth_and_escapes_push_where_the_stack_is)
{
    /* frames 0 (main) and 1 (work) from the first test; one record a tick */
    int32_t t = ps_trace_new(100);
    int32_t s = ps_instrument_start(t, 1, 3000, 0);
    CHECK(s >= 1);
    /* main, work, work again at depth 1 (the first work's pop wrote nothing), main at depth 0
     * (the pops of work and main wrote nothing), work at depth 1; an exit to 1, then work
     * pushed at the current depth, its id in the next record (the escape for depths and ids the
     * fields cannot hold), twice; an exit to 0. */
    int32_t here = PS_INSTRUMENT_HERE;
    int32_t rec[] = { ENTER(0, 0), ENTER(1, 1), ENTER(1, 1), ENTER(0, 0), ENTER(1, 1), ~1, here | 1, here | 1, ~0 };
    double st[2 * 9];
    for (uint32_t i = 0; i < 9; i++) st[2 * i] = i, st[2 * i + 1] = 3000.5 + i;
    CHECK_EQ_INT(consume(rec, 9, st, 9), PS_OK);
    CHECK_EQ_INT(ps_instrument_advance(s, 3010), 0);
    /* the tick at 3001 + i sees the stack after record i */
    const char *want[] = { "main", "work<main", "work<main", "main", "work<main", "main", "work<main",
                           "work<work<main", "", "" };
    CHECK_EQ_INT(samples(t), 10);
    char buf[256];
    for (uint32_t i = 0; i < 10; i++) CHECK(strcmp(stack_of(t, i, buf), want[i]) == 0);
    ps_instrument_stop(s);
    ps_trace_free(t);
}

TEST(bad_stamps_are_ignored_and_unregistered_frames_left_out)
{
    /* frames 0 (main) and 1 (work) from the first test; 77 is not registered */
    int32_t t = ps_trace_new(100);
    int32_t s = ps_instrument_start(t, 1, 2000, 0);
    CHECK(s >= 1);
    /* main, 77, work enter; the stamps: 2000 at 0, then a fractional index, an index past the
     * records, a NaN time, one going back: all ignored, so the last record (work's enter, index
     * 2) takes 2000 too, and from the next hand-over's stamp on the stack is main<77<work
     * without 77. */
    CHECK_EQ_INT(consume((int32_t[]){ ENTER(0, 0), ENTER(1, 77), ENTER(2, 1) }, 3,
                         (double[]){ 0, 2000, 1.5, 2001, 7, 2002, 2, NAN, 0, 2003 }, 5), PS_OK);
    CHECK_EQ_INT(consume((int32_t[]){ ~0 }, 1, (double[]){ 0, 2010 }, 1), PS_OK);
    CHECK_EQ_INT(samples(t), 9); /* ticks 2001..2009 */
    char buf[256];
    for (uint32_t i = 0; i < 9; i++) CHECK(strcmp(stack_of(t, i, buf), "work<main") == 0);
    CHECK_EQ_INT(ps_instrument_advance(s, 2011), 0);
    CHECK(strcmp(stack_of(t, 10, buf), "") == 0);
    ps_instrument_stop(s);
    ps_trace_free(t);
}

/* A long log with stamps at random strides and ticks falling in some windows only: windows with
 * no tick are applied in one go, and every tick still sees the stack a record-by-record replay
 * gives (the model below: record i at its stamp's time, or spread between the stamps around it;
 * a tick is taken before the first record later than it). */
static void replay_matches_the_model(double start, int coarse)
{
    enum { N = 6000 };
    static int32_t rec[N];
    static double st[2 * N], tim[N];
    uint32_t seed = 12345, ns = 0, d = 0;
    double now = start;
    for (uint32_t i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        uint32_t r = seed >> 8;
        if (d < 4 && (d == 0 || r % 2)) { /* main or work, now and then after pops with no record */
            d = r % 5 == 0 ? d / 2 : d;
            rec[i] = ENTER(d, r % 4 == 0), d++;
        } else {
            rec[i] = ~(int32_t)(d = r % 8 == 0 ? 0 : d - 1);
        }
        if (r % 13 == 0 || i == N - 2) { /* a stamp; none on the last record */
            now += (r >> 4) % 5 == 0 ? 0.7 + (r % 300) / 100.0 : (r % 50) / 1000.0;
            st[2 * ns] = i;
            st[2 * ns + 1] = coarse ? floor(now) : now; /* a 1 ms clock reads the ticks' times */
            ns++;
        }
    }
    /* the model's times */
    double last = start;
    uint32_t from = 0, k = 0;
    for (uint32_t i = 0; i < N; i++) {
        if (k < ns && st[2 * k] == i) {
            last = tim[i] = st[2 * k + 1];
            from = i + 1;
            k++;
        } else if (k < ns) {
            double end = st[2 * k + 1] > last ? st[2 * k + 1] : last;
            tim[i] = last + (end - last) / (st[2 * k] - from + 1) * (i - from + 1);
            if (tim[i] > end) tim[i] = end;
        } else {
            tim[i] = last;
        }
    }
    int32_t t = ps_trace_new(100000);
    int32_t s = ps_instrument_start(t, 1, start, 0);
    CHECK(s >= 1);
    CHECK_EQ_INT(consume(rec, N, st, ns), PS_OK);
    CHECK_EQ_INT(ps_instrument_advance(s, now + 2), 0);
    uint32_t n = samples(t), taken = 0, ticks_in_windows = 0;
    CHECK(n > 100);
    char buf[256], want[256];
    int32_t stack[8];
    d = 0;
    uint32_t i = 0;
    for (uint32_t j = 0; j < n; j++) {
        double tick = start + 1 + j;
        for (; i < N && !(tick < tim[i]); i++) {
            if (rec[i] >= 0) {
                d = (uint32_t)rec[i] >> PS_INSTRUMENT_ID_BITS;
                stack[d++] = rec[i] & (int32_t)PS_INSTRUMENT_ID_MASK;
            } else {
                d = (uint32_t)~rec[i];
            }
        }
        if (i < N && i > 0 && tim[i] != tim[i - 1]) ticks_in_windows++;
        want[0] = 0;
        for (uint32_t q = d; q-- > 0;) {
            if (want[0]) strcat(want, "<");
            strcat(want, stack[q] ? "work" : "main");
        }
        taken += strcmp(stack_of(t, j, buf), want) == 0;
    }
    CHECK_EQ_INT(taken, n);
    CHECK(ticks_in_windows > 10);
    ps_instrument_stop(s);
    ps_trace_free(t);
}

TEST(windows_without_a_tick_give_the_same_samples_as_a_replay_record_by_record)
{
    replay_matches_the_model(10000, 0);
    replay_matches_the_model(100000, 1); /* stamps on the ticks' times */
}

int main(void)
{
    RUN(ticks_take_the_stack_active_at_their_time);
    RUN(the_buffer_limit_holds_and_sessions_are_independent);
    RUN(unstamped_records_are_spread_between_the_stamps_around_them);
    RUN(bad_stamps_are_ignored_and_unregistered_frames_left_out);
    RUN(a_push_cuts_the_stack_to_its_depth_and_escapes_push_where_the_stack_is);
    RUN(windows_without_a_tick_give_the_same_samples_as_a_replay_record_by_record);
    return CHECK_DONE();
}
