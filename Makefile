# dit: camera-card offload. `make demo` runs the reference job on generated
# cards; `make test` runs every test. Both need only Go and make.
GO       ?= go
BIN      := bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS  := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(BUILD_DATE)
# Release builds (make dist, make install): no file paths of this machine,
# no symbol table or DWARF (about a third smaller).
RELEASE_FLAGS := -trimpath -ldflags "-s -w $(LDFLAGS)"
# Packages with concurrency: run under the race detector when cgo works.
# The longest first (ui, internal/offload): go test starts packages in
# the order they are named, and one of them started last ran alone at
# the end of the stage (see TEST_FIRST).
RACE_PKGS := ./ui/... ./internal/offload/... ./internal/catalog/... ./raid/... ./internal/cloud/... ./cmd/dit/internal/... ./internal/hashing/... ./internal/serve/... ./internal/sched/... ./internal/source/... ./internal/format/ascmhl/...
DEMO_SIZE ?= 2GB
# The demo simulates the set (CFast readers, Thunderbolt array) at this
# fraction of the field rates, so a small machine keeps up.
DEMO_SCALE ?= 0.1

.PHONY: all build test test-short test-e2e testcount race lint cross dist install uninstall demo bench clean gui-deps gui gui-shot

all: build

build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/dit ./cmd/dit
	$(GO) build -o $(BIN)/ditbench ./cmd/ditbench

# go test runs under cmd/testcount: the same output as plain go test, then
# how many tests ran, passed, failed and were skipped (and which were
# skipped, and why); a failure still fails make. The summary lines of both
# runs are printed again at the end.
TESTCOUNT := $(BIN)/testcount
SUMMARY   := $(BIN)/test-summary.txt

# Both stages run even when the first fails (its failures are not hidden
# by a missing race stage); make test fails if either did. The end-to-end
# suite is split into packages under cmd/dit/e2e/ (they share one build of
# the binary and each runs in a few minutes; go test runs packages in
# parallel, as many as there are cores): -timeout is per package, far
# above the longest (cmd/dit/e2e/crash/seal, about 4 minutes on a loaded
# 2-core machine). The cross-compile check (make cross) and the release
# archives (make dist) are CI steps of their own (.ci/run), not part of
# make test. Both stages run with -vet=off: make lint, which
# runs first, has vetted every package in full (go test's own vet is a
# subset of it). The first stage runs TEST_P packages at once, one more
# than the machine has cores (go test's default is as many): the
# end-to-end packages spend about half their time waiting on the programs
# they start (dit, rclone, the S3 server, ffmpeg), so one a core leaves
# the cores idle (docs/testing.md).
TEST_P ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))
# The first stage's longest packages, longest first, then ./... (go test
# runs each package once). go test starts packages in the order they are
# named, ./... in import-path order, which put ui, the longest (2 to 2.5
# minutes), last: it ran alone at the end of the stage with a core idle.
# Named first, the long ones overlap and the short ones fill in at the end
# (docs/testing.md). Same tests, same flags; only the order changes.
TEST_FIRST ?= ./ui/ ./cmd/dit/e2e/array/ ./internal/offload/ ./cmd/dit/e2e/reports/ ./cmd/dit/e2e/frontends/ ./cmd/dit/e2e/cloud/ ./cmd/dit/e2e/cascade/ ./cmd/dit/e2e/faults/ ./reports/jobreport/ ./cmd/dit/e2e/mhl/
# The summary ends with each stage's wall time and the whole (lint
# included), so a CI log says what make test took.
test: testcount
	@rm -f $(SUMMARY)
	@rc=0; t0=$$(date +%s); \
	$(MAKE) --no-print-directory lint || rc=1; t1=$$(date +%s); \
	echo 'CGO_ENABLED=0 go test -json -vet=off -count=1 -p $(TEST_P) -timeout 25m $(TEST_FIRST) ./...'; \
	CGO_ENABLED=0 ./$(TESTCOUNT) -label "go test ./..." -append $(SUMMARY) -- $(GO) test -json -vet=off -count=1 -p $(TEST_P) -timeout 25m $(TEST_FIRST) ./... || rc=1; \
	t2=$$(date +%s); \
	$(MAKE) --no-print-directory race || rc=1; t3=$$(date +%s); \
	el() { echo "$$(( $$1 / 60 )) min $$(( $$1 % 60 )) s"; }; \
	echo "== wall time: lint $$(el $$((t1-t0))), go test ./... $$(el $$((t2-t1))), go test -race $$(el $$((t3-t2))); make test $$(el $$((t3-t0))) on $$(nproc 2>/dev/null || echo '?') cores" >> $(SUMMARY); \
	echo; echo "== make test:"; cat $(SUMMARY); exit $$rc

