package ceiling

import (
	"bufio"
	"os"
	"strconv"
)

// WriteCSV writes workload 2's input: rows of id,name,score,city with a
// header line, the same for every run, and returns how many rows have
// score >= 50 (what workload 2 keeps).
func WriteCSV(path string, rows int64) (kept int64, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("id,name,score,city\n")
	cities := []string{"Berlin", "Lyon", "Osaka", "Lima", "Austin", "Porto"}
	var buf []byte
	for i := int64(0); i < rows; i++ {
		h := Mix(uint64(i) + 0x5eed)
		buf = strconv.AppendInt(buf[:0], i, 10)
		buf = append(buf, ',')
		for k := 0; k < 5; k++ {
			buf = append(buf, Alphabet[(h>>(6*k))%uint64(len(Alphabet))])
		}
		buf = append(buf, ',')
		cents := int64((h >> 32) % 10000) // score 0.00 .. 99.99
		if cents >= 5000 {
			kept++
		}
		buf = strconv.AppendInt(buf, cents/100, 10)
		buf = append(buf, '.', byte('0'+cents%100/10), byte('0'+cents%10), ',')
		buf = append(buf, cities[(h>>48)%uint64(len(cities))]...)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return kept, f.Close()
}
