/* alloc_model.h — src/alloc.c over a fake memory.grow (a static arena), and a model of the
 * live blocks for test/c/test_alloc.c and test/fuzz/fuzz_alloc.c: who owns each 8-byte granule,
 * a byte pattern per block, and a walk of the heap checking the allocator's invariants. */
#ifndef PERFSHIM_ALLOC_MODEL_H
#define PERFSHIM_ALLOC_MODEL_H
#include <stdint.h>
#include <string.h>

/* The fake linear memory: 64 KB pages of a static arena; the heap starts past a "data" part. */
#ifndef ARENA
#define ARENA (32u << 20)
#endif
static _Alignas(65536) unsigned char arena[ARENA];
static uint64_t pages = 2;
static int grow_fails;

static int fake_grow(size_t n)
{
    if (grow_fails || (pages + n) << 16 > ARENA) return 0;
    pages += n;
    return 1;
}

#define PS_ALLOC_TEST
#define HEAP_BASE ((uintptr_t)arena + 1040)
#define MEMORY_END() ((uint64_t)(uintptr_t)arena + (pages << 16))
#define MEMORY_GROW(n) fake_grow(n)
#define MEMORY_ORIGIN ((uintptr_t)arena)
#include "alloc.c"

/* An empty heap and model. */
static void reset(void)
{
    top = 0;
    memset(bins, 0, sizeof bins);
    nonempty = 0;
    pages = 2;
    grow_fails = 0;
}

static uint32_t class_size(uint32_t c) { return (c & 1 ? 3u : 2u) << (c >> 1); }

/* The model: live blocks with the byte pattern each was filled with, and who owns each 8-byte
 * granule of the arena. */
#define MAX_LIVE 4096
typedef struct { unsigned char *p; size_t n; uint8_t seed; } model_block;
static model_block live[MAX_LIVE];
static int n_live;
static uint16_t owner[ARENA / 8];  /* live index + 1, or 0 */

static size_t granule(const void *p) { return (size_t)((const unsigned char *)p - arena) / 8; }

/* Mark block i's granules as its own (0 when another live block holds one) or clear them. */
static int own(int i, int set)
{
    size_t g0 = granule(live[i].p), g1 = granule(live[i].p + (live[i].n ? live[i].n : 1) - 1);
    for (size_t g = g0; g <= g1; g++) {
        if (set && owner[g]) return 0;
        owner[g] = set ? (uint16_t)(i + 1) : 0;
    }
    return 1;
}

/* The pattern covers both ends of a block and every 61st byte between (the owner map, not the
 * pattern, finds overlaps; the pattern finds bytes lost or overwritten). */
#define SAMPLED(k, n) ((k) < 64 || (k) + 64 >= (n) || (k) % 61 == 0)

static void fill(int i)
{
    for (size_t k = 0; k < live[i].n; k++)
        if (SAMPLED(k, live[i].n)) live[i].p[k] = (unsigned char)(live[i].seed + k * 7);
}

/* The first n bytes of block i still hold its pattern (n <= its size when filled). */
static int intact(int i, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (SAMPLED(k, live[i].n) && live[i].p[k] != (unsigned char)(live[i].seed + k * 7)) return 0;
    return 1;
}

static int placed(const void *p, size_t n)
{
    return ((uintptr_t)p & 7) == 0 && (uintptr_t)p >= HEAP_BASE + 4 && (uintptr_t)p + n <= top &&
           (BLOCK(p)->head & USED) && SIZE(BLOCK(p)) >= n + 4;
}

/* Every block from the heap base to the top: used ones are the model's, free ones are in
 * their bin exactly once with their size at their end, never adjacent, none ending at top. */
