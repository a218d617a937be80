/* Fuzz the instrumentation source's core (src/instrument.c): arbitrary log records (any frame id
 * or depth) and stamps (any index or time, NaN and infinities included), sessions started, bounded, advanced and stopped
 * in any order, shared-stack snapshots with any frame ids; then check every trace's samples are
 * in time order, within its buffer limit, and name only existing stacks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "perfshim.h"
#include "instrument.h"
#include "trace.h"

static uint32_t frames;

static void check(int32_t t)
{
    if (ps_trace_info(t) != PS_OK) abort();
    double *o = ps_out_ptr();
    uint32_t ns = (uint32_t)o[2], nsm = (uint32_t)o[3], max = (uint32_t)o[5];
    if (nsm > max) abort();
    if (!nsm) return;
    const double *ts = ps_trace_column(t, PS_COL_SAMPLE_TIME);
    const int32_t *st = ps_trace_column(t, PS_COL_SAMPLE_STACK);
    for (uint32_t i = 0; i < nsm; i++) {
        if (i && ts[i] < ts[i - 1]) abort();
        if (st[i] < -1 || st[i] >= (int32_t)ns) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    while (frames < 8) {
        memcpy(ps_exchange_reserve(2), "fx", 2);
        if (ps_instrument_frame(frames, 1, 1, frames + 1, 1) != (int32_t)frames) abort();
        frames++;
    }
    int32_t traces[4] = { 0 }, sessions[4] = { 0 };
    static const double times[8] = { 0, 0.5, 1, 3, 10, -1, INFINITY, NAN };
    double now = 0;
    for (size_t i = 0; i + 3 < size; i += 4) {
        uint8_t op = data[i] % 6, a = data[i + 1], b = data[i + 2], c = data[i + 3];
        int k = a % 4;
        switch (op) {
        case 0: /* start a session on a fresh trace */
            if (!sessions[k]) {
                traces[k] = ps_trace_new(1 + b % 64);
                uint32_t d = c % 4;
                uint32_t ids[4] = { 0, 1, 2, 3 };
                memcpy(ps_exchange_reserve(16), ids, 16);
                sessions[k] = ps_instrument_start(traces[k], 1 + b % 5, now, d);
                if (sessions[k] < 0) { ps_trace_free(traces[k]); sessions[k] = 0; }
            }
            break;
        case 1: { /* a log of c records (frame ids 8..11 unregistered; depths, any word), stamps in any order */
            uint32_t n = 1 + c % 16, ns = (a + c) % (n + 2);
            ps_instrument_stamp *st = ps_instrument_log(n, ns);
            if (!st) abort();
            int32_t *rec = (int32_t *)(st + ns);
            for (uint32_t r = 0; r < n; r++)
                rec[r] = ((b + r) & 2)           ? ~(int32_t)((c + r) % 10)
                         : ((a + r) % 5 == 0)    ? (int32_t)(a * 2654435761u + r) /* any word */
                                                 : (int32_t)((uint32_t)((c + 3 * r) % 1024) << PS_INSTRUMENT_ID_BITS | (a + r) % 12);
            for (uint32_t j = 0; j < ns; j++) {
                double dt = times[(a + j) % 8];
                now += dt == dt && isfinite(dt) ? fabs(dt) : 0;
                double index = (double)((b + 3 * j) % (n + 2)) - ((c & 4) && j % 3 == 1 ? 0.5 : 0);
                st[j] = (ps_instrument_stamp){ (c & 1) ? index : j, (b & 1) ? times[(b + j) % 8] : now };
            }
            if (ps_instrument_consume(n, ns) != PS_OK) abort();
            break;
        }
        case 2:
            if (sessions[k]) ps_instrument_advance(sessions[k], times[b % 8] + now);
            break;
        case 3:
            if (sessions[k]) ps_instrument_until(sessions[k], times[b % 8] + now);
            break;
        case 4: { /* a snapshot with possibly unknown frame ids */
            uint32_t ids[3] = { (uint32_t)b % 10, (uint32_t)c % 10, (uint32_t)a % 10 };
            memcpy(ps_exchange_reserve(12), ids, 12);
            if (sessions[k]) ps_instrument_sample(sessions[k], now + times[c % 8], 1 + b % 3);
            break;
        }
        case 5:
            if (sessions[k]) {
                check(traces[k]);
                if (ps_instrument_stop(sessions[k]) != PS_OK) abort();
                ps_trace_free(traces[k]);
                sessions[k] = 0;
            }
            break;
        }
    }
    for (int k = 0; k < 4; k++) {
        if (!sessions[k]) continue;
        check(traces[k]);
        ps_instrument_stop(sessions[k]);
        ps_trace_free(traces[k]);
    }
    return 0;
}
