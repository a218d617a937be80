/*
 * field.h — field profiling (field.c): the upload of one visit, its validating decoder, and
 * aggregates of many visits. Built into a core of its own (wasm/perfshim-field.wasm) with the
 * trace trie (trace.h), for the collector in Node and the sampled page.
 *
 * The upload (version 1), every integer an unsigned LEB128 varint unless said otherwise:
 *   "PSF" 0x01 | interval_us
 *   strings    n, then n × (byte length, UTF-8 bytes)             deduplicated, every string once
 *   resources  n, then n × string id
 *   frames     n, then n × (name string id, resource id + 1 (0 none), line, column (0 absent))
 *   stacks     n, then n × (frame id, gap) where parent = own id - gap, gap 0 = no parent, so a
 *              parent always precedes its child: the trie is acyclic by construction
 *   samples    n, first time (zigzag µs), then n × (delta µs from the previous sample (the first:
 *              from the first time), (stack id + 1) << 3 | marker): times are ordered by construction
 *   entries    n, then n × (name string id, type 0 mark / 1 measure, start (zigzag µs), duration
 *              (zigzag µs)): the visit's marks and measures in its window
 *   labels     n, then n × (name string id, value string id)
 * and nothing after. Times are µs relative to the page's time origin.
 *
 * Ownership: the core owns every trace and aggregate (handles, as trace.h's); the upload of
 * ps_field_encode is a blob the shim releases (ps_blob_release); columns and the blobs of
 * ps_field_labels / ps_field_entries are borrowed until the next ps_ call.
 */
#ifndef PERFSHIM_FIELD_H
#define PERFSHIM_FIELD_H

#include "perfshim.h"

/* Limits of a decoded upload (the collector checks the compressed size itself). */
#define PS_FIELD_MAX_BYTES 1048576  /* an upload's bytes after decompression */
#define PS_FIELD_MAX_STRING 4096    /* bytes of one string (a function name, a URL) */
#define PS_FIELD_MAX_LABELS 32      /* labels of one visit */
#define PS_FIELD_MAX_LABEL_VALUE 256 /* bytes of a label's value */
#define PS_FIELD_MAX_DEPTH 1024     /* frames of one stack */
#define PS_FIELD_MAX_ENTRIES 4096   /* marks and measures of one visit */

/* Why an upload was refused: out[0] after PS_E_PARSE, out[1] the byte offset. */
enum {
    PS_FIELD_BAD_MAGIC = 1,       /* not "PSF" version 1 */
    PS_FIELD_BAD_TRUNCATED = 2,   /* the input ends inside a value */
    PS_FIELD_BAD_VARINT = 3,      /* a varint longer than its type */
    PS_FIELD_BAD_COUNT = 4,       /* a count the remaining bytes cannot hold, or past a limit */
    PS_FIELD_BAD_STRING = 5,      /* a string longer than PS_FIELD_MAX_STRING */
    PS_FIELD_BAD_UTF8 = 6,        /* a string that is not UTF-8 */
    PS_FIELD_BAD_STRING_ID = 7,   /* a string id out of range */
    PS_FIELD_BAD_RESOURCE_ID = 8, /* a frame's resource id out of range */
    PS_FIELD_BAD_FRAME_ID = 9,    /* a stack's frame id out of range */
    PS_FIELD_BAD_PARENT = 10,     /* a stack's gap reaches before the first stack */
    PS_FIELD_BAD_DEPTH = 11,      /* a stack deeper than PS_FIELD_MAX_DEPTH */
    PS_FIELD_BAD_TIME = 12,       /* a time past 2^53 µs */
    PS_FIELD_BAD_STACK_ID = 13,   /* a sample's stack id out of range */
    PS_FIELD_BAD_MARKER = 14,     /* a sample's marker is not a ProfilerMarker */
    PS_FIELD_BAD_ENTRY_TYPE = 15, /* an entry that is neither a mark nor a measure */
    PS_FIELD_BAD_LABEL_NAME = 16, /* a label name not [a-zA-Z_][a-zA-Z0-9_]{0,63}, or repeated */
    PS_FIELD_BAD_LABEL_VALUE = 17, /* a label value longer than PS_FIELD_MAX_LABEL_VALUE */
    PS_FIELD_BAD_TRAILING = 18,   /* bytes after the labels */
    PS_FIELD_BAD_SIZE = 19,       /* more than PS_FIELD_MAX_BYTES */
    PS_FIELD_BAD_LINE = 20        /* a line or column past 2^31 */
};

