package workflows_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/agentry/agentry/web/internal/webtest"
)

func TestTheListShowsEachFileAndABrokenOnesProblemsAsFileLineReason(t *testing.T) {
	e := newWFEnv(t, map[string]string{"survey.yaml": survey, "broken.yaml": broken})
	status, doc := e.Get("/workflows")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	if row := find(doc, "workflow-row-survey"); row == nil || !strings.Contains(textOf(row), "Asks about a topic") || !strings.Contains(textOf(row), "ok") {
		t.Fatalf("survey row: %v", row != nil)
	}
	row := find(doc, "workflow-row-broken")
	if row == nil {
		t.Fatal("no row for the broken file")
	}
	var probs []*html.Node
	for _, n := range findAll(row, "workflow-problem") {
		if attr(n, "data-testid") == "workflow-problem" {
			probs = append(probs, n)
		}
	}
	if len(probs) != 1 || !strings.HasPrefix(textOf(probs[0]), "broken.yaml:6: ") || !strings.Contains(textOf(probs[0]), "nobody") {
		t.Fatalf("problems of the broken file: %q", textOf(row))
	}
	if live := find(doc, "workflow-count"); live == nil {
		t.Fatal("no count")
	}
}

func TestWithoutAFolderTheWorkflowsPagesSaySo(t *testing.T) {
	e := webtest.NewEnv(t, webtest.Team)
	_, doc := e.Get("/workflows")
	if find(doc, "workflows-off") == nil {
		t.Fatal("the list does not say there is no workflows folder")
	}
	if status, _ := e.Get("/workflows/x"); status != http.StatusServiceUnavailable {
		t.Fatalf("a workflow page without a folder = %d, want 503", status)
	}
}

func TestAWorkflowPageShowsTheGraphTheExplanationAndTheDiagramSlot(t *testing.T) {
	e := newWFEnv(t, map[string]string{"survey.yaml": survey})
	status, doc := e.Get("/workflows/survey")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	if g := textOf(find(doc, "workflow-graph")); !strings.Contains(g, "[1. Asker]") || !strings.Contains(g, "--> [2. Asker]") {
		t.Errorf("graph = %q", g)
	}
	// In words: prose (headings, lists), not Markdown source.
	ex := textOf(find(doc, "workflow-explain"))
	headings := []string{}
	for _, h := range findAll(find(doc, "workflow-explain"), "") {
		if h.Data == "h2" {
			headings = append(headings, textOf(h))
		}
	}
	if !strings.Contains(ex, "topic (string, required)") || strings.Contains(ex, "##") || strings.Contains(strings.Join(headings, ","), "Graph") ||
		!strings.Contains(strings.Join(headings, ","), "Steps") {
		t.Errorf("explanation = %q, headings %v (want the steps and inputs as prose, without the graph again)", ex, headings)
	}
	if find(doc, "workflow-diagram") == nil {
		t.Error("no slot for the SVG diagram")
	}
	if status, _ := e.Get("/workflows/nope"); status != http.StatusNotFound {
		t.Errorf("an unknown workflow = %d, want 404", status)
	}
}

