package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"
)

// createPods: --count objects created by --clients concurrent clients, each taking the next
// index as soon as its previous create returned (a closed loop). Names continue from --first, so
// successive runs grow the same store. --kind pod creates realisticPod(i), alike but for name and
// shard label (what a server may answer from caches keyed by content); with --varied, variedPod(i),
// whose env values and annotations differ per pod. --kind configmap creates variedConfigMap(i),
// each with distinct data of 1-4 KiB; controllerrevision variedRevision(i), a StatefulSet's
// revisions; customresource variedBenchApp(i), after defining their CustomResourceDefinition
// (JSON: custom resources have no protobuf encoding).
func createPods(flags *flag.FlagSet) func(r *run) (map[string]any, error) {
	clients := flags.Int("clients", 16, "concurrent clients")
	count := flags.Int("count", 1000, "objects to create")
	first := flags.Int("first", 0, "index of the first object")
	kind := flags.String("kind", "pod", "pod, configmap, controllerrevision or customresource")
	varied := flags.Bool("varied", false, "pods whose env values and annotations differ per pod (--kind pod)")
	return func(r *run) (map[string]any, error) {
		ctx := context.Background()
		create, err := creator(r.namespace, *kind, *varied)
		if err != nil {
			return nil, err
		}
		writers := newClients(*clients, r.writer)
		cores := make([]corev1client.CoreV1Interface, len(writers))
		for j, w := range writers {
			cores[j] = w.kube.CoreV1()
		}
		if err := ensureNamespace(ctx, cores[0], r.namespace); err != nil {
			return nil, err
		}
		if *kind == "customresource" {
			if err := defineBenchApps(ctx, writers[0].dynamic, r.namespace); err != nil {
				return nil, err
			}
		}
		if err := connect(ctx, cores, r.namespace); err != nil {
			return nil, err
		}
		var next, created atomic.Int64
		var lat latencies
		var errs errorLog
		var wg sync.WaitGroup
		r.begin()
		for _, w := range writers {
			wg.Go(func() {
				var samples []time.Duration
				for {
					i := int(next.Add(1) - 1)
					if i >= *count {
						break
					}
					object := *first + i
					start := time.Now()
					err := create(ctx, w, object)
					samples = append(samples, time.Since(start))
					if err != nil {
						errs.record(err)
					} else {
						created.Add(1)
					}
				}
				lat.add(samples)
			})
		}
		wg.Wait()
		r.end()
		result := map[string]any{"ops": int(created.Load()), "clients": *clients, "kind": *kind, "varied": *varied,
			"latency_ms": lat.summary()}
		errs.into(result)
		return result, nil
	}
}

// A writer is one client's typed clientset and dynamic client (for custom resources), sharing
// one connection pool (connect's request opens the connection both use).
type writer struct {
	kube    kubernetes.Interface
	dynamic dynamic.Interface
}

func (r *run) writer() writer {
	cfg := r.config()
	pool, err := rest.HTTPClientFor(cfg)
	if err != nil {
		panic(err)
	}
	kube, err := kubernetes.NewForConfigAndClient(cfg, pool)
	if err != nil {
		panic(err)
	}
	custom, err := dynamic.NewForConfigAndClient(cfg, pool)
	if err != nil {
		panic(err)
	}
	return writer{kube, custom}
}

// A creation creates the i-th object of a create workload.
type creation func(ctx context.Context, w writer, i int) error

var benchApps = schema.GroupVersionResource{Group: benchResourceGroup, Version: "v1", Resource: benchResourcePlural}

// creator is the creation of --kind (and --varied) in namespace.
func creator(namespace, kind string, varied bool) (creation, error) {
	if varied && kind != "pod" {
		return nil, errors.New("--varied is for pods: every other kind's objects differ already")
	}
	switch kind {
	case "pod":
		pod := realisticPod
		if varied {
			pod = variedPod
		}
		return func(ctx context.Context, w writer, i int) error {
			_, err := w.kube.CoreV1().Pods(namespace).Create(ctx, pod(i), metav1.CreateOptions{})
			return err
		}, nil
	case "configmap":
		return func(ctx context.Context, w writer, i int) error {
			_, err := w.kube.CoreV1().ConfigMaps(namespace).Create(ctx, variedConfigMap(i), metav1.CreateOptions{})
			return err
		}, nil
	case "controllerrevision":
		return func(ctx context.Context, w writer, i int) error {
			_, err := w.kube.AppsV1().ControllerRevisions(namespace).Create(ctx, variedRevision(i), metav1.CreateOptions{})
			return err
		}, nil
	case "customresource":
		return func(ctx context.Context, w writer, i int) error {
			_, err := w.dynamic.Resource(benchApps).Namespace(namespace).Create(ctx, variedBenchApp(i), metav1.CreateOptions{})
			return err
		}, nil
	}
	return nil, fmt.Errorf("--kind: pod, configmap, controllerrevision or customresource, not %q", kind)
}

