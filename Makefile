# `make test` is the one command that runs every test, browser tests included.
# It installs what the tests need when it is missing: Debian's chromium (the
# web UI's end-to-end tests drive it through chromedp), Debian's bubblewrap
# (shell.run's sandbox, whose tests try to escape it), the npm MCP server
# the MCP adapter's tests start with node, the npm clients (MCP's TypeScript
# SDK and Inspector, A2A's JS SDK) that test agentry's MCP server, A2A and
# API, and Debian's postgresql, whose
# pg_virtualenv runs the tests beside a throwaway PostgreSQL cluster (it sets
# PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE for trace/postgres/pgtest).
# REQUIRE_POSTGRES=1 makes the PostgreSQL tests fail, not skip, if the
# cluster is not reachable. The Temporal engine's end-to-end test starts a
# real Temporal server, built once into ~/.cache (make temporal-server);
# REQUIRE_TEMPORAL=1 makes it fail, not skip, without one.

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# MCP servers from npm for the MCP adapter's tests, pinned to a version that
# runs on Debian's node 20, installed outside the repository.
MCP_TEST_DIR := $(HOME)/.cache/agentry-mcp
MCP_EVERYTHING_VERSION := 2026.8.31
export MCP_TEST_NODE_MODULES := $(MCP_TEST_DIR)/node_modules

# The clients that are not agentry's own, which the MCP server, A2A and API
# tests drive with node (web/clienttest looks here): the official MCP
# TypeScript SDK, the MCP Inspector (its CLI mode) and the A2A JS SDK,
# pinned to versions that run on Debian's node 20.
CLIENTS_TEST_DIR := $(HOME)/.cache/agentry-clients
CLIENTS := @modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/inspector@2.12.0 @a2a-js/sdk@1.3.0
export TEST_CLIENTS_NODE_MODULES := $(CLIENTS_TEST_DIR)/node_modules

# The Temporal server for delegation/temporal's end-to-end test, built once
# outside the repository. Server versions >= 1.31 need Go >= 1.26.10, hence
# the toolchain for this install only; the module itself stays on Go 1.26.
TEMPORAL_SERVER_VERSION := v1.32.2
TEMPORAL_BIN_DIR := $(HOME)/.cache/agentry-temporal/bin
export TEMPORAL_SERVER_BIN := $(TEMPORAL_BIN_DIR)/server

.PHONY: build test deps generate stress editor temporal-server

# build writes ./agentry, the release binary: no file system paths
# (-trimpath), no symbol table or DWARF (-s -w), statically linked
# (CGO_ENABLED=0: the SQLite driver is pure Go), and the version stamped
# into main.version (shown by agentry --version). VERSION defaults to
# git describe; set it to stamp another: make build VERSION=v1.2.0.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
build:
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o agentry ./cmd/agentry
	@ls -l agentry && ./agentry --version

# RACE_PKGS run a second time under the race detector (make test's last Go
# step): the packages whose own code shares memory across goroutines —
# parallel delegations and their scheduler, orchestrator and controls (the
# in-process engine), the A2A client's streams, the span Recorder and the
# in-memory store it is tested against, approvals, the folder's fsnotify
# watcher, the permission checks the delegations share. Chosen for cost:
# their dependencies build once more with -race in about 2.5 minutes from an
# empty build cache on this 2-core machine (20s with a warm one). Left out,
# though concurrent, because each adds minutes: web/ and cmd/ (echo, templ,
# chromium-driven tests: web/runs alone ran 3 minutes), trace/sqlite and
# trace/postgres (modernc's SQLite built with -race), delegation/temporal
# (the Temporal SDK, and 4 minutes of test). The whole suite ran clean under
# -race in November 2026; run it so after concurrent changes:
#   go test -race -count=1 -timeout 30m ./...
RACE_PKGS := ./delegation ./delegation/sched ./delegation/orchestrator ./delegation/control \
	./delegation/a2a ./trace ./trace/memory ./trace/approval ./registry/folder ./permissions

test: deps temporal-server
	go vet ./...
	go tool staticcheck ./... # pinned in go.mod's tool block, like templ
	REQUIRE_POSTGRES=1 REQUIRE_TEMPORAL=1 pg_virtualenv -t go test -count=1 -timeout 20m ./...
	go test -race -count=1 -timeout 20m $(RACE_PKGS)
	cd trace/otlp/collectortest && go test -count=1 ./... # a module of its own (trace/otlp/doc.go)

