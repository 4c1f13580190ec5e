package doctor

import (
	"context"
	"fmt"
	"github.com/pgoltp/pgoltp/internal/field"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/advise"
	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/host"
	"github.com/pgoltp/pgoltp/internal/problem"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// gB is a gibibyte, for sizes in findings.
const gB = int64(1) << 30

// Severity of a finding.
const (
	SeverityProblem = "problem" // costs throughput, latency or safety now
	SeverityWarning = "warning" // likely to, or worth a look
	SeverityInfo    = "info"    // context for the other findings
	SeverityOK      = "ok"      // checked and fine
)

// Confidence of a finding.
const (
	ConfidenceHigh   = "high"   // measured directly
	ConfidenceMedium = "medium" // measured, but the cause has alternatives
	ConfidenceLow    = "low"    // a rule of thumb or a short sample
)

// Finding is one thing the doctor noticed.
type Finding struct {
	ID         string `json:"id"`   // stable name, e.g. "checkpoints-requested"
	Area       string `json:"area"` // postgresql | os
	Severity   string `json:"severity"`
	Title      string `json:"title"`
	Evidence   string `json:"evidence"`   // the numbers
	Why        string `json:"why"`        // why it matters
	Fix        string `json:"fix"`        // what to do
	Confidence string `json:"confidence"` // how sure we are
	// OS is the fix as a plan's os: block (internal/ossettings), when an
	// experiment can measure it (issue 28).
	OS map[string]string `json:"os,omitempty"`
}

// Diagnosis is the doctor's report.
type Diagnosis struct {
	Server   string    `json:"server"`
	Major    int       `json:"major"`
	Local    bool      `json:"local"` // the server runs on this host: OS checks apply to it
	Since    time.Time `json:"stats_since,omitempty"`
	Findings []Finding `json:"findings"`
	Notes    []string  `json:"notes,omitempty"`
}

// Problems counts findings of severity problem.
func (d *Diagnosis) Problems() int {
	n := 0
	for _, f := range d.Findings {
		if f.Severity == SeverityProblem {
			n++
		}
	}
	return n
}

// DoctorOptions say what to audit.
type DoctorOptions struct {
	// Sample is how long to sample wait events (pg_stat_activity), 0: skip.
	Sample time.Duration
	// OS audits the host too; it applies when the server runs on this host.
	OS bool
	// Run, when set, adds findings from what a stored run measured.
	Run *advise.PastRun
}

// Validate checks the options.
func (o DoctorOptions) Validate() error {
	if o.Sample < 0 || o.Sample > time.Hour {
		return field.Bad("Sample", o.Sample.String(), "is out of range", "between 0 and 1h")
	}
	return nil
}

// Doctor audits the server behind conn and, when it runs on this host, the OS
// under it. The statistics it reads are cumulative since their last reset, so
// they describe the workload that ran since then.
func Doctor(ctx context.Context, conn *pgx.Conn, opts DoctorOptions) (*Diagnosis, error) {
	live, major, err := settings.ReadServer(ctx, conn)
	if err != nil {
		return nil, err
	}
	d := &Diagnosis{Major: major}
	if err := conn.QueryRow(ctx, "SELECT 'PostgreSQL ' || current_setting('server_version')").Scan(&d.Server); err != nil {
		return nil, err
	}
	s := &doctorState{conn: conn, live: live, major: major, d: d}
	checks := []func(context.Context) error{
		s.checkpoints, s.backendWrites, s.walFPI, s.walBuffersFull, s.hotRatio, s.settingsVsAdvice,
	}
	for _, c := range checks {
		if err := c(ctx); err != nil {
			d.Notes = append(d.Notes, problem.OneLine(err.Error()))
		}
	}
	if opts.Sample > 0 {
		if err := s.waitEvents(ctx, opts.Sample); err != nil {
			d.Notes = append(d.Notes, problem.OneLine(err.Error()))
		}
	} else {
		d.Notes = append(d.Notes, "wait events not sampled: run with --sample 10s while the workload runs")
	}
	if opts.Run != nil {
		d.Findings = append(d.Findings, RunFindings(*opts.Run)...)
	}
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err == nil {
		d.Local = host.IsLocalBackend(pid)
	}
	if opts.OS {
		if !d.Local {
			d.Notes = append(d.Notes, "the server does not run on this host (its backend is not visible in /proc): OS checks skipped")
		} else {
			dataDir := live["data_directory"].Setting
			s.osChecks(pid, dataDir)
		}
	}
	sort.SliceStable(d.Findings, func(i, j int) bool {
		return severityRank(d.Findings[i].Severity) < severityRank(d.Findings[j].Severity)
	})
	return d, nil
}

type doctorState struct {
	conn  *pgx.Conn
	live  map[string]settings.Live
	major int
	d     *Diagnosis
}

func (s *doctorState) add(f Finding) { s.d.Findings = append(s.d.Findings, f) }

func (s *doctorState) value(name string) string { return s.live[name].Value() }

// checkpoints compares requested with timed checkpoints: requested ones come
// early because max_wal_size filled up, and each one restarts full-page images.
func (s *doctorState) checkpoints(ctx context.Context) error {
	q, _ := collect.SQL(collect.CheckpointCounts, s.major) // every major has a variant
	var timed, req int64
	var since time.Time
	if err := s.conn.QueryRow(ctx, q).Scan(&timed, &req, &since); err != nil {
		return fmt.Errorf("checkpoint statistics: %w", err)
	}
	s.d.Since = since
	ev := fmt.Sprintf("%d requested vs %d timed checkpoints since %s; max_wal_size = %s, checkpoint_timeout = %s",
		req, timed, since.UTC().Format(time.RFC3339), s.value("max_wal_size"), s.value("checkpoint_timeout"))
	total := req + timed
	if total == 0 {
		s.add(Finding{ID: "checkpoints-requested", Area: "postgresql", Severity: SeverityInfo, Title: "no checkpoints yet",
			Evidence: ev, Why: "nothing to judge", Fix: "run the workload, then ask again", Confidence: ConfidenceHigh})
		return nil
	}
	if req < 3 || float64(req) < 0.2*float64(total) {
		s.add(Finding{ID: "checkpoints-requested", Area: "postgresql", Severity: SeverityOK, Title: "checkpoints are mostly timed",
			Evidence: ev, Why: "timed checkpoints keep full-page images and write bursts to a minimum", Fix: "none", Confidence: ConfidenceHigh})
		return nil
	}
	fix := "raise max_wal_size so that a checkpoint_timeout's worth of WAL fits in max_wal_size / (1 + checkpoint_completion_target)"
	if rate, ok := s.walRate(ctx); ok {
		cct, _ := settings.ToUnit(s.live["checkpoint_completion_target"].Setting, "")
		timeout, _ := settings.ToUnit(s.live["checkpoint_timeout"].Setting, "")
		// Beyond 15 minutes a longer interval mostly lengthens crash recovery:
		// size for at most that.
		timeout = min(timeout, 900)
		need := rate * timeout * (1 + cct) * 1.25
		// The average since the reset includes idle time: never advise less
		// than twice what already proved too small.
		current, _ := settings.ToUnit(s.value("max_wal_size"), "B")
		need = max(need, 2*current)
		fix = fmt.Sprintf("set max_wal_size to at least %s (the average WAL rate since the statistics reset, %s/s, over min(checkpoint_timeout, 15min) × (1 + completion target) + 25%%; more if the workload peaks above its average)",
			host.HumanBytes(roundUpTo(int64(need), gB)), host.HumanBytes(int64(rate)))
	}
	s.add(Finding{ID: "checkpoints-requested", Area: "postgresql", Severity: SeverityProblem,
		Title:    "checkpoints are forced by WAL volume, not by time",
		Evidence: ev,
		Why:      "a requested checkpoint comes before checkpoint_timeout because max_wal_size filled up; each checkpoint makes the next change of every page write a full-page image, multiplying WAL and I/O",
		Fix:      fix, Confidence: ConfidenceHigh})
	return nil
}

// walRate is the average WAL rate since pg_stat_wal was reset (14+).
func (s *doctorState) walRate(ctx context.Context) (float64, bool) {
	q, ok := collect.SQL(collect.WALSinceReset, s.major)
	if !ok {
		return 0, false
	}
	var bytes float64
	var secs float64
	err := s.conn.QueryRow(ctx, q).Scan(&bytes, &secs)
	if err != nil || secs <= 0 {
		return 0, false
	}
	return bytes / secs, true
}

// backendWrites measures how many dirty buffers client backends wrote
// themselves instead of the checkpointer or the background writer.
func (s *doctorState) backendWrites(ctx context.Context) error {
	var backend, checkpoint, clean, maxwritten int64
	q, _ := collect.SQL(collect.BufferWrites, s.major) // every major has a variant
	if err := s.conn.QueryRow(ctx, q).Scan(&backend, &checkpoint, &clean, &maxwritten); err != nil {
		return fmt.Errorf("buffer write statistics: %w", err)
	}
	total := backend + checkpoint + clean
	if total < 1000 {
		return nil
	}
	share := float64(backend) / float64(total)
	ev := fmt.Sprintf("client backends wrote %d of %d buffers (%.0f%%); checkpointer %d, background writer %d (stopped %d times at bgwriter_lru_maxpages = %s); shared_buffers = %s",
		backend, total, 100*share, checkpoint, clean, maxwritten, s.value("bgwriter_lru_maxpages"), s.value("shared_buffers"))
	if share < 0.2 {
		s.add(Finding{ID: "backend-writes", Area: "postgresql", Severity: SeverityOK, Title: "backends rarely write buffers themselves",
			Evidence: ev, Why: "writes happen in the background, off the transaction's path", Fix: "none", Confidence: ConfidenceHigh})
		return nil
	}
	fix := "make the background writer clean ahead (bgwriter_lru_maxpages 1000, bgwriter_lru_multiplier 4, bgwriter_delay 100ms)"
	if strings.HasSuffix(s.value("shared_buffers"), "MB") || strings.HasSuffix(s.value("shared_buffers"), "kB") {
		fix += "; and shared_buffers is small: see 'pgoltp advise'"
	}
	s.add(Finding{ID: "backend-writes", Area: "postgresql", Severity: SeverityWarning,
		Title: "client backends write many dirty buffers themselves", Evidence: ev,
		Why: "a backend that must evict a dirty buffer writes it before it can read its page: the write lands in the transaction's latency",
		Fix: fix, Confidence: ConfidenceMedium})
	return nil
}

// walFPI measures the share of WAL records that carry full-page images (14+).
func (s *doctorState) walFPI(ctx context.Context) error {
	q, ok := collect.SQL(collect.WALImages, s.major)
	if !ok {
		return nil
	}
	var records, fpi, bytes int64
	if err := s.conn.QueryRow(ctx, q).Scan(&records, &fpi, &bytes); err != nil {
		return fmt.Errorf("WAL statistics: %w", err)
	}
	if records < 10000 {
		return nil
	}
	share := float64(fpi) / float64(records)
	// pg_stat_wal does not split bytes by kind; an image is at most one 8kB
	// page, so fpi×8kB bounds their bytes from above.
	byteShare := min(1, float64(fpi)*8192/float64(max(bytes, 1)))
	ev := fmt.Sprintf("%d of %d WAL records (%.1f%%) carry full-page images, up to %.0f%% of the %s of WAL; wal_compression = %s, checkpoint_timeout = %s, max_wal_size = %s",
		fpi, records, 100*share, 100*byteShare, host.HumanBytes(bytes), s.value("wal_compression"), s.value("checkpoint_timeout"), s.value("max_wal_size"))
	if byteShare < 0.3 {
		s.add(Finding{ID: "wal-fpi", Area: "postgresql", Severity: SeverityOK, Title: "full-page images are a small part of WAL",
			Evidence: ev, Why: "few images: checkpoints are far enough apart", Fix: "none", Confidence: ConfidenceMedium})
		return nil
	}
	fix := "space checkpoints further apart (checkpoint_timeout 15min or more, max_wal_size to match)"
	if v := strings.ToLower(s.value("wal_compression")); v == "off" {
		fix += " and turn on wal_compression (lz4 where the server has it)"
	}
	s.add(Finding{ID: "wal-fpi", Area: "postgresql", Severity: SeverityWarning, Title: "full-page images make up much of the WAL",
		Evidence: ev,
		Why:      "the first change of each page after a checkpoint logs the whole 8kB page; with frequent checkpoints that is most of the WAL written and fsynced at commit",
		Fix:      fix, Confidence: ConfidenceMedium})
	return nil
}

// walBuffersFull counts WAL writes forced because wal_buffers was full (14+).
func (s *doctorState) walBuffersFull(ctx context.Context) error {
	q, ok := collect.SQL(collect.WALBuffersFull, s.major)
	if !ok {
		return nil
	}
	var full, records int64
	if err := s.conn.QueryRow(ctx, q).Scan(&full, &records); err != nil {
		return fmt.Errorf("WAL statistics: %w", err)
	}
	if records < 10000 || float64(full) < 0.001*float64(records) {
		return nil
	}
	s.add(Finding{ID: "wal-buffers-full", Area: "postgresql", Severity: SeverityWarning, Title: "WAL buffers fill up",
		Evidence: fmt.Sprintf("%d writes because wal_buffers (%s) was full, for %d WAL records", full, s.value("wal_buffers"), records),
		Why:      "when wal_buffers is full a backend writes WAL itself, inside its transaction",
		Fix:      "raise wal_buffers (e.g. 64MB; needs a restart)", Confidence: ConfidenceHigh})
	return nil
}

// hotRatio finds tables with many updates of which few were HOT.
func (s *doctorState) hotRatio(ctx context.Context) error {
	rows, err := s.conn.Query(ctx, `SELECT t.schemaname || '.' || t.relname, t.n_tup_upd, t.n_tup_hot_upd,
	        coalesce((SELECT option_value FROM pg_options_to_table(c.reloptions) WHERE option_name = 'fillfactor'), '100')
	   FROM pg_stat_user_tables t JOIN pg_class c ON c.oid = t.relid
	  WHERE t.n_tup_upd >= 1000 ORDER BY t.n_tup_upd DESC LIMIT 20`)
	if err != nil {
		return fmt.Errorf("table statistics: %w", err)
	}
	type table struct {
		name     string
		upd, hot int64
		ff       string
	}
	var low []table
	var all int
	var tab table
	_, err = pgx.ForEachRow(rows, []any{&tab.name, &tab.upd, &tab.hot, &tab.ff}, func() error {
		all++
		if float64(tab.hot) < 0.5*float64(tab.upd) {
			low = append(low, tab)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("table statistics: %w", err)
	}
	if all == 0 {
		return nil
	}
	if len(low) == 0 {
		s.add(Finding{ID: "hot-updates", Area: "postgresql", Severity: SeverityOK, Title: "updates are mostly HOT",
			Evidence: fmt.Sprintf("all %d heavily updated tables of this database have at least 50%% HOT updates", all),
			Why:      "HOT updates touch no index", Fix: "none", Confidence: ConfidenceHigh})
		return nil
	}
	var parts []string
	for i, t := range low {
		if i == 5 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%% HOT of %d updates (fillfactor %s)", t.name, 100*float64(t.hot)/float64(t.upd), t.upd, t.ff))
	}
	s.add(Finding{ID: "hot-updates", Area: "postgresql", Severity: SeverityWarning, Title: "many updates are not HOT",
		Evidence:   strings.Join(parts, "; "),
		Why:        "an update that cannot stay on its page (HOT) inserts into every index of the table: more WAL, more I/O, more vacuum",
		Fix:        "leave free space on the pages (fillfactor 80-90 on these tables, then rewrite them: VACUUM FULL or reload) and do not index columns the workload updates; prove it with an experiment step 'layout: {fillfactor: 90}'",
		Confidence: ConfidenceMedium})
	return nil
}

// settingsVsAdvice lists settings far from what the advisor would recommend
// for this host (only when the server runs here, otherwise the host is unknown).
func (s *doctorState) settingsVsAdvice(ctx context.Context) error {
	var pid int
	if err := s.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil || !host.IsLocalBackend(pid) {
		return nil
	}
	a, err := advise.Advise(advise.AdviseInput{Host: host.DetectHost(s.live["data_directory"].Setting), Major: s.major, Live: s.live})
	if err != nil {
		return nil
	}
	var diffs []string
	for _, r := range a.Items {
		if l, ok := s.live[r.Name]; ok && !l.Same(r.Value) && importantSetting(r.Name) {
			diffs = append(diffs, fmt.Sprintf("%s = %s (advice %s)", r.Name, r.Current, r.Value))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	s.add(Finding{ID: "settings-vs-advice", Area: "postgresql", Severity: SeverityInfo, Title: "settings differ from pgoltp's advice for this host",
		Evidence: strings.Join(diffs, "; "), Why: "the advisor's rules of thumb for this memory, CPU count and storage",
		Fix: "see 'pgoltp advise' for each reason; measure with 'pgoltp experiment' before adopting", Confidence: ConfidenceLow})
	return nil
}

func importantSetting(name string) bool {
	switch name {
	case "shared_buffers", "max_wal_size", "checkpoint_timeout", "wal_compression", "jit", "random_page_cost", "effective_cache_size", "track_io_timing":
		return true
	}
	return false
}

// waitEvents samples what active backends wait on, every 10ms for d.
func (s *doctorState) waitEvents(ctx context.Context, d time.Duration) error {
	counts := map[string]int{}
	samples, busy := 0, 0
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		rows, err := s.conn.Query(ctx, `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity
		  WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
		if err != nil {
			return fmt.Errorf("sampling wait events: %w", err)
		}
		var ev string
		_, err = pgx.ForEachRow(rows, []any{&ev}, func() error { counts[ev]++; busy++; return nil })
		if err != nil {
			return fmt.Errorf("sampling wait events: %w", err)
		}
		samples++
		time.Sleep(10 * time.Millisecond)
	}
	if busy == 0 {
		s.add(Finding{ID: "wait-events", Area: "postgresql", Severity: SeverityInfo, Title: "no active backends while sampling",
			Evidence: fmt.Sprintf("%d samples over %s", samples, d), Why: "wait events show where a running workload spends its time",
			Fix: "sample while the workload runs (--sample)", Confidence: ConfidenceHigh})
		return nil
	}
	type kv struct {
		k string
		n int
	}
	var list []kv
	for k, n := range counts {
		list = append(list, kv{k, n})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].n > list[j].n || list[i].n == list[j].n && list[i].k < list[j].k })
	var parts []string
	for i, e := range list {
		if i == 6 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", e.k, 100*float64(e.n)/float64(busy)))
	}
	top := list[0]
	f := Finding{ID: "wait-events", Area: "postgresql", Severity: SeverityInfo, Title: "where active backends spend their time",
		Evidence:   fmt.Sprintf("%s (%d samples of %d active backends over %s)", strings.Join(parts, ", "), samples, busy, d),
		Why:        "the dominant wait names the bottleneck",
		Fix:        "none needed",
		Confidence: ConfidenceLow}
	if float64(top.n) >= 0.3*float64(busy) {
		f.Severity = SeverityWarning
		f.Title = "backends mostly wait on " + top.k
		f.Fix, f.Why = waitAdvice(top.k)
		f.Confidence = ConfidenceMedium
	}
	s.add(f)
	return nil
}

// waitAdvice says what a dominant wait event usually means and what helps.
func waitAdvice(ev string) (fix, why string) {
	// Event names changed case over versions (IO:WALSync before 17, IO:WalSync since).
	switch ev := strings.ToLower(ev); {
	case ev == "io:walsync" || ev == "io:walwrite" || ev == "lwlock:walwrite":
		return "group commits (commit_delay/commit_siblings), faster WAL storage; synchronous_commit=off only where losing the last commits is acceptable (it is can-lose-data-on-crash)",
			"commits wait for the WAL flush: storage latency bounds throughput"
	case ev == "io:datafileread":
		return "more memory for shared_buffers and the OS cache, or fewer pages per transaction (indexes)", "pages are read from storage: the working set does not fit in memory"
	case strings.HasPrefix(ev, "lock:"):
		return "the workload's row contention: fewer clients on the same rows, shorter transactions", "transactions queue on the same rows or objects"
	case ev == "lwlock:buffermapping" || ev == "lwlock:buffercontent":
		return "often hot pages; huge pages and a right-sized shared_buffers help", "backends contend on shared buffer structures"
	case ev == "cpu":
		return "more CPUs, or less work per transaction (prepared statements, fewer round trips)", "backends run on CPU rather than wait: the server is CPU bound"
	case strings.HasPrefix(ev, "client:"):
		return "the client side: network round trips, a slow driver, think time", "backends wait for the client to send the next statement"
	}
	return "look up the event in the PostgreSQL documentation (Wait Events)", "backends spend much time in this wait"
}

// WriteText writes the diagnosis for a person.
func (d *Diagnosis) WriteText(w io.Writer) error {
	var b strings.Builder
	where := "remote: PostgreSQL checks only"
	if d.Local {
		where = "on this host"
	}
	fmt.Fprintf(&b, "doctor: %s (%s)", d.Server, where)
	if !d.Since.IsZero() {
		fmt.Fprintf(&b, ", statistics since %s", d.Since.UTC().Format(time.RFC3339))
	}
	b.WriteString("\n")
	for _, f := range d.Findings {
		fmt.Fprintf(&b, "\n[%s] %s (%s, confidence %s)\n", strings.ToUpper(f.Severity), f.Title, f.Area, f.Confidence)
		fmt.Fprintf(&b, "  evidence: %s\n", f.Evidence)
		if f.Severity != SeverityOK {
			fmt.Fprintf(&b, "  why: %s\n  fix: %s\n", f.Why, f.Fix)
		}
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "\nnote: %s", n)
	}
	fmt.Fprintf(&b, "\n%d problems, %d findings\n", d.Problems(), len(d.Findings))
	_, err := io.WriteString(w, b.String())
	return err
}

func severityRank(s string) int {
	switch s {
	case SeverityProblem:
		return 0
	case SeverityWarning:
		return 1
	case SeverityInfo:
		return 2
	}
	return 3
}

func roundUpTo(n, to int64) int64 { return (n + to - 1) / to * to }
