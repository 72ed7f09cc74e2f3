package main

// Instrumentation of the List/Watch calls that informers make.
//
// Rather than building informers by hand around a custom cache.ListWatch, the
// harness wraps the *clients* (typed clientset, dynamic client, metadata
// client) and hands them to the stock informer factories. The generated
// informers' ListWatch calls client.List / client.Watch exactly once per
// reflector List / Watch call (no tweak function is installed), so counting at
// the client is counting at the ListerWatcher, and the informers under test
// are built by the very code that controllers use.
//
// Only the reflector-level calls are seen here. With WatchListClient=true the
// clients' own List may internally open a `sendInitialEvents=true` watch
// before falling back to a plain GET (client-go util/watchlist); that happens
// inside the wrapped List and shows up as a "list" call (use --trace-http to
// see the HTTP requests).

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/util/watchlist"
)

// tracker reports the List/Watch calls of one informer.
type tracker struct {
	name    string // informer name used in the protocol
	out     *emitter
	streams *sync.WaitGroup // open observed watches, so shutdown can wait for their "watch-ended"
	pause   *pauser         // non-nil only for the informer whose Watch can be paused
}

// callName classifies a Watch call: the reflector's streaming list (WatchList)
// is a Watch with SendInitialEvents=true.
func callName(opts metav1.ListOptions) string {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		return "watchlist"
	}
	return "watch"
}

func (t *tracker) callError(call string, err error) {
	code, reason, msg := statusOf(err)
	t.out.emit(callErrorMsg{Kind: "call-error", Informer: t.name, Call: call, Status: code, Reason: reason, Message: msg})
}

func trackList[L runtime.Object](ctx context.Context, t *tracker, opts metav1.ListOptions,
	list func(context.Context, metav1.ListOptions) (L, error)) (L, error) {
	t.out.emit(callMsg{Kind: "call", Informer: t.name, Call: "list", RV: opts.ResourceVersion, Continue: opts.Continue})
	res, err := list(ctx, opts)
	if err != nil {
		t.callError("list", err)
		return res, err
	}
	msg := listedMsg{Kind: "listed", Informer: t.name, Items: meta.LenList(res)}
	if la, err := meta.ListAccessor(res); err == nil {
		msg.RV = la.GetResourceVersion()
	}
	t.out.emit(msg)
	return res, nil
}

func (t *tracker) watch(ctx context.Context, opts metav1.ListOptions,
	open func(context.Context, metav1.ListOptions) (watch.Interface, error)) (watch.Interface, error) {
	call := callName(opts)
	t.out.emit(callMsg{Kind: "call", Informer: t.name, Call: call, RV: opts.ResourceVersion})
	if t.pause != nil {
		if err := t.pause.wait(t); err != nil {
			return nil, err
		}
	}
	w, err := open(ctx, opts)
	if err != nil {
		t.callError(call, err)
		return nil, err
	}
	return newObservedWatch(w, t), nil
}

// observedWatch forwards a watch stream unchanged while reporting ERROR
// events and the end of the stream.
type observedWatch struct {
	inner   watch.Interface
	result  chan watch.Event
	stopped chan struct{}
	once    sync.Once
}

func newObservedWatch(inner watch.Interface, t *tracker) *observedWatch {
	w := &observedWatch{inner: inner, result: make(chan watch.Event), stopped: make(chan struct{})}
	t.streams.Add(1)
	go w.forward(t)
	return w
}

func (w *observedWatch) ResultChan() <-chan watch.Event { return w.result }

func (w *observedWatch) Stop() {
	w.once.Do(func() {
		close(w.stopped)
		w.inner.Stop()
	})
}

func (w *observedWatch) forward(t *tracker) {
	defer t.streams.Done()
	// Closing result after reporting "watch-ended" guarantees the line is
	// written before the reflector reacts (e.g. with its next call).
	defer close(w.result)
	n := 0
	for ev := range w.inner.ResultChan() {
		n++
		if ev.Type == watch.Error {
			code, reason, msg := objectStatus(ev.Object)
			t.out.emit(watchErrorMsg{Kind: "watch-error", Informer: t.name, Code: code, Reason: reason, Message: msg})
		}
		select {
		case w.result <- ev:
		case <-w.stopped: // consumer is gone; drain until the inner watch closes
		}
	}
	clientStopped := false
	select {
	case <-w.stopped:
		clientStopped = true
	default:
	}
	t.out.emit(watchEndedMsg{Kind: "watch-ended", Informer: t.name, Events: n, ClientStopped: clientStopped})
}

var errStopping = errors.New("informer-harness is stopping")

// pauser blocks a Watch call while a file exists, before any HTTP request is
// made. This lets a test hold the reflector between two watches while the
// server drops the events the next watch would need (-> 410 -> relist).
type pauser struct {
	path string
	poll time.Duration
	stop <-chan struct{}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (p *pauser) wait(t *tracker) error {
	if !fileExists(p.path) {
		return nil
	}
	t.out.emit(simpleMsg{Kind: "watch-paused", Informer: t.name})
	tick := time.NewTicker(p.poll)
	defer tick.Stop()
	for fileExists(p.path) {
		select {
		case <-p.stop:
			return errStopping
		case <-tick.C:
		}
	}
	t.out.emit(simpleMsg{Kind: "watch-resumed", Informer: t.name})
	return nil
}

// --- typed clientset: CoreV1().Pods(ns) and CoreV1().ConfigMaps(ns) ---

type trackedClientset struct {
	kubernetes.Interface
	pods, configMaps *tracker
}

// IsWatchListSemanticsUnSupported passes on the wrapped client's answer: client-go 1.35's
// informers stream their lists (WatchList) unless the client says it cannot, as the fake
// clients of the harness's own tests do.
func (c *trackedClientset) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(c.Interface)
}

