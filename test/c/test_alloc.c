/* Native tests of the wasm builds' allocator (src/alloc.c) over a fake memory.grow: bins,
 * reuse and merging after free, growth in place, grow failures, and random sequences checked
 * against a model (alignment, no overlap, contents kept, the heap's invariants). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "alloc_model.h"

TEST(bins_hold_the_sizes_of_their_class)
{
    int ok = 1;
    for (uint32_t s = 16; s <= 1u << 20; s += 8) {
        uint32_t c = bin_of(s);
        ok &= c < N_BINS && class_size(c) <= s && class_size(c == 6 ? 7 : c + 1) > s;
    }
    CHECK(ok);
    CHECK_EQ_INT(bin_of(0xfff00000u), 61);
    /* Payloads rounded to 8 with a 4-byte header: u32 vectors, name arrays, the chunks. */
    CHECK_EQ_INT(block_size(0), 16);
    CHECK_EQ_INT(block_size(12), 16);
    CHECK_EQ_INT(block_size(16), 24);
    CHECK_EQ_INT(block_size(53248), 53256);
    CHECK_EQ_INT(block_size(86016), 86024);
    CHECK_EQ_INT(block_size((size_t)-1), 0);
}

TEST(a_freed_block_serves_the_next_request_of_its_size)
{
    reset();
    void *a = alloc_malloc(40), *b = alloc_malloc(40), *g = alloc_malloc(8);
    CHECK(a && b && g && a != b && placed(a, 40) && placed(b, 40));
    alloc_free(a);
    CHECK(alloc_malloc(33) == a);
    void *c = alloc_malloc(53248), *d = alloc_malloc(53248), *e = alloc_malloc(100);
    alloc_free(c);
    CHECK(alloc_malloc(53248) == c);
    alloc_free(c);
    alloc_free(d);  /* merged with c */
    CHECK(nonempty == 1ull << bin_of(2 * 53256) && AT(bins[bin_of(2 * 53256)]) == BLOCK(c));
    CHECK(alloc_malloc(86016) == c);  /* the rest split off */
    CHECK(nonempty == 1ull << bin_of(2 * 53256 - 86024));
    alloc_free(b);  /* between a and g: merged with neither */
    CHECK(alloc_malloc(24) == b);  /* split: 32 of its 48 bytes */
    alloc_free(e);  /* merged with the free rest before it, and given back to the top */
    CHECK(top == (uintptr_t)BLOCK(c) + 86024 && nonempty == 1ull << bin_of(48 - 32));
}

TEST(a_clear_and_refill_never_grows_memory)
{
    reset();
    uint64_t after_first = 0;
    for (int round = 0; round < 5; round++) {
        void *chunks[64], *names[16] = { 0 };
        uint32_t *list = 0;
        size_t cap = 0, name_cap[16] = { 0 };
        for (int i = 0; i < 64; i++) {
            chunks[i] = alloc_malloc(i & 1 ? 86016 : 53248);
            CHECK(chunks[i] != 0);
            cap = cap ? cap * 2 : 4;
            if (cap > 65536) cap = 65536;
            list = alloc_realloc(list, cap * 4);
            CHECK(list != 0);
            for (int k = 0; k < 16 && name_cap[k] < 65536; k++) {  /* name arrays growing by ~1.4 */
                name_cap[k] = name_cap[k] ? name_cap[k] * 4 / 3 / 8 * 8 + 8 : 16;
                names[k] = alloc_realloc(names[k], name_cap[k]);
                CHECK(names[k] != 0);
            }
        }
        for (int i = 0; i < 64; i++) alloc_free(chunks[i]);
        for (int k = 0; k < 16; k++) alloc_free(names[k]);
        alloc_free(list);
        CHECK(top == BASE);  /* everything merged and given back */
        if (round == 0) after_first = pages;
        CHECK_EQ_INT(pages, after_first);
    }
    n_live = 0;
    memset(owner, 0, sizeof owner);
    CHECK(check_heap());
}

TEST(realloc_grows_in_place_at_the_top_or_into_a_free_neighbour)
{
    reset();
    char *p = alloc_malloc(5000);
    memset(p, 'x', 5000);
    char *q = alloc_realloc(p, 200000);  /* past the arena's first pages: memory grows */
    CHECK(q == p && SIZE(BLOCK(q)) == 200008 && q[4999] == 'x' && pages > 2);
    CHECK(alloc_realloc(q, 100) == q);
    char *r = alloc_malloc(16), *t = alloc_malloc(16);
    alloc_free(r);
    CHECK(alloc_realloc(q, 200016) == q && SIZE(BLOCK(q)) == 200032);  /* all of r's block */
    CHECK(alloc_realloc(q, 300000) != q);  /* t is in the way: moved */
    (void)t;
}

TEST(a_failed_grow_returns_null_and_keeps_everything)
{
    reset();
    char *p = alloc_malloc(1000);
    memset(p, 'y', 1000);
    grow_fails = 1;
    CHECK(alloc_malloc(1u << 20) == 0);
    char *r = alloc_malloc(8);
    CHECK(alloc_realloc(p, 1u << 20) == 0 && p[999] == 'y' && SIZE(BLOCK(p)) == 1008);
    CHECK(alloc_malloc((size_t)-1) == 0 && alloc_calloc((size_t)1 << 40, (size_t)1 << 40) == 0);
    grow_fails = 0;
    CHECK(alloc_malloc(1u << 20) != 0);
    CHECK(alloc_malloc(ARENA) == 0);  /* more than the whole memory */
    (void)r;
}

TEST(calloc_zeroes_reused_memory)
{
    reset();
    unsigned char *p = alloc_malloc(6000), *g = alloc_malloc(8);
    memset(p, 0xab, 6000);
    alloc_free(p);
    unsigned char *q = alloc_calloc(1500, 4);
    int zero = 1;
    for (int i = 0; i < 6000; i++) zero &= q[i] == 0;
    CHECK(q == p && zero);
    (void)g;
}

/* Random malloc/free/realloc/calloc, each step checked against the model, the heap walked
 * every 5,000 steps. */
TEST(random_sequences_match_the_model)
{
    model_reset();
    uint64_t rng = 0x9e3779b97f4a7c15u;
    int ok = 1;
    for (int step = 0; step < 300000 && ok; step++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        ok &= model_step(rng);
        if (step % 5000 == 0) ok &= check_heap();
    }
    CHECK(ok && check_heap());
    CHECK(model_free_all());
}

int main(void)
{
    RUN(bins_hold_the_sizes_of_their_class);
    RUN(a_freed_block_serves_the_next_request_of_its_size);
    RUN(a_clear_and_refill_never_grows_memory);
    RUN(realloc_grows_in_place_at_the_top_or_into_a_free_neighbour);
    RUN(a_failed_grow_returns_null_and_keeps_everything);
    RUN(calloc_zeroes_reused_memory);
    RUN(random_sequences_match_the_model);
    return CHECK_DONE();
}
