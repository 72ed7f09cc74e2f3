// etcdload drives an etcd v3 endpoint with etcd's own Go client (clientv3 v3.6.6), so that the
// client is not what limits the numbers: benchmarks/etcd_bench.py runs it against fakeapi's etcd
// server and a real etcd. Modes:
//
//	range: writes -keys keys of -value-size bytes under one prefix (unless -load=false), then
//	       times -repeat range reads of the whole prefix; prints the median and best read in ms.
//	put:   -clients clients (one connection each) put -value-size values on random keys among
//	       -keys for -duration; prints puts/s.
//
// Output: one JSON object on stdout.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func newClient(endpoint string) *clientv3.Client {
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	return c
}

func main() {
	endpoint := flag.String("endpoint", "http://127.0.0.1:2379", "etcd client URL")
	mode := flag.String("mode", "range", "range or put")
	keys := flag.Int("keys", 10000, "number of keys")
	valueSize := flag.Int("value-size", 1536, "bytes per value")
	repeat := flag.Int("repeat", 10, "range reads to time")
	clients := flag.Int("clients", 1, "concurrent clients (put)")
	duration := flag.Duration("duration", 5*time.Second, "how long to put")
	load := flag.Bool("load", true, "range: write the keys first (false: they are there)")
	flag.Parse()

	value := make([]byte, *valueSize)
	for i := range value {
		value[i] = 'a' + byte(i%26)
	}
	ctx := context.Background()
	result := map[string]any{"mode": *mode}

	switch *mode {
	case "range":
		c := newClient(*endpoint)
		defer c.Close()
		for i := 0; *load && i < *keys; i += 100 {
			ops := []clientv3.Op{}
			for j := i; j < i+100 && j < *keys; j++ {
				ops = append(ops, clientv3.OpPut(fmt.Sprintf("/bench/range/%08d", j), string(value)))
			}
			if _, err := c.Txn(ctx).Then(ops...).Commit(); err != nil {
				fmt.Fprintln(os.Stderr, "load:", err)
				os.Exit(1)
			}
		}
		var times []float64
		for i := 0; i < *repeat+1; i++ {
			start := time.Now()
			resp, err := c.Get(ctx, "/bench/range/", clientv3.WithPrefix())
			elapsed := time.Since(start)
			if err != nil || len(resp.Kvs) != *keys {
				fmt.Fprintln(os.Stderr, "range:", err)
				os.Exit(1)
			}
			if i > 0 { // the first read warms up
				times = append(times, float64(elapsed.Microseconds())/1000)
			}
		}
		sort.Float64s(times)
		result["median_ms"] = times[len(times)/2]
		result["best_ms"] = times[0]
	case "put":
		var done int64
		var wg sync.WaitGroup
		deadline := time.Now().Add(*duration)
		start := time.Now()
		for w := 0; w < *clients; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				c := newClient(*endpoint)
				defer c.Close()
				rng := rand.New(rand.NewSource(int64(w)))
				for time.Now().Before(deadline) {
					key := fmt.Sprintf("/bench/put/%08d", rng.Intn(*keys))
					if _, err := c.Put(ctx, key, string(value)); err != nil {
						fmt.Fprintln(os.Stderr, "put:", err)
						os.Exit(1)
					}
					atomic.AddInt64(&done, 1)
				}
			}(w)
		}
		wg.Wait()
		result["puts_per_s"] = float64(done) / time.Since(start).Seconds()
		result["clients"] = *clients
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", *mode)
		os.Exit(2)
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
