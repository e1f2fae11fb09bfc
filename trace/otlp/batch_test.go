package otlp

import "testing"

// A request takes at most BatchSize spans and, past the first span, no
// more than maxRequestBytes: a gRPC collector refuses messages over 4 MiB
// by default, and captured content makes spans of any size.
func TestRequestCutsAtSpansAndBytes(t *testing.T) {
	var b batch
	for _, size := range []int{100, 100, maxRequestBytes - 150, 100, 3 * maxRequestBytes, 100, 100} {
		b.buf = append(b.buf, make([]byte, size)...)
		b.ends = append(b.ends, len(b.buf))
	}
	var got []int
	for first, from := 0, 0; first < len(b.ends); {
		n, to := b.request(first, from, 3)
		if to != b.ends[first+n-1] {
			t.Fatalf("request(%d) ends at %d, want %d", first, to, b.ends[first+n-1])
		}
		got = append(got, n)
		first, from = first+n, to
	}
	want := []int{2, 2, 1, 2} // 200 B; over 2 MiB with the third: cut; 2 MiB-50 B; one huge span alone; the rest
	if len(got) != len(want) {
		t.Fatalf("requests = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("requests = %v, want %v", got, want)
		}
	}
}
