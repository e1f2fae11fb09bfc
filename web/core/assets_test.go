package core

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/labstack/echo/v4"
)

func serveAsset(t *testing.T, a *Assets, target string, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	e := echo.New()
	e.GET("/static/*", a.Serve)
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

func TestAssetsRevalidateWithTheirETagAndAnswer304(t *testing.T) {
	script := bytes.Repeat([]byte("console.log('agentry');\n"), 200)
	a := NewAssets(fstest.MapFS{"editor.js": {Data: script}, "style.css": {Data: []byte("body{}")}})

	first := serveAsset(t, a, "/static/editor.js", nil)
	if first.Code != http.StatusOK || !bytes.Equal(first.Body.Bytes(), script) {
		t.Fatalf("first load = %d with %d bytes, want 200 with the file", first.Code, first.Body.Len())
	}
	etag := first.Header().Get("ETag")
	if etag == "" || first.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("headers = %v, want an ETag and Cache-Control no-cache", first.Header())
	}
	if ct := first.Header().Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	again := serveAsset(t, a, "/static/editor.js", http.Header{"If-None-Match": {`W/"x", ` + etag}})
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("revalidation = %d with %d bytes, want 304 and no body", again.Code, again.Body.Len())
	}
	other := serveAsset(t, a, "/static/style.css", http.Header{"If-None-Match": {etag}})
	if other.Code != http.StatusOK || other.Header().Get("ETag") == etag {
		t.Errorf("another file answered %d with ETag %s: each file has its own", other.Code, other.Header().Get("ETag"))
	}
}

func TestAssetsAreGzippedForBrowsersThatAcceptIt(t *testing.T) {
	script := bytes.Repeat([]byte("function f(){return 1}\n"), 500)
	a := NewAssets(fstest.MapFS{"editor.js": {Data: script}})
	rec := serveAsset(t, a, "/static/editor.js", http.Header{"Accept-Encoding": {"gzip, deflate, br"}})
	if rec.Header().Get("Content-Encoding") != "gzip" || rec.Body.Len() >= len(script) {
		t.Fatalf("Content-Encoding %q, %d bytes for a %d-byte file", rec.Header().Get("Content-Encoding"), rec.Body.Len(), len(script))
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	if !bytes.Equal(got, script) {
		t.Error("the gzipped body does not decompress to the file")
	}
	plain := serveAsset(t, a, "/static/editor.js", nil)
	if plain.Header().Get("Content-Encoding") != "" || !bytes.Equal(plain.Body.Bytes(), script) {
		t.Error("a client that does not accept gzip got it anyway")
	}
}

func TestAssetsOutsideTheFolderAreNotFound(t *testing.T) {
	a := NewAssets(Static())
	for _, p := range []string{"/static/nope.js", "/static/../static.go", "/static/%2e%2e/static.go", "/static/"} {
		if rec := serveAsset(t, a, p, nil); rec.Code != http.StatusNotFound {
			t.Errorf("%s = %d, want 404", p, rec.Code)
		}
	}
	if rec := serveAsset(t, a, "/static/htmx.min.js", nil); rec.Code != http.StatusOK {
		t.Errorf("the embedded htmx = %d, want 200", rec.Code)
	}
}
