/*
 * perfshim.h — the one public header of the perfshim core.
 *
 * Every export is `ps_<object>_<verb>` and is declared with PS_API here or in a module header
 * that includes this one (trace.h, export.h, memory.h); everything else in src/ is static or internal (internal.h). The build
 * derives the WebAssembly export list from the PS_API declarations, so the headers are the ABI.
 *
 * Memory rule (said once): the core owns all of its memory. Results written to the result
 * or out buffers are borrowed by the caller until the next ps_ call; a blob until
 * ps_blob_release; copy what you keep. Strings cross as WTF-8 (UTF-8 that also encodes lone
 * surrogates, so every JS string round-trips) with an explicit length: in through the exchange
 * buffer (pointer from ps_exchange_reserve), out through a blob; never NUL-terminated.
 *
 * Errors: functions that can fail return a status (PS_OK or a negative PS_E_* code) or, when they
 * return an index/count, a negative PS_E_* code on failure. There is no global error state.
 */
#ifndef PERFSHIM_H
#define PERFSHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define PS_API EMSCRIPTEN_KEEPALIVE
#else
#define PS_API
#endif

/* Status codes. The JS shim maps each to one exception (glue/errors.js). */
enum {
    PS_OK = 0,
    PS_E_NOMEM = -1,          /* allocation failed: RangeError */
    PS_E_SYNTAX = -3,         /* SyntaxError DOMException (unknown mark name) */
    PS_E_NOT_FOUND = -6,      /* internal: id/slot not found */
    PS_E_LIMIT = -7,          /* a documented cap was reached (entry dropped and counted) */
    PS_E_ARG = -9,            /* argument out of range (a shim bug): TypeError */
    PS_E_NEGATIVE_START = -10,     /* TypeError: a negative startTime/start */
    PS_E_NEGATIVE_END = -11,       /* TypeError: a negative end */
    PS_E_MEASURE_END_MARK = -12,   /* TypeError: options given together with endMark */
    PS_E_MEASURE_NO_RANGE = -13,   /* TypeError: options with neither start nor end */
    PS_E_MEASURE_OVERSPEC = -14,   /* TypeError: start, duration and end all given */
    PS_E_NEGATIVE_DURATION = -15,  /* TypeError: negative duration */
    PS_E_PARSE = -19,         /* malformed input to a parser: TypeError */
    PS_E_HOST_ARG = -20       /* the shim's own conversion of that argument failed: rethrow it */
};

/* ---------------------------------------------------------------------------------------------
 * Exchange (exchange.c): one growable byte buffer for inputs (strings), one growable u32 result
 * buffer for outputs (slot lists), eight f64 out registers. Buffers may move when they grow;
 * the shim re-derives its views after any call that may allocate.
 */
/* The most bytes the exchange buffer holds (2 GiB - 1: a wasm32 memory has 4 GiB at most, and
 * a call needs room for its own work beside its input). The shim checks an input's size against
 * it before writing, since a JS length times a record size can pass 2^32 and wrap. */
#define PS_EXCHANGE_MAX 0x7fffffff
/* A pointer to at least `bytes` writable bytes (0 when bytes > PS_EXCHANGE_MAX or on allocation
 * failure). Borrowed. Calls that read the buffer refuse (PS_E_ARG) an extent it does not hold. */
PS_API uint8_t *ps_exchange_reserve(uint32_t bytes);
/* The u32 result buffer of the last query; its length is what the query returned. Borrowed. */
PS_API uint32_t *ps_result_ptr(void);
/* Eight f64 output registers for functions that return several numbers. Borrowed. */
PS_API double *ps_out_ptr(void);
/* The blob (bytes out) of the last call that produced one, as {ptr, len}: borrowed until
 * ps_blob_release or the next call that produces a blob. Functions that produce one say so. */
PS_API const uint8_t *ps_blob_ptr(void);
PS_API uint32_t ps_blob_len(void);
/* Release the blob (freeing it when the core allocated it for the shim). */
PS_API void ps_blob_release(void);

