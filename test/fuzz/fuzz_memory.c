/* Fuzz the Measure Memory result builder with arbitrary "intermediate measurement" JSON: it
 * must never crash, and whatever it accepts must produce a result that parses. */
#include <stdlib.h>
#include <string.h>
#include "cJSON.h"
#include "memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16) return 0;
    uint8_t *in = ps_exchange_reserve((uint32_t)size + 1);
    if (!in) return 0;
    memcpy(in, data, size);
    int32_t st = ps_memory_build((uint32_t)size, 42);
    if (st == PS_OK) {
        cJSON *result = cJSON_ParseWithLength((const char *)ps_blob_ptr(), ps_blob_len());
        if (!result) abort();
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(result, "bytes"))) abort();
        if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(result, "breakdown"))) abort();
        cJSON_Delete(result);
    }
    ps_blob_release();
    return 0;
}
