package postgres

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// ownerCheckEvery is how often a store makes sure its session still holds
// its owner lock.
var ownerCheckEvery = 2 * time.Second

// ownerCheckTimeout bounds one check. It is not tied to the interval: a
// ping that is only slow (a loaded server or host) must not count as a lost
// session, since dropping a live lock makes the store's runs look dead to
// every reaper until it is taken again.
const ownerCheckTimeout = 15 * time.Second

// owner is a Store's identity in the runs it writes. A connection of its own
// holds the advisory lock (class, key) for as long as the Store is open:
// PostgreSQL drops it when the session ends, however the process ended, on
// whatever host it ran, and reapers elsewhere then take it for dead.
//
// A session can also end under a live process (a database restart, a
// network cut). Every ownerCheckEvery the connection is pinged; a lost one
// is replaced and the same key locked again, so the process's runs look
// alive again within that interval, not never. A reaper that looked in the
// gap has marked them interrupted; their next write sets them straight.
type owner struct {
	class, key int32
	host       string
	pid        int

	cc      *pgx.ConnConfig
	mu      sync.Mutex // guards lock
	lock    *pgx.Conn  // nil while lost
	stop    chan struct{}
	stopped sync.Once
	done    sync.WaitGroup
}

// takeOwnerKey opens the connection that holds a new Store's advisory lock,
// takes a key no live store holds, and starts checking it every interval.
func takeOwnerKey(ctx context.Context, cc *pgx.ConnConfig, class int32, every time.Duration) (*owner, error) {
	host, _ := os.Hostname()
	o := &owner{class: class, host: host, pid: os.Getpid(), cc: cc.Copy(), stop: make(chan struct{})}
	conn, err := pgx.ConnectConfig(ctx, o.cc)
	if err != nil {
		return nil, err
	}
	for range 100 {
		var got bool
		err := conn.QueryRow(ctx, "SELECT k, pg_try_advisory_lock($1, k) FROM CAST(nextval('owner_keys') AS integer) AS k",
			class).Scan(&o.key, &got)
		if err != nil {
			conn.Close(ctx)
			return nil, err
		}
		if got { // a key still held belongs to a store that lived through a wrap of the sequence
			o.lock = conn
			o.done.Go(func() { o.keep(every) })
			return o, nil
		}
	}
	conn.Close(ctx)
	return nil, errors.New("no free owner key after 100 tries")
}

// keep checks the lock every interval until release, which also cuts a
// check short.
func (o *owner) keep(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	released, cancelAll := context.WithCancel(context.Background())
	defer cancelAll()
	go func() { <-o.stop; cancelAll() }()
	for {
		select {
		case <-o.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(released, ownerCheckTimeout)
		o.check(ctx)
		cancel()
	}
}

// check pings the lock's connection and, if it is gone, connects again and
// retakes the key. The key may still be held by the old session, which the
// server has not yet seen end: then the runs look alive anyway, and the
// next check tries again.
func (o *owner) check(ctx context.Context) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lock != nil {
		if o.lock.Ping(ctx) == nil {
			return
		}
		o.lock.Close(ctx)
		o.lock = nil
	}
	conn, err := pgx.ConnectConfig(ctx, o.cc)
	if err != nil {
		return
	}
	var got bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, $2)", o.class, o.key).Scan(&got); err != nil || !got {
		conn.Close(ctx)
		return
	}
	o.lock = conn
}

// release stops the checks and unlocks, then closes the connection. It
// unlocks explicitly: a closed connection's session may linger on the
// server for a moment, and until it ends this store's runs would look alive.
func (o *owner) release() error {
	if o == nil {
		return nil
	}
	o.stopped.Do(func() { close(o.stop) })
	o.done.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lock == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := o.lock.Exec(ctx, "SELECT pg_advisory_unlock($1, $2)", o.class, o.key)
	err = errors.Join(err, o.lock.Close(ctx))
	o.lock = nil
	return err
}

// sessionPID is the server process of the lock's session, 0 while lost.
func (o *owner) sessionPID() uint32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lock == nil {
		return 0
	}
	return o.lock.PgConn().PID()
}