# The quick loop: go test -short of every package. Under -short no test
# builds a binary, installs a package or starts an outside program or
# server (internal/testneeds): the end-to-end tests (cmd/dit/e2e/, and
# those needing ffmpeg, rclone, moto, PostgreSQL, a browser, a pip
# package) skip, saying so. Nothing outside is used, so go test's cache
# is sound here: an unchanged package's result is its cached one.
test-short: testcount
	CGO_ENABLED=0 ./$(TESTCOUNT) -label "go test -short" -- $(GO) test -json -short ./...

# Only the end-to-end suite (or one group: make test-e2e E2E=./cmd/dit/e2e/mhl/).
E2E ?= ./cmd/dit/e2e/...
test-e2e: testcount
	CGO_ENABLED=0 ./$(TESTCOUNT) -label "go test (end-to-end)" -- $(GO) test -json -count=1 -timeout 25m $(E2E)

testcount:
	@mkdir -p $(BIN) && CGO_ENABLED=0 $(GO) build -o $(TESTCOUNT) ./cmd/testcount

# The race detector needs cgo and a C compiler; say so rather than skip silently.
race: testcount
	@if command -v gcc >/dev/null 2>&1; then \
		echo "go test -race $(RACE_PKGS)"; \
		CGO_ENABLED=1 ./$(TESTCOUNT) -label "go test -race" -append $(SUMMARY) -- $(GO) test -json -vet=off -race -short -count=1 -timeout 25m $(RACE_PKGS); \
	else echo "race: no C compiler here, skipping go test -race (install gcc)"; \
		echo "== go test -race: skipped (no C compiler)" >> $(SUMMARY); fi

# make lint (part of make test): gofmt, go vet, staticcheck (pinned in
# go.mod as a tool; staticcheck.conf says which checks are off where, and
# why), and cmd/sizecheck: no new non-test function over 120 lines, Go
# file over 700 or struct over 20 fields, and none of those listed in
# .ci/size-debt.txt grown (it
# prints the list). Under a minute once the build cache is warm.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	CGO_ENABLED=0 $(GO) vet ./...
	CGO_ENABLED=0 $(GO) tool staticcheck ./...
	CGO_ENABLED=0 $(GO) run ./cmd/sizecheck -debt .ci/size-debt.txt

# Cross-compile check (a CI step of its own in .ci/run, not part of make
# test; a build and a vet, no tests): every package but the desktop app's
# (Fyne; not built for Windows), tests included, type-checks for Windows,
# and the CLI builds for macOS on Apple silicon. The Linux and macOS amd64
# and Linux arm64 CLIs share their code with these; make dist builds all.
# -trimpath as make dist builds: what this compiles, make dist finds in
# the build cache. About 3 minutes with an empty Go build cache on 2
# cores, seconds once cached.
CROSS_PKGS = $(shell $(GO) list ./... | grep -v -e /ui -e /cmd/dit-gui)
cross:
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) vet -trimpath $(CROSS_PKGS)
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -trimpath -o /dev/null ./cmd/dit

