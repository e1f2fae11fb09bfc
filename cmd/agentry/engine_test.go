package main

import (
	"strings"
	"testing"
)

func TestEngineConfig(t *testing.T) {
	cases := []struct {
		name, file string
		env        []string
		want       string // error text; "" = loads
		engine     string
		temporal   TemporalConfig
	}{
		{name: "nothing given runs in-process, with Temporal's usual defaults", engine: EngineInProcess,
			temporal: TemporalConfig{Address: "localhost:7233", Namespace: "default", TaskQueue: "agentry"}},
		{name: "the file picks temporal and keeps the defaults it does not set", file: "engine: temporal\ntemporal: {address: \"temporal:7233\"}\n",
			engine: EngineTemporal, temporal: TemporalConfig{Address: "temporal:7233", Namespace: "default", TaskQueue: "agentry"}},
		{name: "the environment sets the task queue", env: []string{"AGENTRY_ENGINE=temporal", "AGENTRY_TEMPORAL__TASK_QUEUE=gpu"},
			engine: EngineTemporal, temporal: TemporalConfig{Address: "localhost:7233", Namespace: "default", TaskQueue: "gpu"}},
		{name: "an unknown engine is refused with the choices", file: "engine: kubernetes\n", want: `engine must be inprocess or temporal, got "kubernetes"`},
		{name: "an empty namespace is refused", file: "engine: temporal\ntemporal: {namespace: \"\"}\n", want: "namespace and task_queue must not be empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var args []string
			if c.file != "" {
				args = append(args, "--config", writeFile(t, dir, "agentry.yaml", c.file))
			}
			t.Chdir(dir)
			cfg, err := loadWith(t, c.env, args...)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v, want it to contain %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Engine != c.engine || cfg.Temporal != c.temporal {
				t.Errorf("engine %q, temporal %+v; want %q, %+v", cfg.Engine, cfg.Temporal, c.engine, c.temporal)
			}
		})
	}
}
