/* Native tests of the wasm builds' allocator (src/alloc.c) over a fake memory.grow: size
 * classes, reuse after free, growth in place, grow failures, and random sequences checked
 * against a model (alignment, no overlap, contents kept, the heap's invariants). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

/* The fake linear memory: 64 KB pages of a static arena; the heap starts past a "data" part. */
#define ARENA (32u << 20)
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
#include "alloc.c"

static void reset(void)
{
    top = HEAP_BASE;
    memset(small, 0, sizeof small);
    large = 0;
    pages = 2;
    grow_fails = 0;
}

/* The model: live blocks with the byte pattern each was filled with, and who owns each 8-byte
 * granule of the arena. */
#define MAX_LIVE 4096
typedef struct { unsigned char *p; size_t n; uint8_t seed; } model_block;
static model_block live[MAX_LIVE];
static int n_live;
static uint16_t owner[ARENA / 8];  /* live index + 1, or 0 */

static size_t granule(const void *p) { return (size_t)((const unsigned char *)p - arena) / 8; }

static void own(int i, int set)
{
    size_t g0 = granule(live[i].p), g1 = granule(live[i].p + (live[i].n ? live[i].n : 1) - 1);
    for (size_t g = g0; g <= g1; g++) {
        if (set) {
            if (owner[g]) { CHECK(!"two live blocks overlap"); return; }
            owner[g] = (uint16_t)(i + 1);
        } else {
            owner[g] = 0;
        }
    }
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
    return ((uintptr_t)p & 7) == 0 && (uintptr_t)p >= HEAP_BASE + HDR &&
           (uintptr_t)p + n <= top && BLOCK(p)->size >= n;
}

/* Every block from the heap base to the top, each either live or on exactly one free list. */
static void check_heap(void)
{
    static uint8_t listed[ARENA / 8];
    memset(listed, 0, sizeof listed);
    int n_free = 0, ok = 1;
    for (uint32_t c = 0; c < N_CLASSES; c++)
        for (block *b = small[c]; b; b = b->next) {
            ok &= c >= 4 && c != 5 && b->size >= class_size(c) && b->size <= SMALL_MAX;
            ok &= !listed[granule(b)] && !owner[granule(PAYLOAD(b))];
            listed[granule(b)] = 1;
            n_free++;
        }
    for (block *b = large; b; b = b->next) {
        ok &= b->size > SMALL_MAX && (!b->next || END(b) < (uintptr_t)b->next);
        ok &= !listed[granule(b)] && !owner[granule(PAYLOAD(b))];
        listed[granule(b)] = 1;
        n_free++;
    }
    int n_blocks = 0, n_owned = 0;
    uintptr_t at = HEAP_BASE;
    while (at < top && ok) {
        block *b = (block *)at;
        ok &= b->size >= 8 && b->size % 8 == 0 && END(b) <= top;
        if (owner[granule(PAYLOAD(b))]) n_owned++;
        else ok &= listed[granule(b)];
        n_blocks++;
        at = END(b);
    }
    CHECK(ok && at == top);
    CHECK_EQ_INT(n_owned, n_live);
    CHECK_EQ_INT(n_blocks, n_live + n_free);
}

TEST(classes_fit_what_the_core_asks_for)
{
    int ok = 1;
    for (uint32_t n = 1; n <= SMALL_MAX; n++) {
        size_t f = fit(n);
        ok &= f >= n && f % 8 == 0 && (f <= 8 || f * 2 <= n * 3 + 16);
        ok &= class_size(class_ceil((uint32_t)f)) == f && class_floor((uint32_t)f) == class_ceil((uint32_t)f);
    }
    for (uint32_t s = 8; s <= SMALL_MAX; s += 8) {
        uint32_t c = class_floor(s);
        ok &= class_size(c) <= s && (c == 22 || class_size(c == 4 ? 6 : c + 1) > s) && c != 5;
    }
    CHECK(ok);
    /* u32 vectors (16 bytes doubling), name arrays (4, 6, 8, 12, ... slots), the chunks. */
    static const size_t exact[] = { 16, 24, 32, 48, 64, 96, 128, 192, 256, 1024, 4096, 16384,
                                    53248, 86016, 1u << 20 };
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++) CHECK_EQ_INT(fit(exact[i]), exact[i]);
    CHECK_EQ_INT(fit(4097), 4104);
}

TEST(a_freed_block_serves_the_next_request_of_its_size)
{
    reset();
    void *a = alloc_malloc(40), *b = alloc_malloc(40);
    CHECK(a && b && a != b && placed(a, 40) && placed(b, 40));
    alloc_free(a);
    CHECK(alloc_malloc(33) == a);  /* same class (48) */
    void *c = alloc_malloc(53248), *d = alloc_malloc(53248), *e = alloc_malloc(100);
    alloc_free(c);
    CHECK(alloc_malloc(53248) == c);
    alloc_free(c);
    alloc_free(d);  /* merged with c */
    CHECK(large == BLOCK(c) && large->size == 2 * 53248 + HDR && !large->next);
    CHECK(alloc_malloc(86016) == c);  /* first fit, the rest split off */
    CHECK(large && large->size == 2 * 53248 - 86016 && !large->next);
    (void)e;
}