/* Encode trace `trace` as an upload (the blob; owned, release it). The exchange buffer holds
 * `n_entries` records of five f64 (name offset, name length, type 0 mark / 1 measure, startTime
 * ms, duration ms), `n_labels` records of four f64 (name offset, length, value offset, length),
 * then `bytes` bytes of strings. Only every `stride`-th sample is kept (1: all; a larger stride
 * downsamples an upload that is too big: each kept sample then stands for the time to the next
 * kept one), and only the stacks, frames and strings those samples use. Returns the upload's
 * byte length, PS_E_PARSE for an entry or label the decoder would refuse (out[0] PS_FIELD_BAD_*,
 * out[1] its index), PS_E_ARG or PS_E_NOMEM. */
PS_API int32_t ps_field_encode(int32_t trace, uint32_t n_entries, uint32_t n_labels, uint32_t bytes,
                               uint32_t stride, double interval_ms);

/* Decode the upload of `len` bytes at the exchange buffer into trace `trace` (a fresh one),
 * validating every byte first: nothing is added to the trace unless the whole upload is valid.
 * Its labels and entries are kept for ps_field_labels / ps_field_entries until the next decode.
 * Returns the number of samples appended, out[0] = the interval in ms, out[1] labels,
 * out[2] entries; or PS_E_PARSE with out[0] = PS_FIELD_BAD_*, out[1] = the byte offset;
 * PS_E_ARG, PS_E_NOMEM. */
PS_API int32_t ps_field_decode(int32_t trace, uint32_t len);
/* The last decoded upload's labels: 2 × n strings (name, value, ...) concatenated in the blob
 * (borrowed), their byte lengths in the result buffer. Returns 2 × n or a negative status. */
PS_API int32_t ps_field_labels(void);
/* The last decoded upload's entries: n names in the blob (borrowed), their byte lengths in the
 * result buffer; ps_field_entry_times() then points at 3 × n f64 (type, startTime ms, duration
 * ms), borrowed. Returns n or a negative status. */
PS_API int32_t ps_field_entries(void);
PS_API const double *ps_field_entry_times(void);

/* ---------------------------------------------------------------------------------------------
 * Aggregates: one stack trie (a trace of the core, ps_field_agg_trace, with no samples) with a
 * sample count and a time per stack. At most `max_stacks` distinct stacks (>= 2): stack 0 is
 * "(other)", which takes the samples of every stack that would pass the cap. A stackless sample
 * counts under a root frame named after its marker: "(idle)", "(garbage collector)", ...
 */
enum { PS_FIELD_COL_COUNT = 0, /* [f64] samples per stack */
       PS_FIELD_COL_TIME = 1   /* [f64] ms per stack */ };

/* A new aggregate. Returns its handle (>= 1), PS_E_ARG (max_stacks < 2) or PS_E_NOMEM. */
PS_API int32_t ps_field_agg_new(uint32_t max_stacks);
/* Free an aggregate. PS_OK or PS_E_ARG. */
PS_API int32_t ps_field_agg_free(int32_t agg);
/* Merge samples `first` to `end` - 1 of trace `trace` (end past the last: to the last) under
 * stack `root` of the aggregate (-1: at the top; a root of ps_field_agg_root, so the collector
 * keeps the samples inside each set of measures apart): each counts once and weighs the time to
 * the trace's next sample; the last one weighs `interval_ms` (<= 0: the trace's mean interval).
 * Returns the samples merged, PS_E_ARG (a bad handle or root) or PS_E_NOMEM. */
PS_API int32_t ps_field_agg_add(int32_t agg, int32_t trace, double interval_ms, uint32_t first,
                                uint32_t end, int32_t root);
/* The root stack of the aggregate named by the `len` bytes at the exchange buffer (a frame with
 * no script), added while under the cap. Returns its stack id, 0 ("(other)") past the cap,
 * PS_E_ARG or PS_E_NOMEM. */
PS_API int32_t ps_field_agg_root(int32_t agg, uint32_t len);
/* The trace handle holding the aggregate's trie (read it with ps_trace_column/ps_trace_strings;
 * do not free it). */
PS_API int32_t ps_field_agg_trace(int32_t agg);
/* A column (PS_FIELD_COL_*) of the aggregate, one element per stack; borrowed. */
PS_API const double *ps_field_agg_column(int32_t agg, uint32_t col);
/* Sizes in the out registers: out[0] stacks, out[1] frames, out[2] samples, out[3] ms,
 * out[4] samples in "(other)", out[5] bytes held. Returns PS_OK or PS_E_ARG. */
PS_API int32_t ps_field_agg_info(int32_t agg);

#endif
