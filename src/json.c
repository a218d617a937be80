/*
 * json.c — JSON in and out without printf or strtod (see json.h for the contract).
 *
 * Reader: recursive descent over RFC 8259's grammar, depth-limited; nodes are appended to one
 * growable array (indexes stay valid as it grows), each string is decoded once into the strings
 * buffer, whose size is bounded by the input's (a decoded string plus its NUL never exceeds its
 * quoted form). Invariant: a parent's `count` equals the length of its `child`/`next` chain.
 * Writer: a byte buffer doubled as needed; integers are written digit by digit (beyond 2^64 by
 * doubling a base-1e9 number), so no libc formatting is linked.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "json.h"

/* ---- reader --------------------------------------------------------------------------------- */

typedef struct {
    ps_json_doc *d;
    const uint8_t *s;
    uint32_t len, at;
} reader;

static void ws(reader *r)
{
    while (r->at < r->len) {
        uint8_t c = r->s[r->at];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        r->at++;
    }
}

static int32_t new_node(reader *r, uint8_t type)
{
    ps_json_doc *d = r->d;
    if (d->n == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 64;
        ps_json_node *q = cap > d->cap ? realloc(d->nodes, (size_t)cap * sizeof *q) : NULL;
        if (!q) return PS_E_NOMEM;
        d->nodes = q;
        d->cap = cap;
    }
    ps_json_node *n = &d->nodes[d->n];
    memset(n, 0, sizeof *n);
    n->type = type;
    n->child = n->next = -1;
    return (int32_t)d->n++;
}

static int hex4(reader *r, uint32_t *out)
{
    if (r->len - r->at < 4) return 0;
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
        uint8_t c = r->s[r->at++];
        uint32_t x = c >= '0' && c <= '9' ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : 16;
        if (x == 16) return 0;
        v = v << 4 | x;
    }
    *out = v;
    return 1;
}