TEST(a_clear_and_refill_never_grows_memory)
{
    reset();
    uint64_t after_first = 0;
    for (int round = 0; round < 5; round++) {
        void *chunks[64];
        uint32_t *list = 0;
        size_t cap = 0;
        for (int i = 0; i < 64; i++) {
            chunks[i] = alloc_malloc(i & 1 ? 86016 : 53248);
            CHECK(chunks[i] != 0);
            cap = cap ? cap * 2 : 4;
            if (cap > 65536) cap = 65536;
            list = alloc_realloc(list, cap * 4);
            CHECK(list != 0);
        }
        for (int i = 0; i < 64; i++) alloc_free(chunks[i]);
        alloc_free(list);
        if (round == 0) after_first = pages;
        CHECK_EQ_INT(pages, after_first);
    }
    n_live = 0;
    memset(owner, 0, sizeof owner);
    check_heap();
}

TEST(realloc_at_the_top_grows_in_place)
{
    reset();
    char *p = alloc_malloc(5000);
    memset(p, 'x', 5000);
    char *q = alloc_realloc(p, 200000);  /* past the arena's first pages: memory grows */
    CHECK(q == p && BLOCK(q)->size == 200000 && q[4999] == 'x' && pages > 2);
    CHECK(alloc_realloc(q, 100) == q);
    char *r = alloc_malloc(16);
    CHECK(alloc_realloc(q, 300000) != q);  /* no longer at the top: moved */
    (void)r;
}

TEST(a_failed_grow_returns_null_and_keeps_everything)
{
    reset();
    char *p = alloc_malloc(1000);
    memset(p, 'y', 1000);
    grow_fails = 1;
    CHECK(alloc_malloc(1u << 20) == 0);
    char *r = alloc_malloc(8);
    CHECK(alloc_realloc(p, 1u << 20) == 0 && p[999] == 'y' && BLOCK(p)->size == 1024);
    CHECK(alloc_malloc((size_t)-1) == 0 && alloc_calloc((size_t)1 << 40, (size_t)1 << 40) == 0);
    grow_fails = 0;
    CHECK(alloc_malloc(1u << 20) != 0);
    CHECK(alloc_malloc(ARENA) == 0);  /* more than the whole memory */
    (void)r;
}

TEST(calloc_zeroes_reused_memory)
{
    reset();
    unsigned char *p = alloc_malloc(6000);
    memset(p, 0xab, 6000);
    alloc_free(p);
    unsigned char *q = alloc_calloc(1500, 4);
    int zero = 1;
    for (int i = 0; i < 6000; i++) zero &= q[i] == 0;
    CHECK(q == p && zero);
}

/* Random malloc/free/realloc/calloc, sizes drawn as the core's are (small, class-sized,
 * chunk-sized, large), each step checked against the model. */
TEST(random_sequences_match_the_model)
{
    reset();
    memset(owner, 0, sizeof owner);
    n_live = 0;
    uint64_t rng = 0x9e3779b97f4a7c15u;
#define RAND() (rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17, rng)
    int ok = 1;
    for (int step = 0; step < 300000; step++) {
        uint64_t r = RAND();
        size_t n;
        switch (r >> 60 & 7) {
        case 0: case 1: case 2: n = (size_t)(r >> 8 & 127); break;
        case 3: n = (size_t)class_size(4 + (uint32_t)(r >> 8) % 19); break;
        case 4: n = (size_t)(r >> 8) % 20000; break;
        case 5: n = r >> 8 & 1 ? 53248 : 86016; break;
        default: n = (size_t)(r >> 8) % 300000; break;
        }
        int op = (int)(r & 3), i = n_live ? (int)((r >> 32) % (uint64_t)n_live) : -1;
        if ((op == 0 || op == 3 || i < 0) && n_live < MAX_LIVE) {
            unsigned char *p = op == 3 ? alloc_calloc(n, 1) : alloc_malloc(n);
            if (!p) continue;  /* the arena is full */
            if (op == 3)
                for (size_t k = 0; k < n; k++) ok &= p[k] == 0;
            ok &= placed(p, n);
            live[n_live] = (model_block){ p, n, (uint8_t)r };
            own(n_live, 1);
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
            if (!p) {
                ok &= intact(i, live[i].n);
                continue;
            }
            own(i, 0);
            live[i].p = p;
            ok &= placed(p, n) && intact(i, n < live[i].n ? n : live[i].n);
            live[i].n = n;
            own(i, 1);
            fill(i);
        }
        if (step % 5000 == 0) check_heap();
    }
    CHECK(ok);
    check_heap();
    while (n_live) {
        n_live--;
        CHECK(intact(n_live, live[n_live].n));
        own(n_live, 0);
        alloc_free(live[n_live].p);
    }
    check_heap();
}

int main(void)
{
    RUN(classes_fit_what_the_core_asks_for);
    RUN(a_freed_block_serves_the_next_request_of_its_size);
    RUN(a_clear_and_refill_never_grows_memory);
    RUN(realloc_at_the_top_grows_in_place);
    RUN(a_failed_grow_returns_null_and_keeps_everything);
    RUN(calloc_zeroes_reused_memory);
    RUN(random_sequences_match_the_model);
    return CHECK_DONE();
}
