/* check.h — the native C tests' few macros. Each test binary prints one closing line
 * "N passed, N failed" and exits non-zero when anything failed. */
#ifndef PERFSHIM_CHECK_H
#define PERFSHIM_CHECK_H
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond) do { \
    if (cond) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)
#define CHECK_EQ_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
    if (_a == _b) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, _a, _b); } \
} while (0)
#define CHECK_EQ_DBL(a, b) do { double _a = (a), _b = (b); \
    if (_a == _b) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: %s == %g, expected %g\n", __FILE__, __LINE__, #a, _a, _b); } \
} while (0)
#define TEST(name) static void name(void)
#define RUN(name) do { int _f = check_failed; name(); \
    printf("%s %s\n", check_failed == _f ? "ok  " : "FAIL", #name); } while (0)
#define CHECK_DONE() (printf("%d passed, %d failed\n", check_passed, check_failed), check_failed ? 1 : 0)
#endif
