package a2a

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agentry/agentry/delegation"
	"github.com/agentry/agentry/delegation/model"
	"github.com/agentry/agentry/permissions"
	"github.com/agentry/agentry/registry"
	"github.com/agentry/agentry/trace/semconv"
)

// Agent is one remote agent as agentry.yaml names it (a2a:).
type Agent struct {
	// Card is the agent card's URL: the card itself (…/agent-card.json),
	// or the agent's base URL, below which the well-known path is read.
	Card string
	// ID is its id here; "" takes the card's name, made an id.
	ID string
	// Description, when set, is what the delegate tool says of it
	// instead of the card's description.
	Description string
	// Token, when set, is sent as Authorization: Bearer.
	Token string
	// Timeout bounds each delegation to it (0: only the run's limits).
	Timeout time.Duration
}

// CardTimeout bounds fetching one card when the runtime is built.
const CardTimeout = 10 * time.Second

// metaTraceParent is the message metadata key of the W3C traceparent that
// names the delegation's span, as agentry's own A2A server reads it.
const metaTraceParent = "traceparent"

// CardPath is where a card is read below a base URL.
const CardPath = "/.well-known/agent-card.json"

// Resolve fetches the agents' cards, all at once, and returns the remote
// agents the runtime offers, in the order given. Each card it could not
// fetch is an error in problems: that agent is still returned when it has
// an ID (its card is fetched again at its first delegation), and left out
// otherwise. client nil means a plain http.Client (no overall timeout, so
// a stream may last as long as its task).
func Resolve(ctx context.Context, agents []Agent, client *http.Client) (out []delegation.RemoteAgent, problems []error) {
	if client == nil {
		client = &http.Client{}
	}
	remotes := make([]*remote, len(agents))
	errs := make([]error, len(agents))
	var wg sync.WaitGroup
	for i, a := range agents {
		remotes[i] = &remote{cfg: a, http: client}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, CardTimeout)
			defer cancel()
			_, _, errs[i] = remotes[i].connect(cctx)
		}()
	}
	wg.Wait()
	// The configured ids are taken before any card names itself: a card is
	// the remote side's to write, and must not take the id the user gave
	// another entry (Offline, which reads no card, assumes as much).
	offered := make([]*delegation.RemoteAgent, len(remotes))
	offerErrs := make([]error, len(remotes))
	taken := map[string]bool{}
	for _, configured := range []bool{true, false} {
		for i, r := range remotes {
			if (r.cfg.ID != "") != configured || (errs[i] != nil && !configured) {
				continue
			}
			if ra, err := r.offer(taken); err != nil {
				offerErrs[i] = err
			} else {
				offered[i] = &ra
			}
		}
	}
	for i, r := range remotes {
		if errs[i] != nil {
			if r.cfg.ID == "" {
				problems = append(problems, fmt.Errorf("%w; it is left out (give it an id: in a2a: to offer it anyway)", errs[i]))
				continue
			}
			problems = append(problems, fmt.Errorf("%w; %s is offered and its card fetched again when it is first called", errs[i], r.cfg.ID))
		}
		if offerErrs[i] != nil {
			problems = append(problems, offerErrs[i])
			continue
		}
		out = append(out, *offered[i])
	}
	return out, problems
}

// offer is r as the runtime's remote agent, unless its id cannot be one
// (usable) or is taken; it takes the id.
func (r *remote) offer(taken map[string]bool) (delegation.RemoteAgent, error) {
	if err := usable(r.name(), taken); err != nil {
		return delegation.RemoteAgent{}, fmt.Errorf("a2a: agent card %s: %w; it is left out (give the entry another id)", r.cfg.Card, err)
	}
	taken[r.name()] = true
	return delegation.RemoteAgent{Name: r.name(), Description: r.description(), Timeout: r.cfg.Timeout, Remote: r}, nil
}

// Offline are the agents as Resolve would offer them, without reading a
// card: an agent with an ID as the runtime's remote agent (described by
// its entry), one named only by its card with no name (its card's URL
// alone), for views that must not wait on the network (agentry
// permissions). An entry whose ID cannot be used is left out, as Resolve
// leaves it out.
func Offline(agents []Agent) []registry.RemoteTarget {
	var named []delegation.RemoteAgent
	var unnamed []registry.RemoteTarget
	taken := map[string]bool{}
	for _, a := range agents {
		if a.ID == "" {
			unnamed = append(unnamed, registry.RemoteTarget{Card: a.Card})
			continue
		}
		if ra, err := (&remote{cfg: a}).offer(taken); err == nil {
			named = append(named, ra)
		}
	}
	return append(Targets(named), unnamed...)
}

// Targets are the runtime's remote agents as the permission views decide
// and show them: the target the runtime decides, with its card's URL.
func Targets(agents []delegation.RemoteAgent) []registry.RemoteTarget {
	out := make([]registry.RemoteTarget, len(agents))
	for i := range agents {
		out[i] = registry.RemoteTarget{Agent: agents[i].Target(), Description: agents[i].Description}
		if r, ok := agents[i].Remote.(*remote); ok {
			out[i].Card = r.cfg.Card
		}
	}
	return out
}

// usable says why name cannot be a remote agent's id here: not an id, the
// built-in general-purpose (which subagents rules allow unless denied, so
// a card could take it by its name alone), or another remote's.
func usable(name string, taken map[string]bool) error {
	switch {
	case !registry.ValidName(name):
		return fmt.Errorf("%q is not an agent id", name)
	case name == permissions.GeneralPurpose:
		return fmt.Errorf("%q is the built-in agent's id", name)
	case taken[name]:
		return fmt.Errorf("%q is already another a2a entry's id", name)
	}
	return nil
}

// remote is one remote agent: its card and client once fetched.
type remote struct {
	cfg  Agent
	http *http.Client

	mu     sync.Mutex
	card   *sdk.AgentCard
	client *a2aclient.Client
}

// name is the agent's id here: configured, else the card's name made an id.
func (r *remote) name() string {
	if r.cfg.ID != "" {
		return r.cfg.ID
	}
	return registry.Slug(r.card.Name)
}

func (r *remote) description() string {
	switch {
	case r.cfg.Description != "":
		return r.cfg.Description
	case r.card != nil && r.card.Description != "":
		return r.card.Description
	}
	return "A remote A2A agent (card " + r.cfg.Card + ")"
}

// connect returns the agent's client, fetching its card the first time
// (and again after a failure).
func (r *remote) connect(ctx context.Context) (*a2aclient.Client, *sdk.AgentCard, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.client != nil {
		return r.client, r.card, nil
	}
	card, err := fetchCard(ctx, r.http, r.cfg.Card, r.cfg.Token)
	if err != nil {
		return nil, nil, err
	}
	opts := []a2aclient.FactoryOption{a2aclient.WithJSONRPCTransport(r.http),
		a2aclient.WithConfig(a2aclient.Config{Polling: !card.Capabilities.Streaming})}
	if r.cfg.Token != "" {
		if err := sameOrigin(r.cfg.Card, card); err != nil {
			return nil, nil, err
		}
		opts = append(opts, a2aclient.WithInterceptors(bearer(r.cfg.Token)))
	}
	client, err := a2aclient.NewFromCard(ctx, card, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("a2a: agent card %s: no client for its endpoint %s: %w", r.cfg.Card, card.URL, err)
	}
	r.card, r.client = card, client
	return client, card, nil
}

// fetchCard reads the card at cardURL with the SDK's resolver.
func fetchCard(ctx context.Context, client *http.Client, cardURL, token string) (*sdk.AgentCard, error) {
	u, err := url.Parse(cardURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("a2a: agent card %q: not an http(s) URL", cardURL)
	}
	path := u.Path
	if !strings.HasSuffix(path, ".json") {
		path = strings.TrimSuffix(path, "/") + CardPath
	}
	opts := []agentcard.ResolveOption{agentcard.WithPath(path)}
	if token != "" {
		opts = append(opts, agentcard.WithRequestHeader("Authorization", "Bearer "+token))
	}
	card, err := agentcard.NewResolver(client).Resolve(ctx, u.Scheme+"://"+u.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent card %s could not be fetched: %w", cardURL, err)
	}
	if card.URL == "" {
		return nil, fmt.Errorf("a2a: agent card %s names no endpoint (url)", cardURL)
	}
	return card, nil
}

// sameOrigin refuses a card whose endpoints are not where the card is:
// the token configured for the card's server would go, on every call, to
// whatever host the card names, and the card is the remote side's to write.
func sameOrigin(cardURL string, card *sdk.AgentCard) error {
	c, _ := url.Parse(cardURL) // fetchCard parsed it
	endpoints := []string{card.URL}
	for _, i := range card.AdditionalInterfaces {
		endpoints = append(endpoints, i.URL)
	}
	for _, e := range endpoints {
		if u, err := url.Parse(e); err != nil || u.Scheme != c.Scheme || u.Host != c.Host {
			return fmt.Errorf("a2a: agent card %s names the endpoint %s on another server; its token is only sent to %s://%s", cardURL, e, c.Scheme, c.Host)
		}
	}
	return nil
}

// bearer puts the token on every call.
type bearer string

func (b bearer) Before(ctx context.Context, req *a2aclient.Request) (context.Context, error) {
	req.Meta["Authorization"] = []string{"Bearer " + string(b)}
	return ctx, nil
}

func (bearer) After(context.Context, *a2aclient.Response) error { return nil }

// Send hands the agent a task and waits for its end (delegation.Remote).
func (r *remote) Send(ctx context.Context, t delegation.RemoteTask) delegation.RemoteOutcome {
	tr := &tracker{attrs: map[string]any{semconv.AttrA2ACardURL: r.cfg.Card}, status: t.Status}
	if t.Started != nil {
		tr.started = func(id sdk.TaskID, contextID string) {
			t.Started(delegation.RemoteRef{Card: r.cfg.Card, TaskID: string(id), ContextID: contextID})
		}
	}
	if t.Resume != nil && t.Resume.Card != r.cfg.Card {
		return tr.failed(fmt.Errorf("a2a: %s: the remote task %s an earlier attempt of this delegation started is at card %s, and %s is now %s; it is not sent again",
			r.name(), t.Resume.TaskID, t.Resume.Card, r.name(), r.cfg.Card))
	}
	client, card, err := r.connect(ctx)
	if err != nil && t.Resume != nil && ctx.Err() != nil && !delegation.HandedOver(ctx) {
		// Ended before this attempt reached the agent (a retry past the
		// agent's timeout, on a worker that has not read the card yet): the
		// task an earlier attempt started is still the one to cancel.
		cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), CancelTimeout)
		client, card, err = r.connect(cctx)
		stop()
	}
	if err != nil {
		if delegation.HandedOver(ctx) {
			return tr.handedOver()
		}
		return tr.failed(err)
	}
	switch {
	case t.Resume != nil:
		err = tr.resume(ctx, client, card.Capabilities.Streaming, *t.Resume)
	case card.Capabilities.Streaming:
		err = tr.stream(ctx, client, r.params(ctx, t))
	default:
		err = tr.poll(ctx, client, r.params(ctx, t))
	}
	if ctx.Err() != nil && !tr.ended() {
		if delegation.HandedOver(ctx) { // a later attempt follows the task: it goes on
			return tr.handedOver()
		}
		return tr.cancel(ctx, client)
	}
	if err != nil {
		return tr.failed(fmt.Errorf("a2a: %s (%s): %w", r.name(), r.cfg.Card, err))
	}
	return tr.outcome()
}

// params is the message/send (or message/stream) of task t.
func (r *remote) params(ctx context.Context, t delegation.RemoteTask) *sdk.MessageSendParams {
	params := &sdk.MessageSendParams{Message: message(t)}
	if tp := model.TraceParent(ctx); tp != "" {
		params.Message.Metadata = map[string]any{metaTraceParent: tp}
	}
	return params
}
