/* test_memory.c — Measure Memory result building against every example of the spec
 * (specs/latest/measure-memory.src.html § Examples), plus token rules, shuffling and errors.
 *
 * Inputs and expected results are written as JSON with single quotes (J() turns them into
 * double quotes). Results are compared after canonicalisation: the spec randomizes the order of
 * `breakdown` and of each `types` list, so both are sorted before comparing; everything else
 * (bytes, attribution lists in order, container, scope, url) must match exactly. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "json.h"
#include "memory.h"
#include "cJSON.h"

static char *J(const char *s)
{
    static char buf[8192];
    size_t n = strlen(s);
    if (n >= sizeof buf) abort();
    for (size_t i = 0; i <= n; i++) buf[i] = s[i] == '\'' ? '"' : s[i];
    return buf;
}

static int run(const char *input_single_quoted, uint32_t seed)
{
    const char *in = J(input_single_quoted);
    uint32_t len = (uint32_t)strlen(in);
    uint8_t *p = ps_exchange_reserve(len);
    memcpy(p, in, len);
    return ps_memory_build(len, seed);
}

static char *result_copy(void)
{
    uint32_t n = ps_blob_len();
    char *s = malloc(n + 1);
    memcpy(s, ps_blob_ptr(), n);
    s[n] = 0;
    return s;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sort a cJSON array by the printed form of its items (strings: by value). */
static void sort_array(cJSON *arr)
{
    int n = cJSON_GetArraySize(arr);
    if (n < 2) return;
    char **keys = malloc((size_t)n * sizeof *keys);
    cJSON **items = malloc((size_t)n * sizeof *items);
    int i = 0;
    for (cJSON *it = arr->child; it; it = it->next, i++) items[i] = it;
    for (i = 0; i < n; i++) {
        cJSON *it = cJSON_DetachItemViaPointer(arr, items[i]);
        char *k = cJSON_PrintUnformatted(it);
        keys[i] = malloc(strlen(k) + sizeof(cJSON *) * 2 + 2);
        strcpy(keys[i], k);
        memcpy(keys[i] + strlen(k) + 1, &it, sizeof it); /* carry the pointer after the key */
        free(k);
    }
    qsort(keys, (size_t)n, sizeof *keys, cmp_str);
    for (i = 0; i < n; i++) {
        cJSON *it;
        memcpy(&it, keys[i] + strlen(keys[i]) + 1, sizeof it);
        cJSON_AddItemToArray(arr, it);
        free(keys[i]);
    }
    free(keys);
    free(items);
}

static char *canonical(const char *json)
{
    cJSON *m = cJSON_Parse(json);
    if (!m) return NULL;
    cJSON *bd = cJSON_GetObjectItemCaseSensitive(m, "breakdown");
    for (cJSON *e = bd ? bd->child : NULL; e; e = e->next)
        sort_array(cJSON_GetObjectItemCaseSensitive(e, "types"));
    sort_array(bd);
    char *s = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    return s;
}

/* Build `input` and compare with `expected` (both single-quoted JSON) up to the spec's
 * randomized orders. */
static int same_measurement(const char *input, const char *expected, uint32_t seed)
{
    int st = run(input, seed);
    if (st != PS_OK) {
        char *msg = result_copy();
        fprintf(stderr, "build failed (%d): %s\n", st, msg);
        free(msg);
        return 0;
    }
    char *got = result_copy();
    char *a = canonical(got);
    char *b = canonical(J(expected));
    int ok = a && b && strcmp(a, b) == 0;
    if (!ok) fprintf(stderr, "got      %s\nexpected %s\n", a ? a : got, b ? b : "(bad expected JSON)");
    free(a);
    free(b);
    free(got);
    return ok;
}

#define EXPECT_MEASUREMENT(input, expected) do { \
    for (uint32_t _s = 1; _s <= 5; _s++) CHECK(same_measurement(input, expected, _s)); \
} while (0)

/* ---- The spec's examples -------------------------------------------------------------- */

static const char *TOP = "{'url':'https://example.com','origin':'https://example.com','scope':'Window'}";
static char in_buf[4096];
#define INPUT(...) (snprintf(in_buf, sizeof in_buf, __VA_ARGS__), in_buf)

TEST(example_simple_page)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s],'entries':[{'bytes':1000000,'realms':[0],'types':['JS','DOM']}]}", TOP),
        "{'bytes':1000000,'breakdown':["
        " {'bytes':1000000,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':['JS','DOM']},"
        " {'bytes':0,'attribution':[],'types':[]}]}");
}

TEST(example_simple_page_total_only)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s],'entries':[{'bytes':1000000,'realms':[0],'types':['JS','DOM']}],'breakdown':false}", TOP),
        "{'bytes':1000000,'breakdown':[]}");
}

