/* Native tests of the entry buffer, interning and the measure algorithm (ASan + UBSan). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "internal.h"

/* The shim's name -> id map, as the tests need it (the core keeps no strings). */
static struct { char s[32]; int32_t id; } known[256];
static int n_known;

static int32_t name(const char *s)
{
    for (int i = 0; i < n_known; i++)
        if (strcmp(known[i].s, s) == 0) return known[i].id;
    int32_t id = ps_timeline_name_new();
    if (id >= 0 && n_known < 256) {
        snprintf(known[n_known].s, sizeof known[n_known].s, "%s", s);
        known[n_known++].id = id;
    }
    return id;
}

/* ps_timeline_release_names, and the map forgets what it released. */
static int32_t release_names(void)
{
    int32_t n = ps_timeline_release_names();
    for (int32_t r = 0; r < n; r++)
        for (int i = 0; i < n_known; i++)
            if (known[i].id == (int32_t)ps_result_ptr()[r]) known[i] = known[--n_known];
    return n;
}

static int32_t mark(const char *s, double t) { return ps_timeline_add(PS_TYPE_MARK, (uint32_t)name(s), t, 0); }

static void clear_all(void)
{
    ps_timeline_clear(PS_TYPE_MARK, -1);
    ps_timeline_clear(PS_TYPE_MEASURE, -1);
    ps_timeline_set_limit(PS_TYPE_MARK, 0);
    ps_timeline_set_limit(PS_TYPE_MEASURE, 0);
}

TEST(name_ids_are_distinct_and_reused_after_release)
{
    clear_all();
    release_names();
    int32_t a = ps_timeline_name_new(), b = ps_timeline_name_new();
    CHECK(a >= 0 && b >= 0 && a != b);
    CHECK(ps_timeline_add(PS_TYPE_MARK, (uint32_t)a, 1, 0) >= 0);
    int32_t n = ps_timeline_release_names(); /* b only: a has a mark */
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(ps_result_ptr()[0], b);
    CHECK_EQ_INT(ps_timeline_add(PS_TYPE_MARK, (uint32_t)b, 1, 0), PS_E_ARG); /* released */
    CHECK_EQ_INT(ps_timeline_name_new(), b);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, b), 0); /* a reused id starts empty */
    ps_timeline_clear(PS_TYPE_MARK, -1);
    CHECK_EQ_INT(ps_timeline_release_names(), 2);
}

TEST(query_sorts_by_start_time_with_ties_in_insertion_order)
{
    clear_all();
    int32_t s1 = mark("a", 5), s2 = mark("b", 1), s3 = mark("c", 5), s4 = mark("d", 3);
    int32_t n = ps_timeline_query(PS_TYPE_MARK, -1);
    CHECK_EQ_INT(n, 4);
    uint32_t *r = ps_result_ptr();
    CHECK_EQ_INT(r[0], s2);
    CHECK_EQ_INT(r[1], s4);
    CHECK_EQ_INT(r[2], s1);
    CHECK_EQ_INT(r[3], s3);
    int32_t m = ps_timeline_add(PS_TYPE_MEASURE, (uint32_t)name("a"), 5, 1);
    n = ps_timeline_query(-1, name("a"));
    CHECK_EQ_INT(n, 2);
    r = ps_result_ptr();
    CHECK_EQ_INT(r[0], s1);
    CHECK_EQ_INT(r[1], m);
    n = ps_timeline_query(-1, -1);
    CHECK_EQ_INT(n, 5);
    CHECK_EQ_INT(ps_result_ptr()[3], s3); /* mark c (5) was added before the measure (5) */
    CHECK_EQ_INT(ps_result_ptr()[4], m);
}

TEST(clear_by_name_removes_only_that_name_and_type)
{
    clear_all();
    mark("x", 1);
    mark("y", 2);
    mark("x", 3);
    ps_timeline_add(PS_TYPE_MEASURE, (uint32_t)name("x"), 0, 1);
    CHECK_EQ_INT(ps_timeline_clear(PS_TYPE_MARK, name("x")), 2);
    CHECK_EQ_INT(ps__timeline_count(PS_TYPE_MARK), 1);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, -1), 1);
    CHECK_EQ_INT(ps_timeline_query(-1, name("x")), 1); /* the measure stays */
    CHECK_EQ_INT(ps_timeline_clear(PS_TYPE_MARK, name("nothing")), 0);
}

