#!/bin/sh
# Prints the commits after $1 (a tag or commit; default: the last 20), one
# "- subject (short hash)" line each, newest first, without merges.
set -eu
range="${1:+$1..HEAD}"
if [ -z "$range" ]; then
	range="-20"
fi
git log --no-merges --pretty='- %s (%h)' $range