TEST(example_simple_page_without_types)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s],'entries':[{'bytes':1000000,'realms':[0],'types':[]}]}", TOP),
        "{'bytes':1000000,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':1000000,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':[]}]}");
}

static const char *IFRAME =
    "{'url':'https://example.com/iframe.html','origin':'https://example.com','scope':'Window','parent':0,"
    " 'container':{'localName':'iframe','id':'example-id','src':'redirect.html?target=iframe.html'}}";

TEST(example_same_origin_iframe)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,%s],'entries':[{'bytes':1000000,'realms':[0],'types':['DOM','JS']},"
              " {'bytes':500000,'realms':[1],'types':['JS','DOM']}]}", TOP, IFRAME),
        "{'bytes':1500000,'breakdown':["
        " {'bytes':1000000,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':['DOM','JS']},"
        " {'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':500000,'attribution':[{'url':'https://example.com/iframe.html',"
        "   'container':{'id':'example-id','src':'redirect.html?target=iframe.html'},'scope':'Window'}],"
        "  'types':['JS','DOM']}]}");
}

TEST(example_same_origin_iframe_lumped_with_page)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,%s],'entries':[{'bytes':1500000,'realms':[0,1],'types':['JS','DOM']}]}", TOP, IFRAME),
        "{'bytes':1500000,'breakdown':["
        " {'bytes':1500000,'attribution':[{'url':'https://example.com','scope':'Window'},"
        "   {'url':'https://example.com/iframe.html','container':{'id':'example-id','src':'redirect.html?target=iframe.html'},"
        "    'scope':'Window'}],'types':['JS','DOM']},"
        " {'bytes':0,'attribution':[],'types':[]}]}");
}

TEST(example_web_worker)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,{'url':'https://example.com/worker.js','scope':'DedicatedWorkerGlobalScope','parent':0}],"
              "'entries':[{'bytes':1000000,'realms':[0],'types':['JS','DOM']},{'bytes':800000,'realms':[1],'types':['JS']}]}", TOP),
        "{'bytes':1800000,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':1000000,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':['JS','DOM']},"
        " {'bytes':800000,'attribution':[{'url':'https://example.com/worker.js','scope':'DedicatedWorkerGlobalScope'}],"
        "  'types':['JS']}]}");
}

TEST(example_service_worker)
{
    EXPECT_MEASUREMENT(
        "{'realms':[{'url':'https://example.com/service-worker.js','scope':'ServiceWorkerGlobalScope'}],"
        " 'entries':[{'bytes':1000000,'realms':[0],'types':['JS']}]}",
        "{'bytes':1000000,'breakdown':["
        " {'bytes':1000000,'attribution':[{'url':'https://example.com/service-worker.js','scope':'ServiceWorkerGlobalScope'}],"
        "  'types':['JS']},{'bytes':0,'attribution':[],'types':[]}]}");
}

/* example.com → foo.com/iframe1 → {foo.com/iframe2, bar.com/iframe2, foo.com/worker.js} */
static const char *CROSS_TREE =
    "{'url':'https://foo.com/iframe1','origin':'https://foo.com','scope':'Window','parent':0,"
    " 'container':{'localName':'iframe','id':'example-id','src':'https://foo.com/iframe1'}},"
    "{'url':'https://foo.com/iframe2','origin':'https://foo.com','scope':'Window','parent':1,"
    " 'container':{'localName':'iframe','id':'inner-a','src':'iframe2'}},"
    "{'url':'https://bar.com/iframe2','origin':'https://bar.com','scope':'Window','parent':1,"
    " 'container':{'localName':'iframe','id':'inner-b','src':'https://bar.com/iframe2'}},"
    "{'url':'https://foo.com/worker.js','scope':'DedicatedWorkerGlobalScope','parent':1}";

TEST(example_cross_origin_iframe_aggregated)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,%s],'entries':[{'bytes':1000000,'realms':[0],'types':['JS','DOM']},"
              " {'bytes':500000,'realms':[1],'types':['DOM','JS']},{'bytes':200000,'realms':[2],'types':['JS','DOM']},"
              " {'bytes':300000,'realms':[3],'types':['DOM']},{'bytes':400000,'realms':[4],'types':['JS']}]}", TOP, CROSS_TREE),
        "{'bytes':2400000,'breakdown':["
        " {'bytes':1000000,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':['JS','DOM']},"
        " {'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':1400000,'attribution':[{'url':'cross-origin-url','container':{'id':'example-id','src':'https://foo.com/iframe1'},"
        "   'scope':'cross-origin-aggregated'}],'types':['DOM','JS']}]}");
}

