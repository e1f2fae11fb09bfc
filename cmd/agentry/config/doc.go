// Package config is agentry.yaml: its keys (Config and its sections), their
// defaults, and Load, which layers the sources of DESIGN §8: the defaults,
// the file (agentry.yaml or --config FILE), AGENTRY_* environment
// variables (nested keys joined by "__", lists comma-separated), then
// flags; a later source wins.
//
// Every source is decoded by yaml.v3 with KnownFields, so an unknown key
// or a value of the wrong type is refused with its line, whoever wrote
// it: a variable or a flag becomes a one-key YAML document decoded like
// the file (Config.Set). No reflection of our own walks Config: the keys a
// section takes, for "did you mean" and for the lists in messages, are the
// keys yaml.v3 writes for it (Config.template), and explain only puts
// yaml.v3's messages, which name Go types, in the words of the file.
//
// koanf (with mapstructure) was the other candidate: it layers maps, so a
// value loses its line before it is checked, and the hooks section, which
// decodes itself from yaml.Node with lines, would need a second path.
//
// Durations are Duration, not time.Duration, for one reason: a bare 0
// (budget: {wall_clock: 0}, as DESIGN writes it) is a zero duration, which
// yaml.v3 refuses for time.Duration.
package config
