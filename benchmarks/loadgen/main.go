// Command loadgen drives a Kubernetes API server with client-go v0.35, one workload per run, the
// same way against fakeapi and against the real kube-apiserver + etcd (benchmarks/compare.py runs
// it against both and prints the comparison).
//
//	loadgen WORKLOAD --kubeconfig FILE [--content-type json|protobuf] [--namespace NS] [workload flags]
//
// Workloads: create (pods alike but for name, pods that differ per pod, or ConfigMaps), mutate (update and the three patch types), list, informer, fanout, leases;
// `loadgen WORKLOAD -h` lists each one's flags. `loadgen pod [--index N]` runs nothing: it prints
// the N-th benchmark pod as the typed client sends it in JSON (what another load client creates
// to drive the same workload, benchmarks/locust_vs_loadgen.py). `loadgen webhook-server` runs
// admission webhooks for the rows that measure a server calling them (webhookserver.go). Client-side rate limiting is off (QPS < 0) and
// every client of a workload has its own connection, as separate processes would.
//
// Output, one JSON object a line on stdout: {"phase":"start"} when the measured part begins and
// {"phase":"end"} when it ends (with --phase-sync the program then waits for a line on stdin, so
// the caller can sample the server's CPU at exactly those points), and last {"result":{...}}:
// ops, errors, seconds, rate, latency percentiles in ms, the load generator's own CPU seconds in
// the measured part, and what the workload adds. The exit status is 0 when the workload ran, even
// if requests failed: the result says how many.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// A workload defines its flags and returns the function that runs it: it prepares (untimed),
// calls run.begin and run.end around what it measures, and returns its result fields.
type workload func(flags *flag.FlagSet) func(r *run) (map[string]any, error)

var workloads = map[string]workload{
	"create":   createPods,
	"mutate":   mutatePods,
	"list":     listPods,
	"informer": syncInformer,
	"fanout":   watchFanout,
	"leases":   renewLeases,
	// selective.go
	"select-seed": seedSelective,
	"select-list": selectList,
}

const (
	contentTypeJSON     = "application/json"
	contentTypeProtobuf = "application/vnd.kubernetes.protobuf"
)

// run is one invocation: the connection settings every client copies, and the measured phase.
type run struct {
	base        *rest.Config
	contentType string
	namespace   string
	phaseSync   bool
	stdin       *bufio.Reader

	began    time.Time
	cpuBegan float64
	elapsed  time.Duration
	cpuUsed  float64
}

// config is a copy of the base configuration for one client: content type set, no client-side
// throttling, and a connection pool of its own (a Proxy function makes client-go's transport
// cache skip it, as it cannot compare functions).
func (r *run) config() *rest.Config {
	cfg := rest.CopyConfig(r.base)
	cfg.QPS = -1
	cfg.ContentType = r.contentType
	if r.contentType == contentTypeProtobuf {
		cfg.AcceptContentTypes = contentTypeProtobuf + "," + contentTypeJSON
	} else {
		cfg.AcceptContentTypes = contentTypeJSON
	}
	cfg.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
	cfg.UserAgent = "fakeapi-loadgen"
	return cfg
}

func (r *run) core() corev1client.CoreV1Interface {
	return corev1client.NewForConfigOrDie(r.config())
}

func (r *run) coordination() coordinationv1client.CoordinationV1Interface {
	return coordinationv1client.NewForConfigOrDie(r.config())
}

func (r *run) clientset() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(r.config())
}

// newClients makes n clients, each with its connection pool of its own.
func newClients[T any](n int, newClient func() T) []T {
	made := make([]T, n)
	for i := range made {
		made[i] = newClient()
	}
	return made
}

// begin starts the measured phase.
func (r *run) begin() {
	r.mark("start")
	r.began, r.cpuBegan = time.Now(), cpuSeconds()
}

// end closes the measured phase and returns its length.
func (r *run) end() time.Duration {
	r.elapsed, r.cpuUsed = time.Since(r.began), cpuSeconds()-r.cpuBegan
	r.mark("end")
	return r.elapsed
}

func (r *run) mark(phase string) {
	emit(map[string]any{"phase": phase})
	if r.phaseSync {
		if _, err := r.stdin.ReadString('\n'); err != nil {
			fail(fmt.Errorf("--phase-sync: reading stdin: %w", err))
		}
	}
}