/* The spec prints `bytes: 100000` for this example, but its own algorithm sums the entries
 * (1000000 + 0 + 0): a typo in the example; the total here is 1000000. */
TEST(example_cross_origin_iframe_in_another_address_space)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,%s],'entries':[{'bytes':1000000,'realms':[0],'types':['JS','DOM']},"
              " {'bytes':500000,'realms':[1],'types':['JS','DOM'],'remote':true},"
              " {'bytes':200000,'realms':[2],'types':['JS'],'remote':true},"
              " {'bytes':300000,'realms':[3],'types':['DOM'],'remote':true},"
              " {'bytes':400000,'realms':[4],'types':['JS'],'remote':true}]}", TOP, CROSS_TREE),
        "{'bytes':1000000,'breakdown':["
        " {'bytes':1000000,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':['JS','DOM']},"
        " {'bytes':0,'attribution':[{'url':'cross-origin-url','container':{'id':'example-id','src':'https://foo.com/iframe1'},"
        "   'scope':'cross-origin-aggregated'}],'types':['JS','DOM']},"
        " {'bytes':0,'attribution':[],'types':[]}]}");
}

/* example.com → foo.com/iframe1 → example.com/iframe2 */
static const char *SAME_IN_CROSS =
    "{'url':'https://foo.com/iframe1','origin':'https://foo.com','scope':'Window','parent':0,"
    " 'container':{'localName':'iframe','id':'example-id','src':'https://foo.com/iframe1'}},"
    "{'url':'https://example.com/iframe2','origin':'https://example.com','scope':'Window','parent':1,"
    " 'container':{'localName':'iframe','id':'secret-id','src':'https://example.com/iframe2'}}";

TEST(example_same_origin_iframe_inside_cross_origin_iframe)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,%s],'entries':[{'bytes':1000000,'realms':[0],'types':['DOM','JS']},"
              " {'bytes':500000,'realms':[1],'types':['DOM','JS']},{'bytes':200000,'realms':[2],'types':['JS','DOM']}]}",
              TOP, SAME_IN_CROSS),
        "{'bytes':1700000,'breakdown':["
        " {'bytes':1000000,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':['DOM','JS']},"
        " {'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':500000,'attribution':[{'url':'cross-origin-url','container':{'id':'example-id','src':'https://foo.com/iframe1'},"
        "   'scope':'cross-origin-aggregated'}],'types':['DOM','JS']},"
        " {'bytes':200000,'attribution':[{'url':'https://example.com/iframe2','container':{'id':'example-id',"
        "   'src':'https://foo.com/iframe1'},'scope':'Window'}],'types':['JS','DOM']}]}");
}

TEST(example_same_origin_iframe_inside_unmeasured_cross_origin_iframe)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,%s],'entries':[{'bytes':1000000,'realms':[0],'types':['JS','DOM']},"
              " {'bytes':500000,'realms':[1],'types':['JS','DOM'],'remote':true},{'bytes':200000,'realms':[2],'types':['JS','DOM']}]}",
              TOP, SAME_IN_CROSS),
        "{'bytes':1200000,'breakdown':["
        " {'bytes':1000000,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':['JS','DOM']},"
        " {'bytes':0,'attribution':[{'url':'cross-origin-url','container':{'id':'example-id','src':'https://foo.com/iframe1'},"
        "   'scope':'cross-origin-aggregated'}],'types':['JS','DOM']},"
        " {'bytes':200000,'attribution':[{'url':'https://example.com/iframe2','container':{'id':'example-id',"
        "   'src':'https://foo.com/iframe1'},'scope':'Window'}],'types':['JS','DOM']},"
        " {'bytes':0,'attribution':[],'types':[]}]}");
}

/* ---- Token rules beyond the examples -------------------------------------------------- */

TEST(worker_spawned_by_same_origin_iframe_has_its_container)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,%s,{'url':'https://example.com/w.js','scope':'DedicatedWorkerGlobalScope','parent':1}],"
              " 'entries':[{'bytes':7,'realms':[2],'types':['JS']}]}", TOP, IFRAME),
        "{'bytes':7,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':7,'attribution':[{'url':'https://example.com/w.js','container':{'id':'example-id',"
        "  'src':'redirect.html?target=iframe.html'},'scope':'DedicatedWorkerGlobalScope'}],'types':['JS']}]}");
}

