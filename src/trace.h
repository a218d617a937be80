/*
 * trace.h — JS Self-Profiling traces (trace.c): the ProfilerTrace trie of resources, frames,
 * stacks and samples, one independent object per profiling session.
 *
 * A trace is named by a handle (a small integer >= 1) from ps_trace_new and lives until
 * ps_trace_free. Ids inside a trace (resource, frame, stack, sample) are the indexes the spec's
 * "get an element ID" hands out: dense, in insertion order, never reused.
 *
 * Absent optional members are encoded as: resource -1, line/column 0 (lines and columns are
 * 1-based, so 0 is never a real value), parent stack -1, sample stack -1, marker PS_MARKER_NONE.
 *
 * Ownership: the core owns every trace. Pointers returned by ps_trace_column and the blob of
 * ps_trace_strings are borrowed until the next ps_ call (memory may grow and move).
 */
#ifndef PERFSHIM_TRACE_H
#define PERFSHIM_TRACE_H

#include "perfshim.h"

/* ProfilerMarker (js-self-profiling-markers.md), 0 = no marker. */
enum { PS_MARKER_NONE = 0, PS_MARKER_SCRIPT = 1, PS_MARKER_GC = 2, PS_MARKER_STYLE = 3,
       PS_MARKER_LAYOUT = 4, PS_MARKER_PAINT = 5, PS_MARKER_OTHER = 6, PS_MARKER_COUNT = 7 };

/* Columns readable with ps_trace_column (element type in brackets, one element per id). */
enum {
    PS_COL_FRAME_NAME = 0,      /* [u32] name string id (ps_trace_strings PS_STRINGS_NAMES) */
    PS_COL_FRAME_RESOURCE = 1,  /* [i32] resource id or -1 */
    PS_COL_FRAME_LINE = 2,      /* [u32] 1-based line or 0 */
    PS_COL_FRAME_COLUMN = 3,    /* [u32] 1-based column or 0 */
    PS_COL_STACK_PARENT = 4,    /* [i32] parent stack id or -1 */
    PS_COL_STACK_FRAME = 5,     /* [u32] frame id */
    PS_COL_SAMPLE_TIME = 6,     /* [f64] timestamp, ms relative to the time origin */
    PS_COL_SAMPLE_STACK = 7,    /* [i32] stack id or -1 */
    PS_COL_SAMPLE_MARKER = 8,   /* [u8]  PS_MARKER_* */
    PS_COL_COUNT = 9
};

/* A new empty trace whose samples are capped at `max_samples` (the session's sample buffer size
 * limit). Returns its handle (>= 1) or PS_E_NOMEM. */
PS_API int32_t ps_trace_new(uint32_t max_samples);
/* Free a trace and everything in it. Returns PS_OK or PS_E_ARG for a bad handle. */
PS_API int32_t ps_trace_free(int32_t trace);
/* Append a sample (stack id or -1, PS_MARKER_*). Returns the sample index, PS_E_LIMIT when the
 * trace already holds max_samples samples (the trace is then marked full), or PS_E_ARG. */
PS_API int32_t ps_trace_sample(int32_t trace, double timestamp, int32_t stack, uint32_t marker);

/* ---------------------------------------------------------------------------------------------
 * Import: one path for every trace from outside (trace.c's header). Input is f64 records in the
 * exchange buffer, NaN for an absent member and -infinity for a member of the wrong JS type,
 * strings as WTF-8 (offset, byte length) into the byte region that follows the records. A
 * refused input is PS_E_PARSE with out[0] = what (PS_BAD_*), out[1] = the index of the element
 * in its list, out[2] = the index inside it (a child); PS_E_ARG when the layout itself is
 * broken (a string outside the region: a shim bug).
 */
enum {
    PS_BAD_RESOURCE_ID = 1,     /* frames[i].resourceId is not a resource id */
    PS_BAD_LINE = 2,            /* frames[i].line is not a positive integer */
    PS_BAD_COLUMN = 3,          /* frames[i].column is not a positive integer */
    PS_BAD_FRAME_ID = 4,        /* stacks[i].frameId is not a frame id */
    PS_BAD_PARENT_ID = 5,       /* stacks[i].parentId is not a stack id */
    PS_BAD_STACK_CYCLE = 6,     /* the stacks form a cycle through stack i */
    PS_BAD_TIMESTAMP = 7,       /* samples[i].timestamp is not a finite number */
    PS_BAD_STACK_ID = 8,        /* samples[i].stackId is not a stack id */
    PS_BAD_MARKER = 9,          /* samples[i].marker is not a ProfilerMarker */
    PS_BAD_NODE_ID = 10,        /* nodes[i].id is not a non-negative integer */
    PS_BAD_NODE_DUPLICATE = 11, /* nodes[i].id is used twice */
    PS_BAD_NODE_LINE = 12,      /* nodes[i].callFrame.lineNumber is not an integer >= -1 */
    PS_BAD_NODE_COLUMN = 13,    /* nodes[i].callFrame.columnNumber is not an integer >= -1 */
    PS_BAD_NODE_CHILD = 14,     /* nodes[i].children[k] names no node */
    PS_BAD_NODE_PARENT = 15,    /* nodes[i].parent names no node */
    PS_BAD_NODE_TWO_PARENTS = 16, /* nodes[i] has two parents */
    PS_BAD_NODE_CYCLE = 17,     /* the nodes form a cycle through nodes[i] */
    PS_BAD_SAMPLE_NODE = 18,    /* samples[i] names no node */
    PS_BAD_TIME_DELTA = 19,     /* timeDeltas[i] is not a finite number of µs */
    PS_BAD_SAMPLE_TIME = 20     /* samples[i]'s time (start + deltas - offset) is not finite */
};

