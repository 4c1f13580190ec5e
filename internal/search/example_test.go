package search_test

import (
	"fmt"
	"math"

	"github.com/pgoltp/pgoltp/internal/search"
)

func Example() {
	space, err := search.NewSpace(
		search.Int("buffers_mb", 16, 16384, true),
		search.Float("cost", 1, 4, false),
		search.Choice("compression", "off", "lz4"),
	)
	if err != nil {
		panic(err)
	}
	defaults, err := space.PointOf(map[string]any{"buffers_mb": 128, "cost": 4.0, "compression": "off"})
	if err != nil {
		panic(err)
	}
	opt, err := search.New(space, search.Options{Seed: 1, WarmStart: []search.Point{defaults}})
	if err != nil {
		panic(err)
	}
	// A made-up throughput: best near 2 GB of buffers, with lz4; more than
	// 8 GB does not start.
	throughput := func(p search.Point) (float64, bool) {
		mb, _ := space.Value(p, "buffers_mb")
		c, _ := space.Choice(p, "compression")
		if mb > 8192 {
			return 0, false
		}
		tps := 1000 - 100*math.Pow(math.Log2(mb/2048), 2)
		if c == "lz4" {
			tps += 50
		}
		return tps, true
	}
	for range 30 {
		p := opt.Suggest()
		tps, ok := throughput(p)
		if err := opt.Observe(p, tps, !ok); err != nil {
			panic(err)
		}
	}
	best, _ := opt.Best()
	settings := space.Format(best.Point)
	mb, _ := space.Value(best.Point, "buffers_mb")
	fmt.Println("compression:", settings["compression"])
	fmt.Println("buffers within a factor 2 of 2048 MB:", mb >= 1024 && mb <= 4096)
	// Output:
	// compression: lz4
	// buffers within a factor 2 of 2048 MB: true
}
