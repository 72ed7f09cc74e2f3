// Command httpload sends GETs to one URL from -c concurrent goroutines for -d (or until -n
// requests were sent) and prints, as
// one JSON line, the requests per second and latency percentiles: the load side of
// benchmarks/access_bench.py and of the HTTP/2 connection test (tests/api/test_security.py).
// Over https it verifies the server by -ca and, with -h2, speaks
// HTTP/2 (every request multiplexed over one connection, as client-go does); without -h2 it
// speaks HTTP/1.1 over a connection per goroutine.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "", "the URL to GET")
	token := flag.String("token", "", "bearer token")
	caFile := flag.String("ca", "", "PEM CA to verify an https server by")
	h2 := flag.Bool("h2", false, "HTTP/2 (over TLS)")
	concurrency := flag.Int("c", 16, "concurrent requests")
	duration := flag.Duration("d", 10*time.Second, "how long")
	total := flag.Int64("n", 0, "stop after this many requests (0: run for -d)")
	flag.Parse()

	transport := &http.Transport{MaxIdleConnsPerHost: *concurrency, ForceAttemptHTTP2: *h2}
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		transport.TLSClientConfig = &tls.Config{RootCAs: pool}
		if !*h2 {
			transport.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
		}
	}
	client := &http.Client{Transport: transport}

	var mu sync.Mutex
	var latencies []time.Duration
	proto := ""
	started := time.Now()
	deadline := started.Add(*duration)
	var sent atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < *concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) && (*total == 0 || sent.Add(1) <= *total) {
				req, _ := http.NewRequest("GET", *url, nil)
				if *token != "" {
					req.Header.Set("Authorization", "Bearer "+*token)
				}
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					fmt.Fprintln(os.Stderr, "status", resp.StatusCode)
					os.Exit(1)
				}
				mine = append(mine, time.Since(start))
				mu.Lock()
				proto = resp.Proto
				mu.Unlock()
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))]) / 1e6
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"requests": len(latencies), "rps": float64(len(latencies)) / time.Since(started).Seconds(),
		"p50_ms": pct(0.5), "p99_ms": pct(0.99), "proto": proto,
	})
}