TEST(remove_takes_one_entry_and_leaves_its_name_and_the_latest_mark_right)
{
    clear_all();
    int32_t a = mark("r", 1), b = mark("r", 9), c = mark("r", 5);
    int32_t m = ps_timeline_add(PS_TYPE_MEASURE, (uint32_t)name("r"), 0, 1);
    CHECK_EQ_INT(ps_timeline_remove((uint32_t)b, name("r")), 1);
    CHECK_EQ_INT(ps_timeline_remove((uint32_t)b, name("r")), 0);  /* gone already */
    CHECK_EQ_INT(ps_timeline_remove((uint32_t)a, name("other")), 0); /* not its name */
    CHECK_EQ_INT(ps_timeline_remove(1u << 30, name("r")), 0);        /* never handed out */
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, name("r")), 2);
    CHECK_EQ_INT(ps_result_ptr()[0], a);
    CHECK_EQ_INT(ps_result_ptr()[1], c);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, -1), 2);
    /* the latest mark was the removed one: the name now converts to the next latest (5) */
    double *out = ps_out_ptr();
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("r"), 0, 0, PS_ARG_ABSENT, 0, 50, 0), PS_OK);
    CHECK_EQ_DBL(out[0], 5);
    CHECK_EQ_INT(ps_timeline_remove((uint32_t)m, name("r")), 1);
    CHECK_EQ_INT(ps_timeline_query(-1, name("r")), 2); /* the marks stay */
    CHECK_EQ_INT(ps_timeline_remove((uint32_t)a, name("r")), 1);
    CHECK_EQ_INT(ps_timeline_remove((uint32_t)c, name("r")), 1);
    CHECK_EQ_INT(ps__timeline_count(PS_TYPE_MARK), 0);
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("r"), 0, 0, PS_ARG_ABSENT, 0, 50, 0), PS_E_SYNTAX);
    for (int i = 0; i < 5000; i++) /* removed slots are compacted and reused */
        CHECK_EQ_INT(ps_timeline_remove((uint32_t)mark("r", i), name("r")), 1);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, -1), 0);
}

TEST(dead_slots_are_compacted_and_reused)
{
    clear_all();
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < 200; i++) {
            char buf[32];
            snprintf(buf, sizeof buf, "n%d", i % 7);
            mark(buf, round * 1000 + i);
        }
        for (int k = 0; k < 7; k++) {
            char buf[32];
            snprintf(buf, sizeof buf, "n%d", k);
            ps_timeline_clear(PS_TYPE_MARK, name(buf));
        }
        CHECK_EQ_INT(ps__timeline_count(PS_TYPE_MARK), 0);
    }
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, -1), 0);
    /* slots are reused: the buffer did not grow past a few chunks */
    CHECK(ps__timeline_bytes() < 4.0 * 1024 * 1024);
}

TEST(the_latest_mark_of_a_name_wins_and_clear_forgets_it)
{
    clear_all();
    mark("m", 10);
    mark("m", 4); /* added later, but earlier in time: browsers use the latest startTime */
    double *out = ps_out_ptr();
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("m"), 0, 0, PS_ARG_ABSENT, 0, 50, 0), PS_OK);
    CHECK_EQ_DBL(out[0], 10);
    CHECK_EQ_DBL(out[1], 40);
    mark("m", 10); /* a tie: the later one added, same time */
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("m"), 0, 0, PS_ARG_ABSENT, 0, 50, 0), PS_OK);
    CHECK_EQ_DBL(out[0], 10);
    ps_timeline_clear(PS_TYPE_MARK, name("m"));
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("m"), 0, 0, PS_ARG_ABSENT, 0, 50, 0), PS_E_SYNTAX);
    CHECK_EQ_DBL(out[2], 0);
}

