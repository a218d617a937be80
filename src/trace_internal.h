/*
 * trace_internal.h — what the exporters (export.c) read of a trace besides the public columns;
 * not part of the ABI.
 */
#ifndef PERFSHIM_TRACE_INTERNAL_H
#define PERFSHIM_TRACE_INTERNAL_H

#include "trace.h"

/* The bytes of string `id` of kind 0 (resources) or 1 (frame names) of trace `h`, its length in
 * `*len`; 0 for a bad handle, kind or id. Borrowed: valid until the trace changes. */
const uint8_t *ps__trace_string(int32_t h, uint32_t kind, uint32_t id, uint32_t *len);

/* How many strings of kind 0 (resources) or 1 (frame names) trace `h` holds (0 for a bad
 * handle or kind). */
uint32_t ps__trace_string_count(int32_t h, uint32_t kind);

#endif
