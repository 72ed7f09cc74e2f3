package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// watchFanout: --watchers watches of the namespace's ConfigMaps (each on its own connection, from
// the same resourceVersion), while writers patch --objects ConfigMaps at --rate writes/s for
// --duration (a write whose slot comes after that is not made: a slow server gets fewer writes,
// not a longer run). Every write carries its sequence number and the time it was sent; each
// watcher checks that it sees every acknowledged write once (lost, duplicated), in
// resourceVersion order (out of order), and how long after the send each event arrived (delivery
// latency). After the writes, the watchers get --drain to catch up.
//
// A watch the server ends (kube-apiserver closes a watcher that does not keep up with its events)
// is opened again from the last resourceVersion it delivered, as client-go's reflector does; the
// restarts are counted, and events are lost only if the server cannot replay them.
func watchFanout(flags *flag.FlagSet) func(r *run) (map[string]any, error) {
	watchers := flags.Int("watchers", 100, "concurrent watches")
	rate := flags.Float64("rate", 100, "writes per second")
	duration := flags.Duration("duration", 10*time.Second, "how long to write")
	objects := flags.Int("objects", 50, "ConfigMaps the writes go round")
	writers := flags.Int("writers", 0, "concurrent writers (0: rate/16, at least 4, at most 64)")
	drain := flags.Duration("drain", 30*time.Second, "how long the watchers may take to catch up after the last write")
	return func(r *run) (map[string]any, error) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		planned := int(*rate * duration.Seconds())
		if *writers == 0 {
			*writers = min(64, max(4, int(*rate)/16))
		}
		setup := r.core()
		if err := ensureNamespace(ctx, setup, r.namespace); err != nil {
			return nil, err
		}
		for i := range *objects {
			_, err := setup.ConfigMaps(r.namespace).Create(ctx, fanoutConfigMap(i), metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, err
			}
		}
		list, err := setup.ConfigMaps(r.namespace).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return nil, err
		}

		// Watches open from the list's resourceVersion, a bounded number at a time.
		startRV, err := strconv.ParseUint(list.ResourceVersion, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("a resourceVersion that is not a number: %q", list.ResourceVersion)
		}
		watches := make([]*fanoutWatcher, *watchers)
		opening := make(chan struct{}, 50)
		var openErr error
		var openMu sync.Mutex
		var opened sync.WaitGroup
		for i := range watches {
			opening <- struct{}{}
			opened.Go(func() {
				defer func() { <-opening }()
				configMaps := r.core().ConfigMaps(r.namespace)
				w := &fanoutWatcher{seen: make([]bool, planned), lastRV: startRV, open: func(rv uint64) (watch.Interface, error) {
					return configMaps.Watch(ctx, metav1.ListOptions{
						ResourceVersion: strconv.FormatUint(rv, 10), TimeoutSeconds: ptr.To[int64](3600),
					})
				}}
				var err error
				w.watch, err = w.open(startRV)
				openMu.Lock()
				defer openMu.Unlock()
				if err != nil {
					openErr = errors.Join(openErr, err)
					return
				}
				watches[i] = w
			})
		}
		opened.Wait()
		if openErr != nil {
			return nil, fmt.Errorf("opening the watches: %w", openErr)
		}
		var receiving sync.WaitGroup
		for _, w := range watches {
			receiving.Go(w.receive)
		}
		writeClients := newClients(*writers, r.core)
		if err := connect(ctx, writeClients, r.namespace); err != nil {
			return nil, err
		}

		acked := make([]bool, planned)
		var next, ackedCount atomic.Int64
		var writeLat latencies
		var writeErrs errorLog
		var writing sync.WaitGroup
		r.begin()
		start := time.Now()
		end := start.Add(*duration)
		interval := time.Duration(float64(time.Second) / *rate)
		for _, core := range writeClients {
			writing.Go(func() {
				var samples []time.Duration
				for {
					seq := int(next.Add(1) - 1)
					slot := start.Add(time.Duration(seq) * interval)
					if seq >= planned || time.Now().After(end) {
						break
					}
					time.Sleep(time.Until(slot))
					sent := time.Now()
					patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"%d",%q:"%d"}}}`,
						seqAnnotation, seq, sentAnnotation, sent.UnixNano())
					_, err := core.ConfigMaps(r.namespace).Patch(ctx, fmt.Sprintf("fanout-%04d", seq%*objects),
						types.MergePatchType, []byte(patch), metav1.PatchOptions{})
					samples = append(samples, time.Since(sent))
					if err != nil {
						writeErrs.record(err)
						continue
					}
					acked[seq] = true
					ackedCount.Add(1)
				}
				writeLat.add(samples)
			})
		}
		writing.Wait()
		writesDone := time.Now()
		want := ackedCount.Load()
		for time.Since(writesDone) < *drain {
			behind := false
			for _, w := range watches {
				if w.unique.Load() < want && !w.ended.Load() {
					behind = true
					break
				}
			}
			if !behind {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		r.end()
		for _, w := range watches {
			w.stopping.Store(true)
		}
		cancel() // ends every watch's request
		receiving.Wait()

		var lost, duplicates, outOfOrder, unexpected, ended, restarts, deliveries int
		var lastDelivery time.Time
		var delivery latencies
		var watchErrs errorLog
		for _, w := range watches {
			for seq, ok := range acked {
				if ok && !w.seen[seq] {
					lost++
				}
			}
			duplicates += w.duplicates
			outOfOrder += w.outOfOrder
			unexpected += w.unexpected
			deliveries += int(w.unique.Load())
			if w.lastDelivery.After(lastDelivery) {
				lastDelivery = w.lastDelivery
			}
			if w.endedEarly {
				ended++
			}
			restarts += w.restarts
			for _, err := range w.errors {
				watchErrs.record(err)
			}
			delivery.add(w.latencies)
		}
		writeSeconds := max(writesDone.Sub(start), *duration).Seconds()
		result := map[string]any{
			"ops": deliveries, "watchers": *watchers, "target_write_rate": *rate,
			"writes_planned": planned, "writes_acked": int(want), "write_rate": float64(want) / writeSeconds,
			"write_latency_ms": writeLat.summary(), "expected_deliveries": int(want) * *watchers,
			"lost": lost, "duplicates": duplicates, "out_of_order": outOfOrder, "unexpected_events": unexpected,
			"watch_restarts": restarts, "watches_ended_early": ended, "latency_ms": delivery.summary(),
		}
		if deliveries > 0 {
			result["delivery_rate"] = float64(deliveries) / lastDelivery.Sub(start).Seconds()
		}
		writeErrs.into(result)
		result["watch_errors"] = watchErrs.count
		if len(watchErrs.samples) > 0 {
			result["watch_error_samples"] = watchErrs.samples
		}
		return result, nil
	}
}

// fanoutWatcher is one watcher and what it saw. Only its receive goroutine writes the plain
// fields once it runs; the atomic ones are shared with the goroutine waiting for the watchers.
type fanoutWatcher struct {
	open     func(resourceVersion uint64) (watch.Interface, error)
	watch    watch.Interface
	seen     []bool
	unique   atomic.Int64
	ended    atomic.Bool
	stopping atomic.Bool

	lastRV                             uint64
	duplicates, outOfOrder, unexpected int
	restarts                           int
	endedEarly                         bool
	lastDelivery                       time.Time
	latencies                          []time.Duration
	errors                             []error
}

// receive consumes the watch, opening it again from the last delivered resourceVersion when the
// server ends it, until the workload stops.
func (w *fanoutWatcher) receive() {
	defer w.ended.Store(true)
	for {
		w.consume()
		if w.stopping.Load() {
			return
		}
		w.restarts++
		next, err := w.open(w.lastRV)
		if err != nil {
			if !w.stopping.Load() {
				w.errors = append(w.errors, err)
				w.endedEarly = true
			}
			return
		}
		w.watch = next
	}
}

func (w *fanoutWatcher) consume() {
	for event := range w.watch.ResultChan() {
		now := time.Now()
		if event.Type == watch.Error {
			if !w.stopping.Load() { // not the end of a stream being closed on purpose
				w.errors = append(w.errors, apierrors.FromObject(event.Object))
			}
			continue
		}
		configMap, ok := event.Object.(*corev1.ConfigMap)
		if event.Type != watch.Modified || !ok {
			w.unexpected++
			continue
		}
		rv, err := strconv.ParseUint(configMap.ResourceVersion, 10, 64)
		if err != nil || rv <= w.lastRV {
			w.outOfOrder++
		}
		w.lastRV = max(w.lastRV, rv)
		seq, seqErr := strconv.Atoi(configMap.Annotations[seqAnnotation])
		sent, sentErr := strconv.ParseInt(configMap.Annotations[sentAnnotation], 10, 64)
		if seqErr != nil || sentErr != nil || seq < 0 || seq >= len(w.seen) {
			w.unexpected++
			continue
		}
		if w.seen[seq] {
			w.duplicates++
			continue
		}
		w.seen[seq] = true
		w.latencies = append(w.latencies, now.Sub(time.Unix(0, sent)))
		w.lastDelivery = now
		w.unique.Add(1)
	}
}