TEST(measure_option_rules_follow_the_spec_order)
{
    clear_all();
    double *out = ps_out_ptr();
    CHECK_EQ_INT(ps_usertiming_measure(1, 1, PS_ARG_TIME, 1, 0, 0, 0, 0, 9, 0), PS_E_MEASURE_END_MARK);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, 0, 0, PS_ARG_TIME, 1, 0, 0, 9, 0), PS_E_MEASURE_NO_RANGE);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, PS_ARG_TIME, 1, PS_ARG_TIME, 1, PS_ARG_TIME, 3, 9, 0), PS_E_MEASURE_OVERSPEC);
    /* end is converted before start: an unknown end wins over a negative start */
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, PS_ARG_TIME, -1, 0, 0, PS_ARG_MARK, -1, 9, 0), PS_E_SYNTAX);
    CHECK_EQ_DBL(out[2], 2);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, PS_ARG_TIME, -1, 0, 0, PS_ARG_TIME, 2, 9, 0), PS_E_NEGATIVE_START);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, 0, 0, 0, 0, PS_ARG_TIME, -2, 9, 0), PS_E_NEGATIVE_END);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, PS_ARG_TIME, 1, PS_ARG_TIME, -2, 0, 0, 9, 0), PS_E_NEGATIVE_DURATION);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, 0, 0, 0, 0, PS_ARG_HOST_ERROR, 0, 9, 0), PS_E_HOST_ARG);
    /* {start, duration} and {duration, end} */
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, PS_ARG_TIME, 2, PS_ARG_TIME, 3, 0, 0, 9, 0), PS_OK);
    CHECK_EQ_DBL(out[0], 2);
    CHECK_EQ_DBL(out[1], 3);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, 0, 0, PS_ARG_TIME, 3, PS_ARG_TIME, 10, 9, 0), PS_OK);
    CHECK_EQ_DBL(out[0], 7);
    CHECK_EQ_DBL(out[1], 3);
    /* no options: start 0, end now; negative durations are allowed */
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, 0, 0, 0, 0, 0, 0, 9, 0), PS_OK);
    CHECK_EQ_DBL(out[0], 0);
    CHECK_EQ_DBL(out[1], 9);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, PS_ARG_TIME, 8, 0, 0, PS_ARG_TIME, 3, 9, 0), PS_OK);
    CHECK_EQ_DBL(out[1], -5);
}

TEST(a_measure_without_detail_is_decided_and_buffered_in_one_call)
{
    clear_all();
    double *out = ps_out_ptr();
    int32_t a = name("from"), m = name("span");
    mark("from", 4);
    int32_t slot = ps_usertiming_measure(0, 0, PS_ARG_MARK, a, 0, 0, PS_ARG_ABSENT, 0, 10, (uint32_t)m + 1);
    CHECK(slot >= 1 && (slot & 1) == PS_TYPE_MEASURE);
    CHECK_EQ_DBL(out[0], 4);
    CHECK_EQ_DBL(out[1], 6);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MEASURE, m), 1);
    CHECK_EQ_INT(ps_result_ptr()[0], slot);
    CHECK_EQ_INT(ps__timeline_entry((uint32_t)slot), PS_TYPE_MEASURE);
    CHECK_EQ_DBL(ps_out_ptr()[0], 4);
    CHECK_EQ_DBL(ps_out_ptr()[1], 6);
    /* an exception buffers nothing */
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, -1, 0, 0, PS_ARG_ABSENT, 0, 10, (uint32_t)m + 1), PS_E_SYNTAX);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, PS_ARG_TIME, -1, 0, 0, PS_ARG_TIME, 2, 9, (uint32_t)m + 1), PS_E_NEGATIVE_START);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MEASURE, m), 1);
    /* a full buffer: dropped and counted, the times still given back for the entry object */
    ps_timeline_set_limit(PS_TYPE_MEASURE, 1);
    double dropped = ps_timeline_dropped(PS_TYPE_MEASURE);
    CHECK_EQ_INT(ps_usertiming_measure(1, 0, PS_ARG_TIME, 2, PS_ARG_TIME, 3, 0, 0, 9, (uint32_t)m + 1), PS_E_LIMIT);
    CHECK_EQ_DBL(out[0], 2);
    CHECK_EQ_DBL(out[1], 3);
    CHECK_EQ_DBL(ps_timeline_dropped(PS_TYPE_MEASURE), dropped + 1);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MEASURE, m), 1);
    ps_timeline_set_limit(PS_TYPE_MEASURE, 0);
}

