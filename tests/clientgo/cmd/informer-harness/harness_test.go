package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// lines is a concurrency-safe sink for the emitter that decodes JSON lines.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) all(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, s := range strings.Split(strings.TrimSuffix(l.buf.String(), "\n"), "\n") {
		if s == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q: %v", s, err)
		}
		out = append(out, m)
	}
	return out
}

func (l *lines) kinds(t *testing.T) []string {
	var ks []string
	for _, m := range l.all(t) {
		ks = append(ks, m["kind"].(string))
	}
	return ks
}

// waitFor polls until some line satisfies pred.
func (l *lines) waitFor(t *testing.T, what string, pred func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range l.all(t) {
			if pred(m) {
				return m
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; got %v", what, l.all(t))
	return nil
}

func newTestTracker(name string) (*tracker, *lines) {
	l := &lines{}
	return &tracker{name: name, out: &emitter{w: l}, streams: &sync.WaitGroup{}}, l
}

func TestCallName(t *testing.T) {
	for _, tc := range []struct {
		opts metav1.ListOptions
		want string
	}{
		{metav1.ListOptions{ResourceVersion: "5"}, "watch"},
		{metav1.ListOptions{SendInitialEvents: ptr.To(false)}, "watch"},
		{metav1.ListOptions{SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, "watchlist"},
	} {
		if got := callName(tc.opts); got != tc.want {
			t.Errorf("callName(%+v) = %q, want %q", tc.opts, got, tc.want)
		}
	}
}

func TestEventFor(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p1", ResourceVersion: "7"}}
	if ev := eventFor("pods", "add", pod); ev.Name != "p1" || ev.RV != "7" || ev.Tombstone {
		t.Errorf("plain object: %+v", ev)
	}
	ev := eventFor("pods", "delete", cache.DeletedFinalStateUnknown{Key: "default/p1", Obj: pod})
	if ev.Name != "p1" || ev.RV != "7" || !ev.Tombstone {
		t.Errorf("tombstone: %+v", ev)
	}
	ev = eventFor("pods", "delete", cache.DeletedFinalStateUnknown{Key: "default/gone"})
	if ev.Name != "gone" || ev.RV != "" || !ev.Tombstone {
		t.Errorf("tombstone without object: %+v", ev)
	}
	b, _ := json.Marshal(eventFor("pods", "update", pod))
	if strings.Contains(string(b), "initial") || strings.Contains(string(b), "tombstone") {
		t.Errorf("update must carry neither initial nor tombstone: %s", b)
	}
}

func TestStatusOf(t *testing.T) {
	code, reason, _ := statusOf(apierrors.NewResourceExpired("too old resource version: 5 (9)"))
	if code != 410 || reason != "Expired" {
		t.Errorf("expired: %d %q", code, reason)
	}
	code, reason, msg := statusOf(errors.New("connection refused"))
	if code != 0 || reason != "" || msg != "connection refused" {
		t.Errorf("transport error: %d %q %q", code, reason, msg)
	}
	// The dynamic client delivers an ERROR event's Status as unstructured.
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": int64(410), "reason": "Expired", "message": "too old",
	}}
	if code, reason, msg := objectStatus(u); code != 410 || reason != "Expired" || msg != "too old" {
		t.Errorf("unstructured status: %d %q %q", code, reason, msg)
	}
}

func TestObservedWatchReportsErrorAndServerClose(t *testing.T) {
	tr, out := newTestTracker("pods")
	inner := watch.NewFake()
	w := newObservedWatch(inner, tr)
	go func() {
		inner.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p1"}})
		inner.Error(&apierrors.NewResourceExpired("too old resource version: 5 (9)").ErrStatus)
		inner.Stop() // the server closes the stream
	}()
	var got []watch.EventType
	for ev := range w.ResultChan() {
		got = append(got, ev.Type)
	}
	tr.streams.Wait()
	if len(got) != 2 || got[0] != watch.Added || got[1] != watch.Error {
		t.Fatalf("forwarded events = %v, want [ADDED ERROR]", got)
	}
	ls := out.all(t)
	if len(ls) != 2 {
		t.Fatalf("lines = %v", ls)
	}
	if ls[0]["kind"] != "watch-error" || ls[0]["code"] != 410.0 || ls[0]["reason"] != "Expired" {
		t.Errorf("watch-error line = %v", ls[0])
	}
	if ls[1]["kind"] != "watch-ended" || ls[1]["events"] != 2.0 || ls[1]["client_stopped"] != false {
		t.Errorf("watch-ended line = %v", ls[1])
	}
}

func TestObservedWatchClientStop(t *testing.T) {
	tr, out := newTestTracker("configmaps")
	w := newObservedWatch(watch.NewFake(), tr)
	w.Stop()
	w.Stop() // idempotent
	for range w.ResultChan() {
	}
	tr.streams.Wait()
	if ls := out.all(t); len(ls) != 1 || ls[0]["kind"] != "watch-ended" || ls[0]["client_stopped"] != true {
		t.Errorf("lines = %v", ls)
	}
}

func TestPausedWatch(t *testing.T) {
	tr, out := newTestTracker("pods")
	stop := make(chan struct{})
	file := filepath.Join(t.TempDir(), "pause")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tr.pause = &pauser{path: file, poll: 5 * time.Millisecond, stop: stop}

	opened := make(chan metav1.ListOptions, 1)
	open := func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
		opened <- o
		return watch.NewFake(), nil
	}
	done := make(chan error, 1)
	go func() {
		w, err := tr.watch(context.Background(), metav1.ListOptions{ResourceVersion: "42"}, open)
		if w != nil {
			w.Stop()
		}
		done <- err
	}()
	out.waitFor(t, "watch-paused", func(m map[string]any) bool { return m["kind"] == "watch-paused" })
	select {
	case <-opened:
		t.Fatal("watch opened while the pause file exists")
	case <-time.After(50 * time.Millisecond):
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if o := <-opened; o.ResourceVersion != "42" {
		t.Errorf("opened with %+v", o)
	}
	tr.streams.Wait()
	want := []string{"call", "watch-paused", "watch-resumed", "watch-ended"}
	if got := out.kinds(t); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("kinds = %v, want %v", got, want)
	}

	// Stopping the harness releases a paused Watch with an error.
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := tr.watch(context.Background(), metav1.ListOptions{}, open)
		done <- err
	}()
	close(stop)
	if err := <-done; !errors.Is(err, errStopping) {
		t.Errorf("err = %v, want errStopping", err)
	}
}

