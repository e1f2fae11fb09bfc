package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/pb33f/libopenapi"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentry/agentry/web"
	"github.com/agentry/agentry/web/api"
	"github.com/agentry/agentry/web/core"
	"github.com/agentry/agentry/web/internal/webtest"
)

const token = "api-t0ken-api-t0ken"

// agents are the files the API tests serve: writer answers, slow takes
// its time, lead asks before it delegates to writer.
var agents = map[string]string{
	"writer.md": "---\nname: writer\ndescription: Writes\n---\nYou write.\n",
	"slow.md":   "---\nname: slow\ndescription: Takes its time\n---\nYou wait.\n",
	"lead.md":   "---\nname: lead\ndescription: Leads\nsubagents:\n  allow: [writer]\n  ask: [writer]\n---\nYou lead.\n",
}

const script = `writer:
  - {latency: 10ms, say: "written"}
slow:
  - {latency: 60s, say: "late"}
lead:
  - calls: [{tool: delegate, args: {agent: writer, task: draft}}]
  - say: "led"
`

// apiServer is the API alone on an echo with serve's middleware and a
// token, over a whole site's registry, store and runtime.
type apiServer struct {
	url string
	e   *echo.Echo
}

func startAPI(t *testing.T) apiServer {
	t.Helper()
	var wc web.Config
	site := webtest.StartSite(t, agents, nil, func(c *web.Config) { wc = *c })
	if err := os.WriteFile(filepath.Join(site.Scripts, "api.yaml"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	e.HTTPErrorHandler = core.ErrorHandler(wc.Log)
	if err := core.Install(e, token); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	api.Mount(e, api.Config{Agents: wc.Agents, Files: wc.Files, Global: wc.Global, Delegation: wc.Delegation, Runs: wc.Runs,
		Runner: wc.Runtime, Live: core.NewLive(stop), Workflows: wc.Workflows, WorkflowRunner: wc.WorkflowRuntime,
		Approvals: wc.Approvals, Version: "test", Stop: stop})
	hs := httptest.NewServer(e)
	t.Cleanup(hs.Close)
	return apiServer{url: hs.URL, e: e}
}

// call sends a request to the API (path relative to /api/v1) with the
// token, and returns the status and the body.
func (s apiServer) call(t *testing.T, method, path string, body any) (int, []byte, http.Header) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+api.Prefix+path, r)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// document is the OpenAPI document the server serves, checked to be a
// valid OpenAPI 3.1 document.
func (s apiServer) document(t *testing.T) (raw []byte, doc map[string]any) {
	t.Helper()
	status, raw, _ := s.call(t, http.MethodGet, "/openapi.json", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /api/v1/openapi.json = %d: %s", status, raw)
	}
	d, err := libopenapi.NewDocument(raw)
	if err != nil {
		t.Fatal(err)
	}
	if v := d.GetVersion(); !strings.HasPrefix(v, "3.1") {
		t.Fatalf("OpenAPI %s, want 3.1", v)
	}
	if _, err := d.BuildV3Model(); err != nil {
		t.Fatalf("the document does not build as an OpenAPI 3.1 model: %v", err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return raw, doc
}

// operations are the document's operations as "METHOD /path" → operation.
func operations(doc map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for p, item := range doc["paths"].(map[string]any) {
		for method, o := range item.(map[string]any) {
			if op, ok := o.(map[string]any); ok {
				out[strings.ToUpper(method)+" "+p] = op
			}
		}
	}
	return out
}

func TestEveryRouteOfTheAPIIsDocumented(t *testing.T) {
	s := startAPI(t)
	_, doc := s.document(t)
	ops := operations(doc)
	var routes []string
	for _, r := range s.e.Routes() {
		p, ok := strings.CutPrefix(r.Path, api.Prefix)
		if !ok || p == "/openapi.json" || p == "/openapi.yaml" || p == "/openapi-3.0.json" || p == "/openapi-3.0.yaml" {
			continue // the document itself
		}
		// echo's :param is OpenAPI's {param}
		parts := strings.Split(p, "/")
		for i, part := range parts {
			if name, ok := strings.CutPrefix(part, ":"); ok {
				parts[i] = "{" + name + "}"
			}
		}
		key := r.Method + " " + strings.Join(parts, "/")
		routes = append(routes, key)
		if _, ok := ops[key]; !ok {
			t.Errorf("route %s is not in the OpenAPI document", key)
		}
	}
	if len(routes) != len(ops) {
		sort.Strings(routes)
		t.Errorf("%d routes, %d documented operations:\n%s", len(routes), len(ops), strings.Join(routes, "\n"))
	}
}

// exchange is one request the documented-operations test makes.
type exchange struct {
	method, path string
	body         any
	want         int
}

func TestEveryDocumentedOperationIsAnsweredAsDocumented(t *testing.T) {
	s := startAPI(t)
	raw, doc := s.document(t)
	ops := operations(doc)
	v := newValidator(t, raw)
	answered := map[string]bool{}
	do := func(x exchange) []byte {
		t.Helper()
		status, body, _ := s.call(t, x.method, x.path, x.body)
		key, op := match(ops, x.method, x.path)
		if op == nil {
			t.Fatalf("%s %s matches no documented operation", x.method, x.path)
		}
		answered[key] = true
		if status != x.want {
			t.Errorf("%s %s = %d, want %d: %s", x.method, x.path, status, x.want, body)
		}
		v.check(t, key, op, status, body)
		return body
	}
	decode := func(b []byte, into any) {
		t.Helper()
		if err := json.Unmarshal(b, into); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}

	do(exchange{"GET", "/agents", nil, 200})
	var writer api.AgentDetail
	decode(do(exchange{"GET", "/agents/writer", nil, 200}), &writer)
	do(exchange{"GET", "/agents/nobody", nil, 404})
	extra := "---\nname: extra\ndescription: Made through the API\n---\nYou help.\n"
	var created api.AgentDetail
	decode(do(exchange{"POST", "/agents", map[string]any{"content": extra}, 201}), &created)
	do(exchange{"POST", "/agents", map[string]any{"content": extra}, 409})
	do(exchange{"POST", "/agents", map[string]any{"content": "---\nname: broken\n---\nno description\n"}, 422})
	edited := strings.Replace(extra, "You help.", "You help more.", 1)
	var updated api.AgentDetail
	decode(do(exchange{"PUT", "/agents/extra", map[string]any{"content": edited, "hash": created.Hash}, 200}), &updated)
	if updated.Content != edited || updated.Hash == created.Hash {
		t.Errorf("after the update: %+v", updated)
	}
	do(exchange{"PUT", "/agents/extra", map[string]any{"content": extra, "hash": created.Hash}, 409}) // a stale hash
	do(exchange{"DELETE", "/agents/extra?hash=" + created.Hash, nil, 409})
	do(exchange{"DELETE", "/agents/extra?hash=" + updated.Hash, nil, 204})
	var val struct {
		Valid    bool
		Problems []struct{ Message string }
	}
	decode(do(exchange{"POST", "/validate", map[string]any{"content": "---\nname: v\nsubagents:\n  allow: [ghost]\n---\nx\n"}, 200}), &val)
	if val.Valid || len(val.Problems) == 0 {
		t.Errorf("validate = %+v, want problems", val)
	}
	do(exchange{"GET", "/permissions?agent=lead", nil, 200})
	do(exchange{"GET", "/permissions?agent=writer&via=lead", nil, 200})
	do(exchange{"GET", "/permissions?agent=ghost", nil, 404})

	var started api.Started
	decode(do(exchange{"POST", "/runs", map[string]any{"agent": "writer", "task": "a line", "model": "script:api.yaml", "wait": true}, 201}), &started)
	if started.Outcome == nil || started.Outcome.Status != "ok" || started.Outcome.Result != "written" || started.Run.ID != started.Outcome.RunID {
		t.Errorf("started = %+v", started)
	}
	do(exchange{"POST", "/runs", map[string]any{"agent": "nobody", "task": "x"}, 404})
	do(exchange{"GET", "/runs", nil, 200})
	do(exchange{"GET", "/runs?agent=writer&status=ok&limit=1", nil, 200})
	do(exchange{"GET", "/runs/" + started.Run.ID, nil, 200})
	do(exchange{"GET", "/runs/0123456789abcdef0123456789abcdef", nil, 404})
	do(exchange{"GET", "/runs/" + started.Run.ID + "/spans?limit=1", nil, 200})
	do(exchange{"GET", "/runs/" + started.Run.ID + "/spans?since=0", nil, 200})
	do(exchange{"POST", "/runs/" + started.Run.ID + "/cancel", nil, 409}) // it ended
	var slow api.Started
	decode(do(exchange{"POST", "/runs", map[string]any{"agent": "slow", "task": "wait", "model": "script:api.yaml"}, 201}), &slow)
	do(exchange{"POST", "/runs/" + slow.Run.ID + "/cancel", nil, 202})

	do(exchange{"GET", "/workflows", nil, 200})
	var flow api.Started
	decode(do(exchange{"POST", "/workflows/content-pipeline/runs", map[string]any{"inputs": map[string]any{"topic": "heat pumps"},
		"model": "script:content-pipeline.script.yaml", "wait": true}, 201}), &flow)
	if w := flow.Workflow; w == nil || w.Status != "ok" || w.Workflow != "content-pipeline" || w.RunID != flow.Run.ID ||
		len(w.Outputs) == 0 || !strings.Contains(w.Report, "Workflow Execution Report: content-pipeline") {
		t.Errorf("a workflow run that was waited for = %+v", w)
	}
	do(exchange{"POST", "/workflows/content-pipeline/runs", map[string]any{"inputs": map[string]any{}}, 422})
	do(exchange{"POST", "/workflows/nothing/runs", map[string]any{}, 404})

	var lead api.Started
	decode(do(exchange{"POST", "/runs", map[string]any{"agent": "lead", "task": "lead it", "model": "script:api.yaml"}, 201}), &lead)
	var pending struct{ Approvals []struct{ ID string } }
	for deadline := time.Now().Add(10 * time.Second); len(pending.Approvals) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("lead's ask never waited")
		}
		decode(do(exchange{"GET", "/approvals?status=pending&run_id=" + lead.Run.ID, nil, 200}), &pending)
	}
	do(exchange{"POST", "/approvals/" + pending.Approvals[0].ID, map[string]any{"approve": true}, 200})
	do(exchange{"POST", "/approvals/" + pending.Approvals[0].ID, map[string]any{"approve": false}, 409})
	do(exchange{"POST", "/approvals/no-such-approval", map[string]any{"approve": true}, 404})

	for key := range ops {
		if !answered[key] {
			t.Errorf("documented operation %s was not exercised: add it to this test", key)
		}
	}
}

func TestAPIErrorsHaveOneShapeWhereverTheyComeFrom(t *testing.T) {
	s := startAPI(t)
	raw, doc := s.document(t)
	v := newValidator(t, raw)
	ops := operations(doc)
	// The token check (serve's middleware), a refused body (huma), a
	// missing run (a handler): the same shape, documented.
	req, _ := http.NewRequest(http.MethodGet, s.url+api.Prefix+"/runs", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %d %s", resp.StatusCode, body)
	}
	v.check(t, "GET /runs", ops["GET /runs"], resp.StatusCode, body)
	for _, c := range []struct {
		method, path string
		body         any
		status       int
		code         string
	}{
		{"GET", "/runs", nil, 401, "unauthorized"},
		{"POST", "/runs", map[string]any{"agent": "writer"}, 422, "unprocessable"},
		{"GET", "/runs/0123456789abcdef0123456789abcdef", nil, 404, "not_found"},
		{"GET", "/nowhere", nil, 404, "not_found"},
	} {
		var status int
		var b []byte
		if c.status == 401 {
			status, b = resp.StatusCode, body
		} else {
			status, b, _ = s.call(t, c.method, c.path, c.body)
		}
		var e core.APIError
		if err := json.Unmarshal(b, &e); err != nil || status != c.status || e.Code != c.code || e.Status != c.status || e.Message == "" {
			t.Errorf("%s %s = %d %s, want %d with code %s", c.method, c.path, status, b, c.status, c.code)
		}
	}
}

// match finds the documented operation a request path is for.
func match(ops map[string]map[string]any, method, path string) (string, map[string]any) {
	path, _, _ = strings.Cut(path, "?")
	for key, op := range ops {
		m, p, _ := strings.Cut(key, " ")
		if m != method {
			continue
		}
		want, got := strings.Split(p, "/"), strings.Split(path, "/")
		if len(want) != len(got) {
			continue
		}
		ok := true
		for i := range want {
			if !strings.HasPrefix(want[i], "{") && want[i] != got[i] {
				ok = false
			}
		}
		if ok {
			return key, op
		}
	}
	return "", nil
}

// validator checks answers against the document's response schemas, which
// in OpenAPI 3.1 are JSON Schema 2020-12.
type validator struct {
	c   *jsonschema.Compiler
	doc map[string]any
}

const docURL = "https://agentry.test/openapi.json"

func newValidator(t *testing.T, raw []byte) *validator {
	t.Helper()
	d, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(docURL, d); err != nil {
		t.Fatal(err)
	}
	return &validator{c: c, doc: d.(map[string]any)}
}

// check fails t unless status is a documented response of op and body
// fits its schema.
func (v *validator) check(t *testing.T, key string, op map[string]any, status int, body []byte) {
	t.Helper()
	responses := op["responses"].(map[string]any)
	code := fmt.Sprint(status)
	r, ok := responses[code].(map[string]any)
	if !ok {
		var documented []string
		for c := range responses {
			documented = append(documented, c)
		}
		slices.Sort(documented)
		t.Errorf("%s answered %d, which it does not document (documented: %v)", key, status, documented)
		return
	}
	content, _ := r["content"].(map[string]any)
	if len(content) == 0 {
		if len(bytes.TrimSpace(body)) != 0 {
			t.Errorf("%s %d: documented without a body, answered %s", key, status, body)
		}
		return
	}
	m, p, _ := strings.Cut(key, " ")
	for mediaType := range content {
		ptr := "#/paths/" + escape(p) + "/" + strings.ToLower(m) + "/responses/" + code + "/content/" + escape(mediaType) + "/schema"
		sch, err := v.c.Compile(docURL + ptr)
		if err != nil {
			t.Fatalf("%s: compile %s: %v", key, ptr, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			t.Errorf("%s %d: not JSON: %s", key, status, body)
			return
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s %d: the answer does not fit its documented schema: %v\n%s", key, status, err, body)
		}
		return
	}
}

// escape is a JSON pointer token.
func escape(s string) string {
	return url.PathEscape(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
}

// A 404 of the API says what is missing as the web's 404 page does
// (core.MessageOf), in the one error shape: not the store's wrapped text.
func TestAPINotFoundsSayWhatIsMissingAsTheWebPagesDo(t *testing.T) {
	s := startAPI(t)
	const id = "0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		method, path string
		body         any
		want         string
	}{
		{"GET", "/runs/" + id, nil, "There is no run “" + id + "”."},
		{"GET", "/runs/" + id + "/spans", nil, "There is no run “" + id + "”."},
		{"POST", "/runs/" + id + "/cancel", nil, "There is no run “" + id + "”."},
		{"POST", "/approvals/no-such-approval", map[string]any{"approve": true}, "There is no approval “no-such-approval”."},
		{"GET", "/agents/nobody", nil, "There is no agent “nobody”."},
		{"POST", "/runs", map[string]any{"agent": "nobody", "task": "x"}, "There is no agent “nobody”."},
		{"POST", "/workflows/nothing/runs", map[string]any{}, "There is no workflow “nothing”."},
		{"GET", "/nowhere", nil, "There is nothing at " + api.Prefix + "/nowhere."},
	} {
		status, b, _ := s.call(t, c.method, c.path, c.body)
		var e core.APIError
		if err := json.Unmarshal(b, &e); err != nil || status != http.StatusNotFound || e.Code != "not_found" || e.Message != c.want {
			t.Errorf("%s %s = %d %s, want a not_found saying %q", c.method, c.path, status, b, c.want)
		}
	}
}
