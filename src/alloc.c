/*
 * alloc.c — malloc, free, realloc and calloc for the wasm builds (-sMALLOC=none), over
 * linear memory grown with memory.grow. Native builds compile none of it (they use libc's);
 * test/c/test_alloc.c includes this file with PS_ALLOC_TEST over a static arena.
 *
 * Data structure: every block is an 8-byte header (its payload size, a multiple of 8) then
 * the payload, 8-aligned. Blocks are carved in address order from `top` up; memory grows by
 * the pages the carve needs.
 *   - Small blocks (payload <= SMALL_MAX) are freed onto a list per size class: 8, 16, 24, 32,
 *     48, 64, 96, ... 4096 (2^k and 3 * 2^(k-1)), the sizes the core asks for (u32 vectors
 *     doubling from 16 bytes, name arrays growing 16, 24, 32, 48, ... bytes). A request takes
 *     its class's size, so a freed block serves the next request of its class exactly.
 *   - Large blocks keep their exact size (the timeline's chunks are 53,248 and 86,016 bytes:
 *     a class would waste up to a quarter of them) and are freed onto one list in address
 *     order, merged with free neighbours; a request takes the first that fits and splits off
 *     the rest. The last free block, when it ends at `top`, is folded back into the top before
 *     memory grows, so a growing array at the top grows in place.
 *   - realloc keeps the block when the new size fits its payload, or grows it in place when
 *     it ends at `top`; else it moves the block.
 *
 * Invariants (checked by test/c/test_alloc.c): blocks tile [heap base, top); a block on list c
 * has a payload of at least class c's size and at most SMALL_MAX; the large list is in address
 * order, its blocks are larger than SMALL_MAX and no two are adjacent.
 *
 * Costs: a small malloc/free is O(1) while its class's list has blocks; a large one (or a small
 * one with an empty list) is O(free large blocks) — after a clear these merge into a few. Small
 * free blocks are never merged: memory a class held stays with that class.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__wasm32__) || defined(PS_ALLOC_TEST)

#if !defined(PS_ALLOC_TEST)
/* The heap starts after the data and the stack (the linker's __heap_base). */
extern unsigned char __heap_base;
#define HEAP_BASE ((uintptr_t)&__heap_base)
#define MEMORY_END() ((uint64_t)__builtin_wasm_memory_size(0) << 16)
#define MEMORY_GROW(pages) (__builtin_wasm_memory_grow(0, (pages)) != (size_t)-1)
#endif

#define HDR 8u
#define SMALL_MAX 4096u
#define N_CLASSES 24  /* class indexes 4 (8 bytes) to 22 (4096 bytes); 5 (12) is never used */

typedef struct block {
    uint32_t size;       /* payload bytes, a multiple of 8 */
    uint32_t pad;
    struct block *next;  /* free blocks only, in the payload */
} block;

static uintptr_t top = HEAP_BASE;
static block *small[N_CLASSES];
static block *large;  /* address order */

#define PAYLOAD(b) ((void *)((char *)(b) + HDR))
#define BLOCK(p) ((block *)((char *)(p) - HDR))
#define END(b) ((uintptr_t)(b) + HDR + (b)->size)

static uint32_t class_size(uint32_t c) { return (c & 1 ? 3u : 2u) << (c >> 1); }

static uint32_t log2_floor(uint32_t n) { return 31u - (uint32_t)__builtin_clz(n); }

/* The smallest class holding n bytes (8 < n <= SMALL_MAX), or 4 (8 bytes). */
static uint32_t class_ceil(uint32_t n)
{
    if (n <= 8) return 4;
    uint32_t b = log2_floor(n - 1);  /* 2^b < n <= 2^(b+1) */
    return b > 3 && n <= 3u << (b - 1) ? 2 * b - 1 : 2 * b;
}

/* The largest class a block of n payload bytes can serve (8 <= n <= SMALL_MAX). */
static uint32_t class_floor(uint32_t n)
{
    uint32_t b = log2_floor(n);  /* 2^b <= n < 2^(b+1) */
    return b > 3 && n >= 3u << (b - 1) ? 2 * b - 1 : 2 * b - 2;
}

