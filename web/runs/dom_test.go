package runs

import "github.com/agentry/agentry/web/internal/dom"

// Short names for the HTML helpers (web/internal/dom).
var (
	find    = dom.Find
	findAll = dom.FindAll
	attr    = dom.Attr
	textOf  = dom.TextOf
)
