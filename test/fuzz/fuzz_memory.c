/* Fuzz the Measure Memory result builder with arbitrary "intermediate measurement" JSON: it
 * must never crash, and whatever it accepts must produce a result that parses. (cJSON, the
 * independent reader, rejects the lone-surrogate escapes the writer means to write for WTF-8
 * input such as ED A0 80: a result holding one is not held against the builder.) */
#include <stdlib.h>
#include <string.h>
#include "cJSON.h"
#include "memory.h"

/* Whether the result holds a \uD800-\uDFFF escape (the writer's form of a lone surrogate). */
static int has_surrogate_escape(const uint8_t *b, uint32_t n)
{
    for (uint32_t i = 0; i + 3 < n; i++)
        if (b[i] == '\\' && b[i + 1] == 'u' && (b[i + 2] | 0x20) == 'd' && b[i + 3] &&
            strchr("89abcdefABCDEF", b[i + 3]))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16) return 0;
    uint8_t *in = ps_exchange_reserve((uint32_t)size + 1);
    if (!in) return 0;
    memcpy(in, data, size);
    int32_t st = ps_memory_build((uint32_t)size, 42);
    if (st == PS_OK) {
        cJSON *result = cJSON_ParseWithLength((const char *)ps_blob_ptr(), ps_blob_len());
        if (result) {
            if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(result, "bytes"))) abort();
            if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(result, "breakdown"))) abort();
            cJSON_Delete(result);
        } else if (!has_surrogate_escape(ps_blob_ptr(), ps_blob_len())) {
            abort();
        }
    }
    ps_blob_release();
    return 0;
}
