package offline

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
)

// watches shares one tracker watch per resource and namespace among the
// callers of Cluster.Watch and the watches of the fake clients (an
// in-process module's informers). The fake object tracker keeps every
// watcher it ever made, stopped ones too, so a watch per wait (presetsim
// fuzz waits for events in every case) made memory grow with every case;
// here a namespace costs one watcher however often it is watched, and a
// caller's Stop really ends its watch. And the tracker panics when one of
// its watchers' channels (of 100) is full: an informer starved of the CPU
// for a while, on a loaded host, crashed the run. Here the tracker's only
// watchers are the feeds, which hand events on without ever blocking, and
// every change waits for them when they have many events to read (before).
type watches struct {
	mu    sync.Mutex
	feeds map[watchKey]*feed
}

type watchKey struct {
	gvr       schema.GroupVersionResource
	namespace string
}

// feed is one tracker watch and the watches it serves.
type feed struct {
	src  watch.Interface
	mu   sync.Mutex
	subs map[*subscriber]bool
	// sent counts the changes made that the tracker hands this feed
	// (before), read the events taken from the tracker's watch; stopped is
	// set once it is stopped (forget), when it reads no more.
	sent, read atomic.Int64
	stopped    atomic.Bool
}

// subscriberBuffer is how many events a watch holds for a caller that does
// not read them; past that, its watch ends (its channel is closed), as an
// API server ends a watch that falls behind.
const subscriberBuffer = 256

// subscriber is one caller's watch.
type subscriber struct {
	f      *feed
	ch     chan watch.Event
	closed bool // guarded by f.mu
	// queue, for a client's watch, holds the events ch has no room for
	// (guarded by f.mu): an informer falls behind for a while but loses
	// no event, as with an API server, which replays a watch from its
	// resourceVersion. pump hands them on; wake tells it there are some;
	// done ends it.
	unbounded bool
	queue     []watch.Event
	wake      chan struct{}
	done      chan struct{}
}

func (s *subscriber) ResultChan() <-chan watch.Event { return s.ch }

// Stop ends the watch; it may be called more than once.
func (s *subscriber) Stop() {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.closeLocked()
}

func (s *subscriber) closeLocked() {
	if s.closed {
		return
	}
	s.closed = true
	delete(s.f.subs, s)
	if s.unbounded {
		close(s.done) // pump closes ch
		return
	}
	close(s.ch)
}

// sendLocked hands an event to the subscriber: a caller's watch that has
// no room for it ends; a client's keeps it for pump.
func (s *subscriber) sendLocked(ev watch.Event) {
	if s.unbounded {
		s.queue = append(s.queue, ev)
		select {
		case s.wake <- struct{}{}:
		default: // pump is already told
		}
		return
	}
	select {
	case s.ch <- ev:
	default:
		s.closeLocked() // fell behind: its watch ends
	}
}