func TestTheEditorSavesValidYAMLAndRefusesErrorsWithTheirLines(t *testing.T) {
	e := newWFEnv(t, map[string]string{"survey.yaml": survey})
	_, doc := e.Get("/workflows/survey/edit")
	form := formValues(find(doc, "workflow-form"))
	if form.Get("yaml") != survey {
		t.Fatalf("the textarea holds %q", form.Get("yaml"))
	}
	ta := find(doc, "workflow-yaml")
	if attr(ta, "data-editor") != "yaml" || attr(ta, "data-problems") != "[]" {
		t.Fatalf("textarea attributes: editor %q problems %q", attr(ta, "data-editor"), attr(ta, "data-problems"))
	}

	bad := strings.Replace(survey, "{{inputs.topic}}", "{{inputs.topik}}", 1)
	form.Set("yaml", strings.ReplaceAll(bad, "\n", "\r\n")) // as a browser submits a textarea
	status, doc, _ := e.Post("/workflows/survey/edit", form, csrfOf(doc))
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("saving an undefined input = %d, want 422", status)
	}
	var marks []struct {
		Line     int    `json:"line"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
	}
	if err := json.Unmarshal([]byte(attr(find(doc, "workflow-yaml"), "data-problems")), &marks); err != nil || len(marks) == 0 || marks[0].Line != 14 || marks[0].Severity != "error" {
		t.Fatalf("data-problems = %q (%v), want an error at line 14, the prompt's", attr(find(doc, "workflow-yaml"), "data-problems"), err)
	}
	if got := formValues(find(doc, "workflow-form")).Get("yaml"); got != bad {
		t.Fatalf("the refused text was not kept in the editor: %q", got)
	}
	if e.read("survey.yaml") != survey {
		t.Fatal("the file was written despite the error")
	}

	good := strings.Replace(survey, "Asks about a topic", "Asks sharper questions", 1)
	form.Set("yaml", strings.ReplaceAll(good, "\n", "\r\n"))
	status, _, resp := e.Post("/workflows/survey/edit", form, csrfOf(doc))
	if status != http.StatusSeeOther || resp.Header.Get("Location") != "/workflows/survey/edit?saved=1" {
		t.Fatalf("save = %d to %q", status, resp.Header.Get("Location"))
	}
	if got := e.read("survey.yaml"); got != good {
		t.Fatalf("on disk:\n%s", got)
	}
	_, doc = e.Get("/workflows")
	if !strings.Contains(textOf(find(doc, "workflow-row-survey")), "Asks sharper questions") {
		t.Fatal("the list does not show the saved version")
	}
}

func TestASaveOverAnotherProgramsWriteShowsBothVersionsAndASecondSaveOverwrites(t *testing.T) {
	e := newWFEnv(t, map[string]string{"survey.yaml": survey})
	_, doc := e.Get("/workflows/survey/edit")
	form, csrf := formValues(find(doc, "workflow-form")), csrfOf(doc)
	theirs := strings.Replace(survey, "Asks about a topic", "Changed by another program", 1)
	if err := os.WriteFile(filepath.Join(e.dir, "survey.yaml"), []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := strings.Replace(survey, "Asks about a topic", "Mine", 1)
	form.Set("yaml", mine)
	status, doc, _ := e.Post("/workflows/survey/edit", form, csrf)
	if status != http.StatusConflict {
		t.Fatalf("save over another write = %d, want 409", status)
	}
	if got := textOf(find(doc, "conflict-disk")); !strings.Contains(got, "Changed by another program") {
		t.Fatalf("'on disk now' shows %q, not the other program's version", got)
	}
	if got := textOf(find(doc, "conflict-yours")); !strings.Contains(got, "Mine") {
		t.Fatalf("'your version' shows %q", got)
	}
	if e.read("survey.yaml") != theirs {
		t.Fatal("the refused save changed the file")
	}
	again := formValues(find(doc, "workflow-form"))
	if again.Get("yaml") != mine {
		t.Fatalf("the editor lost your version: %q", again.Get("yaml"))
	}
	if status, _, _ := e.Post("/workflows/survey/edit", again, csrfOf(doc)); status != http.StatusSeeOther {
		t.Fatalf("the second save = %d, want 303", status)
	}
	if e.read("survey.yaml") != mine {
		t.Fatal("the second save did not overwrite on purpose")
	}
}

func TestTheStartFormIsGeneratedFromTheInputs(t *testing.T) {
	e := newWFEnv(t, map[string]string{"survey.yaml": survey})
	_, doc := e.Get("/workflows/survey/run")
	for _, tc := range []struct{ id, tag, typ string }{
		{"input-field-topic", "input", "text"}, {"input-field-depth", "input", "number"},
		{"input-field-strict", "select", ""}, {"input-field-extra", "textarea", ""}, {"input-field-notes", "input", "text"},
	} {
		n := find(doc, tc.id)
		if n == nil || n.Data != tc.tag || attr(n, "type") != tc.typ {
			t.Errorf("%s: got %v", tc.id, n)
		}
	}
	if n := find(doc, "input-field-topic"); !hasAttr(n, "required") {
		t.Error("the required input is not required in the form")
	}
	if n := find(doc, "input-field-depth"); attr(n, "placeholder") != "default: 2" || hasAttr(n, "required") {
		t.Errorf("depth: placeholder %q", attr(n, "placeholder"))
	}
}

func TestTheStartFormChecksInputsAndModelThenStartsTheRun(t *testing.T) {
	e := newWFEnv(t, map[string]string{"survey.yaml": survey})
	_, doc := e.Get("/workflows/survey/run")
	csrf := csrfOf(doc)
	post := func(v url.Values) (int, string) {
		status, doc, resp := e.Post("/workflows/survey/run", v, csrf)
		if status == http.StatusSeeOther {
			return status, resp.Header.Get("Location")
		}
		return status, textOf(find(doc, "run-problem"))
	}
	cases := []struct {
		name string
		form url.Values
		want string
	}{
		{"a missing required input is named", url.Values{"model": {""}}, "topic"},
		{"a number that is not one is refused", url.Values{"input.topic": {"x"}, "input.depth": {"deep"}}, "not a number"},
		{"JSON that does not parse is refused", url.Values{"input.topic": {"x"}, "input.extra": {"{oops"}}, "not JSON"},
		{"a model the server does not offer is refused", url.Values{"input.topic": {"x"}, "model": {"openai:gpt-9"}}, "not one of this server's models"},
		{"a script outside the scripts folder is refused", url.Values{"input.topic": {"x"}, "model": {"script:../../etc/passwd"}}, "Script models are off"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if status, msg := post(tc.form); status != http.StatusUnprocessableEntity || !strings.Contains(msg, tc.want) {
				t.Fatalf("= %d %q, want 422 mentioning %q", status, msg, tc.want)
			}
		})
	}
	if len(e.runner.reqs) != 0 {
		t.Fatalf("refused forms started %d runs", len(e.runner.reqs))
	}
	status, loc := post(url.Values{"input.topic": {"tides"}, "input.strict": {"true"}, "input.extra": {`["a"]`}, "model": {"demo"}})
	if status != http.StatusSeeOther || loc != "/runs/run-1" {
		t.Fatalf("start = %d %q, want 303 to the run's timeline", status, loc)
	}
	r := e.runner.reqs[0]
	if r.Workflow.Name != "survey" || r.Model != "demo" || r.Inputs["topic"] != "tides" || r.Inputs["depth"] != 2 ||
		r.Inputs["strict"] != true || len(r.Inputs["extra"].([]any)) != 1 {
		t.Fatalf("run request = %+v %v", r.Model, r.Inputs)
	}
}

func TestTheEventStreamStartsWithTheVersionAndSignalsEachChange(t *testing.T) {
	e := newWFEnv(t, map[string]string{"survey.yaml": survey})
	resp, err := e.Client.Get(e.HTTP.URL + "/workflows/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 10)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				events <- string(buf[:n])
			}
			if err != nil {
				close(events)
				return
			}
		}
	}()
	next := func(want string) {
		t.Helper()
		var got strings.Builder
		deadline := time.After(10 * time.Second)
		for !strings.Contains(got.String(), want) {
			select {
			case s, ok := <-events:
				if !ok {
					t.Fatalf("the stream ended; got %q", got.String())
				}
				got.WriteString(s)
			case <-deadline:
				t.Fatalf("no %q in the stream; got %q", want, got.String())
			}
		}
	}
	v := e.cat.Snapshot().Version()
	next("event: workflows\ndata: " + strconv.FormatUint(v, 10) + "\n")
	if err := os.WriteFile(filepath.Join(e.dir, "more.yaml"), []byte(survey), 0o644); err != nil {
		t.Fatal(err)
	}
	next("event: workflows\ndata: " + strconv.FormatUint(v+1, 10) + "\n")
}