TEST(limit_drops_and_counts)
{
    clear_all();
    ps_timeline_set_limit(PS_TYPE_MARK, 3);
    double before = ps_timeline_dropped(PS_TYPE_MARK);
    for (int i = 0; i < 5; i++) {
        int32_t s = mark("cap", i);
        if (i < 3) CHECK(s >= 0);
        else CHECK_EQ_INT(s, PS_E_LIMIT);
    }
    CHECK_EQ_DBL(ps_timeline_dropped(PS_TYPE_MARK) - before, 2);
    CHECK_EQ_INT(ps__timeline_count(PS_TYPE_MARK), 3);
    ps_timeline_clear(PS_TYPE_MARK, name("cap"));
    CHECK(mark("cap", 9) >= 0);
}

TEST(release_names_frees_unused_names_only)
{
    clear_all();
    int32_t kept = name("kept");
    mark("kept", 1);
    name("unused-1");
    name("unused-2");
    int32_t n = ps_timeline_release_names();
    CHECK(n >= 2);
    for (int32_t r = 0; r < n; r++)
        for (int i = 0; i < n_known; i++)
            if (known[i].id == (int32_t)ps_result_ptr()[r]) known[i] = known[--n_known];
    int found_kept = 0;
    for (int32_t i = 0; i < n; i++) found_kept |= ps_result_ptr()[i] == (uint32_t)kept;
    CHECK(!found_kept);
    CHECK_EQ_INT(name("kept"), kept);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, kept), 1);
}

TEST(bad_arguments_are_rejected)
{
    CHECK_EQ_INT(ps_timeline_add(7, 0, 0, 0), PS_E_ARG);
    CHECK_EQ_INT(ps_timeline_add(PS_TYPE_MARK, 99999, 0, 0), PS_E_ARG);
    CHECK_EQ_INT(ps_timeline_query(5, -1), PS_E_ARG);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, 99999), 0);
    CHECK_EQ_INT(ps_timeline_clear(9, -1), PS_E_ARG);
    CHECK_EQ_INT(ps_timeline_set_limit(9, 1), PS_E_ARG);
}

TEST(many_entries_random_times_stay_sorted)
{
    clear_all();
    srand(7);
    for (int i = 0; i < 100000; i++) mark(i % 2 ? "odd" : "even", (double)(rand() % 5000));
    int32_t n = ps_timeline_query(PS_TYPE_MARK, -1);
    CHECK_EQ_INT(n, 100000);
    int32_t n_even = ps_timeline_query(PS_TYPE_MARK, name("even"));
    CHECK_EQ_INT(n_even, 50000);
    ps_timeline_clear(PS_TYPE_MARK, name("even"));
    /* What is left is exactly the odd marks: the same slots as the query by that name. */
    n = ps_timeline_query(PS_TYPE_MARK, name("odd"));
    CHECK_EQ_INT(n, 50000);
    uint32_t *odd = malloc((size_t)n * sizeof(uint32_t));
    memcpy(odd, ps_result_ptr(), (size_t)n * sizeof(uint32_t));
    n = ps_timeline_query(PS_TYPE_MARK, -1);
    CHECK_EQ_INT(n, 50000);
    int sorted = 1, odd_only = 1;
    double prev = -1;
    for (int32_t i = 0; i < n; i++) {
        uint32_t slot = ps_result_ptr()[i];
        CHECK_EQ_INT(ps__timeline_entry(slot), PS_TYPE_MARK);
        double *out = ps_out_ptr();
        if (out[0] < prev) sorted = 0;
        if (slot != odd[i]) odd_only = 0;
        prev = out[0];
    }
    free(odd);
    CHECK(sorted);
    CHECK(odd_only);
    CHECK_EQ_INT(ps__timeline_entry(0xfffffff), PS_E_NOT_FOUND);
}

/* The orders real code produces: nested spans (outer added after inner), a pool of marks, marks
 * with past times; every query sees timeline order, whatever order the adds came in. */
static int query_is_sorted(int32_t type, int32_t name_id, int32_t expect)
{
    int32_t n = ps_timeline_query(type, name_id);
    if (n != expect) return 0;
    uint32_t *r = ps_result_ptr();
    double prev = -1;
    for (int32_t i = 0; i < n; i++) {
        if (ps__timeline_entry(r[i]) < 0) return 0;
        double s = ps_out_ptr()[0];
        if (s < prev) return 0;
        prev = s;
    }
    return 1;
}

