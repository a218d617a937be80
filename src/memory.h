/*
 * memory.h — Measure Memory: building the MemoryMeasurement result (memory.c).
 *
 * The shim measures (Node heaps, workers, WebAssembly memories; the browser's native API) and
 * hands the core an intermediate measurement as JSON; the core applies the spec's algorithms
 * (memory attribution tokens, cross-origin aggregation, "create a new memory measurement") and
 * returns the MemoryMeasurement as JSON. Input, UTF-8 JSON in the exchange buffer:
 *
 *   { "realms": [ {                       a JavaScript realm, referred to by its index
 *        "url":    string,                its creation URL (the attribution's url)
 *        "scope":  string,                its global's interface: "Window",
 *                                         "DedicatedWorkerGlobalScope", ... (host-defined
 *                                         names are allowed, e.g. Node's main thread)
 *        "origin": string,                optional; needed for a Window with a parent
 *        "parent": integer,               optional: a Window's parent (embedder) realm, a
 *                                         worker's owner (outside settings) realm
 *        "container": { "localName": "iframe" | "frame" | "object",
 *                       "id": string, "src": string, "data": string },
 *                                         a nested Window's container element (absent
 *                                         attributes are "")
 *        "token": { "container": {"id","src"} | null, "crossOriginAggregated": bool }
 *                                         optional: a token the host already resolved (a
 *                                         native result); then origin/parent are not used
 *                                         and its entries are not folded by aggregation
 *     } ],
 *     "entries": [ { "bytes": integer >= 0, "realms": [index...], "types": [string...],
 *                    "remote": bool } ],   remote: memory outside this address space (bytes
 *                                         reported as 0, as the spec requires)
 *     "breakdown": bool }                 optional, default true; false: total only
 *
 * or a browser's native result, re-encoded with the current draft's shape (types, the zero-byte
 * entry, shuffled orders) whatever the browser's version:
 *
 *   { "native": { "bytes": integer,       beyond the breakdown's sum: an unattributed entry
 *                 "breakdown": [ { "bytes", "types" (or the older "userAgentSpecificTypes"),
 *                   "attribution": [ { "url", "scope", "container"?: {"id", "src"} } ] } ] } }
 *                                         each attribution a realm with a host-resolved token
 *                                         ("cross-origin-aggregated" scope: aggregated); the
 *                                         draft's zero-byte entry is dropped (one is added)
 *
 * Read by src/json.c: integers are taken as JSON.stringify writes them (no fraction, no
 * exponent: `1.0` is not an integer here), strings may not contain U+0000, and nesting is limited
 * to 64 levels; anything else is PS_E_PARSE.
 *
 * Output (written by src/json.c; byte counts as exact integers, also past 2^53 when a sum is):
 * {"bytes": n, "breakdown": [{"bytes", "attribution": [{"url", "container"?:
 * {"id","src"}, "scope"}], "types"}]} with the extra zero-byte entry and the order of
 * `breakdown` and of each `types` list shuffled from `seed`. Entries whose only attribution is
 * one computed cross-origin-aggregated token are folded into one entry per top-most
 * cross-origin container (bytes summed, types united), as the spec's examples show.
 *
 * Ownership: the result (or, on failure, a constant message) is the blob (perfshim.h), borrowed
 * until ps_blob_release, which frees it.
 */
#ifndef PERFSHIM_MEMORY_H
#define PERFSHIM_MEMORY_H

#include "perfshim.h"

/* Build a MemoryMeasurement from the `len` bytes of intermediate-measurement JSON in the exchange
 * buffer, shuffling with `seed`. Returns PS_OK with the result JSON as the blob, PS_E_PARSE
 * (malformed or inconsistent input; the blob then holds a message saying what) or PS_E_NOMEM. */
PS_API int32_t ps_memory_build(uint32_t len, uint32_t seed);

#endif
