package core

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// asset is one embedded file ready to serve: embedded files carry no
// modification time, so without a content ETag every page load would fetch
// editor.js (600 KB) again; the gzipped copy is made once, not per request.
type asset struct {
	body, gz    []byte
	etag, ctype string
}

// Assets serves the embedded static files under /static/ with a strong
// ETag (a revalidation answers 304 with no body) and gzip for browsers that
// accept it. Cache-Control no-cache keeps every load current after an
// upgrade while costing one small request per file.
type Assets struct {
	fsys  fs.FS
	mu    sync.Mutex
	files map[string]*asset
}

// NewAssets serves fsys (normally Static()).
func NewAssets(fsys fs.FS) *Assets {
	return &Assets{fsys: fsys, files: map[string]*asset{}}
}

// File serves one asset at a path of its own: /favicon.ico, which browsers
// ask for whatever the page links, is the favicon.svg the layout links.
func (a *Assets) File(name string) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.SetParamNames("*")
		c.SetParamValues(name)
		return a.Serve(c)
	}
}

// Serve is the echo handler for GET /static/*.
func (a *Assets) Serve(c echo.Context) error {
	name := path.Clean(strings.TrimPrefix(c.Param("*"), "/"))
	f, err := a.load(name)
	if err != nil {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	h.Set("ETag", f.etag)
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept-Encoding")
	if etagMatches(c.Request().Header.Get("If-None-Match"), f.etag) {
		return c.NoContent(http.StatusNotModified)
	}
	body := f.body
	if f.gz != nil && strings.Contains(c.Request().Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	return c.Blob(http.StatusOK, f.ctype, body)
}

func (a *Assets) load(name string) (*asset, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f, ok := a.files[name]; ok {
		return f, nil
	}
	body, err := fs.ReadFile(a.fsys, name)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(body)
	f := &asset{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, ctype: mime.TypeByExtension(path.Ext(name))}
	if f.ctype == "" {
		f.ctype = http.DetectContentType(body)
	}
	if gz := gzipped(body); len(gz) < len(body) {
		f.gz = gz
	}
	a.files[name] = f
	return f, nil
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// etagMatches reports whether an If-None-Match header names etag (a list,
// weak forms and * included, as RFC 9110 §13.1.2 allows).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}