// defineBenchApps creates the BenchApps' CustomResourceDefinition unless it exists, and waits
// until namespace's BenchApps are served.
func defineBenchApps(ctx context.Context, client dynamic.Interface, namespace string) error {
	definitions := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	_, err := client.Resource(definitions).Create(ctx, benchAppDefinition(), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := client.Resource(benchApps).Namespace(namespace).List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("BenchApps never served: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mutatePods: --clients clients change --pods existing pods for --duration, each client going round
// its own share of the pods (no two clients write the same pod, so updates do not conflict).
// --verb: update (PUT of the object the previous write returned), merge (JSON merge patch of an
// annotation), strategic (strategic merge patch of a label and a container's image, merged into
// the containers list by name), apply (server-side apply of an annotation, forced).
func mutatePods(flags *flag.FlagSet) func(r *run) (map[string]any, error) {
	clients := flags.Int("clients", 16, "concurrent clients")
	pods := flags.Int("pods", 1000, "how many of the existing pods to change")
	duration := flags.Duration("duration", 10*time.Second, "how long to write")
	verb := flags.String("verb", "update", "update, merge, strategic or apply")
	return func(r *run) (map[string]any, error) {
		ctx := context.Background()
		write, ok := mutations[*verb]
		if !ok {
			return nil, fmt.Errorf("--verb: one of update, merge, strategic, apply; not %q", *verb)
		}
		cores := newClients(*clients, r.core)
		list, err := cores[0].Pods(r.namespace).List(ctx, metav1.ListOptions{Limit: int64(*pods)})
		if err != nil {
			return nil, err
		}
		if len(list.Items) < *pods {
			return nil, fmt.Errorf("mutate needs %d pods in namespace %s, found %d", *pods, r.namespace, len(list.Items))
		}
		if err := connect(ctx, cores, r.namespace); err != nil {
			return nil, err
		}
		var done atomic.Int64
		var lat latencies
		var errs errorLog
		var wg sync.WaitGroup
		r.begin()
		deadline := time.Now().Add(*duration)
		for c, core := range cores {
			var own []*corev1.Pod
			for j := c; j < len(list.Items); j += *clients {
				own = append(own, &list.Items[j])
			}
			wg.Go(func() {
				var samples []time.Duration
				for n := 0; time.Now().Before(deadline); n++ {
					pod := own[n%len(own)]
					start := time.Now()
					updated, err := write(ctx, core.Pods(r.namespace), pod, n)
					samples = append(samples, time.Since(start))
					switch {
					case err == nil:
						own[n%len(own)] = updated
						done.Add(1)
					case apierrors.IsConflict(err):
						errs.record(err)
						if fresh, getErr := core.Pods(r.namespace).Get(ctx, pod.Name, metav1.GetOptions{}); getErr == nil {
							own[n%len(own)] = fresh
						}
					default:
						errs.record(err)
					}
				}
				lat.add(samples)
			})
		}
		wg.Wait()
		r.end()
		result := map[string]any{"ops": int(done.Load()), "clients": *clients, "verb": *verb, "latency_ms": lat.summary()}
		errs.into(result)
		return result, nil
	}
}

// A mutation writes the n-th change of one pod and returns the pod as the server answered.
type mutation func(ctx context.Context, pods corev1client.PodInterface, pod *corev1.Pod, n int) (*corev1.Pod, error)

var mutations = map[string]mutation{
	"update": func(ctx context.Context, pods corev1client.PodInterface, pod *corev1.Pod, n int) (*corev1.Pod, error) {
		changed := pod.DeepCopy()
		changed.Annotations[counterAnnotation] = fmt.Sprint(n)
		return pods.Update(ctx, changed, metav1.UpdateOptions{})
	},
	"merge": func(ctx context.Context, pods corev1client.PodInterface, pod *corev1.Pod, n int) (*corev1.Pod, error) {
		patch := map[string]any{"metadata": map[string]any{"annotations": map[string]string{counterAnnotation: fmt.Sprint(n)}}}
		return pods.Patch(ctx, pod.Name, types.MergePatchType, mustJSON(patch), metav1.PatchOptions{})
	},
	"strategic": func(ctx context.Context, pods corev1client.PodInterface, pod *corev1.Pod, n int) (*corev1.Pod, error) {
		patch := map[string]any{
			"metadata": map[string]any{"labels": map[string]string{counterAnnotation: fmt.Sprint(n)}},
			"spec": map[string]any{"containers": []map[string]string{
				{"name": "web", "image": fmt.Sprintf("registry.example/web:1.2.%d", n)},
			}},
		}
		return pods.Patch(ctx, pod.Name, types.StrategicMergePatchType, mustJSON(patch), metav1.PatchOptions{})
	},
	"apply": func(ctx context.Context, pods corev1client.PodInterface, pod *corev1.Pod, n int) (*corev1.Pod, error) {
		config := map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": pod.Name, "annotations": map[string]string{counterAnnotation: fmt.Sprint(n)}},
		}
		return pods.Patch(ctx, pod.Name, types.ApplyPatchType, mustJSON(config),
			metav1.PatchOptions{FieldManager: "fakeapi-loadgen-apply", Force: ptr.To(true)})
	},
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}
