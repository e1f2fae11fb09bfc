#!/bin/sh
# Pretends to fill a form: prints what it was given.
echo "filled $1 with $2"
