package web_test

import (
	"github.com/agentry/agentry/web/internal/webtest"

	"github.com/agentry/agentry/web/internal/dom"
)

// Short names for the shared test helpers (web/internal/webtest).
var (
	newTestEnv = webtest.NewEnv
	run        = webtest.Run
	waitJS     = webtest.WaitJS
	screenshot = webtest.Screenshot
	textOf     = dom.TextOf
	csrfOf     = dom.CSRFOf
	team       = webtest.Team
)