TEST(object_and_frame_containers_use_data_and_src)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,"
              "{'url':'https://example.com/o','origin':'https://example.com','scope':'Window','parent':0,"
              " 'container':{'localName':'object','id':'o','src':'ignored','data':'o.html'}},"
              "{'url':'https://example.com/f','origin':'https://example.com','scope':'Window','parent':0,"
              " 'container':{'localName':'frame','src':'f.html'}}],"
              " 'entries':[{'bytes':1,'realms':[1]},{'bytes':2,'realms':[2]}]}", TOP),
        "{'bytes':3,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':1,'attribution':[{'url':'https://example.com/o','container':{'id':'o','src':'o.html'},'scope':'Window'}],'types':[]},"
        " {'bytes':2,'attribution':[{'url':'https://example.com/f','container':{'id':'','src':'f.html'},'scope':'Window'}],'types':[]}]}");
}

TEST(lumped_entry_of_aggregated_realms_names_the_container_once)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,%s],'entries':[{'bytes':9,'realms':[1,2,3,4],'types':['JS']}]}", TOP, CROSS_TREE),
        "{'bytes':9,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':9,'attribution':[{'url':'cross-origin-url','container':{'id':'example-id','src':'https://foo.com/iframe1'},"
        "  'scope':'cross-origin-aggregated'}],'types':['JS']}]}");
}

TEST(two_cross_origin_iframes_are_aggregated_separately)
{
    EXPECT_MEASUREMENT(
        INPUT("{'realms':[%s,"
              "{'url':'https://a.com/','origin':'https://a.com','scope':'Window','parent':0,'container':{'localName':'iframe','id':'a','src':'https://a.com/'}},"
              "{'url':'https://b.com/','origin':'https://b.com','scope':'Window','parent':0,'container':{'localName':'iframe','id':'b','src':'https://b.com/'}},"
              "{'url':'https://a.com/w.js','scope':'DedicatedWorkerGlobalScope','parent':1}],"
              " 'entries':[{'bytes':1,'realms':[1]},{'bytes':2,'realms':[2]},{'bytes':4,'realms':[3],'types':['JS']}]}", TOP),
        "{'bytes':7,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':5,'attribution':[{'url':'cross-origin-url','container':{'id':'a','src':'https://a.com/'},'scope':'cross-origin-aggregated'}],'types':['JS']},"
        " {'bytes':2,'attribution':[{'url':'cross-origin-url','container':{'id':'b','src':'https://b.com/'},'scope':'cross-origin-aggregated'}],'types':[]}]}");
}

TEST(host_resolved_tokens_are_taken_as_given)
{
    /* A browser's native result: tokens already resolved, entries kept at its granularity (the
     * two entries of one aggregated container are not folded together). */
    EXPECT_MEASUREMENT(
        "{'realms':[{'url':'http://h/p.html','scope':'Window','token':{'container':null,'crossOriginAggregated':false}},"
        " {'url':'cross-origin-url','scope':'cross-origin-aggregated','token':{'container':{'id':'x','src':'//y'},'crossOriginAggregated':true}}],"
        " 'entries':[{'bytes':5,'realms':[0],'types':['JavaScript']},{'bytes':6,'realms':[1],'types':['JavaScript']},"
        "  {'bytes':8,'realms':[1],'types':['DOM']},{'bytes':7,'realms':[],'types':['Shared']}]}",
        "{'bytes':26,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':5,'attribution':[{'url':'http://h/p.html','scope':'Window'}],'types':['JavaScript']},"
        " {'bytes':6,'attribution':[{'url':'cross-origin-url','container':{'id':'x','src':'//y'},'scope':'cross-origin-aggregated'}],'types':['JavaScript']},"
        " {'bytes':8,'attribution':[{'url':'cross-origin-url','container':{'id':'x','src':'//y'},'scope':'cross-origin-aggregated'}],'types':['DOM']},"
        " {'bytes':7,'attribution':[],'types':['Shared']}]}");
}

/* A native result as Chromium returns it: the draft's zero entry, a worker, unattributed
 * entries, a nested Window's container, a cross-origin-aggregated one. */
#define NATIVE_CHROMIUM \
    "{'native':{'bytes':100,'breakdown':[{'attribution':[],'bytes':0,'types':[]}," \
    " {'attribution':[{'scope':'DedicatedWorkerGlobalScope','url':'http://h/wk.js'}],'bytes':10,'types':['JavaScript']}," \
    " {'attribution':[],'bytes':20,'types':['Shared']}," \
    " {'attribution':[{'container':{'id':'fr','src':'/f.html'},'scope':'Window','url':'http://h/f.html'}],'bytes':30,'types':['JavaScript']}," \
    " {'attribution':[{'container':{'id':'x','src':'//y'},'scope':'cross-origin-aggregated','url':'cross-origin-url'}],'bytes':15,'types':['DOM']}," \
    " {'attribution':[{'container':{'id':'x','src':'//y'},'scope':'cross-origin-aggregated','url':'cross-origin-url'}],'bytes':25,'types':['JavaScript']}]}}"

