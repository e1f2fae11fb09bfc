package sqlite

import (
	"database/sql/driver"
	"strings"

	"modernc.org/sqlite"
)

// foldContainsFunc is the SQL function foldContains registers.
const foldContainsFunc = "agentry_fold_contains"

// SQLite's LIKE and lower() fold ASCII letters only, so "über" would not find
// "ÜBER". The text filter calls this Go function instead, which folds the
// way trace/memory does: strings.ToLower on both sides.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction(foldContainsFunc, 2, foldContains)
}

// foldContains reports (as 1 or 0) whether its first argument contains its
// second, which the caller has already lower-cased, ignoring case.
func foldContains(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	haystack, needle := textArg(args[0]), textArg(args[1])
	if strings.Contains(strings.ToLower(haystack), needle) {
		return int64(1), nil
	}
	return int64(0), nil
}

// textArg reads a TEXT or BLOB argument; NULL and numbers are "".
func textArg(v driver.Value) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}