func (c *trackedClientset) CoreV1() corev1client.CoreV1Interface {
	return &trackedCoreV1{CoreV1Interface: c.Interface.CoreV1(), pods: c.pods, configMaps: c.configMaps}
}

type trackedCoreV1 struct {
	corev1client.CoreV1Interface
	pods, configMaps *tracker
}

func (c *trackedCoreV1) Pods(ns string) corev1client.PodInterface {
	return &trackedPods{PodInterface: c.CoreV1Interface.Pods(ns), t: c.pods}
}

func (c *trackedCoreV1) ConfigMaps(ns string) corev1client.ConfigMapInterface {
	return &trackedConfigMaps{ConfigMapInterface: c.CoreV1Interface.ConfigMaps(ns), t: c.configMaps}
}

type trackedPods struct {
	corev1client.PodInterface
	t *tracker
}

func (p *trackedPods) List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	return trackList(ctx, p.t, opts, p.PodInterface.List)
}

func (p *trackedPods) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return p.t.watch(ctx, opts, p.PodInterface.Watch)
}

type trackedConfigMaps struct {
	corev1client.ConfigMapInterface
	t *tracker
}

func (c *trackedConfigMaps) List(ctx context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error) {
	return trackList(ctx, c.t, opts, c.ConfigMapInterface.List)
}

func (c *trackedConfigMaps) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return c.t.watch(ctx, opts, c.ConfigMapInterface.Watch)
}

// --- dynamic client: Resource(gvr).Namespace(ns) ---

type trackedDynamic struct {
	dynamic.Interface
	gvr schema.GroupVersionResource
	t   *tracker
}

// IsWatchListSemanticsUnSupported: see trackedClientset's.
func (c *trackedDynamic) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(c.Interface)
}

func (c *trackedDynamic) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	r := c.Interface.Resource(gvr)
	if gvr != c.gvr {
		return r
	}
	return &trackedDynamicResource{NamespaceableResourceInterface: r, t: c.t}
}

type trackedDynamicResource struct {
	dynamic.NamespaceableResourceInterface
	t *tracker
}

func (r *trackedDynamicResource) Namespace(ns string) dynamic.ResourceInterface {
	return &trackedDynamicNamespaced{ResourceInterface: r.NamespaceableResourceInterface.Namespace(ns), t: r.t}
}

type trackedDynamicNamespaced struct {
	dynamic.ResourceInterface
	t *tracker
}

func (r *trackedDynamicNamespaced) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return trackList(ctx, r.t, opts, r.ResourceInterface.List)
}

func (r *trackedDynamicNamespaced) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return r.t.watch(ctx, opts, r.ResourceInterface.Watch)
}

// --- metadata client: Resource(gvr).Namespace(ns) ---

type trackedMetadata struct {
	metadata.Interface
	gvr schema.GroupVersionResource
	t   *tracker
}

// IsWatchListSemanticsUnSupported: see trackedClientset's.
func (c *trackedMetadata) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(c.Interface)
}

func (c *trackedMetadata) Resource(gvr schema.GroupVersionResource) metadata.Getter {
	g := c.Interface.Resource(gvr)
	if gvr != c.gvr {
		return g
	}
	return &trackedMetadataResource{Getter: g, t: c.t}
}

type trackedMetadataResource struct {
	metadata.Getter
	t *tracker
}

func (r *trackedMetadataResource) Namespace(ns string) metadata.ResourceInterface {
	return &trackedMetadataNamespaced{ResourceInterface: r.Getter.Namespace(ns), t: r.t}
}

type trackedMetadataNamespaced struct {
	metadata.ResourceInterface
	t *tracker
}

func (r *trackedMetadataNamespaced) List(ctx context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	return trackList(ctx, r.t, opts, r.ResourceInterface.List)
}

func (r *trackedMetadataNamespaced) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return r.t.watch(ctx, opts, r.ResourceInterface.Watch)
}

// --- optional HTTP trace (--trace-http) ---

// tracingTransport reports every HTTP request once its response headers (or
// an error) arrived; for a watch that is when the stream opens.
type tracingTransport struct {
	next http.RoundTripper
	out  *emitter
}

func (rt *tracingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	_, client, _ := strings.Cut(req.UserAgent(), "/")
	msg := httpMsg{Kind: "http", Client: client, Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
		Accept: req.Header.Get("Accept")}
	if resp != nil {
		msg.Status, msg.ContentType, msg.Proto = resp.StatusCode, resp.Header.Get("Content-Type"), resp.Proto
	}
	rt.out.emit(msg)
	return resp, err
}

// WrappedRoundTripper lets client-go utilities see through the wrapper.
func (rt *tracingTransport) WrappedRoundTripper() http.RoundTripper { return rt.next }