TEST(native_results_are_rebuilt_in_the_current_shape)
{
    /* Same entries and attributions; one zero entry; aggregated entries kept apart. */
    EXPECT_MEASUREMENT(NATIVE_CHROMIUM,
        "{'bytes':100,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':10,'attribution':[{'url':'http://h/wk.js','scope':'DedicatedWorkerGlobalScope'}],'types':['JavaScript']},"
        " {'bytes':20,'attribution':[],'types':['Shared']},"
        " {'bytes':30,'attribution':[{'url':'http://h/f.html','container':{'id':'fr','src':'/f.html'},'scope':'Window'}],'types':['JavaScript']},"
        " {'bytes':15,'attribution':[{'url':'cross-origin-url','container':{'id':'x','src':'//y'},'scope':'cross-origin-aggregated'}],'types':['DOM']},"
        " {'bytes':25,'attribution':[{'url':'cross-origin-url','container':{'id':'x','src':'//y'},'scope':'cross-origin-aggregated'}],'types':['JavaScript']}]}");
    /* The older draft: userAgentSpecificTypes, no zero entry; a total beyond the breakdown. */
    EXPECT_MEASUREMENT(
        "{'native':{'bytes':9,'breakdown':[{'bytes':4,'attribution':[{'url':'u','scope':'Window'}],'userAgentSpecificTypes':['JS','DOM']}]}}",
        "{'bytes':9,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':4,'attribution':[{'url':'u','scope':'Window'}],'types':['JS','DOM']},"
        " {'bytes':5,'attribution':[],'types':[]}]}");
    EXPECT_MEASUREMENT("{'native':{'bytes':7}}",
        "{'bytes':7,'breakdown':[{'bytes':0,'attribution':[],'types':[]},{'bytes':7,'attribution':[],'types':[]}]}");
}

TEST(empty_measurement_has_only_the_zero_entry)
{
    EXPECT_MEASUREMENT("{}", "{'bytes':0,'breakdown':[{'bytes':0,'attribution':[],'types':[]}]}");
}

TEST(duplicate_types_form_a_set)
{
    EXPECT_MEASUREMENT(INPUT("{'realms':[%s],'entries':[{'bytes':1,'realms':[0,0],'types':['JS','JS']}]}", TOP),
        "{'bytes':1,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':1,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':['JS']}]}");
}

TEST(large_byte_counts_stay_exact)
{
    EXPECT_MEASUREMENT(INPUT("{'realms':[%s],'entries':[{'bytes':4503599627370496,'realms':[0]},{'bytes':4503599627370495,'realms':[0]}]}", TOP),
        "{'bytes':9007199254740991,'breakdown':[{'bytes':0,'attribution':[],'types':[]},"
        " {'bytes':4503599627370496,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':[]},"
        " {'bytes':4503599627370495,'attribution':[{'url':'https://example.com','scope':'Window'}],'types':[]}]}");
}

/* Long parent chains are resolved iteratively, each realm once (top-level origin inherited). */
TEST(deep_parent_chains_resolve)
{
    enum { DEPTH = 50000 };
    size_t cap = (size_t)DEPTH * 160 + 256;
    char *in = malloc(cap);
    size_t n = (size_t)sprintf(in, "{\"realms\":[{\"url\":\"u0\",\"origin\":\"o\",\"scope\":\"Window\"}");
    for (int i = 1; i < DEPTH; i++)
        n += (size_t)sprintf(in + n, ",{\"url\":\"u%d\",\"origin\":\"o\",\"scope\":\"Window\",\"parent\":%d,"
                             "\"container\":{\"localName\":\"iframe\",\"id\":\"f%d\"}}", i, i - 1, i);
    n += (size_t)sprintf(in + n, "],\"entries\":[{\"bytes\":3,\"realms\":[%d]}]}", DEPTH - 1);
    uint8_t *p = ps_exchange_reserve((uint32_t)n);
    memcpy(p, in, n);
    free(in);
    CHECK_EQ_INT(ps_memory_build((uint32_t)n, 1), PS_OK);
    char *got = result_copy();
    CHECK(strstr(got, "{\"url\":\"u49999\",\"container\":{\"id\":\"f49999\",\"src\":\"\"},\"scope\":\"Window\"}") != NULL);
    free(got);
}

/* Random byte mutations of valid inputs: every outcome is a result or a parse error, never a
 * crash (this binary runs under AddressSanitizer and UBSan). */
