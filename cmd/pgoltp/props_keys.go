package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pgoltp/pgoltp/internal/javaprops"
)

// loadKeys maps the keys 'tpcc load' uses.
func (tr *propsTranslation) loadKeys(get func(string) (string, bool)) error {
	if err := tr.count(get, "warehouses", "warehouses", 1); err != nil {
		return err
	}
	return tr.count(get, "loadWorkers", "workers", 1)
}

// runKeys maps the keys 'tpcc run' uses.
func (tr *propsTranslation) runKeys(get func(string) (string, bool)) error {
	if app, ok := get("application"); ok {
		switch app {
		case "Generic":
			tr.flags = append(tr.flags, propsFlag{"path", "client", "application"})
		case "PostgreSQLStoredProc":
			tr.flags = append(tr.flags, propsFlag{"path", "server", "application"})
		default:
			return fmt.Errorf("application=%s: pgoltp has Generic (--path client) and PostgreSQLStoredProc (--path server)", app)
		}
	}
	for _, c := range []struct{ key, flag string }{
		{"warehouses", "warehouses"}, {"terminals", "terminals"}, {"sutThreads", "conns"},
		{"maxDeliveryBGThreads", "delivery-workers"}, {"reportIntervalSecs", "progress"},
	} {
		if err := tr.count(get, c.key, c.flag, 1); err != nil {
			return err
		}
	}
	if err := tr.stopRule(get); err != nil {
		return err
	}
	if err := tr.minutes(get, "rampupMins", "ramp"); err != nil {
		return err
	}
	if err := tr.count(get, "limitTxnsPerMin", "rate", 0); err != nil {
		return err
	}
	if fixed, ok := get("terminalWarehouseFixed"); ok && !strings.EqualFold(fixed, "true") {
		tr.ignored = append(tr.ignored, "terminalWarehouseFixed="+fixed+": each pgoltp terminal keeps a fixed home warehouse, as the standard's terminals do")
	}
	if err := tr.weights(get); err != nil {
		return err
	}
	return tr.timing(get)
}

// stopRule maps runMins and runTxnsPerTerminal; BenchmarkSQL 5 takes one of
// the two, and so does this.
func (tr *propsTranslation) stopRule(get func(string) (string, bool)) error {
	mins, _ := get("runMins")
	txns, _ := get("runTxnsPerTerminal")
	if mins != "" && mins != "0" && txns != "" && txns != "0" {
		return fmt.Errorf("runMins=%s and runTxnsPerTerminal=%s: give one of the two, the other 0", mins, txns)
	}
	if err := tr.minutes(get, "runMins", "duration"); err != nil {
		return err
	}
	return tr.count(get, "runTxnsPerTerminal", "txns-per-terminal", 1)
}

// count maps a whole-number key to a flag; values below min are left out
// (BenchmarkSQL's 0 means "not this one").
func (tr *propsTranslation) count(get func(string) (string, bool), key, flag string, min int64) error {
	v, ok := get(key)
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%s=%s is not a whole number of zero or more", key, v)
	}
	if n >= min && n > 0 {
		tr.flags = append(tr.flags, propsFlag{flag, v, key})
	}
	return nil
}

// minutes maps a number of minutes (fractions allowed) to a duration flag.
func (tr *propsTranslation) minutes(get func(string) (string, bool), key, flag string) error {
	v, ok := get(key)
	if !ok {
		return nil
	}
	m, err := strconv.ParseFloat(v, 64)
	if err != nil || m < 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return fmt.Errorf("%s=%s is not a number of minutes", key, v)
	}
	if m > 0 {
		tr.flags = append(tr.flags, propsFlag{flag, strconv.FormatFloat(m*60, 'f', -1, 64) + "s", key})
	}
	return nil
}

