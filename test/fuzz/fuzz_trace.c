/* Fuzz the profiler trie through the V8 import (the one parser of untrusted layout in the
 * core) and every exporter: no crash, and every export is JSON that parses. The input is cut
 * into a node table (eight u32 a record, then a string region) and a sample list. */
#include <stdlib.h>
#include <string.h>
#include "cJSON.h"
#include "trace.h"
#include "export.h"

static void check_export(int32_t st)
{
    if (st != PS_OK) return;
    cJSON *j = cJSON_ParseWithLength((const char *)ps_blob_ptr(), ps_blob_len());
    if (!j) abort();
    cJSON_Delete(j);
    ps_blob_release();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4 || size > 1 << 14) return 0;
    uint32_t records = data[0] % 24, samples = data[1] % 64, max = 1 + data[2] % 40;
    data += 4;
    size -= 4;
    /* Records: ten f64 each, read from the input (any bit pattern: NaN, infinities, huge). */
    size_t table = (size_t)records * 80;
    if (table > size) return 0;
    int32_t h = ps_trace_new(max);
    if (h < 0) return 0;
    /* Hidden scripts (ps_trace_hide): up to 7 bytes of the string region as a URL prefix (an
     * empty one hides nothing), beside a fixed second prefix. */
    uint32_t hide = (data[-1] >> 1) % 8;
    if ((data[-1] & 1) && table + hide <= size) {
        uint8_t *p = ps_exchange_reserve(hide + 16);
        memcpy(p, data + table, hide);
        memcpy(p + hide, "\nfile:///g/", 11);
        ps_trace_hide(h, hide + 11);
    }
    uint8_t *ex = ps_exchange_reserve((uint32_t)size + 1);
    memcpy(ex, data, size);
    if (ps_trace_import_v8_nodes(h, records, 0, (uint32_t)(size - table)) == PS_OK && records) {
        /* Samples: node ids drawn from the table's ids, deltas from the input. */
        double ids[24];
        for (uint32_t i = 0; i < records; i++) memcpy(&ids[i], data + i * 80, 8);
        double *s = (double *)(void *)ps_exchange_reserve(samples * 16 + 8);
        for (uint32_t i = 0; i < samples; i++) {
            uint8_t b = data[(i * 7) % size];
            s[i] = ids[b % records];
            s[samples + i] = (b % 5) * 250;
        }
        ps_trace_import_v8_samples(h, samples, 1000, 0, -1e300, 1e300);
    }
    check_export(ps_export_cpuprofile(h));
    uint8_t *name = ps_exchange_reserve(4);
    memcpy(name, "fuzz", 4);
    check_export(ps_export_speedscope(h, 4));
    name = ps_exchange_reserve(9);
    memcpy(name, "file:///f", 9);
    check_export(ps_export_trace_events(h, 1, 1, 9));
    name = ps_exchange_reserve(4);
    memcpy(name, "fuzz", 4);
    check_export(ps_export_firefox(h, 4, 0, 1));
    ps_trace_free(h);
    return 0;
}
