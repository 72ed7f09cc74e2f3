package main

import (
	"slices"
	"sync"
	"syscall"
	"time"
)

// latencies collects request durations from many goroutines; each goroutine appends to its own
// slice (no lock on the hot path) and the slices are merged once at the end.
type latencies struct {
	mu     sync.Mutex
	shards [][]time.Duration
}

// add hands over the samples one goroutine collected.
func (l *latencies) add(samples []time.Duration) {
	l.mu.Lock()
	l.shards = append(l.shards, samples)
	l.mu.Unlock()
}

func (l *latencies) summary() map[string]float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return summarize(slices.Concat(l.shards...))
}

// summarize gives count, p50, p90, p99 and max of samples, in milliseconds.
func summarize(samples []time.Duration) map[string]float64 {
	if len(samples) == 0 {
		return map[string]float64{"count": 0}
	}
	slices.Sort(samples)
	at := func(q float64) float64 {
		return ms(samples[min(len(samples)-1, int(q*float64(len(samples))))])
	}
	return map[string]float64{
		"count": float64(len(samples)), "p50": at(0.50), "p90": at(0.90), "p99": at(0.99),
		"max": ms(samples[len(samples)-1]),
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// errorLog counts failed requests and keeps the first few distinct messages for the report.
type errorLog struct {
	mu      sync.Mutex
	count   int
	samples []string
}

func (e *errorLog) record(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.count++
	if message := err.Error(); len(e.samples) < 5 && !slices.Contains(e.samples, message) {
		e.samples = append(e.samples, message)
	}
}

func (e *errorLog) into(result map[string]any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	result["errors"] = e.count
	if len(e.samples) > 0 {
		result["error_samples"] = e.samples
	}
}

// cpuSeconds is the CPU time (user + system) this process has used so far.
func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano()).Seconds()
}
