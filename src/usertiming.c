/*
 * usertiming.c — the User Timing algorithm that decides times: measure()'s start and end,
 * with the spec's exceptions in the spec's order (mark()'s single check lives in the shim's
 * PerformanceMark constructor). The shim has
 * already converted the arguments (WebIDL) and the PerformanceTiming attribute names (a host
 * probe), so every time argument arrives as absent, a timestamp, or a mark name id. A measure
 * without a detail is decided and buffered in one call (one crossing from the shim).
 */
#include "internal.h"

/* User Timing 3 §convert a mark to a timestamp (the mark-name and timestamp branches).
 * On failure records which argument failed in out[2]. */
static int to_timestamp(int32_t kind, double val, int arg, int neg_status, double *out)
{
    ps_out_ptr()[2] = arg;
    switch (kind) {
    case PS_ARG_TIME:
        if (val < 0) return neg_status;
        *out = val;
        return PS_OK;
    case PS_ARG_MARK: {
        if (val < 0) return PS_E_SYNTAX; /* a name never interned */
        int32_t slot = ps__timeline_last_mark((uint32_t)val);
        if (slot < 0) return PS_E_SYNTAX;
        *out = ps__timeline_start((uint32_t)slot);
        return PS_OK;
    }
    case PS_ARG_HOST_ERROR:
        return PS_E_HOST_ARG;
    default:
        return PS_E_ARG;
    }
}

/* User Timing 3 §measure() steps 1–3: checks, end time, start time; then, when asked (no detail
 * to clone in between), the buffering of the entry. */
PS_API int32_t ps_usertiming_measure(int32_t has_options, int32_t end_mark,
                                     int32_t s_kind, double s_val, int32_t d_kind, double d_val,
                                     int32_t e_kind, double e_val, double now, uint32_t buffer_as)
{
    int st;
    if (has_options) {
        if (end_mark) return PS_E_MEASURE_END_MARK;
        if (s_kind == PS_ARG_ABSENT && e_kind == PS_ARG_ABSENT) return PS_E_MEASURE_NO_RANGE;
        if (s_kind != PS_ARG_ABSENT && d_kind != PS_ARG_ABSENT && e_kind != PS_ARG_ABSENT)
            return PS_E_MEASURE_OVERSPEC;
    }
    double end, start, dur = 0;
    if (e_kind != PS_ARG_ABSENT) {
        if ((st = to_timestamp(e_kind, e_val, 2, PS_E_NEGATIVE_END, &end)) != PS_OK) return st;
    } else if (s_kind != PS_ARG_ABSENT && d_kind != PS_ARG_ABSENT) {
        if ((st = to_timestamp(s_kind, s_val, 0, PS_E_NEGATIVE_START, &start)) != PS_OK) return st;
        if ((st = to_timestamp(d_kind, d_val, 1, PS_E_NEGATIVE_DURATION, &dur)) != PS_OK) return st;
        end = start + dur;
    } else {
        end = now;
    }
    if (s_kind != PS_ARG_ABSENT) {
        if ((st = to_timestamp(s_kind, s_val, 0, PS_E_NEGATIVE_START, &start)) != PS_OK) return st;
    } else if (d_kind != PS_ARG_ABSENT && e_kind != PS_ARG_ABSENT) {
        if ((st = to_timestamp(d_kind, d_val, 1, PS_E_NEGATIVE_DURATION, &dur)) != PS_OK) return st;
        start = end - dur;
    } else {
        start = 0;
    }
    double *out = ps_out_ptr();
    out[0] = start;
    out[1] = end - start;
    if (!buffer_as) return PS_OK;
    return ps_timeline_add(PS_TYPE_MEASURE, buffer_as - 1, start, end - start);
}
