// Command informersync measures how long a client-go 1.35 informer takes to sync N pods from an
// API server (fakeapi or kube-apiserver), in JSON or protobuf, with WatchList off or on; and
// creates those pods first when asked. One JSON line per measurement on stdout.
//
//	informersync --kubeconfig K --create 10000 --workers 16    # create pods sync-0..N-1 in --namespace
//	informersync --kubeconfig K --encoding protobuf --watchlist=true --runs 3
//
// A pod is ~3.6 KB of JSON once kube-apiserver has defaulted it: labels, an owner reference, two
// containers with env, ports, resources and probes.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig")
	namespace := flag.String("namespace", "sync", "namespace of the pods")
	create := flag.Int("create", 0, "create this many pods, then exit")
	workers := flag.Int("workers", 16, "concurrent creates")
	encoding := flag.String("encoding", "protobuf", "protobuf (client-go's default for typed clients) or json")
	watchList := flag.Bool("watchlist", false, "stream the initial list (WatchListClient)")
	runs := flag.Int("runs", 1, "informers started one after the other")
	rawList := flag.Bool("raw-list", false, "time plain LISTs of the pods instead (the body read, not decoded)")
	flag.Parse()

	// client-go reads its feature gates from the environment once: set before any client exists.
	os.Setenv("KUBE_FEATURE_WatchListClient", fmt.Sprint(*watchList))
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	must(err)
	cfg.QPS, cfg.Burst = 5000, 5000
	if *encoding == "json" {
		cfg.ContentType = "application/json"
	}
	client, err := kubernetes.NewForConfig(cfg)
	must(err)
	ctx := context.Background()

	if *create > 0 {
		_, _ = client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: *namespace}},
			metav1.CreateOptions{})
		start := time.Now()
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < *workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1) - 1; i < int64(*create); i = next.Add(1) - 1 {
					_, err := client.CoreV1().Pods(*namespace).Create(ctx, pod(int(i)), metav1.CreateOptions{})
					must(err)
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		emit(map[string]any{"created": *create, "seconds": elapsed.Seconds(), "perSecond": float64(*create) / elapsed.Seconds()})
		return
	}

	if *rawList {
		accept := "application/json"
		if *encoding == "protobuf" {
			accept = "application/vnd.kubernetes.protobuf"
		}
		for run := 0; run < *runs; run++ {
			start := time.Now()
			body, err := client.CoreV1().RESTClient().Get().Namespace(*namespace).Resource("pods").
				SetHeader("Accept", accept).DoRaw(ctx)
			must(err)
			emit(map[string]any{"encoding": *encoding, "list": true, "run": run, "bytes": len(body),
				"seconds": time.Since(start).Seconds()})
		}
		return
	}

	for run := 0; run < *runs; run++ {
		factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(*namespace))
		informer := factory.Core().V1().Pods().Informer()
		stop := make(chan struct{})
		start := time.Now()
		factory.Start(stop)
		// cache.WaitForCacheSync polls every 100 ms: too coarse to time a sync.
		for !informer.HasSynced() {
			if time.Since(start) > 10*time.Minute {
				must(fmt.Errorf("informer did not sync"))
			}
			time.Sleep(time.Millisecond)
		}
		elapsed := time.Since(start)
		synced := len(informer.GetStore().ListKeys())
		close(stop)
		factory.Shutdown()
		emit(map[string]any{"encoding": *encoding, "watchList": *watchList, "run": run, "pods": synced,
			"seconds": elapsed.Seconds()})
	}
}

func pod(i int) *corev1.Pod {
	app := fmt.Sprintf("app-%d", i%50)
	env := func(prefix string) []corev1.EnvVar {
		return []corev1.EnvVar{
			{Name: prefix + "_MODE", Value: "production"}, {Name: prefix + "_LOG_LEVEL", Value: "info"},
			{Name: prefix + "_ENDPOINT", Value: "https://service.example.internal:8443/api/v1"},
			{Name: prefix + "_POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		}
	}
	resources := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
	}
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}},
		PeriodSeconds: 10}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("sync-%05d", i),
			Labels: map[string]string{"app": app, "pod-template-hash": "7d9f8b6c5d", "tier": "backend",
				"app.kubernetes.io/part-of": "informer-sync-benchmark"},
			Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-7d9f8b6c5d",
				UID: types.UID(fmt.Sprintf("3f0c%04d-1b2a-4c3d-9e8f-0a1b2c3d4e5f", i%50)), Controller: ptr.To(true),
				BlockOwnerDeletion: ptr.To(true)}},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{
				{Name: "server", Image: "registry.example.com/team/server:1.27.3", Env: env("SERVER"), Resources: resources,
					Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 9090}},
					ReadinessProbe: probe, LivenessProbe: probe,
					VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/server", ReadOnly: true}}},
				{Name: "sidecar", Image: "registry.example.com/team/proxy:2.4.1", Env: env("PROXY"), Resources: resources,
					Ports: []corev1.ContainerPort{{Name: "proxy", ContainerPort: 15001}, {Name: "admin", ContainerPort: 15000}}},
			},
			Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: app + "-config"}}}}},
		},
	}
}

func emit(v map[string]any) {
	b, err := json.Marshal(v)
	must(err)
	fmt.Println(string(b))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "informersync:", err)
		os.Exit(1)
	}
}