/* ---------------------------------------------------------------------------------------------
 * Timeline (timeline.c): the performance entry buffer for the entry types the core owns.
 * Entry types are small integers (PS_TYPE_*); names are ids from ps_timeline_name_new.
 * A slot identifies a buffered entry until that entry is cleared; then it may be reused. A
 * slot's low bit is its entry type (each type has its own slots), the rest an index.
 */
enum { PS_TYPE_MARK = 0, PS_TYPE_MEASURE = 1, PS_TYPE_COUNT = 2 };

/* A new entry-name id (>= 0; a released one is reused first) or PS_E_NOMEM. The shim keeps the
 * name itself (one copy) and its name -> id map; the core never sees the string. */
PS_API int32_t ps_timeline_name_new(void);
/* Append an entry. Returns its slot (>= 0), PS_E_LIMIT when the type's buffer is full (the
 * entry is counted as dropped, not stored), or PS_E_NOMEM / PS_E_ARG. */
PS_API int32_t ps_timeline_add(uint32_t type, uint32_t name_id, double start, double duration);
/* Filter by type and name (-1 = any), sorted by startTime, ties in insertion order. Writes the
 * slots to the result buffer and returns their count (or PS_E_NOMEM / PS_E_ARG). */
PS_API int32_t ps_timeline_query(int32_t type, int32_t name_id);
/* Remove the entries of `type` named `name_id` and return their count. For one name, the
 * removed slots are written to the result buffer; for every name (-1), nothing is written (the
 * whole type's slots are void: drop them all) and nothing is allocated. */
PS_API int32_t ps_timeline_clear(uint32_t type, int32_t name_id);
/* Remove the one entry at `slot`, named `name_id` (its name's other entries stay). Returns 1, or
 * 0 when `slot` holds no live entry of that name. The slot may be reused afterwards. */
PS_API int32_t ps_timeline_remove(uint32_t slot, int32_t name_id);
/* Entries dropped because the buffer of `type` was full. */
PS_API double ps_timeline_dropped(uint32_t type);
/* Cap the buffer of `type` at `max_entries` (0 = unbounded, the spec's default for marks and
 * measures). Returns PS_OK or PS_E_ARG. */
PS_API int32_t ps_timeline_set_limit(uint32_t type, uint32_t max_entries);
/* Release the names that no buffered entry uses; writes their ids to the result buffer and
 * returns the count. The shim forgets those ids; later ps_timeline_name_new calls reuse them. */
PS_API int32_t ps_timeline_release_names(void);

/* ---------------------------------------------------------------------------------------------
 * User Timing (usertiming.c). A time argument is a kind plus a value: absent, a timestamp, a
 * mark name id (negative for a name that was never interned: no such mark), or one the shim
 * failed to convert (PerformanceTiming names: the shim rethrows its own error at the spec's
 * moment).
 */
enum { PS_ARG_ABSENT = 0, PS_ARG_TIME = 1, PS_ARG_MARK = 2, PS_ARG_HOST_ERROR = 4 };

/* User Timing 3 §measure() steps 1–3: the option checks, then end time, then start time, with
 * the spec's exceptions in the spec's order. `has_options` is 1 when startOrMeasureOptions is a
 * dictionary with at least one member present; `end_mark` is 1 when the third argument was
 * given (then `e_*` describe it). `now` is the host's now(). With `buffer_as` 0 it buffers
 * nothing (the shim clones `detail` next and then calls ps_timeline_add); else the measure is
 * buffered at once under name id `buffer_as - 1` (a measure without a detail: one call).
 * Returns PS_OK (buffer_as 0) or the new slot (>= 1: a measure's slot is odd), or PS_E_LIMIT
 * when the buffer is full, with start time in out[0] and duration in out[1] in all three cases;
 * else a negative status with the failing argument in out[2] (0 start, 1 duration, 2 end). */
PS_API int32_t ps_usertiming_measure(int32_t has_options, int32_t end_mark,
                                     int32_t s_kind, double s_val, int32_t d_kind, double d_val,
                                     int32_t e_kind, double e_val, double now, uint32_t buffer_as);

#endif
