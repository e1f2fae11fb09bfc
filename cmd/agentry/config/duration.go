package config

import (
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration as agentry.yaml writes it: 90s, 10m, or a
// bare 0 for none (DESIGN §8 writes budget: {wall_clock: 0}). yaml.v3
// takes durations from strings only, and its other bare numbers stay
// errors here too: their unit would be a guess.
type Duration time.Duration

// UnmarshalYAML takes a bare 0, and anything else as yaml.v3 takes a
// time.Duration, so a bad value fails with yaml.v3's own error and line.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" && n.Value == "0" {
		*d = 0
		return nil
	}
	var t time.Duration
	if err := n.Decode(&t); err != nil {
		return err
	}
	*d = Duration(t)
	return nil
}

// D is d as the time.Duration the runtime takes.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalYAML writes d as yaml.v3 reads it back: 1m30s.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }
