package agents_test

import (
	"github.com/agentry/agentry/web/internal/webtest"

	"github.com/agentry/agentry/web/internal/dom"
)

// Short names for the shared test helpers (web/internal/webtest).
type (
	testEnv = webtest.Env
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
	follow             = webtest.Follow
	screenshot         = webtest.Screenshot
	find               = dom.Find
	findAll            = dom.FindAll
	attr               = dom.Attr
	textOf             = dom.TextOf
	csrfOf             = dom.CSRFOf
	formValues         = dom.FormValues
	exampleAgents      = webtest.ExampleAgents
	team               = webtest.Team
	boxOf              = webtest.BoxOf
	viewport           = webtest.Viewport
)
