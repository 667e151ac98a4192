// lang_go ROUNDS: a Go program with a known call structure for sprof's language tests
// (tests/integration/languages_test.cpp). Two goroutines, each locked to an OS thread, run
//   main.main.func1 -> main.worker -> {main.mathHeavy -> math.Sin/math.Cos, main.hashHeavy}
// ROUNDS times and print the CPU time their threads spent in each leaf and in all: the truth a
// profile's split is checked against. Go code has no .eh_frame: sprof unwinds it with the
// .debug_frame the Go linker writes (compressed) and the frame pointers Go keeps on amd64.
package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// threadCPU is this OS thread's CPU time (CLOCK_THREAD_CPUTIME_ID); the workers lock their
// goroutines to their threads, so it is the goroutine's time too.
func threadCPU() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

//go:noinline
func mathHeavy(n int) float64 {
	s := 0.0
	for i := 0; i < n; i++ {
		s += math.Sin(float64(i)*1e-3) * math.Cos(float64(i)*3e-3)
	}
	return s + 1
}

//go:noinline
func hashHeavy(n int) uint64 {
	h := uint64(1469598103934665603)
	for i := 0; i < n; i++ {
		h ^= uint64(i)
		h *= 1099511628211
	}
	return h | 1
}

//go:noinline
func worker(rounds int, mathNs, hashNs, allNs *int64) float64 {
	runtime.LockOSThread()
	start := threadCPU()
	s := 0.0
	for r := 0; r < rounds; r++ {
		t0 := threadCPU()
		s += mathHeavy(20000)
		t1 := threadCPU()
		s += float64(hashHeavy(60000) % 7)
		t2 := threadCPU()
		*mathNs += t1 - t0
		*hashNs += t2 - t1
	}
	*allNs = threadCPU() - start
	return s
}

func main() {
	rounds := 300
	if len(os.Args) > 1 {
		rounds, _ = strconv.Atoi(os.Args[1])
	}
	var wg sync.WaitGroup
	var mathNs, hashNs, allNs [2]int64
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			worker(rounds, &mathNs[g], &hashNs[g], &allNs[g])
		}(g)
	}
	wg.Wait()
	fmt.Printf("lang_go cpu_ns: mathHeavy=%d hashHeavy=%d workers=%d\n",
		mathNs[0]+mathNs[1], hashNs[0]+hashNs[1], allNs[0]+allNs[1])
}
