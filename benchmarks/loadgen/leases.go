package main

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// renewLeases: --nodes fake kubelets renew their node Lease every --period, their renewals spread
// evenly over the period, for --duration, as the kubelet's lease controller does (an update of the
// Lease the previous renewal returned, with a new renewTime). A node late for its slot renews at
// once, and no renewal starts after --duration: when the server is slow the achieved rate falls
// below nodes/period, and the schedule lag says by how much. The Leases are created (or read, when they exist) before the measured part, which
// also opens the connections.
func renewLeases(flags *flag.FlagSet) func(r *run) (map[string]any, error) {
	nodes := flags.Int("nodes", 10000, "fake nodes")
	period := flags.Duration("period", 10*time.Second, "renewal period of each node")
	duration := flags.Duration("duration", 60*time.Second, "how long to renew")
	connections := flags.Int("connections", 100, "client connections the nodes share")
	return func(r *run) (map[string]any, error) {
		ctx := context.Background()
		clients := newClients(*connections, r.coordination)
		if err := ensureNamespace(ctx, r.core(), r.namespace); err != nil {
			return nil, err
		}
		leases, err := setUpLeases(ctx, clients, r.namespace, *nodes)
		if err != nil {
			return nil, err
		}
		var renewed atomic.Int64
		var lat, lag latencies
		var errs errorLog
		var wg sync.WaitGroup
		r.begin()
		start := time.Now()
		end := start.Add(*duration)
		for i, lease := range leases {
			leasesClient := clients[i%len(clients)].Leases(r.namespace)
			offset := time.Duration(int64(*period) * int64(i) / int64(len(leases)))
			wg.Go(func() {
				var latencySamples, lagSamples []time.Duration
				for slot := start.Add(offset); slot.Before(end); slot = slot.Add(*period) {
					time.Sleep(time.Until(slot))
					sent := time.Now()
					if sent.After(end) {
						break
					}
					lagSamples = append(lagSamples, sent.Sub(slot))
					renewal := lease.DeepCopy()
					renewal.Spec.RenewTime = &metav1.MicroTime{Time: sent}
					updated, err := leasesClient.Update(ctx, renewal, metav1.UpdateOptions{})
					latencySamples = append(latencySamples, time.Since(sent))
					switch {
					case err == nil:
						lease = updated
						renewed.Add(1)
					case apierrors.IsConflict(err):
						errs.record(err)
						if fresh, getErr := leasesClient.Get(ctx, lease.Name, metav1.GetOptions{}); getErr == nil {
							lease = fresh
						}
					default:
						errs.record(err)
					}
				}
				lat.add(latencySamples)
				lag.add(lagSamples)
			})
		}
		wg.Wait()
		r.end()
		result := map[string]any{
			"ops": int(renewed.Load()), "nodes": *nodes, "period_seconds": period.Seconds(),
			"target_rate": float64(*nodes) / period.Seconds(), "latency_ms": lat.summary(),
			"schedule_lag_ms": lag.summary(),
		}
		errs.into(result)
		return result, nil
	}
}

// setUpLeases creates the nodes' Leases (or reads those an earlier run created), 64 at a time.
func setUpLeases(ctx context.Context, clients []coordinationv1client.CoordinationV1Interface, namespace string, nodes int) ([]*coordinationv1.Lease, error) {
	leases := make([]*coordinationv1.Lease, nodes)
	var next atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range min(64, nodes) {
		leasesClient := clients[w%len(clients)].Leases(namespace)
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= nodes {
					return
				}
				name := fmt.Sprintf("node-%05d", i)
				lease, err := leasesClient.Create(ctx, nodeLease(name, time.Now()), metav1.CreateOptions{})
				if apierrors.IsAlreadyExists(err) {
					lease, err = leasesClient.Get(ctx, name, metav1.GetOptions{})
				}
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				leases[i] = lease
			}
		})
	}
	wg.Wait()
	return leases, firstErr
}
