#!/bin/sh
# Blocks every shell command while enabled, and says so.
echo "docs plugin hook saw a shell command" >&2
exit 2