/* 3000 random mutations of `base` (single-quoted JSON): each builds or is a parse error. */
static void mutate_and_build(const char *base)
{
    const char *json = J(base);
    size_t len = strlen(json);
    char *buf = malloc(len);
    const char alphabet[] = "{}[]\",:0123456789-.eE truefalsnl";
    uint32_t x = 12345, ok = 0, parse = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(buf, json, len);
        int edits = 1 + (int)((x = x * 1103515245u + 12345u) >> 16) % 4;
        for (int k = 0; k < edits; k++) {
            size_t at = ((x = x * 1103515245u + 12345u) >> 8) % len;
            buf[at] = alphabet[((x = x * 1103515245u + 12345u) >> 16) % (sizeof alphabet - 1)];
        }
        uint8_t *p = ps_exchange_reserve((uint32_t)len);
        memcpy(p, buf, len);
        int st = ps_memory_build((uint32_t)len, (uint32_t)round);
        if (st == PS_OK) ok++;
        else if (st == PS_E_PARSE) parse++;
    }
    free(buf);
    CHECK_EQ_INT(ok + parse, 3000);
    CHECK(ok > 0 && parse > 0);
}

TEST(mutated_inputs_never_crash)
{
    static char base[4096];
    snprintf(base, sizeof base, "{'realms':[%s,%s],'entries':[{'bytes':1000000,'realms':[0],'types':['JS','DOM']},"
             " {'bytes':500000,'realms':[1],'types':['DOM','JS']},{'bytes':200000,'realms':[2,4],'types':['JS','DOM']},"
             " {'bytes':300000,'realms':[3],'types':['DOM'],'remote':true},{'bytes':400000,'realms':[4],'types':['JS']}]}",
             TOP, CROSS_TREE);
    mutate_and_build(base);
    mutate_and_build(NATIVE_CHROMIUM);
}

/* ---- Randomized order ----------------------------------------------------------------- */

/* Position of the zero-byte entry in a 3-entry breakdown, per seed. */
static int zero_position(uint32_t seed)
{
    if (run("{'entries':[{'bytes':1},{'bytes':2}]}", seed) != PS_OK) return -1;
    cJSON *m = cJSON_ParseWithLength((const char *)ps_blob_ptr(), ps_blob_len());
    int pos = -1, i = 0;
    for (cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "breakdown")->child; e; e = e->next, i++)
        if (cJSON_GetObjectItemCaseSensitive(e, "bytes")->valuedouble == 0) pos = i;
    cJSON_Delete(m);
    return pos;
}

TEST(breakdown_order_is_randomized_and_reproducible_per_seed)
{
    int seen[3] = {0, 0, 0};
    for (uint32_t s = 0; s < 60; s++) {
        int p = zero_position(s);
        CHECK(p >= 0 && p < 3);
        if (p >= 0 && p < 3) seen[p]++;
    }
    CHECK(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
    CHECK_EQ_INT(zero_position(42), zero_position(42));
}

TEST(types_order_is_randomized)
{
    int first_a = 0, first_b = 0;
    for (uint32_t s = 0; s < 40; s++) {
        CHECK_EQ_INT(run("{'entries':[{'bytes':1,'types':['a','b']}],'breakdown':true}", s), PS_OK);
        cJSON *m = cJSON_ParseWithLength((const char *)ps_blob_ptr(), ps_blob_len());
        for (cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "breakdown")->child; e; e = e->next) {
            cJSON *t = cJSON_GetObjectItemCaseSensitive(e, "types");
            if (cJSON_GetArraySize(t) != 2) continue;
            if (strcmp(t->child->valuestring, "a") == 0) first_a++; else first_b++;
        }
        cJSON_Delete(m);
    }
    CHECK(first_a > 0 && first_b > 0);
    CHECK_EQ_INT(first_a + first_b, 40);
}

/* ---- Bad input ------------------------------------------------------------------------ */

static void expect_parse_error(const char *input, const char *message_part)
{
    int st = run(input, 1);
    CHECK_EQ_INT(st, PS_E_PARSE);
    char *msg = result_copy();
    if (!strstr(msg, message_part)) fprintf(stderr, "message '%s' lacks '%s'\n", msg, message_part);
    CHECK(strstr(msg, message_part) != NULL);
    free(msg);
}