static int check_heap(void)
{
    static uint8_t listed[ARENA / 8];
    memset(listed, 0, sizeof listed);
    int n_free = 0, ok = 1;
    for (uint32_t c = 0; c < N_BINS; c++) {
        ok &= !bins[c] == !(nonempty >> c & 1);
        for (uint32_t a = bins[c], prev = 0; a; prev = a, a = AT(a)->next) {
            block *b = AT(a);
            ok &= !(b->head & (USED | PREV_FREE)) && bin_of(SIZE(b)) == c && b->prev == prev;
            ok &= ((uint32_t *)AFTER(b))[-1] == SIZE(b) && (uintptr_t)AFTER(b) < top;
            ok &= !listed[granule(b)] && !owner[granule(PAYLOAD(b))];
            listed[granule(b)] = 1;
            n_free++;
        }
    }
    int n_blocks = 0, n_owned = 0, prev_free = 0;
    uintptr_t at = top ? BASE : top;
    while (at < top && ok) {
        block *b = (block *)at;
        ok &= SIZE(b) >= MIN_BLOCK && SIZE(b) % 8 == 0 && (uintptr_t)AFTER(b) <= top;
        ok &= !(b->head & PREV_FREE) == !prev_free;
        if (b->head & USED) {
            n_owned += owner[granule(PAYLOAD(b))] != 0;
        } else {
            ok &= listed[granule(b)] && !prev_free;
        }
        prev_free = !(b->head & USED);
        n_blocks++;
        at = (uintptr_t)AFTER(b);
    }
    return ok && at == top && !prev_free && n_owned == n_live && n_blocks == n_live + n_free;
}

/* One random step (malloc, calloc, free or realloc; sizes drawn as the core's are: small,
 * class-sized, chunk-sized, large) checked against the model; 0 when the allocator is wrong. */
static int model_step(uint64_t r)
{
    size_t n;
    switch (r >> 60 & 7) {
    case 0: case 1: case 2: n = (size_t)(r >> 8 & 127); break;
    case 3: n = (size_t)class_size(6 + (uint32_t)(r >> 8) % 17); break;
    case 4: n = (size_t)(r >> 8) % 20000; break;
    case 5: n = r >> 8 & 1 ? 53248 : 86016; break;
    default: n = (size_t)(r >> 8) % 300000; break;
    }
    int op = (int)(r & 3), i = n_live ? (int)((r >> 32) % (uint64_t)n_live) : -1, ok = 1;
    if ((op == 0 || op == 3 || i < 0) && n_live < MAX_LIVE) {
        unsigned char *p = op == 3 ? alloc_calloc(n, 1) : alloc_malloc(n);
        if (!p) return 1;  /* the arena is full */
        if (op == 3)
            for (size_t k = 0; k < n; k++) ok &= p[k] == 0;
        ok &= placed(p, n);
        live[n_live] = (model_block){ p, n, (uint8_t)r };
        ok &= own(n_live, 1);
        fill(n_live++);
    } else if (op == 1 && i >= 0) {
        ok &= intact(i, live[i].n);
        own(i, 0);
        alloc_free(live[i].p);
        if (i != --n_live) {
            own(n_live, 0);
            live[i] = live[n_live];
            own(i, 1);
        }
    } else if (i >= 0) {
        unsigned char *p = alloc_realloc(live[i].p, n);
        if (!p) return intact(i, live[i].n);
        own(i, 0);
        live[i].p = p;
        ok &= placed(p, n) && intact(i, n < live[i].n ? n : live[i].n);
        live[i].n = n;
        ok &= own(i, 1);
        fill(i);
    }
    return ok;
}

/* An empty heap and an empty model. */
static void model_reset(void)
{
    reset();
    n_live = 0;
    memset(owner, 0, sizeof owner);
}

/* Free every live block, checking its contents; then the heap is all free. */
static int model_free_all(void)
{
    int ok = 1;
    while (n_live) {
        n_live--;
        ok &= intact(n_live, live[n_live].n);
        own(n_live, 0);
        alloc_free(live[n_live].p);
    }
    return ok && check_heap();
}
#endif