# Release archives of the CLI in dist/: dit-VERSION-OS-ARCH.tar.gz (.zip for
# Windows), each with the binary, LICENSE, README.txt, the man pages (man/,
# one per command) and the shell completions (completions/: bash, zsh, fish,
# PowerShell), and SHA256SUMS. The pages and completions are generated once
# by a build for this machine (as make install does; they are the same for
# every platform). The version is git describe's; commit and build date are
# stamped too (dit version). See docs/install.md.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
DIST      := dist
DISTGEN   := $(DIST)/gen
dist:
	@rm -rf $(DIST) && mkdir -p $(DIST)/stage $(DISTGEN)/man $(DISTGEN)/completions
	@echo "== man pages and shell completions"
	@CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(DISTGEN)/dit ./cmd/dit
	@env -u DIT_DB -u DIT_STATION -u DIT_SYNC_TO $(DISTGEN)/dit gen-docs $(DISTGEN)/man
	@$(DISTGEN)/dit completion bash > $(DISTGEN)/completions/dit.bash
	@$(DISTGEN)/dit completion zsh > $(DISTGEN)/completions/_dit
	@$(DISTGEN)/dit completion fish > $(DISTGEN)/completions/dit.fish
	@$(DISTGEN)/dit completion powershell > $(DISTGEN)/completions/dit.ps1
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		name=dit-$(VERSION)-$$os-$$arch; d=$(DIST)/stage/$$name; mkdir -p $$d; \
		echo "== $$name"; \
		GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) build $(RELEASE_FLAGS) -o $$d/dit$$ext ./cmd/dit; \
		cp LICENSE $$d/LICENSE; \
		cp -R $(DISTGEN)/man $$d/man; cp -R $(DISTGEN)/completions $$d/completions; \
		printf '%s\n' "dit $(VERSION) ($$os/$$arch, commit $(COMMIT), built $(BUILD_DATE))" "" \
			"dit offloads camera cards: one read, inline hashes, read-back verification." \
			"Put dit$$ext on your PATH, then run: dit --help" "" \
			"man/: the man pages (man ./man/dit.1); completions/: bash (dit.bash), zsh (_dit)," \
			"fish (dit.fish) and PowerShell (dit.ps1) completion scripts." \
			"Install, shell completions, man pages and platform notes: docs/install.md" \
			"in the source, https://github.com/dit-org/dit (License: LICENSE)." > $$d/README.txt; \
		if [ $$os = windows ]; then \
			if command -v zip >/dev/null; then (cd $(DIST)/stage && zip -qrX ../$$name.zip $$name); \
			else (cd $(DIST)/stage && python3 -m zipfile -c ../$$name.zip $$name); fi; \
		else tar -C $(DIST)/stage -czf $(DIST)/$$name.tar.gz $$name; fi; \
	done
	@rm -rf $(DIST)/stage $(DISTGEN)
	@cd $(DIST) && if command -v sha256sum >/dev/null; then sha256sum dit-*; else shasum -a 256 dit-*; fi > SHA256SUMS
	@echo "== $(DIST)/"; cd $(DIST) && ls -l dit-* SHA256SUMS && cat SHA256SUMS

