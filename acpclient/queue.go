package acpclient

import "sync"

// eventQueue is the unbounded, ordered queue between the client's goroutines (SDK handlers,
// the wire reader, the prompt loop) and the consumer of Client.Events(). push never blocks
// (session/update handling must return fast, or the SDK's bounded notification queue overflows); one pump goroutine hands events to
// the channel in order.
type eventQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []Event
	closed  bool
	dropped bool // abandon: the consumer is gone, discard everything
	out     chan Event
	done    chan struct{}
}

func newEventQueue() *eventQueue {
	q := &eventQueue{out: make(chan Event), done: make(chan struct{})}
	q.cond = sync.NewCond(&q.mu)
	go q.pump()
	return q
}

// push appends ev; after close it is dropped.
func (q *eventQueue) push(ev Event) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, ev)
		q.cond.Signal()
	}
	q.mu.Unlock()
}

// close stops accepting events; the pump delivers what is queued, then closes the channel.
func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Signal()
	q.mu.Unlock()
}

// abandon closes the queue and discards undelivered events (nobody will read them). It waits
// for the pump to finish, so it must only be called when no consumer is reading.
func (q *eventQueue) abandon() {
	q.mu.Lock()
	q.closed, q.dropped = true, true
	q.items = nil
	q.cond.Signal()
	q.mu.Unlock()
	// The pump may be blocked handing one event over; take it.
	for {
		select {
		case _, ok := <-q.out:
			if !ok {
				<-q.done
				return
			}
		case <-q.done:
			return
		}
	}
}

func (q *eventQueue) pump() {
	defer close(q.done)
	defer close(q.out)
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.cond.Wait()
		}
		if len(q.items) == 0 || q.dropped {
			q.mu.Unlock()
			return
		}
		batch := q.items
		q.items = nil
		q.mu.Unlock()
		for i, ev := range batch {
			q.out <- ev
			batch[i] = nil
			q.mu.Lock()
			drop := q.dropped
			q.mu.Unlock()
			if drop {
				return
			}
		}
	}
}