// TestHarnessWithFakeClients wires the four informers to client-go's fake
// clients: initial adds, "synced", live events and "dump" all reach stdout,
// and every informer made exactly one list and one watch call.
func TestHarnessWithFakeClients(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p1", ResourceVersion: "1"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c1", ResourceVersion: "2"}}

	dynScheme := runtime.NewScheme()
	ucm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": "default", "name": "c1", "resourceVersion": "2"},
	}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(dynScheme,
		map[schema.GroupVersionResource]string{configMapsGVR: "ConfigMapList"}, ucm)

	metaScheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(metaScheme); err != nil {
		t.Fatal(err)
	}
	meta := metadatafake.NewSimpleMetadataClient(metaScheme, &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: pod.ObjectMeta,
	})

	typed := fake.NewClientset(pod, cm)
	l := &lines{}
	h := startHarness(clients{typed: typed, dyn: dyn, meta: meta}, options{namespace: "default"}, &emitter{w: l})
	defer h.shutdown(5 * time.Second)

	l.waitFor(t, "synced", func(m map[string]any) bool { return m["kind"] == "synced" })
	for _, inf := range []string{"pods", "configmaps", "dyn-configmaps", "meta-pods"} {
		var calls []string
		initialAdds := 0
		for _, m := range l.all(t) {
			if m["informer"] != inf {
				continue
			}
			switch m["kind"] {
			case "call":
				calls = append(calls, m["call"].(string))
			case "event":
				if m["type"] == "add" && m["initial"] == true {
					initialAdds++
				}
			}
		}
		if initialAdds != 1 {
			t.Errorf("%s: %d initial adds before synced, want 1", inf, initialAdds)
		}
		// The watch may still be opening; the list must be first.
		if len(calls) == 0 || calls[0] != "list" {
			t.Errorf("%s: calls = %v, want list first", inf, calls)
		}
	}

	_, err := typed.CoreV1().ConfigMaps("default").Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c2", ResourceVersion: "3"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l.waitFor(t, "live add of c2", func(m map[string]any) bool {
		return m["kind"] == "event" && m["informer"] == "configmaps" && m["name"] == "c2" && m["initial"] == false
	})

	h.dump()
	d := l.waitFor(t, "dump of configmaps", func(m map[string]any) bool {
		return m["kind"] == "dump" && m["informer"] == "configmaps"
	})
	if objs := d["objects"].(map[string]any); len(objs) != 2 || objs["c1"] != "2" {
		t.Errorf("configmaps dump = %v", objs)
	}
}
