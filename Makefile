# `make test` is the one command that runs every test, browser tests included.
# It installs what the tests need when it is missing: Debian's chromium (the
# web UI's end-to-end tests drive it through chromedp), Debian's bubblewrap
# (shell.run's sandbox, whose tests try to escape it) and the npm MCP server
# the MCP adapter's tests start with node.

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# MCP servers from npm for the MCP adapter's tests, pinned to a version that
# runs on Debian's node 20, installed outside the repository.
MCP_TEST_DIR := $(HOME)/.cache/agentry-mcp
MCP_EVERYTHING_VERSION := 2026.8.31
export MCP_TEST_NODE_MODULES := $(MCP_TEST_DIR)/node_modules

.PHONY: test deps generate stress

test: deps
	go vet ./...
	go test -count=1 -timeout 20m ./...
	cd trace/otlp/collectortest && go test -count=1 ./... # a module of its own (trace/otlp/doc.go)

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
	@command -v npm >/dev/null 2>&1 || { \
		echo "installing Debian's nodejs and npm for the MCP tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends nodejs npm; }
	@# The MCP adapter's tests run this real server; delegation/tool/mcp/mcptest looks here.
	@test "$$(node -p 'require(process.argv[1]).version' "$(MCP_TEST_DIR)/node_modules/@modelcontextprotocol/server-everything/package.json" 2>/dev/null)" = "$(MCP_EVERYTHING_VERSION)" || { \
		echo "installing @modelcontextprotocol/server-everything@$(MCP_EVERYTHING_VERSION) into $(MCP_TEST_DIR)"; \
		npm install --prefix "$(MCP_TEST_DIR)" --save-exact --no-audit --no-fund --loglevel=error \
			@modelcontextprotocol/server-everything@$(MCP_EVERYTHING_VERSION); }
	go mod download

# generate rewrites the templ components' Go code; its output is committed.
generate:
	go tool templ generate
