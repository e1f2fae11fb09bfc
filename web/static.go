package web

import "embed"

// staticFS holds htmx 2.0.11 (htmx.min.js, unmodified), the stylesheet and the
// small script of the UI. They are embedded so the binary is the whole app.
//
//go:embed static
var staticFS embed.FS
