/* Fuzz the field upload decoder (src/field.c) with hostile bytes: no crash, no leak, and an
 * upload it accepts re-encodes to one it accepts again with the same samples, and merges into a
 * capped aggregate that stays within its cap. */
#include <stdlib.h>
#include <string.h>
#include "field.h"
#include "trace.h"

static int32_t agg;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > PS_FIELD_MAX_BYTES + 16) return 0;
    if (!agg) agg = ps_field_agg_new(256);
    int32_t t = ps_trace_new(1 << 16);
    if (t < 0) return 0;
    uint8_t *ex = ps_exchange_reserve((uint32_t)size + 1);
    memcpy(ex, data, size);
    int32_t n = ps_field_decode(t, (uint32_t)size);
    if (n >= 0) {
        double interval = ps_out_ptr()[0];
        ps_field_labels();
        ps_field_entries();
        if (ps_field_agg_add(agg, t, interval, 0, UINT32_MAX, -1) < 0) abort();
        ps_field_agg_info(agg);
        if (ps_out_ptr()[0] > 256) abort();
        int32_t len = ps_field_encode(t, 0, 0, 0, 1, interval);
        if (len < 0) abort();
        uint8_t *copy = malloc((size_t)len);
        memcpy(copy, ps_blob_ptr(), (size_t)len);
        ps_blob_release();
        int32_t t2 = ps_trace_new(1 << 16);
        memcpy(ps_exchange_reserve((uint32_t)len), copy, (size_t)len);
        if (ps_field_decode(t2, (uint32_t)len) != n) abort();
        free(copy);
        ps_trace_free(t2);
    }
    ps_trace_free(t);
    return 0;
}