TEST(malformed_input_is_a_parse_error_with_a_reason)
{
    expect_parse_error("{'entries':[", "not valid JSON");
    expect_parse_error("[]", "must be a JSON object");
    expect_parse_error("{'native':[]}", "native must be an object");
    expect_parse_error("{'native':{'breakdown':{}}}", "native breakdown must be an array");
    expect_parse_error("{'native':{'breakdown':[{'bytes':1,'attribution':{}}]}}", "native attribution must be an array");
    expect_parse_error("{'native':{'breakdown':[{'bytes':-5,'attribution':[]}]}}", "entry bytes");
    expect_parse_error("{'native':{'breakdown':[{'bytes':1,'attribution':[{'url':1,'scope':'Window'}]}]}}", "native attribution needs");
    expect_parse_error("{'native':{'breakdown':[{'bytes':1,'attribution':[7]}]}}", "native attribution needs");
    expect_parse_error("{'native':{'breakdown':[{'bytes':1,'attribution':[{'container':'x'}]}]}}", "native attribution needs");
    expect_parse_error("{'native':{'breakdown':[{'bytes':1,'types':'JS'}]}}", "types must be an array");
    expect_parse_error("{'entries':[{'bytes':-1}]}", "entry bytes");
    expect_parse_error("{'entries':[{'bytes':1.5}]}", "entry bytes");
    expect_parse_error("{'entries':[{'bytes':'1'}]}", "entry bytes");
    expect_parse_error("{'entries':[{'bytes':1e300}]}", "entry bytes");
    expect_parse_error("{'entries':[{'bytes':1,'realms':[0]}]}", "realm indexes");
    expect_parse_error("{'entries':[{'bytes':1,'types':[1]}]}", "types");
    expect_parse_error("{'entries':[{'bytes':1,'remote':1}]}", "remote");
    expect_parse_error("{'entries':{}}", "entries must be an array");
    expect_parse_error("{'breakdown':1}", "breakdown must be a boolean");
    expect_parse_error("{'realms':[{'url':'u'}]}", "url and scope");
    expect_parse_error("{'realms':[{'url':'a','scope':'Window','parent':1},{'url':'b','scope':'Window','parent':0}]}", "cycle");
    expect_parse_error("{'realms':[{'url':'a','scope':'Window','parent':0}]}", "another realm");
    expect_parse_error("{'realms':[{'url':'a','scope':'Window','parent':5}]}", "another realm");
    expect_parse_error("{'realms':[{'url':'a','origin':'o','scope':'Window'},"
                       "{'url':'b','origin':'o','scope':'Window','parent':0,'container':{'localName':'div'}}]}", "localName");
    expect_parse_error("{'realms':[{'url':'a','origin':'o','scope':'Window'},{'url':'b','scope':'Window','parent':0,"
                       "'container':{'localName':'iframe'}}]}", "origins");
    expect_parse_error("{'realms':[{'url':'a','origin':'o','scope':'Window'},{'url':'b','origin':'o','scope':'Window','parent':0}]}",
                       "container element");
    expect_parse_error("{'realms':[{'url':'w','scope':'SharedWorkerGlobalScope'},{'url':'b','origin':'o','scope':'Window','parent':0,"
                       "'container':{'localName':'iframe'}}]}", "parent must be a Window");
    expect_parse_error("{'realms':[{'url':'a','scope':'Window','token':{'crossOriginAggregated':'yes'}}]}", "token");
    /* The message is constant and the core still works afterwards. */
    CHECK_EQ_INT(run("{}", 1), PS_OK);
}

/* ---- The core's own JSON reader and writer (src/json.c): no printf, no strtod ------------- */

/* Build a raw (double-quoted) input; the result's bytes in *out (freed by the caller). */
static int run_raw(const char *in, char **out)
{
    uint32_t len = (uint32_t)strlen(in);
    memcpy(ps_exchange_reserve(len), in, len);
    int st = ps_memory_build(len, 1);
    *out = result_copy();
    return st;
}

/* Escapes, non-ASCII text and surrogate pairs come back as the same strings; a lone surrogate
 * (JSON.stringify writes it as its \u escape) comes back as that escape, not as U+FFFD. */
TEST(strings_round_trip_through_the_reader_and_writer)
{
    char *got;
    CHECK_EQ_INT(run_raw("{\"realms\":[{\"url\":\"h\\u00e9\\ud83d\\ude00 \\\"q\\\" \\\\ \\/ \\n\\t\\u0001\","
                         "\"scope\":\"W\\ud800x\\udc00\"}],\"entries\":[{\"bytes\":7,\"realms\":[0],"
                         "\"types\":[\"\\u00e9\"]}]}", &got), PS_OK);
    CHECK(strstr(got, "{\"url\":\"h\xc3\xa9\xf0\x9f\x98\x80 \\\"q\\\" \\\\ / \\u000a\\u0009\\u0001\","
                      "\"scope\":\"W\\ud800x\\udc00\"}") != NULL);
    CHECK(strstr(got, "\"types\":[\"\xc3\xa9\"]") != NULL);
    free(got);
}