func emit(message map[string]any) {
	line, err := json.Marshal(message)
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(append(line, '\n'))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "loadgen:", err)
	os.Exit(1)
}

// ensureNamespace creates the namespace unless it exists.
func ensureNamespace(ctx context.Context, core corev1client.CoreV1Interface, name string) error {
	_, err := core.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// connect makes each client's first request before the measured phase, so that connection set-up
// (a TLS handshake with kube-apiserver) is not counted as a request's latency.
func connect(ctx context.Context, clients []corev1client.CoreV1Interface, namespace string) error {
	for _, core := range clients {
		if _, err := core.Namespaces().Get(ctx, namespace, metav1.GetOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// printPod writes realisticPod(--index) to stdout encoded as a typed core/v1 client encodes a
// request body in JSON (its codec factory, without conversion: apiVersion and kind set); with
// --varied, variedPod(i) for the --count indexes from --index, one a line.
func printPod(args []string) {
	flags := flag.NewFlagSet("pod", flag.ExitOnError)
	index := flags.Int("index", 0, "which benchmark pod")
	varied := flags.Bool("varied", false, "variedPod, not realisticPod")
	count := flags.Int("count", 1, "how many pods from --index, one a line")
	if err := flags.Parse(args); err != nil {
		fail(err)
	}
	codecs := rest.CodecFactoryForGeneratedClient(scheme.Scheme, scheme.Codecs).WithoutConversion()
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), contentTypeJSON)
	if !ok {
		fail(errors.New("no JSON serializer"))
	}
	encoder := codecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion)
	pod := realisticPod
	if *varied {
		pod = variedPod
	}
	for i := *index; i < *index+*count; i++ {
		body, err := runtime.Encode(encoder, pod(i))
		if err != nil {
			fail(err)
		}
		os.Stdout.Write(body)
	}
}

func usage() {
	names := make([]string, 0, len(workloads))
	for name := range workloads {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "usage: loadgen {%s} --kubeconfig FILE [flags]\n       loadgen pod [--index N] [--varied --count N]\n       loadgen webhook-server\n", strings.Join(names, "|"))
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	name := os.Args[1]
	if name == "pod" {
		printPod(os.Args[2:])
		return
	}
	if name == "webhook-server" {
		serveWebhooks()
		return
	}
	work, ok := workloads[name]
	if !ok {
		usage()
	}
	flags := flag.NewFlagSet(name, flag.ExitOnError)
	kubeconfig := flags.String("kubeconfig", "", "the server's kubeconfig (required)")
	contentType := flags.String("content-type", "protobuf", "json or protobuf (what typed client-go clients prefer)")
	namespace := flags.String("namespace", "bench", "namespace of the workload's objects (created if missing)")
	phaseSync := flags.Bool("phase-sync", false, "after each phase line, wait for a line on stdin")
	cpuProfile := flags.String("cpuprofile", "", "write the load generator's own CPU profile (pprof) there")
	measure := work(flags)
	if err := flags.Parse(os.Args[2:]); err != nil {
		fail(err)
	}
	if *kubeconfig == "" {
		fail(errors.New("--kubeconfig is required"))
	}
	base, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	r := &run{base: base, namespace: *namespace, phaseSync: *phaseSync, stdin: bufio.NewReader(os.Stdin)}
	switch *contentType {
	case "json":
		r.contentType = contentTypeJSON
	case "protobuf":
		r.contentType = contentTypeProtobuf
	default:
		fail(fmt.Errorf("--content-type: json or protobuf, not %q", *contentType))
	}
	if *cpuProfile != "" {
		profile, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(profile); err != nil {
			fail(err)
		}
	}
	result, err := measure(r)
	pprof.StopCPUProfile()
	if err != nil {
		fail(err)
	}
	result["workload"] = name
	result["content_type"] = *contentType
	result["watch_list_client"] = clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
	result["seconds"] = r.elapsed.Seconds()
	result["client_cpu_seconds"] = r.cpuUsed
	if ops, ok := result["ops"].(int); ok && r.elapsed > 0 {
		result["rate"] = float64(ops) / r.elapsed.Seconds()
	}
	emit(map[string]any{"result": result})
}
