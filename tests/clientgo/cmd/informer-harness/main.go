// Command informer-harness runs real client-go informers against an API server
// and reports, as JSON lines on stdout, every List/Watch call they make and
// every event handler callback, so a test can check that informers sync, see
// changes, and relist correctly (with KUBE_FEATURE_WatchListClient=false or
// =true, read by client-go from the environment).
//
// Four informers run in --namespace:
//
//	pods            typed SharedInformerFactory, core/v1 Pods
//	configmaps      typed SharedInformerFactory, core/v1 ConfigMaps
//	dyn-configmaps  dynamicinformer, v1 configmaps (unstructured)
//	meta-pods       metadatainformer, v1 pods (PartialObjectMetadata)
//
// With client-go 1.35's defaults the typed informers speak protobuf (Accept
// "application/vnd.kubernetes.protobuf,application/json") and the metadata
// informer asks for PartialObjectMetadataList in protobuf first (whatever the
// config says); --content-type=json sets the rest config's ContentType so that
// the typed clients speak JSON.
//
// Stdout protocol, one object per line (everything else goes to stderr):
//
//	{"kind":"call","informer":I,"call":"list|watch|watchlist","rv":RV[,"continue":C]}
//	    before each reflector List/Watch; "watchlist" = Watch with sendInitialEvents=true;
//	    rv = the requested resourceVersion; "continue" only on follow-up pages of a list
//	{"kind":"listed","informer":I,"rv":RV,"items":N}                after a successful list
//	{"kind":"call-error","informer":I,"call":C,"status":N,"reason":R,"message":M}
//	    a list/watch request failed (status 0 = no HTTP response, e.g. connection refused)
//	{"kind":"watch-error","informer":I,"code":N,"reason":R,"message":M}
//	    an ERROR event arrived on a watch stream (it is still passed to the reflector)
//	{"kind":"watch-ended","informer":I,"events":N,"client_stopped":B}
//	    a watch stream closed; client_stopped = the client called Stop first
//	{"kind":"watch-paused","informer":"pods"} / {"kind":"watch-resumed","informer":"pods"}
//	    see --pause-watch-file
//	{"kind":"event","informer":I,"type":"add|update|delete","name":N,"rv":RV[,"initial":B][,"tombstone":true]}
//	    a handler callback; "initial" (isInInitialList) only on adds; "tombstone" for a
//	    DeletedFinalStateUnknown delete (name from its key, rv of its last known state)
//	{"kind":"synced"}   once every handler has synced (all initial adds were printed)
//	{"kind":"dump","informer":I,"objects":{NAME:RV,...}}   one per informer, on "dump"
//	{"kind":"http","client":C,"method":M,"path":P,"query":Q,"accept":A,"status":N,"contentType":T,"proto":R}
//	    only with --trace-http: C the client (typed, dynamic or metadata), A the
//	    request's Accept header, T the response's Content-Type, R its protocol (HTTP/1.1, HTTP/2.0)
//
// Stdin commands, one per line: "dump" prints the four stores; "quit" (or EOF)
// stops the informers and exits 0. Exit status 2 = --timeout reached, 1 = error.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

