# `make test` is the one command that runs every test, browser tests included.
# It installs what the tests need when it is missing: Debian's chromium (the
# web UI's end-to-end tests drive it through chromedp).

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: test deps generate

test: deps
	go vet ./...
	go test -count=1 -timeout 20m ./...

deps:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium fonts-liberation; }
	go mod download

# generate rewrites the templ components' Go code; its output is committed.
generate:
	go tool templ generate