/* Byte counts are integers (the sum may pass 2^64: every digit is still exact). */
TEST(totals_beyond_2_64_are_written_exactly)
{
    enum { N = 3000 };
    char *in = malloc((size_t)N * 48 + 64), *got;
    size_t n = (size_t)sprintf(in, "{\"entries\":[");
    for (int i = 0; i < N; i++) n += (size_t)sprintf(in + n, "%s{\"bytes\":9007199254740992}", i ? "," : "");
    sprintf(in + n, "],\"breakdown\":false}");
    CHECK_EQ_INT(run_raw(in, &got), PS_OK);
    CHECK(strcmp(got, "{\"bytes\":27021597764222976000,\"breakdown\":[]}") == 0); /* 3000 * 2^53 */
    free(got);
    free(in);
    CHECK_EQ_INT(run_raw("{\"entries\":[{\"bytes\":9007199254740992},{\"bytes\":0}],\"breakdown\":false}", &got), PS_OK);
    CHECK(strcmp(got, "{\"bytes\":9007199254740992,\"breakdown\":[]}") == 0);
    free(got);
}

/* What the reader does not take: each is a parse error naming the reason, never a crash. */
TEST(reader_limits_are_parse_errors)
{
    expect_parse_error("{'entries':[{'bytes':1.0}]}", "entry bytes");  /* integers as JSON.stringify writes them */
    expect_parse_error("{'entries':[{'bytes':1e3}]}", "entry bytes");
    expect_parse_error("{'entries':[{'bytes':01}]}", "not valid JSON");
    expect_parse_error("{'realms':[{'url':'a\\u0000b','scope':'Window'}]}", "not valid JSON");
    expect_parse_error("{'realms':[{'url':'a\\x','scope':'Window'}]}", "not valid JSON");
    expect_parse_error("{'breakdown':true} x", "not valid JSON");
    expect_parse_error("{'breakdown':tru}", "not valid JSON");
    expect_parse_error("{'entries':[1,]}", "not valid JSON");
    static char deep[2 * PSJ_MAX_DEPTH + 64];
    size_t n = (size_t)sprintf(deep, "{'x':");
    for (int i = 0; i < PSJ_MAX_DEPTH; i++) deep[n++] = '[';
    for (int i = 0; i < PSJ_MAX_DEPTH; i++) deep[n++] = ']';
    strcpy(deep + n, "}");
    expect_parse_error(deep, "not valid JSON");
    deep[5 + PSJ_MAX_DEPTH - 1] = ' ';                         /* one level less: accepted */
    deep[5 + PSJ_MAX_DEPTH] = ' ';
    CHECK_EQ_INT(run(deep, 1), PS_OK);
}

TEST(release_frees_the_result)
{
    CHECK_EQ_INT(run("{}", 1), PS_OK);
    CHECK(ps_blob_len() > 0);
    ps_blob_release();
    CHECK_EQ_INT(ps_blob_len(), 0);
    CHECK(ps_blob_ptr() == NULL);
}

int main(void)
{
    RUN(example_simple_page);
    RUN(example_simple_page_total_only);
    RUN(example_simple_page_without_types);
    RUN(example_same_origin_iframe);
    RUN(example_same_origin_iframe_lumped_with_page);
    RUN(example_web_worker);
    RUN(example_service_worker);
    RUN(example_cross_origin_iframe_aggregated);
    RUN(example_cross_origin_iframe_in_another_address_space);
    RUN(example_same_origin_iframe_inside_cross_origin_iframe);
    RUN(example_same_origin_iframe_inside_unmeasured_cross_origin_iframe);
    RUN(worker_spawned_by_same_origin_iframe_has_its_container);
    RUN(object_and_frame_containers_use_data_and_src);
    RUN(lumped_entry_of_aggregated_realms_names_the_container_once);
    RUN(two_cross_origin_iframes_are_aggregated_separately);
    RUN(host_resolved_tokens_are_taken_as_given);
    RUN(native_results_are_rebuilt_in_the_current_shape);
    RUN(empty_measurement_has_only_the_zero_entry);
    RUN(duplicate_types_form_a_set);
    RUN(large_byte_counts_stay_exact);
    RUN(deep_parent_chains_resolve);
    RUN(mutated_inputs_never_crash);
    RUN(breakdown_order_is_randomized_and_reproducible_per_seed);
    RUN(types_order_is_randomized);
    RUN(malformed_input_is_a_parse_error_with_a_reason);
    RUN(strings_round_trip_through_the_reader_and_writer);
    RUN(totals_beyond_2_64_are_written_exactly);
    RUN(reader_limits_are_parse_errors);
    RUN(release_frees_the_result);
    ps_blob_release();
    return CHECK_DONE();
}