TEST(adds_in_any_order_come_out_sorted)
{
    clear_all();
    int32_t outer = name("outer"), inner = name("inner");
    for (int i = 0; i < 3000; i++) {
        /* depth-2 nesting: inner [t+1, t+2] measured before outer [t, t+3] */
        ps_timeline_add(PS_TYPE_MEASURE, (uint32_t)inner, i * 4 + 1, 1);
        ps_timeline_add(PS_TYPE_MEASURE, (uint32_t)outer, i * 4, 3);
        if (i % 500 == 0) CHECK(query_is_sorted(PS_TYPE_MEASURE, -1, 2 * (i + 1)));
    }
    CHECK(query_is_sorted(PS_TYPE_MEASURE, -1, 6000));
    CHECK(query_is_sorted(PS_TYPE_MEASURE, outer, 3000));
    CHECK(query_is_sorted(-1, inner, 3000));
    srand(11);
    for (int i = 0; i < 20000; i++) mark(i % 3 ? "past" : "now", (double)(rand() % 1000));
    CHECK(query_is_sorted(PS_TYPE_MARK, name("past"), 13333));
    CHECK(query_is_sorted(PS_TYPE_MARK, -1, 20000));
    CHECK(query_is_sorted(-1, -1, 26000));
    /* a second round of out-of-order adds merges into the sorted list */
    for (int i = 0; i < 5000; i++) mark("past", (double)(rand() % 2000));
    CHECK(query_is_sorted(-1, name("past"), 18333));
    CHECK(query_is_sorted(PS_TYPE_MARK, -1, 25000));
}

TEST(ties_keep_insertion_order_across_the_unsorted_tail)
{
    clear_all();
    int32_t a = mark("t", 10), b = mark("t", 5), c = mark("u", 10), d = mark("t", 5);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, -1), 4);
    uint32_t *r = ps_result_ptr();
    CHECK_EQ_INT(r[0], b);
    CHECK_EQ_INT(r[1], d);
    CHECK_EQ_INT(r[2], a);
    CHECK_EQ_INT(r[3], c);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, name("t")), 3);
    r = ps_result_ptr();
    CHECK_EQ_INT(r[0], b);
    CHECK_EQ_INT(r[1], d);
    CHECK_EQ_INT(r[2], a);
}

TEST(clear_by_name_between_out_of_order_adds)
{
    clear_all();
    for (int i = 0; i < 3000; i++) mark(i % 2 ? "x" : "y", (double)(3000 - i));
    CHECK_EQ_INT(ps_timeline_clear(PS_TYPE_MARK, name("x")), 1500);
    for (int i = 0; i < 3000; i++) mark(i % 2 ? "x" : "y", (double)(i * 7 % 3001));
    CHECK_EQ_INT(ps_timeline_clear(PS_TYPE_MARK, name("y")), 3000);
    CHECK(query_is_sorted(PS_TYPE_MARK, -1, 1500));
    CHECK(query_is_sorted(PS_TYPE_MARK, name("x"), 1500));
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, name("y")), 0);
    CHECK_EQ_INT(ps__timeline_count(PS_TYPE_MARK), 1500);
}

TEST(the_latest_mark_is_kept_whatever_the_add_order)
{
    clear_all();
    double *out = ps_out_ptr();
    double times[] = { 7, 30, 2, 30, 29, 1 };
    for (int i = 0; i < 6; i++) mark("late", times[i]);
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("late"), 0, 0, PS_ARG_ABSENT, 0, 100, 0), PS_OK);
    CHECK_EQ_DBL(out[0], 30);
    ps_timeline_clear(PS_TYPE_MARK, -1);
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("late"), 0, 0, PS_ARG_ABSENT, 0, 100, 0), PS_E_SYNTAX);
    mark("late", 3);
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("late"), 0, 0, PS_ARG_ABSENT, 0, 100, 0), PS_OK);
    CHECK_EQ_DBL(out[0], 3);
}

/* Adds that reuse a few slots (cleared by name as they go), until the trimming has given back
 * the spares and retired arrays earlier tests left. */
