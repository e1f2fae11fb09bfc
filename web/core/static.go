package core

import (
	"embed"
	"io/fs"
)

// staticFS holds htmx 2.0.11 (htmx.min.js, unmodified), the stylesheets and the
// small scripts of the UI. They are embedded so the binary is the whole app.
//
//go:embed static
var staticFS embed.FS

// Static is the UI's assets, served under /static/.
func Static() fs.FS {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embedded folder is part of the binary
	}
	return sub
}
