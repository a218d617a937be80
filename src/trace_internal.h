/*
 * trace_internal.h — what the exporters (export.c), the instrumentation source (instrument.c) and
 * the C tests use of a trace besides the ABI; not part of the ABI.
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

/* The trie's element-ID steps one at a time, for the C tests (the glue imports whole traces
 * with ps_trace_import and ps_trace_import_v8_*).
 * "Get an element ID" of the `len` UTF-8 bytes at the exchange buffer in resources.
 * Returns the resource id or a negative status. */
int32_t ps__trace_resource(int32_t h, uint32_t len);
/* "Get an element ID" of the frame (name = `name_len` UTF-8 bytes at the exchange buffer,
 * resource id or -1, 1-based line and column or 0). Returns the frame id or a negative status
 * (PS_E_ARG for a resource id out of range). */
int32_t ps__trace_frame(int32_t h, uint32_t name_len, int32_t resource, uint32_t line,
                        uint32_t column);
/* "Get an element ID" of the stack (parent stack id or -1, frame id). Returns the stack id or a
 * negative status (PS_E_ARG when an id is out of range, so a parent always precedes its child). */
int32_t ps__trace_stack(int32_t h, int32_t parent, uint32_t frame);

/* For the instrumentation source (instrument.c): the frame id of (name, url, line, column) in
 * trace `h`, interning both strings (`url` 0 = no resource), or a negative status; and in `*stack`
 * the stack id of `depth` frame ids (outermost first), -1 for an empty stack, returning PS_OK or
 * a negative status (apart: PS_E_NOMEM is -1 too). */
int32_t ps__trace_frame_of(int32_t h, const uint8_t *name, uint32_t name_len, const uint8_t *url,
                           uint32_t url_len, uint32_t line, uint32_t col);
/* Lookups that add nothing (field.c's capped aggregates): the frame id of (name, url, line,
 * column) or the stack id of (parent, frame) when the trace already holds it, else -1. */
int32_t ps__trace_frame_find(int32_t h, const uint8_t *name, uint32_t name_len, const uint8_t *url,
                             uint32_t url_len, uint32_t line, uint32_t col);
int32_t ps__trace_stack_find(int32_t h, int32_t parent, uint32_t frame);
int32_t ps__trace_stack_of(int32_t h, const uint32_t *frames, uint32_t depth, int32_t *stack);

#endif
