/* Fuzz the entry buffer with random operation sequences (adds in any time order, clear by name,
 * clear all, query, measure, caps, name release) and check its invariants after each query:
 * results are sorted by (startTime, insertion), belong to the asked type and (the core's
 * debug-build check) name, counts
 * agree, and a name's latest mark is the last of its marks. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Eight names, as the shim's name -> id map holds them (the core keeps no strings). */
static int32_t ids[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };

static int32_t intern(uint8_t k)
{
    if (ids[k % 8] < 0) ids[k % 8] = ps_timeline_name_new();
    return ids[k % 8];
}

static void release(void)
{
    int32_t n = ps_timeline_release_names();
    for (int32_t r = 0; r < n; r++)
        for (int i = 0; i < 8; i++)
            if (ids[i] == (int32_t)ps_result_ptr()[r]) ids[i] = -1;
}

static void check_query(int32_t type, int32_t name)
{
    int32_t n = ps_timeline_query(type, name);
    if (n < 0) abort();
    uint32_t *r = malloc((size_t)n * 4 + 4);
    memcpy(r, ps_result_ptr(), (size_t)n * 4);
    double prev = -1e300;
    for (int32_t i = 0; i < n; i++) {
        int32_t t = ps__timeline_entry(r[i]);
        if (t < 0 || (type >= 0 && t != type)) abort();
        double *out = ps_out_ptr();
        if (out[0] < prev) abort();
        prev = out[0];
    }
    if (type >= 0 && name < 0 && (uint32_t)n != ps__timeline_count((uint32_t)type)) abort();
    /* The mark a name converts to is the last of its marks in timeline order. */
    if (type == PS_TYPE_MARK && name >= 0) {
        int32_t st = ps_usertiming_measure(0, 0, PS_ARG_MARK, name, 0, 0, PS_ARG_ABSENT, 0, 1e9, 0);
        if (n == 0 ? st != PS_E_SYNTAX : st != PS_OK || ps_out_ptr()[0] != prev) abort();
    }
    free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i + 2 < size; i += 3) {
        uint8_t op = data[i] % 8, a = data[i + 1], b = data[i + 2];
        int32_t name = intern(a);
        uint32_t type = a & 1 ? PS_TYPE_MEASURE : PS_TYPE_MARK;
        switch (op) {
        case 0: case 1: case 2: ps_timeline_add(type, (uint32_t)name, b % 16, b % 3); break;
        case 3: ps_timeline_clear(type, name); break;
        case 4: if (b < 16) ps_timeline_clear(type, -1); break;
        case 5: check_query(b % 3 == 0 ? -1 : (int32_t)type, b & 1 ? name : -1); break;
        case 6: ps_usertiming_measure(b & 1, 0, PS_ARG_MARK, name, b & 2 ? PS_ARG_TIME : 0, b % 7, PS_ARG_TIME, b, 100, b & 4 ? (uint32_t)intern(b / 8) + 1 : 0); break;
        case 7: if (b < 8) ps_timeline_set_limit(type, b); else if (b > 250) release(); break;
        }
    }
    check_query(-1, -1);
    ps_timeline_clear(PS_TYPE_MARK, -1);
    ps_timeline_clear(PS_TYPE_MEASURE, -1);
    ps_timeline_set_limit(PS_TYPE_MARK, 0);
    ps_timeline_set_limit(PS_TYPE_MEASURE, 0);
    return 0;
}