# make install: the CLI into $(PREFIX)/bin, its man pages into
# $(PREFIX)/share/man/man1 and bash, zsh and fish completions where those
# shells look under $(PREFIX). PREFIX is /usr/local as root, else
# ~/.local (no sudo needed; put ~/.local/bin on PATH). DESTDIR stages a
# package. Generated pages and completions live in bin/, never in git.
PREFIX ?= $(if $(filter 0,$(shell id -u)),/usr/local,$(HOME)/.local)
GEN    := $(BIN)/gen
install:
	@mkdir -p $(GEN)/man $(GEN)/completions
	CGO_ENABLED=0 $(GO) build $(RELEASE_FLAGS) -o $(GEN)/dit ./cmd/dit
	rm -f $(GEN)/man/*.1 && env -u DIT_DB -u DIT_STATION -u DIT_SYNC_TO $(GEN)/dit gen-docs $(GEN)/man
	$(GEN)/dit completion bash > $(GEN)/completions/dit.bash
	$(GEN)/dit completion zsh > $(GEN)/completions/_dit
	$(GEN)/dit completion fish > $(GEN)/completions/dit.fish
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0755 $(GEN)/dit $(DESTDIR)$(PREFIX)/bin/dit
	install -m 0644 $(GEN)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(GEN)/completions/dit.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dit
	install -m 0644 $(GEN)/completions/_dit $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_dit
	install -m 0644 $(GEN)/completions/dit.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/dit.fish
	@echo "installed dit $(VERSION) in $(DESTDIR)$(PREFIX)/bin (man dit; completions for bash, zsh, fish)"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/dit $(DESTDIR)$(PREFIX)/share/man/man1/dit.1 $(DESTDIR)$(PREFIX)/share/man/man1/dit-*.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/dit $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_dit \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/dit.fish

# The reference job: two generated cards offloaded at once to a 4-blade
# RAID 4 array made in the temp folder plus one plain folder, verified,
# summary with TB/hour.
demo: build
	@d=$$(mktemp -d "$${TMPDIR:-/tmp}/dit-demo.XXXXXX"); \
	echo "== generating two $(DEMO_SIZE) cards in $$d/cards (real clips where ffmpeg is installed)"; \
	./$(BIN)/dit testdata cards --out "$$d/cards" --cards 2 --size $(DEMO_SIZE) --seed 1 --video || exit 1; \
	mkdir -p "$$d/blade1" "$$d/blade2" "$$d/blade3" "$$d/blade4" "$$d/shuttle"; \
	printf '%s\n' "# the demo set: two CFast readers on one 10 Gbit/s bus, the array on Thunderbolt 3" \
		"buses:" "  - {name: usb-a, kind: usb3.2-gen2}" "  - {name: tb-1, kind: tb3}" "  - {name: usb-b, kind: usb3.2-gen2x2}" \
		"sources:" "  - {name: A001, media: cfast2, bus: usb-a}" "  - {name: A002, media: cfast2, bus: usb-a}" \
		"destinations:" "  - {name: blade1, bus: tb-1, kind: nvme-raid4-tb3}" "  - {name: shuttle, bus: usb-b, kind: ssd-usb-20g}" \
		> "$$d/set.yaml"; \
	echo "== dit array create --level 4 blade1..blade4"; \
	./$(BIN)/dit array create --level 4 --label demo-raid "$$d/blade1" "$$d/blade2" "$$d/blade3" "$$d/blade4" || exit 1; \
	echo "== dit plan --topology set.yaml --simulate --simulate-scale $(DEMO_SCALE) -d blade1 -d shuttle A001 A002   (the plan of the run below)"; \
	./$(BIN)/dit plan --db "$$d/catalog.db" --topology "$$d/set.yaml" --hash xxh64,md5 --simulate --simulate-scale $(DEMO_SCALE) \
		-d "$$d/blade1" -d "$$d/shuttle" "$$d/cards/A001" "$$d/cards/A002" || exit 1; \
	echo "== dit offload --topology set.yaml --simulate --simulate-scale $(DEMO_SCALE) -d $$d/blade1 -d $$d/shuttle A001 A002"; \
	./$(BIN)/dit offload --db "$$d/catalog.db" --name demo --hash xxh64,md5 --topology "$$d/set.yaml" --simulate --simulate-scale $(DEMO_SCALE) \
		-d "$$d/blade1" -d "$$d/shuttle" "$$d/cards/A001" "$$d/cards/A002"; rc=$$?; \
	echo; ./$(BIN)/dit jobs --db "$$d/catalog.db"; \
	echo; ./$(BIN)/dit array status "$$d/blade1"; \
	echo; echo "Cards:   $$d/cards"; echo "Array:   $$d/blade1..4 (dit array ls $$d/blade1; dit array extract $$d/blade1 --to DIR)"; \
	echo "Copies:  $$d/shuttle/demo"; \
	echo "Catalog: $$d/catalog.db (try: ./$(BIN)/dit job show 1 --db $$d/catalog.db)"; \
	echo "Proof:   an ASC MHL history in each card folder (try: ./$(BIN)/dit mhl verify $$d/shuttle/demo/A001)"; \
	echo "Remove it all with: rm -rf $$d"; \
	echo; echo "== dit report 1 --format pdf; dit report 1 --format html"; \
	./$(BIN)/dit report 1 --db "$$d/catalog.db" --format pdf --out "$$d/report.pdf" >/dev/null || exit 1; \
	./$(BIN)/dit report 1 --db "$$d/catalog.db" --format html --out "$$d/report.html" >/dev/null || exit 1; \
	echo "PDF report:  $$d/report.pdf"; echo "HTML report: $$d/report.html"; exit $$rc

# Whole-process benchmark against the naive way and ocopy (installed into a
# venv from PyPI), plus the Go micro-benchmarks, a mid-file resume at 80 %
# against a full copy (BenchmarkMidFileResume: medians of the ratios of
# bytes read and CPU over 3 iterations), dit speedtest against fio, and the
# catalog at scale (ditcatbench: a catalog of 1.08 million file rows, built
# once into .cache/catbench and reused the same day; ~600 MB; PostgreSQL
# too when its Debian package is installed), and an offload's rate beside a
# proxy job (ditproxybench: alone, beside dit --proxies, beside ffmpeg at
# normal priority; median of 3).
BENCH_VENV := .cache/bench-venv
bench: build
	@if [ ! -x $(BENCH_VENV)/bin/ocopy ]; then \
		python3 -m venv $(BENCH_VENV) && $(BENCH_VENV)/bin/pip install -q ocopy==0.9.2 || \
		echo "bench: could not install ocopy; comparing with the naive way only"; fi
	$(GO) test -run '^$$' -bench . -benchtime 20x ./internal/hashing/
	$(GO) test -run '^$$' -bench Encode -benchtime 50x -count 3 ./raid/
	$(GO) test -run '^$$' -bench FramesSlowFlush -benchtime 5x -count 3 ./internal/offload/
	$(GO) test -run '^$$' -bench MidFileResume -benchtime 3x ./internal/offload/
	./$(BIN)/ditbench -dit $(BIN)/dit -ocopy $(BENCH_VENV)/bin/ocopy -runs 5
	$(GO) run ./cmd/ditmd5bench -dit $(BIN)/dit
	$(GO) run ./cmd/ditplanbench -dit $(BIN)/dit
	$(GO) run ./cmd/ditetabench -dit $(BIN)/dit
	$(GO) run ./cmd/ditspeedbench -dit $(BIN)/dit -size 4GB
	$(GO) run ./cmd/ditcatbench -dit $(BIN)/dit -db .cache/catbench/catalog.db
	$(GO) run ./cmd/ditmembench -dit $(BIN)/dit $(MEMBENCH_FLAGS)
	$(GO) run ./cmd/ditproxybench -dit $(BIN)/dit -rounds 3
	$(GO) run ./cmd/ditcloudbench -dit $(BIN)/dit -size 145MB -runs 5
	$(GO) run ./cmd/ditcloudbench -dit $(BIN)/dit -style large -size 1GB -runs 5
	$(GO) run ./cmd/ditcloudbench -dit $(BIN)/dit -resume -size 145MB -runs 5
	$(GO) run ./cmd/ditcloudbench -dit $(BIN)/dit -resume -style large -size 1GB -runs 5

# The desktop app, dit-gui (Fyne: cgo with the X11/OpenGL headers). Not
# part of `make test`, which needs none of it (the UI tests use Fyne's test
# driver). gui-deps installs the Debian/Ubuntu build and screenshot
# packages (apt as root or with sudo; nothing when they are there); on
# macOS the Xcode command line tools are enough. The first build compiles
# OpenGL and GLFW with cgo (~3 minutes on 2 cores); later ones take seconds.
GUI_SHOT_DIR ?= docs
gui-deps:
	FYNE_X11_ONLY=1 .ci/setup-fyne-deps.sh test

gui:
	CGO_ENABLED=1 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/dit-gui ./cmd/dit-gui

# dit-gui under Xvfb running its simulated demo job (dit-gui --demo):
# screenshots of the running job in the light and the dark theme and of a
# failed job (--demo-fail) go to $(GUI_SHOT_DIR) (the README shows them),
# the three taken at once, each on a display of its own. Meanwhile the
# views the ui tests draw, in both themes at 1280x800: the tiles of 1, 2,
# 4 and 8 cards (running, failed, stalled, done: ui/testdata/
# tiles-*.png, the golden images the tests compare with, and
# docs/gui-tiles-4-*.png) and the retry and stall screens
# (docs/gui-retry-*.png, docs/gui-stalled-*.png), written again for a
# person to look at (git diff shows what changed).
gui-shot: gui
	@set -e; \
	GUI_SHOT_DISPLAY=99 .ci/gui-shot.sh $(BIN)/dit-gui $(GUI_SHOT_DIR)/gui-running-light.png 30 light & a=$$!; \
	GUI_SHOT_DISPLAY=109 .ci/gui-shot.sh $(BIN)/dit-gui $(GUI_SHOT_DIR)/gui-running-dark.png 30 dark & b=$$!; \
	GUI_SHOT_DISPLAY=119 .ci/gui-shot.sh $(BIN)/dit-gui $(GUI_SHOT_DIR)/gui-failed.png 60 light --demo-fail --demo-size 200MB & c=$$!; \
	(cd ui && CGO_ENABLED=0 $(GO) test -count=1 -run '^(TestGoldenTiles|TestScreenshots)$$' . -args -tiles -shots); \
	wait $$a; wait $$b; wait $$c

clean:
	rm -rf $(BIN) .cache $(DIST)
