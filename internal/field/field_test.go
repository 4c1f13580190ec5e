package field

import (
	"errors"
	"fmt"
	"testing"
)

func TestNamesByTheEdge(t *testing.T) {
	err := New("Conns", 20000, "{} %d: at most 10000", 20000)
	if got, want := err.Error(), "conns 20000: at most 10000"; got != want {
		t.Errorf("unnamed: %q, want %q", got, want)
	}
	flags := Names(map[string]string{"Conns": "--conns"})
	if got, want := Rename(err, flags).Error(), "--conns 20000: at most 10000"; got != want {
		t.Errorf("as a flag: %q, want %q", got, want)
	}
	plan := Names(map[string]string{"Conns": "workload.clients"})
	if got, want := Rename(err, plan).Error(), "workload.clients 20000: at most 10000"; got != want {
		t.Errorf("as a plan key: %q, want %q", got, want)
	}
	if err.Error() != "conns 20000: at most 10000" {
		t.Error("Rename changed the original error")
	}
}

func TestOtherOptionsAndWrapping(t *testing.T) {
	base := errors.New("bad run option")
	err := fmt.Errorf("%w: %w", base, New("Weights", "1,2", "{} %s is below the minimum; pass {AllowNonCompliant} or %s", "1,2", "{}"))
	names := Names(map[string]string{"Weights": "--weights", "AllowNonCompliant": "--allow-noncompliant"})
	got := Rename(err, names)
	// A value that looks like a placeholder stays as given.
	if want := "bad run option: --weights 1,2 is below the minimum; pass --allow-noncompliant or {}"; got.Error() != want {
		t.Errorf("%q, want %q", got.Error(), want)
	}
	var fe *Error
	if !errors.Is(got, base) || !errors.As(got, &fe) || fe.Field != "Weights" || fe.Value != "1,2" {
		t.Errorf("the renamed error lost its chain: %v %+v", errors.Is(got, base), fe)
	}
	if plain := errors.New("x"); Rename(plain, names) != plain {
		t.Error("an error without a field error changed")
	}
	fixed := New("Workers", 0, "{} must be at least 1, got %d", 0).Fix("pass {} 1 or more")
	if got, want := Rename(fixed, Names(map[string]string{"Workers": "--workers"})).Error(), "--workers must be at least 1, got 0; pass --workers 1 or more"; !fixed.HasFix() || got != want {
		t.Errorf("with a fix: %q, want %q", got, want)
	}
	if Name("TxnsPerTerminal") != "txns-per-terminal" {
		t.Errorf("Name = %q", Name("TxnsPerTerminal"))
	}
}

// Bad reads as the flag or key the edge names it by, is bad input either
// way, and keeps its cause.
func TestBad(t *testing.T) {
	f := Bad("KillAfter", "10ms", "is too short", "1s or more")
	if got := f.Error(); got != "kill-after 10ms is too short; use kill-after 1s or more" {
		t.Errorf("unnamed: %q", got)
	}
	named := Rename(fmt.Errorf("audit: %w", f), Names(map[string]string{"KillAfter": "--kill-after"}))
	if got := named.Error(); got != "audit: --kill-after 10ms is too short; use --kill-after 1s or more" {
		t.Errorf("named: %q", got)
	}
	cause := errors.New("refused")
	noValue := Bad("Set", "", "pgoltp never sets ssl", "").Because(cause)
	if got := Rename(noValue, Names(map[string]string{"Set": "--set"})).Error(); got != "--set: pgoltp never sets ssl; fix --set" {
		t.Errorf("without a value: %q", got)
	}
	if !errors.Is(noValue, cause) {
		t.Error("the cause is lost")
	}
}

func TestNameSplitsWords(t *testing.T) {
	for field, want := range map[string]string{"KillAfter": "kill-after", "DeliveryWorkers": "delivery-workers", "CPUs": "cpus",
		"RAM": "ram", "WALRate": "wal-rate", "MeasureWAL": "measure-wal", "Conns": "conns", "P99": "p99"} {
		if got := Name(field); got != want {
			t.Errorf("Name(%s) = %s, want %s", field, got, want)
		}
	}
}