// pump hands a client's watch its queued events, in order, until the
// watch ends; then it closes its channel.
func (s *subscriber) pump() {
	defer close(s.ch)
	for {
		s.f.mu.Lock()
		batch := s.queue
		s.queue = nil
		s.f.mu.Unlock()
		for _, ev := range batch {
			select {
			case s.ch <- ev:
			case <-s.done:
				return
			}
		}
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}

// watch returns a new watch of the resource in the namespace, sharing the
// tracker's watch with every other one; a caller's watch ends when it falls
// behind by subscriberBuffer events.
func (w *watches) watch(t clienttesting.ObjectTracker, gvr schema.GroupVersionResource, namespace string) (watch.Interface, error) {
	return w.subscribe(t, gvr, namespace, false)
}

// clientWatch is a fake client's watch reactor: its watches share the
// feeds, and never fall behind.
func (w *watches) clientWatch(t clienttesting.ObjectTracker) clienttesting.WatchReactionFunc {
	return func(action clienttesting.Action) (bool, watch.Interface, error) {
		wi, err := w.subscribe(t, action.GetResource(), action.GetNamespace(), true)
		return true, wi, err
	}
}

func (w *watches) subscribe(t clienttesting.ObjectTracker, gvr schema.GroupVersionResource, namespace string, unbounded bool) (watch.Interface, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := watchKey{gvr, namespace}
	f := w.feeds[key]
	if f == nil {
		src, err := t.Watch(gvr, namespace)
		if err != nil {
			return nil, err
		}
		f = &feed{src: src, subs: map[*subscriber]bool{}}
		if w.feeds == nil {
			w.feeds = map[watchKey]*feed{}
		}
		w.feeds[key] = f
		go f.run()
	}
	s := &subscriber{f: f, ch: make(chan watch.Event, subscriberBuffer), unbounded: unbounded}
	if unbounded {
		s.wake, s.done = make(chan struct{}, 1), make(chan struct{})
		go s.pump()
	}
	f.mu.Lock()
	f.subs[s] = true
	f.mu.Unlock()
	return s, nil
}

// run hands every event of the tracker's watch to the watches of the
// moment, until the tracker's watch is stopped; then it ends them.
func (f *feed) run() {
	for ev := range f.src.ResultChan() {
		f.read.Add(1)
		f.mu.Lock()
		for s := range f.subs {
			s.sendLocked(ev)
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	for s := range f.subs {
		s.closeLocked()
	}
	f.mu.Unlock()
}

// forget stops the feeds of a namespace (deleted: nothing will happen in
// it any more), ending their watches.
func (w *watches) forget(namespace string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, f := range w.feeds {
		if key.namespace == namespace {
			f.stopped.Store(true)
			f.src.Stop()
			delete(w.feeds, key)
		}
	}
}

// stop stops every feed, ending every watch (the cluster stops); a watch
// asked for later gets a feed of its own as before.
func (w *watches) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, f := range w.feeds {
		f.stopped.Store(true)
		f.src.Stop()
		delete(w.feeds, key)
	}
}

// feedSlack is how many events a feed may have to read before a change
// waits for it: below the tracker's channel of 100, which panics when full.
const feedSlack = 64

// paceWait bounds how long a change waits for a feed: one that has not read
// an event in that time is not scheduled at all, and the change fails
// rather than crash the run.
const paceWait = 30 * time.Second

// before is called before every change of a resource in a namespace (""
// for a cluster-scoped one) the tracker hands its watches: it waits until
// every feed that sees the change (the namespace's and the whole
// resource's) has fewer than feedSlack events to read, and counts the
// change as sent to them. A feed not scheduled for a while (two cores,
// many goroutines, a bulk deletion) thus never lets the tracker's channel
// fill.
func (w *watches) before(gvr schema.GroupVersionResource, namespace string) error {
	w.mu.Lock()
	var feeds []*feed
	for _, ns := range slices.Compact([]string{namespace, ""}) {
		if f := w.feeds[watchKey{gvr, ns}]; f != nil {
			feeds = append(feeds, f)
		}
	}
	w.mu.Unlock()
	for _, f := range feeds {
		deadline := time.Now().Add(paceWait)
		for f.sent.Load()-f.read.Load() >= feedSlack && !f.stopped.Load() {
			if time.Now().After(deadline) {
				return fmt.Errorf("the watch of %s has not read %d changes in %s", gvr.Resource, f.sent.Load()-f.read.Load(), paceWait)
			}
			time.Sleep(50 * time.Microsecond)
		}
		f.sent.Add(1)
	}
	return nil
}

// clientWrites is a fake client's reactor for the changes its callers make
// (an in-process module's events): each waits as before says, then goes on
// to the tracker.
func (w *watches) clientWrites(action clienttesting.Action) (bool, runtime.Object, error) {
	switch action.GetVerb() {
	case "create", "update", "patch", "delete", "delete-collection":
		if err := w.before(action.GetResource(), action.GetNamespace()); err != nil {
			return true, nil, err
		}
	}
	return false, nil, nil
}