temporal-server:
	@test -x "$(TEMPORAL_SERVER_BIN)" || { \
		echo "building the Temporal server $(TEMPORAL_SERVER_VERSION) once into $(TEMPORAL_BIN_DIR) (a few minutes)"; \
		GOBIN="$(TEMPORAL_BIN_DIR)" GOTOOLCHAIN=go1.27.3 go install go.temporal.io/server/cmd/server@$(TEMPORAL_SERVER_VERSION); }

# stress runs the stress suite (issue 12): Go tests named TestStress... in
# files built only with the stress tag, each doing at scale what once broke.
stress: deps
	go test -tags stress -run Stress -count=1 -timeout 30m ./...

deps:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium fonts-liberation; }
	@command -v bwrap >/dev/null 2>&1 || { \
		echo "installing Debian's bubblewrap for shell.run's sandbox and its tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends bubblewrap; }
	@test -f /usr/share/bash-completion/bash_completion || { \
		echo "installing Debian's bash-completion for the completion script's test"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends bash-completion; }
	@command -v npm >/dev/null 2>&1 || { \
		echo "installing Debian's nodejs and npm for the MCP tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends nodejs npm; }
	@# The MCP adapter's tests run this real server; delegation/tool/mcp/mcptest looks here.
	@test "$$(node -p 'require(process.argv[1]).version' "$(MCP_TEST_DIR)/node_modules/@modelcontextprotocol/server-everything/package.json" 2>/dev/null)" = "$(MCP_EVERYTHING_VERSION)" || { \
		echo "installing @modelcontextprotocol/server-everything@$(MCP_EVERYTHING_VERSION) into $(MCP_TEST_DIR)"; \
		npm install --prefix "$(MCP_TEST_DIR)" --save-exact --no-audit --no-fund --loglevel=error \
			@modelcontextprotocol/server-everything@$(MCP_EVERYTHING_VERSION); }
	@# The MCP server's, A2A's and the API's tests drive these clients; web/clienttest looks here.
	@for p in $(CLIENTS); do \
		test "$$(node -p 'require(process.argv[1]).version' "$(CLIENTS_TEST_DIR)/node_modules/$${p%@*}/package.json" 2>/dev/null)" = "$${p##*@}" || { \
			echo "installing $(CLIENTS) into $(CLIENTS_TEST_DIR)"; \
			npm install --prefix "$(CLIENTS_TEST_DIR)" --save-exact --no-audit --no-fund --loglevel=error $(CLIENTS); \
			break; }; \
	done
	@command -v pg_virtualenv >/dev/null 2>&1 || { \
		echo "installing Debian's postgresql for the PostgreSQL trace store's tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends postgresql; }
	go mod download

# generate rewrites the templ components' Go code; its output is committed.
generate:
	go tool templ generate

# editor rebuilds web/core/static/editor.js, the one generated file committed
# besides templ's output: CodeMirror 6 from npm, versions pinned by
# web/core/editor/package-lock.json, installed outside the repository and
# bundled by esbuild into one minified script, so users need no build step.
EDITOR_NPM_DIR := $(HOME)/.cache/agentry-editor
editor:
	@command -v npm >/dev/null 2>&1 || { \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends nodejs npm; }
	mkdir -p "$(EDITOR_NPM_DIR)"
	cp web/core/editor/package.json web/core/editor/package-lock.json "$(EDITOR_NPM_DIR)/"
	cd "$(EDITOR_NPM_DIR)" && npm ci --no-audit --no-fund --loglevel=error
	NODE_PATH="$(EDITOR_NPM_DIR)/node_modules" "$(EDITOR_NPM_DIR)/node_modules/.bin/esbuild" web/core/editor/src/main.js \
		--bundle --minify --format=iife --target=es2020 --legal-comments=none --log-level=warning \
		--banner:js="/* Generated by make editor from web/core/editor (CodeMirror 6, MIT). Do not edit. */" \
		--outfile=web/core/static/editor.js
	@ls -l web/core/static/editor.js
