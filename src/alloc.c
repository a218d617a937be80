/*
 * alloc.c — malloc, free, realloc and calloc for the wasm builds (-sMALLOC=none), over
 * linear memory grown with memory.grow. Native builds compile none of it (they use libc's);
 * test/c/test_alloc.c includes this file with PS_ALLOC_TEST over a static arena.
 *
 * Data structure: blocks tile the heap from its base to `top`. A block is a 4-byte header
 * (the block's size in bytes, a multiple of 8, with a USED bit and a PREV_FREE bit) then the
 * payload, 8-aligned. A free block also holds its bin links after the header and its size in
 * its last 4 bytes, so that the block after it can merge with it.
 *   - Free blocks sit in bins by size: bin c holds sizes in [class c, class c + 1), classes
 *     being 2^k and 3 * 2^(k-1) (16, 24, 32, 48, ...: the sizes the core asks for, u32 vectors
 *     doubling and name arrays growing by about 1.4). A request takes the first fitting block
 *     of its own bin, else the head of the first non-empty larger bin (a bitmap finds it), and
 *     splits off the rest; else it is carved at the top and memory grows by the pages needed.
 *   - free merges a block with free neighbours at once; a free block ending at `top` is given
 *     back to the top. realloc keeps the block when the size fits, grows it in place into a
 *     free next block or at the top, else moves it.
 *
 * Invariants (checked by test/c/test_alloc.c): the blocks tile [base, top); no two free blocks
 * are adjacent and none ends at top; every free block is in the bin of its size exactly once,
 * with its size in its last word; a block's PREV_FREE bit says whether the one before is free.
 *
 * Costs: malloc O(blocks in the request's own bin) (usually O(1)), free O(1), realloc O(1)
 * plus a copy when the block moves. Overhead: 4 bytes a block, payloads rounded up to 8.
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
#define MEMORY_ORIGIN 0u
#endif

#define USED 1u
#define PREV_FREE 2u
#define MIN_BLOCK 16u  /* header, two links, the size at the end */
#define N_BINS 64

typedef struct {
    uint32_t head;        /* size | USED | PREV_FREE */
    uint32_t next, prev;  /* free blocks only: the bin's list, as addresses (0: none) */
} block;

#define BASE ((HEAP_BASE + 7) / 8 * 8 + 4)  /* a block at 8k + 4 has its payload at 8(k + 1) */
static uintptr_t top;  /* set to BASE by the first malloc */
static uint32_t bins[N_BINS];  /* the first block's address, 0: empty */
static uint64_t nonempty;  /* bit c: bins[c] has blocks */

#define SIZE(b) ((b)->head & ~7u)
#define AFTER(b) ((block *)((char *)(b) + SIZE(b)))
#define PAYLOAD(b) ((void *)((char *)(b) + 4))
#define BLOCK(p) ((block *)((char *)(p) - 4))
/* Links are 32-bit addresses in linear memory (the test's arena stands in for it). */
#define AT(a) ((block *)(MEMORY_ORIGIN + (uintptr_t)(a)))
#define ADDR(b) ((uint32_t)((uintptr_t)(b) - MEMORY_ORIGIN))

/* The bin of a free block of s bytes (s >= 16): the largest class <= s. */
static uint32_t bin_of(uint32_t s)
{
    uint32_t b = 31u - (uint32_t)__builtin_clz(s);  /* 2^b <= s < 2^(b+1) */
    return b > 3 && s >= 3u << (b - 1) ? 2 * b - 1 : 2 * b - 2;
}

static void unlink_free(block *b)
{
    uint32_t c = bin_of(SIZE(b));
    if (b->prev) AT(b->prev)->next = b->next;
    else if (!(bins[c] = b->next)) nonempty &= ~(1ull << c);
    if (b->next) AT(b->next)->prev = b->prev;
}

/* Make b (its head's size set, its neighbours not free) a free block: binned, its size at its
 * end, the next block told. A block ending at top is given back to the top instead. */