// weights maps the five percentages to card counts (--weights NO,P,OS,D,SL):
// percentages with decimals are scaled to whole cards, then reduced. A
// missing newOrderWeight is what the other four leave of 100, as
// BenchmarkSQL 6 computes it.
func (tr *propsTranslation) weights(get func(string) (string, bool)) error {
	keys := []string{"newOrderWeight", "paymentWeight", "orderStatusWeight", "deliveryWeight", "stockLevelWeight"}
	var pct [5]float64
	given, sum := 0, 0.0
	for i, k := range keys {
		v, ok := get(k)
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 100 {
			return fmt.Errorf("%s=%s is not a percentage", k, v)
		}
		pct[i], given, sum = f, given+1, sum+f
	}
	switch _, hasNO := get("newOrderWeight"); {
	case given == 0:
		return nil
	case !hasNO:
		pct[0], sum = 100-sum, 100
	}
	if math.Abs(sum-100) > 1e-9 {
		return fmt.Errorf("the five weights add up to %g, not 100", sum)
	}
	cards, err := wholeCards(pct)
	if err != nil {
		return err
	}
	tr.flags = append(tr.flags, propsFlag{"weights", cards, "the five weights"})
	return nil
}

// wholeCards scales percentages with up to three decimals to the smallest
// whole card counts in the same proportion.
func wholeCards(pct [5]float64) (string, error) {
	var n [5]int64
	for i, p := range pct {
		scaled := math.Round(p * 1000)
		if math.Abs(scaled-p*1000) > 1e-6 {
			return "", fmt.Errorf("weight %g has more than three decimals", p)
		}
		n[i] = int64(scaled)
	}
	g := int64(0)
	for _, v := range n {
		g = gcd(g, v)
	}
	parts := make([]string, 5)
	for i, v := range n {
		parts[i] = strconv.FormatInt(v/g, 10)
	}
	return strings.Join(parts, ","), nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// timing maps BenchmarkSQL 6's keying and think time multipliers: pgoltp
// scales both together (--keying-scale in --mode spec); 0 is no-wait mode.
// BenchmarkSQL 6 emulates the standard's times unless told otherwise.
func (tr *propsTranslation) timing(get func(string) (string, bool)) error {
	k, hasK := get("keyingTimeMultiplier")
	t, hasT := get("thinkTimeMultiplier")
	if !hasK && !hasT {
		if tr.version == "BenchmarkSQL 6" {
			tr.flags = append(tr.flags, propsFlag{"mode", "spec", "BenchmarkSQL 6's timed driver"})
		}
		return nil
	}
	if !hasK || !hasT || k != t {
		return fmt.Errorf("keyingTimeMultiplier=%s and thinkTimeMultiplier=%s: pgoltp scales both together (--keying-scale), give them the same value", k, t)
	}
	m, err := strconv.ParseFloat(k, 64)
	if err != nil || m < 0 {
		return fmt.Errorf("keyingTimeMultiplier=%s is not a number of zero or more", k)
	}
	if m == 0 {
		tr.flags = append(tr.flags, propsFlag{"mode", "nowait", "keying/thinkTimeMultiplier"})
		return nil
	}
	tr.flags = append(tr.flags, propsFlag{"mode", "spec", "keying/thinkTimeMultiplier"},
		propsFlag{"keying-scale", k, "keying/thinkTimeMultiplier"})
	return nil
}

// listIgnored lists every key of the file that sets no flag of this command.
func (tr *propsTranslation) listIgnored(props []javaprops.Property, use string) {
	used := map[string]bool{"db": true, "conn": true, "user": true, "password": true}
	seen := map[string]bool{}
	var out []string
	for _, p := range props {
		k := p.Key
		if seen[k] || used[k] || strings.HasPrefix(k, "//") { // BenchmarkSQL's own files comment with //
			continue
		}
		seen[k] = true
		switch {
		case propsIgnored[k] != "":
			out = append(out, k+": "+propsIgnored[k])
		case use == "load" && propsRunOnly[k]:
			out = append(out, k+": used by 'tpcc run', not by 'tpcc load'")
		case use == "run" && propsLoadOnly[k]:
			out = append(out, k+": used by 'tpcc load', not by 'tpcc run'")
		case !propsRunOnly[k] && !propsLoadOnly[k] && k != "warehouses":
			out = append(out, k+": not a BenchmarkSQL 5 or 6 key")
		}
	}
	sort.Strings(out)
	tr.ignored = append(tr.ignored, out...)
}
