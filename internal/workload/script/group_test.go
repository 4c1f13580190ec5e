package script_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/group"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/store"
	"github.com/pgoltp/pgoltp/internal/workload"
	"github.com/pgoltp/pgoltp/internal/workload/script"
)

// TestScriptPartsOfAGroup: two parts of one group run the same script,
// each with -D part/parts, start together at the group's gate and are
// merged into one view whose rate sums theirs.
func TestScriptPartsOfAGroup(t *testing.T) {
	dsn := newLoadedDatabase(t)
	path := writeScript(t, "part.sql", "\\set aid random(1 + (:part - 1) * 50000, :part * 50000)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n")
	lab := t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for k := 1; k <= 2; k++ {
		p := workload.Part{K: k, N: 2}
		w := script.New(script.Options{Files: []string{path}, Clients: 1, Init: script.InitNone, Duration: 2 * time.Second,
			Defines: []string{"part=" + strconv.Itoa(k), "parts=2"}})
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[k-1] = recorder.Run(ctx, dsn, w, recorder.Options{Lab: lab, Group: group.Options{Name: "g", Part: p, Timeout: time.Minute}})
		}()
		// one part registers at a time: the store is one SQLite file
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			if _, parts, err := st.Group(ctx, "g"); err == nil && len(parts) == k {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("part %d never registered", k)
			}
		}
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("part %d: %v", i+1, err)
		}
	}
	v, err := group.Load(ctx, st, "g")
	if err != nil {
		t.Fatal(err)
	}
	if v.Parts != 2 || v.Status != string(store.Complete) || v.Rate == nil || !(v.Rate.Value > 0) || v.Workload != "script" {
		t.Fatalf("group view: %d parts, %s, rate %+v, workload %s, notes %v", v.Parts, v.Status, v.Rate, v.Workload, v.Notes)
	}
	if !strings.Contains(v.Rate.Name, "TPS") {
		t.Errorf("rate %+v, want TPS", v.Rate)
	}
}