static void link_free(block *b)
{
    if ((uintptr_t)AFTER(b) == top) {
        top = (uintptr_t)b;
        return;
    }
    uint32_t s = SIZE(b), c = bin_of(s);
    b->head = s;
    ((uint32_t *)AFTER(b))[-1] = s;
    AFTER(b)->head |= PREV_FREE;
    b->prev = 0;
    b->next = bins[c];
    if (b->next) AT(b->next)->prev = ADDR(b);
    bins[c] = ADDR(b);
    nonempty |= 1ull << c;
}

/* Use the first `s` bytes of b (used, s <= its size) and free the rest when it can be a block. */
static void use(block *b, uint32_t s)
{
    uint32_t have = SIZE(b), keep = b->head & PREV_FREE;
    if (have - s >= MIN_BLOCK) {
        b->head = s | USED | keep;
        block *rest = AFTER(b);
        rest->head = have - s;
        link_free(rest);  /* the block after the rest is used: nothing to merge */
    } else {
        b->head = have | USED | keep;
        if ((uintptr_t)AFTER(b) != top) AFTER(b)->head &= ~PREV_FREE;
    }
}

/* The block size for n payload bytes: header + n rounded up to 8, at least MIN_BLOCK; 0 when
 * no block can be that large. */
static uint32_t block_size(size_t n)
{
    return n > 0xfff00000u ? 0 : n < MIN_BLOCK - 4 ? MIN_BLOCK : (uint32_t)(n + 4 + 7) & ~7u;
}

/* Room for a block to end at address `end`, growing memory when needed. */
static int room(uint64_t end)
{
    uint64_t have = MEMORY_END();
    return end <= have || MEMORY_GROW((size_t)((end - have + 0xffff) >> 16));
}

static void *alloc_malloc(size_t n)
{
    uint32_t s = block_size(n);
    if (!s) return 0;
    if (!top) top = BASE;
    uint32_t c = bin_of(s);
    for (uint32_t a = bins[c]; a; a = AT(a)->next)
        if (SIZE(AT(a)) >= s) {
            block *b = AT(a);
            unlink_free(b);
            use(b, s);
            return PAYLOAD(b);
        }
    uint64_t larger = nonempty >> (c + 1) << (c + 1);  /* c <= 61 */
    if (larger) {
        block *b = AT(bins[__builtin_ctzll(larger)]);
        unlink_free(b);
        use(b, s);
        return PAYLOAD(b);
    }
    if (!room((uint64_t)top + s)) return 0;
    block *b = (block *)top;
    b->head = s | USED;  /* the block before the top is never free */
    top += s;
    return PAYLOAD(b);
}

static void alloc_free(void *p)
{
    if (!p) return;
    block *b = BLOCK(p);
    b->head &= ~USED;
    if ((uintptr_t)AFTER(b) != top && !(AFTER(b)->head & USED)) {
        block *next = AFTER(b);
        unlink_free(next);
        b->head += SIZE(next);
    }
    if (b->head & PREV_FREE) {
        block *prev = (block *)((char *)b - ((uint32_t *)b)[-1]);
        unlink_free(prev);
        prev->head += SIZE(b);  /* prev's own PREV_FREE is clear: no two free blocks touch */
        b = prev;
    }
    link_free(b);
}

static void *alloc_realloc(void *p, size_t n)
{
    if (!p) return alloc_malloc(n);
    block *b = BLOCK(p);
    uint32_t s = block_size(n), have = SIZE(b);
    if (!s) return 0;
    if (s <= have) return p;
    block *next = AFTER(b);
    if ((uintptr_t)next == top) {
        if (room((uint64_t)(uintptr_t)b + s)) {  /* at the top: grow in place */
            b->head += s - have;
            top = (uintptr_t)b + s;
            return p;
        }
    } else if (!(next->head & USED) && have + SIZE(next) >= s) {  /* into the free block after */
        unlink_free(next);
        b->head += SIZE(next);
        use(b, s);
        return p;
    }
    void *q = alloc_malloc(n);
    if (!q) return 0;
    memcpy(q, p, have - 4);
    alloc_free(p);
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