/* The payload a request of n bytes gets: its class's size, or n rounded up to 8. */
static size_t fit(size_t n)
{
    return n <= SMALL_MAX ? class_size(class_ceil((uint32_t)n)) : (n + 7) & ~(size_t)7;
}

/* Put a block on its free list: its class's, or the large list, merged with its neighbours. */
static void release(block *b)
{
    if (b->size <= SMALL_MAX) {
        uint32_t c = class_floor(b->size);
        b->next = small[c];
        small[c] = b;
        return;
    }
    block **at = &large, *prev = 0;
    while (*at && *at < b) {
        prev = *at;
        at = &prev->next;
    }
    block *next = *at;
    if (prev && END(prev) == (uintptr_t)b) {
        prev->size += HDR + b->size;
        b = prev;
    } else {
        b->next = next;
        *at = b;
    }
    if (next && END(b) == (uintptr_t)next) {
        b->size += HDR + next->size;
        b->next = next->next;
    }
}

/* A block with a payload of at least `need` bytes (a multiple of 8): the first large free
 * block that fits (the rest split off), else carved at the top. 0 when memory cannot grow. */
static block *take(size_t need)
{
    block **at = &large, **last = 0;
    for (block *b; (b = *at); at = &b->next) {
        if (b->size >= need) {
            *at = b->next;
            if (b->size - need >= HDR + 8) {
                block *rest = (block *)((char *)b + HDR + need);
                rest->size = (uint32_t)(b->size - need - HDR);
                b->size = (uint32_t)need;
                if (rest->size > SMALL_MAX) {  /* in b's place: the order holds, no neighbour is free */
                    rest->next = *at;
                    *at = rest;
                } else {
                    release(rest);
                }
            }
            return b;
        }
        last = at;
    }
    if (last && END(*last) == top) {  /* the top is free: carve from its start */
        top = (uintptr_t)*last;
        *last = 0;
    }
    uint64_t end = (uint64_t)top + HDR + need, have = MEMORY_END();
    if (end > have && !MEMORY_GROW((size_t)((end - have + 0xffff) >> 16))) return 0;
    block *b = (block *)top;
    b->size = (uint32_t)need;
    top = (uintptr_t)end;
    return b;
}

static void *alloc_malloc(size_t n)
{
    if (n > 0xffff0000u) return 0;  /* sizes are u32 in headers; this much never fits anyway */
    size_t need = fit(n);
    if (need <= SMALL_MAX) {
        block **list = &small[class_ceil((uint32_t)need)];
        if (*list) {
            block *b = *list;
            *list = b->next;
            return PAYLOAD(b);
        }
    }
    block *b = take(need);
    return b ? PAYLOAD(b) : 0;
}

static void alloc_free(void *p)
{
    if (p) release(BLOCK(p));
}

static void *alloc_realloc(void *p, size_t n)
{
    if (!p) return alloc_malloc(n);
    block *b = BLOCK(p);
    if (n <= b->size) return p;
    if (n > 0xffff0000u) return 0;
    size_t need = fit(n);
    if (END(b) == top) {  /* at the top: grow in place */
        uint64_t end = (uint64_t)(uintptr_t)b + HDR + need, have = MEMORY_END();
        if (end <= have || MEMORY_GROW((size_t)((end - have + 0xffff) >> 16))) {
            b->size = (uint32_t)need;
            top = (uintptr_t)end;
            return p;
        }
    }
    void *q = alloc_malloc(n);
    if (!q) return 0;
    memcpy(q, p, b->size);
    release(b);
    return q;
}

static void *alloc_calloc(size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size) return 0;
    void *p = alloc_malloc(n * size);
    return p ? memset(p, 0, n * size) : 0;
}

#endif

#if defined(__wasm32__) && !defined(PS_ALLOC_TEST)
void *malloc(size_t n) { return alloc_malloc(n); }
void free(void *p) { alloc_free(p); }
void *realloc(void *p, size_t n) { return alloc_realloc(p, n); }
void *calloc(size_t n, size_t size) { return alloc_calloc(n, size); }
#endif
