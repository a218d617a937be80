/*
 * trace_internal.h — what the exporters (export.c) read of a trace besides the public columns;
 * not part of the ABI.
 */
#ifndef PERFSHIM_TRACE_INTERNAL_H
#define PERFSHIM_TRACE_INTERNAL_H

#include "trace.h"

/* The bytes of string `id` of pool `kind` (PS_STRINGS_*) of trace `h`, its length in
 * `*len`; 0 for a bad handle, kind or id. Borrowed: valid until the trace changes. */
const uint8_t *ps__trace_string(int32_t h, uint32_t kind, uint32_t id, uint32_t *len);

/* How many strings of pool `kind` (PS_STRINGS_*) trace `h` holds (0 for a bad
 * handle or kind). */
uint32_t ps__trace_string_count(int32_t h, uint32_t kind);

/* For the instrumentation source (instrument.c): the frame id of (name, url, line, column) in
 * trace `h`, interning both strings (`url` 0 = no resource); the stack id of `depth` frame ids
 * (outermost first), -1 for an empty stack. Negative status on failure. */
int32_t ps__trace_frame_of(int32_t h, const uint8_t *name, uint32_t name_len, const uint8_t *url,
                           uint32_t url_len, uint32_t line, uint32_t col);
int32_t ps__trace_stack_of(int32_t h, const uint32_t *frames, uint32_t depth);

#endif
