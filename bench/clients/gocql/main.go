// gocql as a benchmark peer: one connection, protocol v4, no compression; the same
// arguments and JSON line as every bench client.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gocql/gocql"
)

const (
	insertCQL  = "INSERT INTO bench.kv (k, v) VALUES (?, ?)"
	selectCQL  = "SELECT k, v FROM bench.kv WHERE k = ?"
	valueBytes = 32
)

type result struct {
	Driver      string  `json:"driver"`
	Mode        string  `json:"mode"`
	N           int     `json:"n"`
	Concurrency int     `json:"concurrency"`
	ElapsedS    float64 `json:"elapsed_s"`
	OpsPerS     float64 `json:"ops_per_s"`
	P50Us       float64 `json:"p50_us"`
	P99Us       float64 `json:"p99_us"`
	CPUUsPerOp  float64 `json:"cpu_us_per_op"`
	Errors      int64   `json:"errors"`
}

// processCPUMicros is user + sys CPU time of this process, all threads, in µs.
func processCPUMicros() int64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return usage.Utime.Nano()/1000 + usage.Stime.Nano()/1000
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(2)
}

func main() {
	if len(os.Args) != 6 {
		fail("usage: HOST PORT N CONCURRENCY insert|select (got %q)", os.Args[1:])
	}
	host, mode := os.Args[1], os.Args[5]
	port, err1 := strconv.Atoi(os.Args[2])
	n, err2 := strconv.Atoi(os.Args[3])
	concurrency, err3 := strconv.Atoi(os.Args[4])
	if err1 != nil || err2 != nil || err3 != nil || (mode != "insert" && mode != "select") {
		fail("bad arguments %q", os.Args[1:])
	}

	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.ProtoVersion = 4
	cluster.NumConns = 1
	cluster.Timeout = 10 * time.Second
	// gocql's default 200 µs write-coalescing window was slower in trial runs at 1, 64 and 1024
	// in flight (about 1 ms per request with 1 in flight), so the peer runs at its best: off.
	cluster.WriteCoalesceWaitTime = 0
	session, err := cluster.CreateSession()
	if err != nil {
		fail("connecting to %s:%d: %v", host, port, err)
	}
	defer session.Close()

	value := make([]byte, valueBytes)
	for i := range value {
		value[i] = 0xab
	}
	op := func(i int) error {
		if mode == "insert" {
			return session.Query(insertCQL, int64(i), value).Exec()
		}
		var k int64
		var v []byte
		if err := session.Query(selectCQL, int64(i)).Scan(&k, &v); err != nil {
			return err
		}
		if len(v) != valueBytes {
			return fmt.Errorf("bad row for k=%d: v has %d bytes", i, len(v))
		}
		return nil
	}

	warmup := n / 10
	if warmup < 1 {
		warmup = 1
	}
	runLoop(warmup, concurrency, func(i int) error { return op(n + i) }, nil)
	latencies := make([]float64, n)
	cpuBefore := processCPUMicros()
	started := time.Now()
	errors := runLoop(n, concurrency, op, latencies)
	elapsed := time.Since(started).Seconds()
	cpu := processCPUMicros() - cpuBefore
	sort.Float64s(latencies)
	pick := func(q float64) float64 {
		i := int(q * float64(n))
		if i > n-1 {
			i = n - 1
		}
		return latencies[i]
	}
	out, _ := json.Marshal(result{
		Driver: "gocql", Mode: mode, N: n, Concurrency: concurrency, ElapsedS: elapsed,
		OpsPerS: float64(n) / elapsed, P50Us: pick(0.5), P99Us: pick(0.99),
		CPUUsPerOp: float64(cpu) / float64(n), Errors: errors,
	})
	fmt.Println(string(out))
}

// runLoop runs op(i) for i in [0, n) with `concurrency` goroutines; latencies (µs) may be nil.
func runLoop(n, concurrency int, op func(int) error, latencies []float64) int64 {
	var next, errors atomic.Int64
	var firstError sync.Once
	var wg sync.WaitGroup
	if concurrency > n {
		concurrency = n
	}
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := op(i); err != nil {
					errors.Add(1)
					firstError.Do(func() { fmt.Fprintf(os.Stderr, "bench: error: %v\n", err) })
				}
				if latencies != nil {
					latencies[i] = float64(time.Since(t0).Nanoseconds()) / 1000
				}
			}
		}()
	}
	wg.Wait()
	return errors.Load()
}
