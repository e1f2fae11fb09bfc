// Package storekit is what every trace store shares beyond the contract in
// trace: the checks Apply makes, run paging (the cursor's form and page
// sizes) and the stored form of span events. trace/memory, trace/sqlite
// and trace/postgres use it so that one definition serves all three; it is
// internal because callers of a store see a cursor as an opaque string.
package storekit
