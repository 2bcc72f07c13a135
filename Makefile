# adi: the two commands a new user needs are `make demo` and `make test`; both call `make deps`
# (what running adi needs: a python with debugpy), and the tests and benchmarks also `make
# test-deps` (pytest, sympy, Node.js, chromium and the npm suites); `make bench` also installs the
# seven Debian-packaged libraries of its real-repository table (scripts/deps.sh bench). They only
# install what is missing.
GO      ?= go
BIN     := bin/adi
PYTHON  ?= /usr/bin/python3
# Extra interpreters the probe's unit tests also run on when present (pyenv on these machines):
# the whole suite on the oldest and newest adi supports (3.6 to 3.13; about 40 s each), its FLT
# and calls tests (PROBE_SMALL_TESTS, about 8 s) on the ones between.
EXTRA_PYTHONS ?= $(wildcard $(foreach v,3.6 3.12 3.13,/root/.pyenv/versions/$(v).*/bin/python3))
SMALL_PYTHONS ?= $(wildcard $(foreach v,3.7 3.8 3.9 3.10,/root/.pyenv/versions/$(v).*/bin/python3))
PROBE_SMALL_TESTS := tests.test_flt tests.test_calls
FUZZTIME ?= 5s

.PHONY: all deps test-deps build demo test test-go test-probe lint cross dist test-dist fuzz-short bench clean

all: build

deps:
	@scripts/deps.sh runtime

test-deps:
	@scripts/deps.sh

# Two binaries, both needed, side by side in bin/: adi, the thin command line (what agents type;
# it links no server code, so a navigation command starts in about a millisecond and a half), and
# adi-server, the full adi, which adi runs for serve, mcp, dap, demo and doctor and starts as its
# daemon. Built without cgo: a static binary starts about 1 ms sooner (no dynamic loader, no libc).
build:
	CGO_ENABLED=0 $(GO) build -o bin/ ./cmd/adi ./cmd/adi-server

demo: deps build
	$(BIN) demo

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...

# macOS builds (from platform files: *_linux.go, *_darwin.go) and the thin adi's Windows stub
# build and vet from here, without a Mac (CGO_ENABLED=0 cross-compilation).
cross:
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) build ./cmd/...
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) vet ./cmd/adi

# Release files in dist/: per platform (linux, darwin × amd64, arm64) a wheel of adi-bridge (the
# two binaries, pip-installable without Go) and a tarball of the binaries, and SHA256SUMS.
# The version is the file VERSION's (the release tag is v$(VERSION)). scripts/dist.py.
dist:
	GO=$(GO) $(PYTHON) scripts/dist.py

# Installs this machine's wheel into a fresh venv and for the user, offline, and checks the
# commands' exact outputs (about 20 s once the build is cached). scripts/test-dist.sh.
test-dist: deps
	@scripts/deps.sh dist
	GO=$(GO) scripts/test-dist.sh

test-go:
	$(GO) test -count=1 -timeout 20m ./...

test-probe:
	@for py in $(PYTHON) $(EXTRA_PYTHONS); do \
	  echo "probe unit tests on $$py"; \
	  (cd probe/python && $$py -m unittest discover -s tests -t . -q) || exit 1; \
	done
	@for py in $(SMALL_PYTHONS); do \
	  echo "probe FLT and calls tests on $$py"; \
	  (cd probe/python && $$py -m unittest -q $(PROBE_SMALL_TESTS)) || exit 1; \
	done

fuzz-short:
	@scripts/fuzz.sh $(FUZZTIME)

test: deps test-deps lint cross test-go test-dist test-probe fuzz-short

# Its real-bugs table runs the reference tool beside adi when ADI_REFERENCE names the ADI
# artifact's src/ directory (docs/benchmarks.md); without it those columns are skipped.
bench: deps build
	@scripts/deps.sh bench
	@scripts/bench.sh

clean:
	rm -rf bin dist
