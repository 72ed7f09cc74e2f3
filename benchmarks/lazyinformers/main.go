// Command lazyinformers is a controller-runtime v0.23 manager of the kind most operators are:
// a controller For Deployments whose reconciler reads, through the manager's cached client, the
// Deployment's ReplicaSets and Pods and the ConfigMap its annotation names. controller-runtime
// starts an informer for a kind the first time the client reads it ("lazily"), cluster-wide, and
// the read waits for that informer's first LIST to finish. The cache's SyncPeriod (resync)
// re-delivers every cached Deployment to the controller each period.
//
// It runs for --duration against the cluster of $KUBECONFIG (or --kubeconfig) and prints, as
// one JSON object on stdout, what it did (reconciles over time, when each informer started and
// synced) and the API traffic it caused, counted on its own HTTP transport: requests and
// response bytes per verb and resource. It is the seed 002/003 scenario's client
// (benchmarks/scenario_lazy_informers.py, docs/scenarios.md).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// ConfigAnnotation names the ConfigMap (in the Deployment's namespace) a Deployment reads.
const ConfigAnnotation = "example.com/config"

// usage is what one verb on one resource cost.
type usage struct {
	Requests      int64 `json:"requests"`
	ResponseBytes int64 `json:"responseBytes"`
}

// traffic counts the requests of this process by "VERB resource" (kube's verbs: LIST, WATCH).
type traffic struct {
	mu    sync.Mutex
	byKey map[string]*usage
}

func (t *traffic) add(key string, requests, bytes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	entry := t.byKey[key]
	if entry == nil {
		entry = &usage{}
		t.byKey[key] = entry
	}
	entry.Requests += requests
	entry.ResponseBytes += bytes
}

type countingTransport struct {
	next    http.RoundTripper
	traffic *traffic
}

func (c *countingTransport) RoundTrip(request *http.Request) (*http.Response, error) {
	key := requestKey(request)
	c.traffic.add(key, 1, 0)
	response, err := c.next.RoundTrip(request)
	if response != nil && response.Body != nil {
		response.Body = &countingBody{ReadCloser: response.Body, traffic: c.traffic, key: key}
	}
	return response, err
}

type countingBody struct {
	io.ReadCloser
	traffic *traffic
	key     string
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.traffic.add(b.key, 0, int64(n))
	return n, err
}

// requestKey names a request as kube-apiserver's metrics do: "LIST pods", "WATCH configmaps",
// "GET deployments", "PUT leases".
func requestKey(request *http.Request) string {
	parts := strings.Split(strings.Trim(request.URL.Path, "/"), "/")
	// /api/v1/... or /apis/group/version/...
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return "GET discovery" // /api, /apis, /version
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	if len(parts) == 0 || parts[0] == "" {
		return "GET discovery" // a group version's resource list
	}
	resource, named := parts[0], len(parts) > 1
	verb := request.Method
	if verb == http.MethodGet {
		switch {
		case request.URL.Query().Get("watch") == "true" || request.URL.Query().Get("watch") == "1":
			verb = "WATCH"
		case named:
			verb = "GET"
		default:
			verb = "LIST"
		}
	}
	return verb + " " + resource
}

// timeline is when things happened, in seconds since the start.
type timeline struct {
	mu     sync.Mutex
	start  time.Time
	events map[string]float64
}

func (t *timeline) once(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, seen := t.events[name]; !seen {
		t.events[name] = time.Since(t.start).Seconds()
	}
}

type reconciler struct {
	client.Client
	reconciles     atomic.Int64
	perSecond      []atomic.Int64
	start          time.Time
	timeline       *timeline
	readConfigMaps bool
}

func (r *reconciler) Reconcile(ctx context.Context, request reconcile.Request) (reconcile.Result, error) {
	r.reconciles.Add(1)
	if second := int(time.Since(r.start).Seconds()); second < len(r.perSecond) {
		r.perSecond[second].Add(1)
	}
	r.timeline.once("first reconcile")
	var deployment appsv1.Deployment
	if err := r.Get(ctx, request.NamespacedName, &deployment); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	selector := client.MatchingLabels(deployment.Spec.Selector.MatchLabels)
	// The first List of each kind starts its informer (cluster-wide) and waits for it to sync.
	var sets appsv1.ReplicaSetList
	if err := r.List(ctx, &sets, client.InNamespace(deployment.Namespace), selector); err != nil {
		return reconcile.Result{}, err
	}
	r.timeline.once("replicasets informer synced")
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(deployment.Namespace), selector); err != nil {
		return reconcile.Result{}, err
	}
	r.timeline.once("pods informer synced")
	if name := deployment.Annotations[ConfigAnnotation]; name != "" && r.readConfigMaps {
		var config corev1.ConfigMap
		key := types.NamespacedName{Namespace: deployment.Namespace, Name: name}
		if err := r.Get(ctx, key, &config); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, err
		}
		r.timeline.once("configmaps informer synced")
	}
	return reconcile.Result{}, nil
}

func main() {
	duration := flag.Duration("duration", 2*time.Minute, "how long to run")
	syncPeriod := flag.Duration("sync-period", 30*time.Second, "the cache's SyncPeriod (controller-runtime's default: 10h)")
	workers := flag.Int("workers", 4, "concurrent reconciles")
	eager := flag.Bool("eager", false, "start the ReplicaSet, Pod and ConfigMap informers before the controller, not on first read")
	readConfigMaps := flag.Bool("configmaps", true, "read the ConfigMap a Deployment's "+ConfigAnnotation+" annotation names")
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseDevMode(false), zap.WriteTo(os.Stderr)))

	// controller-runtime's own --kubeconfig flag, else $KUBECONFIG.
	config, err := ctrl.GetConfig()
	if err != nil {
		fail(err)
	}
	config.UserAgent = "lazy-informers"
	counted := &traffic{byKey: map[string]*usage{}}
	config.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return &countingTransport{next: next, traffic: counted}
	})

	start := time.Now()
	events := &timeline{start: start, events: map[string]float64{}}
	manager, err := ctrl.NewManager(config, ctrl.Options{
		Cache:                  cache.Options{SyncPeriod: syncPeriod},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		fail(err)
	}
	r := &reconciler{Client: manager.GetClient(), start: start, timeline: events, readConfigMaps: *readConfigMaps,
		perSecond: make([]atomic.Int64, int(duration.Seconds())+1)}
	err = ctrl.NewControllerManagedBy(manager).For(&appsv1.Deployment{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).Complete(r)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	if *eager {
		go func() {
			for _, object := range []client.Object{&appsv1.ReplicaSet{}, &corev1.Pod{}, &corev1.ConfigMap{}} {
				if _, err := manager.GetCache().GetInformer(ctx, object); err != nil {
					fmt.Fprintln(os.Stderr, "informer:", err)
				}
			}
			events.once("eager informers synced")
		}()
	}
	if err := manager.Start(ctx); err != nil {
		fail(err)
	}
	perSecond := make([]int64, len(r.perSecond))
	for i := range r.perSecond {
		perSecond[i] = r.perSecond[i].Load()
	}
	counted.mu.Lock()
	defer counted.mu.Unlock()
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(map[string]any{
		"durationSeconds": duration.Seconds(), "syncPeriodSeconds": syncPeriod.Seconds(), "eager": *eager,
		"reconciles": r.reconciles.Load(), "reconcilesPerSecond": perSecond, "timeline": events.events,
		"traffic": counted.byKey,
	}); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "lazyinformers:", err)
	os.Exit(1)
}
