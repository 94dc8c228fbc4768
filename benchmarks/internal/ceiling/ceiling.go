// Package ceiling holds workloads 1 and 2 of benchmarks/cmd/peers as
// hand-written Go loops with no engine at all: the ceilings that cmd/peers
// and the in-process benchmarks (BenchmarkCeiling) measure stactor
// against, and workload 2's input file and job (csvdata.go, csvjob.go),
// shared so that the test can check the loop writes stactor's bytes.
//
// Workload 1 (Run): each worker generates batches of 4096 rows into typed
// slices (ids and scores from a splitmix64 hash of the row number, names
// cut from a random text, as FakeSource does), computes score2, keeps the
// even ids in output slices and counts them. Workload 2 (CSVToJSON): see
// csvjson.go.
package ceiling

import (
	"sync"
	"time"
)

// Alphabet is the letters names are made of.
const Alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

const golden = 0x9e3779b97f4a7c15

// Mix is splitmix64's finalizer, as FakeSource hashes.
func Mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

var letters = func() string {
	b := make([]byte, 1<<16)
	for i := range b {
		b[i] = Alphabet[Mix(uint64(i))%uint64(len(Alphabet))]
	}
	return string(b)
}()

// Run runs the loop over rows on workers goroutines and returns the
// time and the rows kept.
func Run(rows int64, workers int) (time.Duration, int64) {
	kept := make([]int64, workers)
	sums := make([]float64, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kept[w], sums[w] = ceilingWorker(rows/int64(workers), uint64(w+1))
		}()
	}
	wg.Wait()
	d := time.Since(start)
	var n int64
	var sum float64
	for w := range workers {
		n += kept[w]
		sum += sums[w]
	}
	if sum < 0 { // never: uses sum so the loop cannot be dropped
		n = -1
	}
	return d, n
}

func ceilingWorker(rows int64, seed uint64) (kept int64, sum float64) {
	const batch = 4096
	ids := make([]int64, batch)
	names := make([]string, batch)
	scores := make([]float64, batch)
	outIDs := make([]int64, batch)
	outNames := make([]string, batch)
	outScores := make([]float64, batch)
	outScore2 := make([]float64, batch)
	base := Mix(seed)
	for done := int64(0); done < rows; done += batch {
		m := int(min(batch, rows-done))
		for i := 0; i < m; i++ {
			h := Mix(base + uint64(done+int64(i))*golden)
			ids[i] = int64(h >> 1)
			off := (h >> 32) % uint64(len(letters)-5)
			names[i] = letters[off : off+5]
			scores[i] = float64(Mix(h)>>11) * 0x1p-53 * 100
		}
		k := 0
		for i := 0; i < m; i++ {
			if ids[i]%2 == 0 {
				outIDs[k], outNames[k], outScores[k] = ids[i], names[i], scores[i]
				outScore2[k] = scores[i] * 2
				k++
			}
		}
		kept += int64(k)
		if k > 0 {
			sum += outScore2[k-1] + float64(len(outNames[0])) + float64(outIDs[0]&1) + outScores[0]
		}
	}
	return kept, sum
}