var (
	podsGVR       = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

type options struct {
	kubeconfig  string
	namespace   string
	timeout     time.Duration
	resync      time.Duration
	pauseFile   string
	traceHTTP   bool
	contentType string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("informer-harness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file (default $KUBECONFIG)")
	fs.StringVar(&o.namespace, "namespace", "default", "namespace to watch")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "overall deadline; exit 2 when reached")
	fs.DurationVar(&o.resync, "resync", 0, "informer resync period (0 = never)")
	fs.StringVar(&o.pauseFile, "pause-watch-file", "", "while this file exists, the pods informer's Watch calls block before the HTTP request")
	fs.BoolVar(&o.traceHTTP, "trace-http", false, `also print {"kind":"http",...} for every HTTP request`)
	fs.StringVar(&o.contentType, "content-type", "", `"json": the typed clients speak JSON; "" (default): client-go's defaults (typed clients prefer protobuf)`)
	klog.InitFlags(fs) // -v=N etc.; klog writes to stderr
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: informer-harness [flags]

Runs client-go informers in one namespace (typed pods and configmaps, dynamic configmaps,
metadata pods) and prints their List/Watch calls and handler events as JSON lines on stdout.
Reads "dump" and "quit" from stdin (EOF = quit). KUBE_FEATURE_WatchListClient=true|false
selects the streaming-list mode. Protocol: go doc -cmd ./cmd/informer-harness

Flags (klog's own flags, e.g. -v=4, included):
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "informer-harness: "+format+"\n", a...) }
	if fs.NArg() > 0 {
		logf("unexpected arguments: %q", fs.Args())
		return 1
	}
	if o.kubeconfig == "" {
		logf("no kubeconfig: pass --kubeconfig or set KUBECONFIG")
		return 1
	}

	out := &emitter{w: stdout}
	c, err := newClients(o, out)
	if err != nil {
		logf("%v", err)
		return 1
	}
	logf("namespace=%q WatchListClient=%v (KUBE_FEATURE_WatchListClient=%q)", o.namespace,
		clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient), os.Getenv("KUBE_FEATURE_WatchListClient"))

	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	sigCtx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	h := startHarness(c, o, out)
	defer func() {
		if !h.shutdown(5 * time.Second) {
			logf("informers did not stop within 5s; exiting anyway")
		}
	}()

	cmds := make(chan string)
	go func() {
		defer close(cmds)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			cmds <- strings.TrimSpace(sc.Text())
		}
	}()

	for {
		select {
		case cmd, ok := <-cmds:
			switch {
			case !ok || cmd == "quit":
				return 0
			case cmd == "dump":
				h.dump()
			case cmd == "":
			default:
				logf("unknown command %q (want dump or quit)", cmd)
			}
		case <-sigCtx.Done():
			if ctx.Err() == nil {
				logf("interrupted")
				return 1
			}
			if pending := h.unsynced(); len(pending) > 0 {
				logf("TIMEOUT after %v: informers not synced: %s (see call/call-error lines on stdout, -v=4 for reflector logs)",
					o.timeout, strings.Join(pending, ", "))
			} else {
				logf("TIMEOUT after %v: all informers synced but no quit command arrived on stdin", o.timeout)
			}
			return 2
		}
	}
}

type clients struct {
	typed kubernetes.Interface
	dyn   dynamic.Interface
	meta  metadata.Interface
}

func newClients(o options, out *emitter) (clients, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return clients{}, fmt.Errorf("loading kubeconfig %q: %w", o.kubeconfig, err)
	}
	// Client-side throttling would only add latency to relists in tests.
	cfg.QPS, cfg.Burst = 1000, 2000
	cfg.UserAgent = "fakeapi-informer-harness"
	switch o.contentType {
	case "":
	case "json":
		cfg.ContentType = "application/json"
	default:
		return clients{}, fmt.Errorf("--content-type %q: want json or nothing", o.contentType)
	}
	if o.traceHTTP {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &tracingTransport{next: rt, out: out} })
	}
	// Each client names itself in its User-Agent, which --trace-http reports.
	named := func(client string) *rest.Config {
		c := rest.CopyConfig(cfg)
		c.UserAgent = cfg.UserAgent + "/" + client
		return c
	}
	var c clients
	if c.typed, err = kubernetes.NewForConfig(named("typed")); err != nil {
		return clients{}, err
	}
	if c.dyn, err = dynamic.NewForConfig(named("dynamic")); err != nil {
		return clients{}, err
	}
	if c.meta, err = metadata.NewForConfig(named("metadata")); err != nil {
		return clients{}, err
	}
	return c, nil
}

