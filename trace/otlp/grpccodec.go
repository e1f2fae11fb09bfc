package otlp

import (
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// exactCodec is gRPC's proto codec except that it marshals a request into
// a buffer its Exporter keeps (bodyPool) instead of one from gRPC's pool.
// gRPC's codec takes the buffer of any message over 32 KB from its pool's
// 1 MB tier, and the garbage collector empties that pool between a run's
// export requests: each request then allocated and cleared 1 MB. A new
// slice of the request's size per request (the previous version, as
// otlptracehttp does) still allocated a 145 KB large object twice per
// 200-delegation run, and large objects are what made a run's garbage
// collections more frequent and dearer than export's own work. The wire
// bytes are the same; the official otlptracegrpc client still does the
// rest. ForceCodecV2 is marked experimental in grpc-go: should it go, this
// file goes, and only the allocations come back.
type exactCodec struct {
	encoding.CodecV2
	pool *bodyPool
}

func (c exactCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return c.CodecV2.Marshal(v)
	}
	// proto.Size fills the size cache that UseCachedSize then reads, as
	// gRPC's own codec does.
	buf := c.pool.Get(proto.Size(m))
	if _, err := (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend((*buf)[:0], m); err != nil {
		c.pool.Put(buf)
		return nil, err
	}
	return mem.BufferSlice{mem.NewBuffer(buf, c.pool)}, nil
}

// bodyPool keeps the last few request buffers gRPC has finished writing
// (it frees a buffer by reference count once the bytes are on the
// connection). Unlike a sync.Pool it survives garbage collections; it
// holds at most keepBodies buffers, the size of the largest requests.
type bodyPool struct {
	mu   sync.Mutex
	free []*[]byte
}

const keepBodies = 2

func (p *bodyPool) Get(n int) *[]byte {
	p.mu.Lock()
	for i, b := range p.free {
		if cap(*b) >= n {
			p.free = append(p.free[:i], p.free[i+1:]...)
			p.mu.Unlock()
			*b = (*b)[:n]
			return b
		}
	}
	p.mu.Unlock()
	b := make([]byte, n)
	return &b
}

func (p *bodyPool) Put(b *[]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < keepBodies {
		p.free = append(p.free, b)
		return
	}
	for i, f := range p.free { // keep the larger buffers
		if cap(*f) < cap(*b) {
			p.free[i] = b
			return
		}
	}
}

// grpcCodecOption makes every call of a connection use an exactCodec with
// a bodyPool of its own.
func grpcCodecOption() grpc.DialOption {
	c := exactCodec{encoding.GetCodecV2(grpcproto.Name), &bodyPool{}}
	return grpc.WithDefaultCallOptions(grpc.ForceCodecV2(c))
}