static void settle(void)
{
    int32_t s = name("settle");
    for (int i = 0; i < 64 * 4096; i++) {
        ps_timeline_add(PS_TYPE_MEASURE, (uint32_t)s, i, 1);
        if (i % 2048 == 2047) ps_timeline_clear(PS_TYPE_MEASURE, s);
    }
    ps_timeline_clear(PS_TYPE_MEASURE, -1);
}

TEST(clearing_a_type_allocates_nothing_keeps_chunks_as_spares_and_writes_no_result)
{
    clear_all();
    settle();
    int32_t keep = ps_timeline_add(PS_TYPE_MEASURE, (uint32_t)name("kept"), 1, 2);
    double empty = ps__timeline_bytes();
    for (int i = 0; i < 100000; i++) mark(i % 2 ? "p" : "q", i);
    double full = ps__timeline_bytes();
    CHECK(full > empty + 100000 * 20);
    ps_result_ptr()[0] = 0xdeadbeef;
    CHECK_EQ_INT(ps_timeline_clear(PS_TYPE_MARK, -1), 100000);
    CHECK_EQ_INT(ps_result_ptr()[0], 0xdeadbeef);
    /* O(1): the chunks stay, as spares (only the type list and free list went) */
    CHECK(ps__timeline_bytes() <= full);
    CHECK(ps__timeline_bytes() > empty + 100000 * 12);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, name("p")), 0);
    CHECK_EQ_INT(ps_timeline_query(-1, -1), 1);
    CHECK_EQ_INT(ps_result_ptr()[0], keep);
    CHECK_EQ_INT(ps__timeline_entry((uint32_t)keep), PS_TYPE_MEASURE);
    CHECK_EQ_DBL(ps_out_ptr()[1], 2);
    /* Later adds of either type give the spares and the big name arrays back, a few at a time. */
    settle();
    CHECK(ps__timeline_bytes() < empty + 256 * 1024);
    /* the names are reusable and their records start empty */
    mark("p", 5);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, name("p")), 1);
    CHECK(release_names() >= 1); /* "q" */
}

/* A service that reports and clears: fill, clear, fill again. The spares are reused, the
 * trimming gives back what a refill does not reach, and the memory stays flat. */
TEST(clear_refill_clear_cycles_stay_flat)
{
    clear_all();
    char names[100][16];
    for (int k = 0; k < 100; k++) snprintf(names[k], sizeof names[k], "c%d", k);
    double peak = 0;
    for (int cycle = 0; cycle < 12; cycle++) {
        for (int i = 0; i < 60000; i++) mark(names[i % 100], (double)((i * 7919) % 60000));
        double b = ps__timeline_bytes();
        if (cycle == 1) peak = b;
        if (cycle > 1) CHECK(b <= peak);
        CHECK(query_is_sorted(PS_TYPE_MARK, -1, 60000));
        CHECK(query_is_sorted(PS_TYPE_MARK, name("c42"), 600));
        CHECK_EQ_INT(ps_timeline_clear(PS_TYPE_MARK, name("c7")), 600);
        CHECK(ps__timeline_bytes() <= b);
        CHECK_EQ_INT(ps_timeline_clear(PS_TYPE_MARK, -1), 59400);
        CHECK(ps__timeline_bytes() <= b);
        CHECK_EQ_INT(ps__timeline_count(PS_TYPE_MARK), 0);
    }
    /* a half refill each time: still flat, and what it does not reach is given back */
    for (int cycle = 0; cycle < 4; cycle++) {
        for (int i = 0; i < 30000; i++) mark(names[i % 100], i);
        CHECK(ps__timeline_bytes() <= peak);
        CHECK(query_is_sorted(-1, name("c3"), 300));
        ps_timeline_clear(PS_TYPE_MARK, -1);
    }
    for (int i = 0; i < 30000; i++) mark(names[i % 100], i);
    CHECK(ps__timeline_bytes() < peak * 0.75);
    ps_timeline_clear(PS_TYPE_MARK, -1);
}

/* Retired name arrays: a name that comes back after the clear keeps its array (its entries
 * intact), the others are given back by later adds, and clears that follow each other before
 * any add retire everything once. */