type namedInformer struct {
	name     string
	informer cache.SharedIndexInformer
	synced   cache.InformerSynced // the handler registration's HasSynced
}

type harness struct {
	out       *emitter
	stop      chan struct{}
	informers []namedInformer
	factories []interface{ Shutdown() }
	streams   sync.WaitGroup
}

// startHarness builds the four informers from the (instrumented) clients,
// registers the reporting handlers, starts everything and prints "synced"
// in the background once all handlers have synced.
func startHarness(c clients, o options, out *emitter) *harness {
	h := &harness{out: out, stop: make(chan struct{})}
	tracker := func(name string) *tracker { return &tracker{name: name, out: out, streams: &h.streams} }
	pods := tracker("pods")
	if o.pauseFile != "" {
		pods.pause = &pauser{path: o.pauseFile, poll: 20 * time.Millisecond, stop: h.stop}
	}

	typed := informers.NewSharedInformerFactoryWithOptions(
		&trackedClientset{Interface: c.typed, pods: pods, configMaps: tracker("configmaps")},
		o.resync, informers.WithNamespace(o.namespace))
	dyn := dynamicinformer.NewFilteredDynamicSharedInformerFactory(
		&trackedDynamic{Interface: c.dyn, gvr: configMapsGVR, t: tracker("dyn-configmaps")}, o.resync, o.namespace, nil)
	meta := metadatainformer.NewFilteredSharedInformerFactory(
		&trackedMetadata{Interface: c.meta, gvr: podsGVR, t: tracker("meta-pods")}, o.resync, o.namespace, nil)
	h.factories = []interface{ Shutdown() }{typed, dyn, meta}

	for _, ni := range []namedInformer{
		{name: "pods", informer: typed.Core().V1().Pods().Informer()},
		{name: "configmaps", informer: typed.Core().V1().ConfigMaps().Informer()},
		{name: "dyn-configmaps", informer: dyn.ForResource(configMapsGVR).Informer()},
		{name: "meta-pods", informer: meta.ForResource(podsGVR).Informer()},
	} {
		reg, err := ni.informer.AddEventHandler(handler(ni.name, out))
		if err != nil {
			panic(err) // only fails for an informer that was already stopped
		}
		// Waiting on the registration (not just the informer) means every
		// initial "add" line is printed before "synced".
		ni.synced = reg.HasSynced
		h.informers = append(h.informers, ni)
	}

	typed.Start(h.stop)
	dyn.Start(h.stop)
	meta.Start(h.stop)

	go func() {
		synced := make([]cache.InformerSynced, len(h.informers))
		for i, ni := range h.informers {
			synced[i] = ni.synced
		}
		if cache.WaitForCacheSync(h.stop, synced...) {
			out.emit(simpleMsg{Kind: "synced"})
		}
	}()
	return h
}

func handler(name string, out *emitter) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			ev := eventFor(name, "add", obj)
			ev.Initial = &isInInitialList
			out.emit(ev)
		},
		UpdateFunc: func(_, obj any) { out.emit(eventFor(name, "update", obj)) },
		DeleteFunc: func(obj any) { out.emit(eventFor(name, "delete", obj)) },
	}
}

func (h *harness) dump() {
	for _, ni := range h.informers {
		h.out.emit(dumpMsg{Kind: "dump", Informer: ni.name, Objects: storeSnapshot(ni.informer.GetIndexer())})
	}
}

func (h *harness) unsynced() []string {
	var names []string
	for _, ni := range h.informers {
		if !ni.synced() {
			names = append(names, ni.name)
		}
	}
	return names
}

// shutdown stops the informers and waits (bounded: a List against a hung
// server has no deadline) for their goroutines to exit.
func (h *harness) shutdown(limit time.Duration) bool {
	close(h.stop)
	done := make(chan struct{})
	go func() {
		for _, f := range h.factories {
			f.Shutdown()
		}
		h.streams.Wait() // stopped watches report "watch-ended" before we exit
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}
