package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// The selective workloads measure LISTs that select a few of many pods, as controllers (their own
// pods by label) and kubelets (their node's pods, cluster-wide by spec.nodeName) make them.
// select-seed creates the pods, select-list times LISTs of one selector. Each selective pod is a
// realisticPod with labels that make every measured fraction selectable by each kind of selector:
//
//	id=I                      equality, 1 pod
//	per-1000=I%1000           equality, 1/1,000
//	per-50=I%50               equality, 1/50
//	shard=I%10 (shardLabel)   equality, 1/10
//	per-2000 in (a,b)         set-based, 1/1,000
//	per-100 in (a,b)          set-based, 1/50
//	per-20 in (a,b)           set-based, 1/10
//	!in-49-of-50              absence, 1/50 (the label is on every pod but one in 50)
//	!in-9-of-10               absence, 1/10
//
// and spec.nodeName node-I%100 (1/100 of the pods per node). Every 50th pod also has a copy in the
// side namespace (NAMESPACE-side), so that a cluster-wide LIST by metadata.namespace selects a
// namespace of 1/50 of the pods.
const (
	selectivePrefix = "bench.fakeapi.dev/"
	selectiveNodes  = 100
	selectiveSide   = 50
)

// selectiveLabel is the key of one of the selective pods' labels (id, per-1000, ...).
func selectiveLabel(name string) string { return selectivePrefix + name }

// selectivePod is the i-th selective pod: realisticPod(i) with the selection labels and a node.
func selectivePod(i int) *corev1.Pod {
	pod := realisticPod(i)
	for name, modulus := range map[string]int{"per-1000": 1000, "per-50": 50, "per-2000": 2000, "per-100": 100, "per-20": 20} {
		pod.Labels[selectiveLabel(name)] = strconv.Itoa(i % modulus)
	}
	pod.Labels[selectiveLabel("id")] = strconv.Itoa(i)
	if i%50 != 0 {
		pod.Labels[selectiveLabel("in-49-of-50")] = "true"
	}
	if i%10 != 0 {
		pod.Labels[selectiveLabel("in-9-of-10")] = "true"
	}
	pod.Spec.NodeName = fmt.Sprintf("node-%d", i%selectiveNodes)
	return pod
}

// seedSelective: selective pods --first to --first+--count, created by --clients clients taking
// indexes from a shared queue; untimed preparation for select-list (its result is the creates'
// rate, for the record).
func seedSelective(flags *flag.FlagSet) func(r *run) (map[string]any, error) {
	clients := flags.Int("clients", 64, "concurrent clients")
	count := flags.Int("count", 2000, "pods to create")
	first := flags.Int("first", 0, "index of the first pod")
	return func(r *run) (map[string]any, error) {
		ctx := context.Background()
		side := r.namespace + "-side"
		cores := newClients(*clients, r.core)
		for _, namespace := range []string{r.namespace, side} {
			if err := ensureNamespace(ctx, cores[0], namespace); err != nil {
				return nil, err
			}
		}
		indexes := make(chan int, *count)
		for i := *first; i < *first+*count; i++ {
			indexes <- i
		}
		close(indexes)
		var errs errorLog
		var wg sync.WaitGroup
		r.begin()
		for _, core := range cores {
			wg.Go(func() {
				for i := range indexes {
					pod := selectivePod(i)
					if _, err := core.Pods(r.namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
						errs.record(err)
					}
					if i%selectiveSide == 0 {
						if _, err := core.Pods(side).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
							errs.record(err)
						}
					}
				}
			})
		}
		wg.Wait()
		r.end()
		result := map[string]any{"ops": *count - errs.count}
		errs.into(result)
		return result, nil
	}
}

// selectList: --count LISTs of pods by --label-selector and --field-selector, in the namespace or
// with --all-namespaces cluster-wide, at --rv "0" (the watch cache as it is) or "" (a consistent
// read), one after the other; bodies are read as listPods reads them (not decoded), and the items
// of the last one counted.
func selectList(flags *flag.FlagSet) func(r *run) (map[string]any, error) {
	labelSelector := flags.String("label-selector", "", "the LIST's labelSelector")
	fieldSelector := flags.String("field-selector", "", "the LIST's fieldSelector")
	rv := flags.String("rv", "0", `resourceVersion: "0" or "" (consistent)`)
	allNamespaces := flags.Bool("all-namespaces", false, "list pods of every namespace")
	count := flags.Int("count", 20, "LISTs to make")
	return func(r *run) (map[string]any, error) {
		ctx := context.Background()
		if *rv != "0" && *rv != "" {
			return nil, fmt.Errorf(`--rv: "0" or "", not %q`, *rv)
		}
		opts := metav1.ListOptions{LabelSelector: *labelSelector, FieldSelector: *fieldSelector, ResourceVersion: *rv}
		namespace := r.namespace
		if *allNamespaces {
			namespace = ""
		}
		core := r.core()
		if err := connect(ctx, []corev1client.CoreV1Interface{core}, r.namespace); err != nil {
			return nil, err
		}
		return timeLists(ctx, r, core, namespace, opts, *count, map[string]any{})
	}
}