/* Import a ProfilerTrace into trace `h`: `nr` resources (offset, length), `nf` frames (name
 * offset, name length, resourceId, line, column), `ns` stacks (frameId, parentId), `nsm`
 * samples (timestamp, stackId, marker as PS_MARKER_*), then `bytes` bytes of strings. Ids are
 * re-interned (ids may renumber, duplicates collapse, a parent may come after its child);
 * samples in (after_ms, until_ms] are appended in time order (stable) up to the buffer limit.
 * Returns the number appended or a negative status. */
PS_API int32_t ps_trace_import(int32_t trace, uint32_t nr, uint32_t nf, uint32_t ns, uint32_t nsm,
                               uint32_t bytes, double after_ms, double until_ms);

/* Import the node table of a V8 CPU profile (Profiler.stop's `profile.nodes`, a .cpuprofile's
 * or a trace-event ProfileChunk's). Input: `count` records of ten f64 — id, parent's id (the
 * ProfileChunk form), name offset and length, URL offset and length, lineNumber, columnNumber
 * (V8's 0-based positions, -1 unknown), then the offset and length of the node's children ids
 * in the list of `nchildren` f64 that follows the records (length -1: no children member) —
 * then `bytes` bytes of strings. Parents come from the children lists when any node has one,
 * else from the parent members. The root is dropped; "(program)" and "(idle)" map to an empty
 * stack, "(garbage collector)" to an empty stack with the gc marker. Nothing is interned yet:
 * frames and stacks are created by ps_trace_import_v8_samples for the nodes samples use, in
 * first-use order, as "take a sample" would. The table is kept until the next import. Returns
 * PS_OK or a negative status (PS_BAD_NODE_*). */
PS_API int32_t ps_trace_import_v8_nodes(int32_t trace, uint32_t count, uint32_t nchildren, uint32_t bytes);
/* Import `count` samples of the same profile: `count` f64 node ids then `count` f64 timeDeltas
 * (µs, rounded to whole µs). A sample's time is (start_us + running sum of deltas) / 1000 -
 * offset_ms; samples at or before `after_ms` or after `until_ms` are skipped. Samples are
 * appended in time order (V8 may emit small negative deltas). Returns the number appended
 * (stops at the buffer limit; see ps_trace_info) or a negative status (PS_BAD_SAMPLE_NODE,
 * PS_BAD_TIME_DELTA, PS_BAD_SAMPLE_TIME). */
PS_API int32_t ps_trace_import_v8_samples(int32_t trace, uint32_t count, double start_us, double offset_ms, double after_ms, double until_ms);

/* Leave out the frames of some scripts from this trace's later imports: `len` bytes in the
 * exchange buffer, URL prefixes separated by '\n' (a URL cannot hold a raw newline). A frame
 * whose resource starts with one is transparent: a stack ending in it is its parent's (none at
 * the root), and the resource is not added. In a V8 import, so is a "node:" built-in that such
 * a frame called. The profiler sources pass perfshim's own scripts: a native profiler shows
 * no frames of the API's implementation. Returns PS_OK, PS_E_ARG or PS_E_NOMEM. */
PS_API int32_t ps_trace_hide(int32_t trace, uint32_t len);

/* Sizes of a trace in the out registers: out[0] resources, out[1] frames, out[2] stacks,
 * out[3] samples, out[4] 1 if a sample was refused for the buffer limit, out[5] max samples,
 * out[6] bytes held, out[7] the last sample's timestamp (-Infinity when there is none).
 * Returns PS_OK or PS_E_ARG. */
PS_API int32_t ps_trace_info(int32_t trace);
/* Pointer to column `col` (PS_COL_*) of a trace, or 0 for a bad handle/column (or an empty
 * column). Borrowed. */
PS_API const void *ps_trace_column(int32_t trace, uint32_t col);
/* The string pools ps_trace_strings reads. */
enum { PS_STRINGS_RESOURCES = 0, PS_STRINGS_NAMES = 1 };
/* The strings of a pool (PS_STRINGS_*), concatenated (WTF-8) as the blob
 * (borrowed from the trace until it changes or is freed), each string's byte length in the
 * result buffer. Returns the count or a negative status. */
PS_API int32_t ps_trace_strings(int32_t trace, uint32_t kind);

#endif
