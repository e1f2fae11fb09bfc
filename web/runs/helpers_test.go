package runs_test

import (
	"github.com/agentry/agentry/web/internal/webtest"

	"github.com/agentry/agentry/web/runs"

	"github.com/agentry/agentry/web/internal/dom"
)

// Short names for the shared test helpers (web/internal/webtest).
type (
	testEnv       = webtest.Env
	browserServer = webtest.BrowserServer
)

var (
	newTestEnv         = webtest.NewEnv
	newMemFolder       = webtest.NewMemFolder
	startBrowserServer = webtest.StartBrowserServer
	newBrowser         = webtest.NewBrowser
	tid                = webtest.TID
	run                = webtest.Run
	waitText           = webtest.WaitText
	waitJS             = webtest.WaitJS
	screenshot         = webtest.Screenshot
	find               = dom.Find
	findAll            = dom.FindAll
	attr               = dom.Attr
	textOf             = dom.TextOf
	csrfOf             = dom.CSRFOf
	formValues         = dom.FormValues
	team               = webtest.Team
)

var (
	t0            = runs.T0
	ms            = runs.Ms
	fanOut        = runs.FanOut
	bigRun        = runs.BigRun
	deepChain     = runs.DeepChain
	newFakeRunner = runs.NewFakeRunner
)
