# Bindery: every task a developer or CI runs. `make help` lists them.
SWIFT ?= swift
# At most 32 tests at once (Swift Testing reads this). Every suite runs in one process, a mock is two FlyingFox servers,
# and each server keeps a Dispatch worker thread blocked in epoll_wait while it runs: unbounded, the suites held all
# 255 of Linux's Dispatch threads, and URLSession, which needs some of its own, stalled until its requests timed out.
# Bounded, the loopback suites also finish sooner (a minute rather than five on two cores).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH ?= 32
GEN := .build/debug/bindery-gen

# Each generated module: spec → output folder (settings in bindery.json beside the spec).
GOLDEN := Tests/Golden/OData/spec.csdl.xml:Tests/Golden/OData/Generated \
          Tests/Golden/OpenAPI/spec.json:Tests/Golden/OpenAPI/Generated \
          Tests/Golden/RealWorld/spec.json:Tests/Golden/RealWorld/Generated \
          Tests/Golden/Shapes/spec.yaml:Tests/Golden/Shapes/Generated
# The services are the folders of Specs/ (Package.swift reads the same list): Specs/X/<spec> → Sources/X/Generated.
SERVICE_NAMES := $(patsubst Specs/%/bindery.json,%,$(wildcard Specs/*/bindery.json))
SERVICES := $(foreach s,$(SERVICE_NAMES),$(firstword $(filter-out %/bindery.json,$(wildcard Specs/$(s)/$(s).*))):Sources/$(s)/Generated)
SPECS := $(SERVICES) $(GOLDEN)

.PHONY: help setup build gen check-gen test conformance demo docs bench bench-transport bench-openapi bench-inbox bench-transfers bench-decode format check-format clean fuzz fuzz-short fuzz-specs fuzz-specs-short corpus soak soak-short

help:
	@echo "make demo       walk through the five typed clients against the embedded mock server (README's first command)"
	@echo "make test       install what is missing, then run every test"
	@echo "make test-urlsession  build without libcurl (BINDERY_NO_CURL=1, as Apple platforms see the package) and run the loopback suites over URLSession (CI)"
	@echo "make conformance  replay every operation's fixture over HTTP against the mock server; coverage per service"
	@echo "make gen        regenerate every module from its spec"
	@echo "make check-gen  fail if checked-in generated code differs from what the specs produce"
	@echo "make check-snippets  compile every Swift snippet in README.md, Docs/ and the DocC catalogs (after make test)"
	@echo "make build      build everything"
	@echo "make docs       build the DocC documentation of every library module into .build/docs; fails on any warning"
	@echo "make bench      measure generation, the build of the full Microsoft Graph, the HTTP transports, the Inbox offline store, OneDrive transfers and decoding (writes BENCHMARKS.md)"
	@echo "make bench-transport  only the HTTP transports against a local nginx (writes their section of BENCHMARKS.md)"
	@echo "make bench-openapi    BINDERY_OPENAPI_SPEC=\"a.json b.yaml …\": bindery-gen and swift-openapi-generator on public specs"
	@echo "make bench-inbox  only the Inbox offline store: first sync of 10,000 threads, live view latency"
	@echo "make bench-transfers  only OneDrive uploads and downloads beside raw libcurl, and their peak memory"
	@echo "make bench-decode  only decoding, reading and encoding pages of models beside Foundation's Codable"
	@echo "make fuzz       libFuzzer + AddressSanitizer on every reader and decoder, 1M executions or 10 min each (writes RELIABILITY.md)"
	@echo "make fuzz-short every fuzz target for $(FUZZ_SHORT_SECONDS) s (CI)"
	@echo "make fuzz-specs $(FUZZ_SPECS_COUNT) random OpenAPI specs generated, each module compiled to checked SIL (FUZZ_SPECS_FIRST resumes; fuzz-specs-short: 200 in one package build, CI)"
	@echo "make corpus CORPUS=<folder>  generate and build every OpenAPI spec in a folder; writes CORPUS.md"
	@echo "make soak       10,000 requests, 10% faults, 100,000 items, delta rounds in every dialect, 200 connections for 60 s"
	@echo "make soak-short the same with 1,000 requests, 5,000 items and 200 connections for 5 s (CI)"
	@echo "make format     format our own Swift with swift-format (.swift-format; generated code is the renderer's)"
	@echo "make check-format  fail if any of our own Swift is not formatted (CI runs it)"
	@echo "make setup      install the system libraries (libxml2-dev, libcurl4-openssl-dev, libsqlite3-dev) when missing"

setup:
	@scripts/setup.sh

# The generator depends on no generated code, so this works even when generated code is broken or deleted.
$(GEN): setup
	$(SWIFT) build --product bindery-gen

# A service module's conformance fixtures go to Tests/Fixtures/<Service>, and the calls that make each fixture's
# request through the generated builders to Sources/ServiceMocks/<Service>/Generated.
service = $(word 2,$(subst /, ,$(1)))
fixtures = $(if $(filter Sources/%/Generated,$(1)),--fixtures Tests/Fixtures/$(call service,$(1)) --calls Sources/ServiceMocks/$(call service,$(1))/Generated)

# The plugin sample's checked-in module, generated from inside the sample as `swift package bindery-gen` does.
SAMPLE_GEN := cd Tests/PluginSample && ../../$(GEN) Sources/Tasks/tasks.json --output Sources/Tasks/Generated \
  --regenerate-note "Regenerate with \`swift package --allow-writing-to-package-directory bindery-gen\`."

gen: $(GEN)
	@$(foreach pair,$(SPECS),$(GEN) $(word 1,$(subst :, ,$(pair))) --output $(word 2,$(subst :, ,$(pair))) \
	  $(call fixtures,$(word 2,$(subst :, ,$(pair)))) || exit 1;)
	@$(SAMPLE_GEN)

# Every Swift snippet in README.md, Docs/ and the DocC catalogs, compiled (to SIL) against the built modules (after make test).
check-snippets:
	scripts/check-snippets.py

check-gen: $(GEN)
	@$(foreach pair,$(SPECS),$(GEN) $(word 1,$(subst :, ,$(pair))) --output $(word 2,$(subst :, ,$(pair))) \
	  $(call fixtures,$(word 2,$(subst :, ,$(pair)))) --check || exit 1;)
	@$(SAMPLE_GEN) --check
	@echo "check-gen: generated code matches the specs and the generator."

build: setup
	$(SWIFT) build

test: setup
	$(SWIFT) test

# The package as Apple platforms see it (no libcurl; DefaultTransport is URLSessionTransport), in a build folder of its
# own: every product builds, and the suites that go over HTTP on loopback pass over URLSession. The libcurl, TLS and
# hostile-server suites compile to nothing there; the generator's, JSON's and the plugin's do not touch a transport.
test-urlsession: setup
	@echo "Building Bindery without libcurl (BINDERY_NO_CURL=1) into .build/no-curl and running the loopback suites over URLSessionTransport."
	BINDERY_NO_CURL=1 $(SWIFT) build --scratch-path .build/no-curl --build-tests
	BINDERY_NO_CURL=1 $(SWIFT) test --scratch-path .build/no-curl --skip-build \
		--filter 'RuntimeTests|ServiceTests|OneNotePickerTests|InboxOfflineTests'

demo: setup
	@echo "Building and running 'bindery demo': five typed clients against mock servers on 127.0.0.1."
	$(SWIFT) run bindery demo

conformance: setup
	$(SWIFT) run bindery conformance

# Every public library module (the library products, and BinderyJSON, which BinderyRuntime re-exports) has a DocC
# catalog (Sources/<Module>/<Module>.docc). One archive per module goes to
# $(DOCS_OUTPUT)/<Module>.doccarchive; --warnings-as-errors (passed on to docc) makes a broken link or an
# undocumented parameter fail the target. Graph is included: all of Graph v1.0 documents without a warning in about
# two minutes (an archive of about 0.8 GB).
DOCS_OUTPUT := .build/docs
DOC_MODULES := BinderyJSON BinderyRuntime MicrosoftIdentity BinderyMock BinderyServiceMocks OneNotePicker InboxOffline $(SERVICE_NAMES)

docs: setup
	$(SWIFT) package --allow-writing-to-directory $(DOCS_OUTPUT) generate-documentation \
	  $(foreach m,$(DOC_MODULES),--target $(m)) --output-path $(DOCS_OUTPUT) --warnings-as-errors

# Fuzz targets in Fuzz/Fuzz.swift, built into .build-fuzz by scripts/fuzz.sh (see RELIABILITY.md).
FUZZ_SHORT_SECONDS ?= 20

fuzz: setup
	scripts/fuzz.sh

fuzz-short: setup
	scripts/fuzz.sh --short $(FUZZ_SHORT_SECONDS)

# Random OpenAPI documents full of what breaks generators (scripts/fuzz-specs.py). The long run compiles each
# document's module to checked SIL with swiftc, one per core; CI's 200 are one package build. A document is fixed
# by its seed and index, so a finding replays with --first N --count 1, and a long run resumes with FUZZ_SPECS_FIRST.
FUZZ_SPECS_COUNT ?= 100000
FUZZ_SPECS_SEED ?= 1
FUZZ_SPECS_FIRST ?= 0
fuzz-specs: $(GEN)
	$(SWIFT) build --target BinderyRuntime
	scripts/fuzz-specs.py --count $(FUZZ_SPECS_COUNT) --first $(FUZZ_SPECS_FIRST) --batch 1000 \
		--seed $(FUZZ_SPECS_SEED) --compile sil
fuzz-specs-short: $(GEN)
	scripts/fuzz-specs.py --count 200 --seed 1
	$(SWIFT) build --target BinderyRuntime
	scripts/fuzz-specs.py --count 20 --first 200 --seed 1 --compile sil

# Every OpenAPI spec in the folder CORPUS generated and its module built; writes CORPUS.md (scripts/corpus.py).
corpus: setup
	@test -n "$(CORPUS)" || { echo "corpus: error: name the folder of specs: make corpus CORPUS=<folder>" >&2; exit 2; }
	scripts/corpus.py "$(CORPUS)"

# The clients under random faults against the mock (Soak/main.swift); the runtime's log of each failed request
# goes to .build/soak.log, the summary to the terminal.
# The full soak runs in release: a debug build had not finished after 50 minutes (the mock over 100,000 items).
soak: setup
	$(SWIFT) build -c release --product bindery-soak
	$$($(SWIFT) build -c release --show-bin-path)/bindery-soak --items 100000 --requests 10000 2>.build/soak.log
soak-short: setup
	$(SWIFT) build --product bindery-soak
	$$($(SWIFT) build --show-bin-path)/bindery-soak --items 5000 --requests 1000 --seconds 5 2>.build/soak.log

bench: setup
	Benchmarks/run.sh

bench-transport: setup
	Benchmarks/run.sh transport

bench-openapi: setup
	Benchmarks/openapi.sh
bench-inbox: setup
	Benchmarks/run.sh inbox
bench-transfers: setup
	Benchmarks/run.sh transfers
bench-decode: setup
	Benchmarks/run.sh decode

# Our own Swift: everything but generated folders (their layout is the renderer's job) and build folders.
SWIFT_FORMAT ?= swift-format
FORMATTED = $(shell find Package.swift Generator Sources Tests Benchmarks $(wildcard Plugins) -name '*.swift' \
              -not -path '*/Generated/*' -not -path '*/.build*' | sort)

format:
	@$(SWIFT_FORMAT) format --in-place --parallel $(FORMATTED)
	@echo "format: formatted $(words $(FORMATTED)) files (.swift-format)."

check-format:
	@$(SWIFT_FORMAT) lint --strict --parallel $(FORMATTED)
	@echo "check-format: our own Swift is formatted (.swift-format)."

clean:
	rm -rf .build
