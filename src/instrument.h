/*
 * instrument.h — the instrumentation source of the Profiler (instrument.c): a realm's frame
 * table, the probes' log, and the profiling sessions that turn the log (or shared-stack
 * snapshots) into samples of ordinary traces (trace.h).
 *
 * Frame ids are the probes' (glue/instrument/probes.js): dense, in registration order. Session
 * handles are small integers >= 1, valid until ps_instrument_stop.
 *
 * Ownership: the core owns the log; the pointer from ps_instrument_log stays valid until the
 * next ps_instrument_log call with a larger capacity (memory growth does not move it, but views
 * on it must be re-derived).
 */
#ifndef PERFSHIM_INSTRUMENT_H
#define PERFSHIM_INSTRUMENT_H

#include "perfshim.h"

/* The log, written by the probes and their logger and handed over with ps_instrument_consume:
 * records, one int32 each:
 *   - `depth << PS_INSTRUMENT_ID_BITS | id` >= 0, an enter: the stack is cut to `depth` frames
 *     and frame `id` pushed (the probes write no exit but those next to long gaps: a push's
 *     depth says where the stack went); the probes' depths are below PS_INSTRUMENT_AT_DEPTH and
 *     their ids below PS_INSTRUMENT_ID_MASK;
 *   - `PS_INSTRUMENT_HERE | id` (below PS_INSTRUMENT_HERE_END), an enter at the current depth,
 *     id < 2^30 (the logger's, after an exit record, for depths and ids the fields above cannot
 *     hold);
 *   - ~depth < 0 (from PS_INSTRUMENT_HERE_END up), an exit: the stack is cut to `depth` frames;
 * and stamps, the times of some records (instrument.c, "Stamps"): {index of the record in this
 * hand-over, time in ms on the host clock of performance.now()}, in increasing index order. The
 * block is the stamps' array then the records' (so both are aligned). */
#define PS_INSTRUMENT_ID_BITS 21
#define PS_INSTRUMENT_ID_MASK ((1u << PS_INSTRUMENT_ID_BITS) - 1)
#define PS_INSTRUMENT_AT_DEPTH 1023
#define PS_INSTRUMENT_HERE INT32_MIN
#define PS_INSTRUMENT_HERE_END (-0x40000000)
typedef struct {
    double index;
    double time;
} ps_instrument_stamp;

/* Register frame `id` (which must be the next id): the exchange buffer holds the name's
 * `name_len` UTF-8 bytes then the URL's `url_len` bytes; line and column 1-based (0 = absent).
 * Returns the id or a negative status (PS_E_ARG when `id` is not the next one). */
PS_API int32_t ps_instrument_frame(uint32_t id, uint32_t name_len, uint32_t url_len, uint32_t line, uint32_t column);
/* The log: room for at least `records` records (at least 1) after room for `stamps` stamps.
 * Returns the address of the stamps (the records start `stamps` * 16 bytes later; a call with
 * another `stamps` moves them) or 0 (no memory; the previous log stays). */
PS_API ps_instrument_stamp *ps_instrument_log(uint32_t records, uint32_t stamps);
/* Start a session feeding trace `trace` every `interval_ms` (> 0), first tick at start_ms +
 * interval_ms. The exchange buffer holds the current stack: `depth` u32 frame ids, outermost
 * first (it replaces the stack rebuilt from the log: the caller consumes the log first).
 * Returns the session handle or a negative status. */
PS_API int32_t ps_instrument_start(int32_t trace, double interval_ms, double start_ms, uint32_t depth);
/* Consume the log's first `count` records and first `nstamps` stamps, in order (an unstamped
 * record gets a time spread evenly between the stamps around it, see instrument.c): before each
 * record, every session takes the samples of its ticks earlier than the record's time (the stack
 * active at the tick: its instrumented frames, or no stack when none is active); then the stack
 * changes. A stamp whose index is not an integer above the previous stamp's and below `count`,
 * or whose time is not finite, is ignored; a frame id that is not registered is entered but left
 * out of the samples' stacks. Returns PS_OK or a negative status (PS_E_ARG: counts above the
 * log's capacity). */
PS_API int32_t ps_instrument_consume(uint32_t count, uint32_t nstamps);
/* Take the session's samples for its ticks up to `until_ms` (inclusive) with the current stack.
 * Returns 1 if the trace's buffer is full, 0 if not, or a negative status. */
PS_API int32_t ps_instrument_advance(int32_t session, double until_ms);
/* One sample of a shared-stack snapshot: `depth` u32 frame ids (outermost first) at the
 * exchange buffer, taken at `time`. Returns 1 if the trace's buffer is full, 0 if not, or a
 * negative status. */
PS_API int32_t ps_instrument_sample(int32_t session, double time, uint32_t depth);
/* The session takes no tick after `until_ms` (a sampler that hands over to another). Returns
 * PS_OK or PS_E_ARG. */
PS_API int32_t ps_instrument_until(int32_t session, double until_ms);
/* End a session (its trace stays). Returns PS_OK or PS_E_ARG. */
PS_API int32_t ps_instrument_stop(int32_t session);

#endif
