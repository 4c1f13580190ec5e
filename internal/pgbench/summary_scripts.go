package pgbench

// writeScripts prints the per-script blocks (several scripts) and the -r
// per-statement latencies.
func (r *Results) writeScripts(p printer) {
	o := r.Options
	if !o.PerScriptStats && !o.ReportPerCommand {
		return
	}
	var totalWeight int64
	for _, s := range o.Scripts {
		totalWeight += int64(s.Weight)
	}
	seconds := float64(r.BenchDurationUs) / 1e6
	for i, script := range o.Scripts {
		s := r.Scripts[i]
		if o.PerScriptStats {
			all := s.all()
			p.line("SQL script %d: %s\n - weight: %d (targets %.1f%% of total)\n - %d transactions (%.1f%% of total, tps = %f)",
				i+1, script.Desc, script.Weight, 100*float64(script.Weight)/float64(totalWeight),
				s.Count, 100*float64(s.Count)/float64(r.Total.Count), float64(s.Count)/seconds)
			p.line(" - number of failed transactions: %d (%.3f%%)", s.Failures(), 100*float64(s.Failures())/float64(all))
			if o.FailuresDetailed {
				p.line(" - number of serialization failures: %d (%.3f%%)", s.SerializationFailures, 100*float64(s.SerializationFailures)/float64(all))
				p.line(" - number of deadlock failures: %d (%.3f%%)", s.DeadlockFailures, 100*float64(s.DeadlockFailures)/float64(all))
			}
			if o.MaxTries != 1 {
				p.line(" - number of transactions retried: %d (%.3f%%)", s.Retried, 100*float64(s.Retried)/float64(all))
				p.line(" - total number of retries: %d", s.Retries)
			}
			if o.Rate > 0 && o.LatencyLimitUs > 0 && all > 0 {
				p.line(" - number of transactions skipped: %d (%.3f%%)", s.Skipped, 100*float64(s.Skipped)/float64(all))
			}
			writeSimpleStats(p, " - latency", s.Latency)
		}
		if o.ReportPerCommand {
			writeCommands(p, o, s.Commands)
		}
	}
}

func writeCommands(p printer, o *Options, commands []CommandStats) {
	lead, what := "", " and failures"
	if o.PerScriptStats {
		lead = " - "
	}
	if o.MaxTries != 1 {
		what = ", failures and retries"
	}
	p.line("%sstatement latencies in milliseconds%s:", lead, what)
	for _, c := range commands {
		ms := 0.0
		if c.Latency.Count > 0 {
			ms = 1000 * c.Latency.Sum / float64(c.Latency.Count)
		}
		if o.MaxTries == 1 {
			p.line("   %11.3f  %10d  %s", ms, c.Failures, c.FirstLine)
		} else {
			p.line("   %11.3f  %10d  %10d  %s", ms, c.Failures, c.Retries, c.FirstLine)
		}
	}
}
