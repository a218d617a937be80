/* Fuzz the wasm builds' allocator (src/alloc.c, over a fake memory.grow): each 8 input bytes
 * are one malloc, calloc, free or realloc checked against the model (test/c/alloc_model.h:
 * alignment, no overlap, contents kept), the heap's invariants walked at the end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
/* A 4 MB memory: each input resets the model's maps, and a full memory is a case to reach. */
#define ARENA (4u << 20)
#include "../c/alloc_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    model_reset();
    for (size_t at = 0; at + 8 <= size; at += 8) {
        uint64_t r;
        memcpy(&r, data + at, 8);
        if (!model_step(r)) abort();
    }
    if (!check_heap() || !model_free_all()) abort();
    return 0;
}