static void put_utf8(char *o, uint32_t *k, uint32_t cp)
{
    if (cp < 0x80) o[(*k)++] = (char)cp;
    else if (cp < 0x800) {
        o[(*k)++] = (char)(0xC0 | cp >> 6);
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        o[(*k)++] = (char)(0xE0 | cp >> 12);
        o[(*k)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        o[(*k)++] = (char)(0xF0 | cp >> 18);
        o[(*k)++] = (char)(0x80 | (cp >> 12 & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[(*k)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* A string at r->at (its opening quote): decoded into the strings buffer; *off is where. */
static int string(reader *r, uint32_t *off)
{
    char *o = r->d->strings;
    uint32_t k = r->d->used;
    *off = k;
    r->at++;
    for (;;) {
        if (r->at >= r->len) return PS_E_PARSE;
        uint8_t c = r->s[r->at++];
        if (c == '"') break;
        if (c < 0x20) return PS_E_PARSE;
        if (c != '\\') { o[k++] = (char)c; continue; }
        if (r->at >= r->len) return PS_E_PARSE;
        c = r->s[r->at++];
        uint32_t cp;
        switch (c) {
        case '"': case '\\': case '/': o[k++] = (char)c; continue;
        case 'b': o[k++] = '\b'; continue;
        case 'f': o[k++] = '\f'; continue;
        case 'n': o[k++] = '\n'; continue;
        case 'r': o[k++] = '\r'; continue;
        case 't': o[k++] = '\t'; continue;
        case 'u': break;
        default: return PS_E_PARSE;
        }
        if (!hex4(r, &cp) || cp == 0) return PS_E_PARSE;
        uint32_t lo;
        if (cp >= 0xD800 && cp < 0xDC00 && r->len - r->at >= 6 && r->s[r->at] == '\\' &&
            r->s[r->at + 1] == 'u') {
            uint32_t save = r->at;
            r->at += 2;
            if (hex4(r, &lo) && lo >= 0xDC00 && lo < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            else r->at = save; /* a lone high surrogate: the next escape stands alone */
        }
        put_utf8(o, &k, cp); /* 6 escaped bytes (12 for a pair) give at most 3 (4) */
    }
    o[k++] = 0;
    r->d->used = k;
    return PS_OK;
}

/* An integer as JSON.stringify writes it; any other number is NaN (json.h). */
static int number(reader *r, double *out)
{
    int neg = r->s[r->at] == '-', integer = 1;
    if (neg) r->at++;
    double v = 0;
    uint32_t digits = r->at;
    while (r->at < r->len && r->s[r->at] >= '0' && r->s[r->at] <= '9') v = v * 10 + (r->s[r->at++] - '0');
    if (r->at == digits || (r->s[digits] == '0' && r->at - digits > 1)) return PS_E_PARSE;
    if (r->at < r->len && r->s[r->at] == '.') {
        integer = 0;
        uint32_t f = ++r->at;
        while (r->at < r->len && r->s[r->at] >= '0' && r->s[r->at] <= '9') r->at++;
        if (r->at == f) return PS_E_PARSE;
    }
    if (r->at < r->len && (r->s[r->at] | 32) == 'e') {
        integer = 0;
        r->at++;
        if (r->at < r->len && (r->s[r->at] == '+' || r->s[r->at] == '-')) r->at++;
        uint32_t e = r->at;
        while (r->at < r->len && r->s[r->at] >= '0' && r->s[r->at] <= '9') r->at++;
        if (r->at == e) return PS_E_PARSE;
    }
    *out = !integer ? NAN : neg ? -v : v;
    return PS_OK;
}

static int literal(reader *r, const char *word)
{
    size_t n = strlen(word);
    if (r->len - r->at < n || memcmp(r->s + r->at, word, n) != 0) return PS_E_PARSE;
    r->at += (uint32_t)n;
    return PS_OK;
}

/* A value at r->at; *out is its node. */
static int value(reader *r, int depth, int32_t *out)
{
    ws(r);
    if (r->at >= r->len) return PS_E_PARSE;
    uint8_t c = r->s[r->at];
    int32_t i;
    int st;
    if (c == '{' || c == '[') {
        if (depth >= PSJ_MAX_DEPTH) return PS_E_PARSE;
        int obj = c == '{';
        if ((i = new_node(r, obj ? PSJ_OBJ : PSJ_ARR)) < 0) return i;
        *out = i;
        r->at++;
        ws(r);
        if (r->at < r->len && r->s[r->at] == (obj ? '}' : ']')) { r->at++; return PS_OK; }
        int32_t last = -1;
        for (;;) {
            uint32_t key = 0;
            if (obj) {
                ws(r);
                if (r->at >= r->len || r->s[r->at] != '"') return PS_E_PARSE;
                if ((st = string(r, &key)) != PS_OK) return st;
                ws(r);
                if (r->at >= r->len || r->s[r->at++] != ':') return PS_E_PARSE;
            }
            int32_t item;
            if ((st = value(r, depth + 1, &item)) != PS_OK) return st;
            ps_json_node *nodes = r->d->nodes; /* valid after the value's growth */
            nodes[item].key = key;
            if (last < 0) nodes[i].child = item;
            else nodes[last].next = item;
            nodes[i].count++;
            last = item;
            ws(r);
            if (r->at >= r->len) return PS_E_PARSE;
            c = r->s[r->at++];
            if (c == (obj ? '}' : ']')) return PS_OK;
            if (c != ',') return PS_E_PARSE;
        }
    }
    if (c == '"') {
        if ((i = new_node(r, PSJ_STR)) < 0) return i;
        *out = i;
        uint32_t off;
        if ((st = string(r, &off)) != PS_OK) return st;
        r->d->nodes[i].str = off;
        return PS_OK;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        if ((i = new_node(r, PSJ_NUM)) < 0) return i;
        *out = i;
        double v;
        if ((st = number(r, &v)) != PS_OK) return st;
        r->d->nodes[i].num = v;
        return PS_OK;
    }
    uint8_t type = c == 't' ? PSJ_TRUE : c == 'f' ? PSJ_FALSE : PSJ_NULL;
    if ((st = literal(r, type == PSJ_TRUE ? "true" : type == PSJ_FALSE ? "false" : "null")) != PS_OK)
        return st;
    if ((i = new_node(r, type)) < 0) return i;
    *out = i;
    return PS_OK;
}

int ps__json_parse(ps_json_doc *d, const uint8_t *s, uint32_t len)
{
    memset(d, 0, sizeof *d);
    d->strings = malloc((size_t)len + 1);
    if (!d->strings) return PS_E_NOMEM;
    reader r = { d, s, len, 0 };
    int32_t root;
    int st = value(&r, 0, &root);
    ws(&r);
    if (st == PS_OK && r.at != len) st = PS_E_PARSE;
    PS_ASSERT(st != PS_OK || (root == 0 && d->used <= len + 1));
    if (st != PS_OK) ps__json_free(d);
    return st;
}

void ps__json_free(ps_json_doc *d)
{
    free(d->nodes);
    free(d->strings);
    memset(d, 0, sizeof *d);
}

const ps_json_node *ps__json_at(const ps_json_doc *d, int32_t i)
{
    return i < 0 ? NULL : &d->nodes[i];
}

const ps_json_node *ps__json_get(const ps_json_doc *d, const ps_json_node *obj, const char *key)
{
    if (!obj || obj->type != PSJ_OBJ) return NULL;
    for (const ps_json_node *m = ps__json_at(d, obj->child); m; m = ps__json_at(d, m->next))
        if (strcmp(d->strings + m->key, key) == 0) return m;
    return NULL;
}

/* ---- writer --------------------------------------------------------------------------------- */

static int room(ps_json_writer *w, size_t n)
{
    if (w->err) return 0;
    if (w->len + n <= w->cap) return 1;
    size_t cap = w->cap ? w->cap : 256;
    while (cap < w->len + n) cap *= 2;
    uint8_t *q = realloc(w->b, cap);
    if (!q) { w->err = 1; return 0; }
    w->b = q;
    w->cap = cap;
    return 1;
}

static void put(ps_json_writer *w, const void *s, size_t n)
{
    if (!room(w, n)) return;
    memcpy(w->b + w->len, s, n);
    w->len += n;
}

void ps__json_raw(ps_json_writer *w, const char *s) { put(w, s, strlen(s)); }

/* RFC 8259 §7: quote, backslash and control characters escaped; a lone surrogate's WTF-8 bytes
 * (ED A0..BF xx) as its \u escape, which JSON.parse turns back into the same code unit. */
void ps__json_cstr(ps_json_writer *w, const char *str)
{
    static const char HEX[] = "0123456789abcdef";
    const uint8_t *s = (const uint8_t *)str;
    put(w, "\"", 1);
    size_t run = 0, i = 0;
    for (; s[i]; i++) {
        uint8_t c = s[i];
        int surrogate = c == 0xED && s[i + 1] >= 0xA0 && s[i + 1] <= 0xBF && s[i + 2];
        if (c >= 0x20 && c != '"' && c != '\\' && !surrogate) continue;
        put(w, s + run, i - run);
        uint32_t u = c;
        if (c == '"' || c == '\\') {
            char e[2] = { '\\', (char)c };
            put(w, e, 2);
        } else {
            if (surrogate) {
                u = 0xD000u | ((uint32_t)(s[i + 1] & 0x3f) << 6) | (s[i + 2] & 0x3f);
                i += 2;
            }
            char e[6] = { '\\', 'u', HEX[u >> 12 & 15], HEX[u >> 8 & 15], HEX[u >> 4 & 15], HEX[u & 15] };
            put(w, e, 6);
        }
        run = i + 1;
    }
    put(w, s + run, i - run);
    put(w, "\"", 1);
}

void ps__json_uint(ps_json_writer *w, double v)
{
    PS_ASSERT(v >= 0 && v == floor(v) && isfinite(v));
    char d[320];
    int k = sizeof d;
    if (v < 18446744073709551616.0) {
        unsigned long long u = (unsigned long long)v;
        do { d[--k] = (char)('0' + u % 10); u /= 10; } while (u);
    } else {
        /* v = m * 2^e with m < 2^53: m in base 1e9 limbs (least significant first), doubled e
         * times; at most 35 limbs for the largest double. */
        int e;
        double m = frexp(v, &e); /* v = m * 2^e, 0.5 <= m < 1 */
        unsigned long long mi = (unsigned long long)ldexp(m, 53);
        e -= 53;
        uint32_t limb[40];
        int n = 0;
        do { limb[n++] = (uint32_t)(mi % 1000000000u); mi /= 1000000000u; } while (mi);
        while (e-- > 0) {
            uint32_t carry = 0;
            for (int j = 0; j < n; j++) {
                uint32_t x = limb[j] * 2 + carry;
                carry = x >= 1000000000u;
                limb[j] = carry ? x - 1000000000u : x;
            }
            if (carry) limb[n++] = 1;
        }
        for (int j = 0; j < n; j++) {
            uint32_t x = limb[j];
            for (int q = 0; q < 9 && (j + 1 < n || x); q++) { d[--k] = (char)('0' + x % 10); x /= 10; }
        }
    }
    put(w, d + k, sizeof d - (size_t)k);
}

int32_t ps__json_finish(ps_json_writer *w)
{
    int32_t st = PS_OK;
    if (w->err) {
        free(w->b);
        st = PS_E_NOMEM;
    } else {
        ps__blob_set(w->b, (uint32_t)w->len, 1);
    }
    memset(w, 0, sizeof *w);
    return st;
}