TEST(retired_name_arrays_are_reused_or_given_back)
{
    clear_all();
    int32_t back = name("back"), gone = name("gone"), other = name("r-other");
    for (int i = 0; i < 5000; i++) {
        ps_timeline_add(PS_TYPE_MARK, (uint32_t)back, i, 0);
        ps_timeline_add(PS_TYPE_MARK, (uint32_t)gone, i, 0);
    }
    double full = ps__timeline_bytes();
    ps_timeline_clear(PS_TYPE_MARK, -1);
    ps_timeline_clear(PS_TYPE_MARK, -1); /* back to back: nothing trimmed in between */
    ps_timeline_clear(PS_TYPE_MARK, -1);
    CHECK(ps__timeline_bytes() <= full);
    for (int i = 0; i < 3000; i++) CHECK(ps_timeline_add(PS_TYPE_MARK, (uint32_t)back, 3000 - i, 0) >= 0);
    for (int i = 0; i < 200; i++) ps_timeline_add(PS_TYPE_MEASURE, (uint32_t)other, i, 1);
    CHECK(query_is_sorted(PS_TYPE_MARK, back, 3000));
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, gone), 0);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, back), 3000);
    CHECK_EQ_DBL(ps__timeline_start(ps_result_ptr()[2999]), 3000);
    /* a second clear retires "back"'s array in turn; a refill of "gone" starts small */
    ps_timeline_clear(PS_TYPE_MARK, -1);
    for (int i = 0; i < 70; i++) ps_timeline_add(PS_TYPE_MARK, (uint32_t)gone, i, 0);
    CHECK(query_is_sorted(-1, gone, 70));
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, back), 0);
    ps_timeline_clear(PS_TYPE_MARK, -1);
    ps_timeline_clear(PS_TYPE_MEASURE, -1);
}

/* The per-name records go stale by epoch; the 24-bit epoch wraps after 2^24 bulk clears, and
 * then every record is forgotten for real: no name may see entries from before. */
TEST(records_stay_empty_across_the_epoch_wrap)
{
    clear_all();
    CHECK(mark("wrap", 1) >= 0);
    /* Exactly 2^24 clears: the masked epoch comes back to the one the record was made in. */
    for (uint32_t i = 0; i < 1u << 24; i++) ps_timeline_clear(PS_TYPE_MARK, -1);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, name("wrap")), 0);
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("wrap"), 0, 0, PS_ARG_ABSENT, 0, 9, 0), PS_E_SYNTAX);
    CHECK(mark("wrap", 5) >= 0);
    CHECK(mark("wrap", 3) >= 0);
    CHECK_EQ_INT(ps_timeline_query(PS_TYPE_MARK, name("wrap")), 2);
    CHECK_EQ_INT(ps_usertiming_measure(0, 0, PS_ARG_MARK, name("wrap"), 0, 0, PS_ARG_ABSENT, 0, 9, 0), PS_OK);
    CHECK_EQ_DBL(ps_out_ptr()[0], 5);
}

int main(void)
{
    RUN(name_ids_are_distinct_and_reused_after_release);
    RUN(query_sorts_by_start_time_with_ties_in_insertion_order);
    RUN(clear_by_name_removes_only_that_name_and_type);
    RUN(dead_slots_are_compacted_and_reused);
    RUN(the_latest_mark_of_a_name_wins_and_clear_forgets_it);
    RUN(remove_takes_one_entry_and_leaves_its_name_and_the_latest_mark_right);
    RUN(measure_option_rules_follow_the_spec_order);
    RUN(a_measure_without_detail_is_decided_and_buffered_in_one_call);
    RUN(limit_drops_and_counts);
    RUN(release_names_frees_unused_names_only);
    RUN(bad_arguments_are_rejected);
    RUN(many_entries_random_times_stay_sorted);
    RUN(adds_in_any_order_come_out_sorted);
    RUN(ties_keep_insertion_order_across_the_unsorted_tail);
    RUN(clear_by_name_between_out_of_order_adds);
    RUN(the_latest_mark_is_kept_whatever_the_add_order);
    RUN(clearing_a_type_allocates_nothing_keeps_chunks_as_spares_and_writes_no_result);
    RUN(clear_refill_clear_cycles_stay_flat);
    RUN(retired_name_arrays_are_reused_or_given_back);
    RUN(records_stay_empty_across_the_epoch_wrap);
    clear_all();
    release_names();
    return CHECK_DONE();
}
