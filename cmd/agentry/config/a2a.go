package config

import (
	"fmt"
	"net/url"
	"regexp"

	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
)

// A2AAgentConfig is one entry of the `a2a:` list: an A2A agent elsewhere,
// offered as a sub-agent here under the same subagents rules as a file's
// agent (docs/a2a.md).
type A2AAgentConfig struct {
	// Card is the agent card's URL (…/.well-known/agent-card.json), or the
	// agent's base URL below which the well-known path is read.
	Card string `yaml:"card"`
	// ID is its id here, what subagents rules and delegate name; empty
	// takes the card's name, made an id.
	ID string `yaml:"id"`
	// Description replaces the card's in the delegate tool's list.
	Description string `yaml:"description"`
	// TokenEnv names the environment variable that holds the bearer token
	// the agent wants (serve's token, for another agentry); the token
	// itself is never written in agentry.yaml.
	TokenEnv string `yaml:"token_env"`
	// Timeout bounds each delegation to it; 0 leaves only the run's limits.
	Timeout Duration `yaml:"timeout"`
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// validateA2A refuses entries no delegation could use.
func (c Config) validateA2A() error {
	ids := map[string]int{}
	for i, a := range c.A2A {
		at := fmt.Sprintf("config: a2a[%d]", i)
		if u, err := url.Parse(a.Card); a.Card == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s: card must be the agent card's http(s) URL, e.g. http://host:8080/a2a/researcher/.well-known/agent-card.json; got %q", at, a.Card)
		}
		if a.ID != "" && !registry.ValidName(a.ID) {
			return fmt.Errorf("%s: id %q is not an agent id (%s)", at, a.ID, registry.IDPattern)
		}
		if a.ID == permissions.GeneralPurpose {
			return fmt.Errorf("%s: id %q is the built-in agent's, which subagents rules allow unless denied; give the remote agent an id of its own", at, a.ID)
		}
		if a.TokenEnv != "" && !envNameRE.MatchString(a.TokenEnv) {
			return fmt.Errorf("%s: token_env %q is not an environment variable's name (it names the variable that holds the token, not the token)", at, a.TokenEnv)
		}
		if a.Timeout < 0 {
			return fmt.Errorf("%s: timeout must not be negative, got %s", at, a.Timeout)
		}
		if a.ID != "" {
			if j, dup := ids[a.ID]; dup {
				return fmt.Errorf("%s: id %q is already a2a[%d]'s", at, a.ID, j)
			}
			ids[a.ID] = i
		}
	}
	return nil
}
