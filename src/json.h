/*
 * json.h — the core's JSON reader (a small tree) and writer, with no printf or strtod: the
 * documents the core reads and writes carry strings, booleans and integers only. Internal (no
 * PS_API); used by memory.c.
 *
 * Reader: ps__json_parse turns `len` bytes into a flat array of nodes addressed by index (0 is
 * the root). Strings are decoded (escapes, surrogate pairs; a lone surrogate escape becomes its
 * WTF-8 bytes, as the shim's putString writes it) into one NUL-terminated buffer, so a string
 * containing U+0000 is rejected. A number is kept as a double when written as an integer
 * (-?digits, as JSON.stringify writes integers; exact up to 2^53); with a fraction or an exponent
 * it is NaN, which every integer check of the caller rejects. Nesting is limited to
 * PSJ_MAX_DEPTH levels (the parser recurses). Costs: O(len) time, 32 B per value plus
 * len + 1 bytes of strings. Ownership: the document owns nodes and strings until
 * ps__json_free.
 *
 * Writer: appends to a growable buffer whose allocation failure is sticky (every later write is
 * dropped and ps__json_finish returns PS_E_NOMEM); the finished document becomes the exchange's
 * blob without a copy.
 *
 * Why not cJSON here: cJSON 1.7.15 links libc's strtod and printf (22.7 KB of the module, issue 9's
 * size budget) and rejects the lone-surrogate escapes that JSON.stringify writes for a URL holding
 * a lone surrogate. cJSON stays the independent reader that checks this writer in the C tests and
 * the memory fuzz target.
 */
#ifndef PERFSHIM_JSON_H
#define PERFSHIM_JSON_H

#include <stddef.h>
#include <stdint.h>

#define PSJ_MAX_DEPTH 64

/* Node types (defines, not an enum: tools/gen-abi.mjs exports every PS_ enumerator to the glue,
 * and these are internal). */
#define PSJ_NULL 0
#define PSJ_FALSE 1
#define PSJ_TRUE 2
#define PSJ_NUM 3
#define PSJ_STR 4
#define PSJ_ARR 5
#define PSJ_OBJ 6

typedef struct {
    uint8_t type;       /* PSJ_* */
    uint32_t key;       /* an object member's name: offset into `strings` */
    uint32_t str;       /* PSJ_STR: offset into `strings` */
    int32_t child;      /* PSJ_ARR / PSJ_OBJ: first item or member, -1 when empty */
    int32_t next;       /* the next sibling, -1 after the last */
    uint32_t count;     /* PSJ_ARR / PSJ_OBJ: number of items or members */
    double num;         /* PSJ_NUM: the integer, or NaN */
} ps_json_node;

typedef struct {
    ps_json_node *nodes;
    uint32_t n, cap;
    char *strings;
    uint32_t used;
} ps_json_doc;

/* Parse `len` bytes. PS_OK, PS_E_PARSE (not JSON, or outside what the reader takes) or
 * PS_E_NOMEM. On failure the document is already freed. */
int ps__json_parse(ps_json_doc *d, const uint8_t *s, uint32_t len);
void ps__json_free(ps_json_doc *d);
/* Node i of the document, or NULL for i < 0. */
const ps_json_node *ps__json_at(const ps_json_doc *d, int32_t i);
/* An object's first member named `key`, or NULL (also when `obj` is not an object). */
const ps_json_node *ps__json_get(const ps_json_doc *d, const ps_json_node *obj, const char *key);
/* A string node's (or member name's) bytes, NUL-terminated. */
static inline const char *ps__json_str(const ps_json_doc *d, uint32_t off) { return d->strings + off; }

typedef struct {
    uint8_t *b;
    size_t len, cap;
    int err;
} ps_json_writer;

void ps__json_raw(ps_json_writer *w, const char *s);   /* bytes as they are */
void ps__json_cstr(ps_json_writer *w, const char *s);  /* a quoted, escaped string */
/* An integer-valued double >= 0 (a byte count), every digit exact: JSON.parse gives it back. */
void ps__json_uint(ps_json_writer *w, double v);
/* PS_OK with the document as the blob (owned), or PS_E_NOMEM; the writer is reset either way. */
int32_t ps__json_finish(ps_json_writer *w);

#endif
