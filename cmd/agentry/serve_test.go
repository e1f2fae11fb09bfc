package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer that serve can write while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestServeRefusesAPublicAddressWithoutAToken(t *testing.T) {
	dir := t.TempDir()
	s, _, errOut := testSession()
	code := s.main(t.Context(), []string{"serve", "--addr", "0.0.0.0:8080", "--agents", dir})
	if code != 2 || !strings.Contains(errOut.String(), "without a token") {
		t.Fatalf("exit %d, stderr %q; want 2 and a clear refusal", code, errOut.String())
	}
}

func TestLoopbackAddresses(t *testing.T) {
	cases := map[string]bool{
		"127.0.0.1:8080": true, "localhost:80": true, "[::1]:9000": true, "127.1.2.3:1": true,
		":8080": false, "0.0.0.0:8080": false, "192.168.1.10:80": false, "example.com:80": false, "nonsense": false,
	}
	for addr, want := range cases {
		if got := isLoopback(addr); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestServeServesTheAgentsUntilCancelled(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "helper.md", "---\nname: helper\ndescription: Helps with things.\n---\nYou help.\n")
	var out, errOut lockedBuffer
	s := &session{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" },
		env: func() []string { return []string{"AGENTRY_TOKEN=t0ken-t0ken-t0ken"} }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- s.main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--agents", dir, "--db", filepath.Join(t.TempDir(), "t.db")})
	}()
	url := waitURL(t, &out, done)
	if !strings.HasSuffix(url, "/?token=t0ken-t0ken-t0ken") {
		t.Fatalf("printed URL %q does not carry the token from AGENTRY_TOKEN", url)
	}
	base := strings.TrimSuffix(url, "?token=t0ken-t0ken-t0ken")
	if resp, err := http.Get(base + "agents"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET without the token = %v %v, want 401", resp.StatusCode, err)
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Helps with things.") {
		t.Fatalf("GET %s = %d, want the agents list with helper", url, resp.StatusCode)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d after cancel: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after cancel")
	}
}

var urlRE = regexp.MustCompile(`http://\S+`)

// waitURL waits for serve to print where it listens.
func waitURL(t *testing.T, out *lockedBuffer, done chan int) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if u := urlRE.FindString(out.String()); u != "" {
			return u
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d before listening", code)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("serve never printed its URL")
	return ""
}

func TestServeRefusesShortOrBlankTokens(t *testing.T) {
	for _, tok := range []string{" ", "x", "   abc   ", "fifteen-chars!!"} {
		s, _, errOut := testSession()
		code := s.main(t.Context(), []string{"serve", "--addr", "0.0.0.0:0", "--token", tok, "--agents", t.TempDir()})
		if code != 2 || !strings.Contains(errOut.String(), "at least 16 characters") {
			t.Errorf("--token %q: exit %d, stderr %q; want 2 and the minimum length", tok, code, errOut.String())
		}
	}
}

func TestBrowseURLIsOneAPersonCanOpen(t *testing.T) {
	host := func() (string, error) { return "box", nil }
	cases := []struct{ addr, token, open, note string }{
		{"127.0.0.1:8080", "", "http://127.0.0.1:8080/", ""},
		{"[::1]:8080", "", "http://[::1]:8080/", ""},
		{"[::]:8080", "", "http://127.0.0.1:8080/", "from another computer open http://box:8080/"},
		{"0.0.0.0:9", "a b&c", "http://127.0.0.1:9/?token=a+b%26c", "http://box:9/?token=a+b%26c"},
		{":8080", "", "http://127.0.0.1:8080/", "every network interface"},
		{"192.168.1.5:80", "", "http://192.168.1.5:80/", ""},
	}
	for _, c := range cases {
		open, note := browseURL(c.addr, c.token, host)
		if open != c.open || !strings.Contains(note, c.note) || (c.note == "" && note != "") {
			t.Errorf("browseURL(%q) = %q, %q; want %q and a note with %q", c.addr, open, note, c.open, c.note)
		}
		if strings.Contains(open, "[::]") || strings.Contains(open, "0.0.0.0") {
			t.Errorf("browseURL(%q) = %q, an address no browser can open", c.addr, open)
		}
	}
}

// Ctrl-C stops serve at once (no grace); with no run in flight it warns of
// none being cancelled (it did: "cancelling the runs still going runs=0").
func TestAnInterruptedServeWithNoRunsStopsWithoutAWarning(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "helper.md", "---\nname: helper\ndescription: Helps with things.\n---\nYou help.\n")
	var out, errOut lockedBuffer
	s := &session{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" },
		env: func() []string { return nil }}
	ctx, interrupt := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- s.main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--agents", dir, "--db", filepath.Join(t.TempDir(), "t.db")})
	}()
	waitURL(t, &out, done)
	interrupt(errInterrupted)
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d after Ctrl-C: %s", code, errOut.String())
	}
	if log := errOut.String(); !strings.Contains(log, "msg=stopped") || strings.Contains(log, "level=WARN") {
		t.Fatalf("serve's log after Ctrl-C with no runs:\n%s", log)
	}
}

// An address without a port is no address: serve said it was one other
// machines reach and asked for a token.
func TestServeRefusesAnAddressThatIsNotHostPort(t *testing.T) {
	for _, args := range [][]string{{"--addr", "localhost"}, {"--metrics-addr", "9090"}} {
		s, _, errOut := testSession()
		code := s.main(t.Context(), append([]string{"serve", "--agents", t.TempDir()}, args...))
		first, _, _ := strings.Cut(errOut.String(), "\n")
		if code != 2 || !strings.Contains(first, args[0]) || !strings.Contains(first, `is "`+args[1]+`": want HOST:PORT`) || strings.Contains(first, "token") {
			t.Errorf("serve %v: exit %d, stderr %q; want 2 and HOST:PORT", args, code, errOut.String())
		}
	}
}

// A port in use (the default 8080, by another serve) says how to choose
// another.
func TestServeOnAPortInUseSaysHowToChooseAnother(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, _, errOut := testSession()
	code := s.main(t.Context(), []string{"serve", "--addr", ln.Addr().String(), "--agents", t.TempDir(), "--db", filepath.Join(t.TempDir(), "t.db")})
	if code != 1 || !strings.Contains(errOut.String(), "address already in use: another program (another agentry serve?) has "+ln.Addr().String()+"; choose another with --addr HOST:PORT") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
