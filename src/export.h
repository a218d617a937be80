/*
 * export.h — trace exporters (export.c): a trace of the core (trace.h) written as the JSON of
 * another tool's profile format.
 *
 * Each ps_export_* writes one JSON document and returns PS_OK with it as the blob (perfshim.h:
 * ps_blob_ptr/ps_blob_len; UTF-8, names that held lone surrogates written as \u escapes), or a
 * negative status: PS_E_ARG for a bad handle, PS_E_NOMEM. ps_blob_release frees the document
 * (documents can be large; the shim releases it once it has read one).
 *
 * Times: a trace's timestamps are ms relative to the time origin; formats that count in µs get
 * them rounded to whole µs (V8's resolution), on the same origin, so they line up with
 * performance entries converted the same way.
 */
#ifndef PERFSHIM_EXPORT_H
#define PERFSHIM_EXPORT_H

#include "perfshim.h"

/* Chrome DevTools' .cpuprofile (the DevTools protocol's Profiler.Profile). */
PS_API int32_t ps_export_cpuprofile(int32_t trace);
/* speedscope's file format, one sampled profile named by the `name_len` UTF-8 bytes at the
 * exchange buffer. */
PS_API int32_t ps_export_speedscope(int32_t trace, uint32_t name_len);
/* Chrome's trace-event format: {"traceEvents":[metadata, Profile, ProfileChunk]} on process
 * `pid`, thread `tid`, the main frame's url the `url_len` UTF-8 bytes at the exchange buffer; the
 * shim appends the user-timing events. */
PS_API int32_t ps_export_trace_events(int32_t trace, uint32_t pid, uint32_t tid, uint32_t url_len);
/* The Firefox Profiler's processed profile format, version 58: one thread named by the
 * `name_len` UTF-8 bytes at the exchange buffer, meta.startTime `start_ms` (ms since the epoch of
 * the trace's time origin), meta.interval `interval_ms` (<= 0: the mean sample interval). */
PS_API int32_t ps_export_firefox(int32_t trace, uint32_t name_len, double start_ms, double interval_ms);

#endif
