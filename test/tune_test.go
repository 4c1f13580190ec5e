package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/settings"
)

// TestExperimentBadPlansExit2: every broken plan or flag combination stops
// before any work with exit 2 and one line naming the problem.
func TestExperimentBadPlansExit2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const step = "steps: [{settings: {commit_delay: 10}}]\n"
	cases := []struct {
		name     string
		args     []string
		mentions []string
	}{
		{"missing file", []string{"experiment", filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml"}},
		{"empty plan", []string{"experiment", write("empty.yaml", "")}, []string{"empty"}},
		{"not yaml", []string{"experiment", write("bad.yaml", "duration: [1s\n")}, []string{"not a valid plan"}},
		{"unknown key", []string{"experiment", write("typo.yaml", "duration: 2s\nrepetition: 3\n"+step)}, []string{"repetition"}},
		{"no steps", []string{"experiment", write("nosteps.yaml", "duration: 2s\n")}, []string{"no steps"}},
		{"bad duration", []string{"experiment", write("dur.yaml", "duration: soon\n"+step)}, []string{"soon"}},
		{"one repetition", []string{"experiment", write("rep.yaml", "duration: 2s\nrepetitions: 1\n"+step)}, []string{"repetitions"}},
		{"tpcc not drivable", []string{"experiment", write("tpcc.yaml", "workload: {kind: tpcx}\nduration: 2s\n"+step)}, []string{"tpcx"}},
		{"no plan", []string{"experiment"}, []string{"plan file"}},
		{"crash with plan", []string{"experiment", "--crash", write("c.yaml", "duration: 2s\n"+step)}, []string{"--crash"}},
		{"set without crash", []string{"experiment", "--set", "fsync=off", write("s.yaml", "duration: 2s\n"+step)}, []string{"--set"}},
		{"bad set", []string{"experiment", "--crash", "--set", "fsync"}, []string{"--set"}},
		{"short kill", []string{"experiment", "--crash", "--kill-after", "10ms"}, []string{"--kill-after"}},
		// Network and code settings are refused whatever the flags (issue 10).
		{"network setting in plan", []string{"experiment", "--allow-unsafe", write("net.yaml", "duration: 2s\nsteps: [{settings: {listen_addresses: '*'}}]\n")}, []string{"listen_addresses", "network"}},
		{"command in baseline", []string{"experiment", "--allow-unsafe", write("cmd.yaml", "duration: 2s\nbaseline: {settings: {archive_command: 'cp %p /x'}}\n"+step)}, []string{"archive_command", "runs a program"}},
		{"preload in --set", []string{"experiment", "--crash", "--allow-unsafe", "--set", "shared_preload_libraries=evil"}, []string{"shared_preload_libraries", "--allow-unsafe does not"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--lab", filepath.Join(dir, "no-lab"))
			assertOneLineProblem(t, runPgoltp(t, time.Minute, args...), tc.mentions...)
		})
	}

	// Plans whose settings only the server can judge: validated against its
	// pg_settings before anything is applied.
	dsn := pgtest.NewDatabase(t)
	serverCases := []struct {
		name, plan string
		mentions   []string
	}{
		{"unknown setting", "duration: 2s\nsteps: [{settings: {shared_bufers: 1GB}}]\n", []string{"shared_bufers"}},
		{"below minimum", "duration: 2s\nsteps: [{settings: {work_mem: 8kB}}]\n", []string{"work_mem", "range"}},
		{"bad enum", "duration: 2s\nsteps: [{settings: {synchronous_commit: maybe}}]\n", []string{"synchronous_commit", "maybe"}},
		{"unsafe without flag", "duration: 2s\nsteps: [{settings: {fsync: 'off'}}]\n", []string{"fsync=off", "can-corrupt-on-crash", "--allow-unsafe"}},
		{"unknown layout", "duration: 2s\nsteps: [{layout: {compression: lz4}}]\n", []string{"compression"}},
		{"restart on --dsn", "duration: 2s\nsteps: [{settings: {shared_buffers: 256MB}}]\n", []string{"shared_buffers", "restart"}},
	}
	for _, tc := range serverCases {
		t.Run(tc.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tc.name, " ", "_")+".yaml", tc.plan)
			assertOneLineProblem(t, runPgoltp(t, time.Minute, "experiment", p, "--dsn", dsn), tc.mentions...)
		})
	}
}

// TestAdviseCLI checks the three output forms and bad input.
func TestAdviseCLI(t *testing.T) {
	t.Parallel()
	r := runPgoltp(t, time.Minute, "advise", "--offline", "--ram", "8GB", "--cpus", "4", "--storage", "ssd",
		"--connections", "50", "--workload", "tpcc", "--pg", "16", "--json")
	if r.code != 0 {
		t.Fatalf("advise --json: exit %d: %s", r.code, r.stderr)
	}
	var a struct {
		Major    int `json:"major"`
		Settings []struct {
			Name, Value, Reason string
			Risk                settings.Risk
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil {
		t.Fatalf("advise --json: %v\n%s", err, r.stdout)
	}
	if a.Major != 16 || len(a.Settings) < 15 {
		t.Fatalf("advise --json: major %d, %d settings", a.Major, len(a.Settings))
	}
	for _, s := range a.Settings {
		if s.Reason == "" || s.Risk == "" || s.Risk.Unsafe() {
			t.Errorf("%s = %s: reason %q risk %q", s.Name, s.Value, s.Reason, s.Risk)
		}
		if err := settings.Validate(16, s.Name, s.Value); err != nil {
			t.Error(err)
		}
	}

	// Against a real server: its version and ranges, as ALTER SYSTEM.
	dsn := pgtest.NewDatabase(t)
	r = runPgoltp(t, time.Minute, "advise", "--dsn", dsn, "--ram", "4GB", "--cpus", "2", "--format", "sql")
	if r.code != 0 {
		t.Fatalf("advise --format sql: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "ALTER SYSTEM SET shared_buffers = '1GB';") || !strings.Contains(r.stdout, "SELECT pg_reload_conf();") {
		t.Errorf("advise --format sql:\n%s", r.stdout)
	}
	r = runPgoltp(t, time.Minute, "advise", "--offline", "--ram", "2GB")
	if r.code != 0 || !strings.Contains(r.stdout, "shared_buffers = 512MB") || !strings.Contains(r.stdout, "# risk: restart") {
		t.Errorf("advise conf: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	for _, bad := range []struct {
		args     []string
		mentions string
	}{
		{[]string{"--ram", "12"}, "--ram"},
		{[]string{"--ram", "lots"}, "--ram"},
		{[]string{"--storage", "floppy"}, "floppy"},
		{[]string{"--workload", "olap"}, "olap"},
		{[]string{"--pg", "9"}, "9"},
		{[]string{"--format", "yaml"}, "yaml"},
		{[]string{"--cpus", "-2"}, "negative"},
		{[]string{"--measure-wal", "5s"}, "--measure-wal"},
	} {
		args := append([]string{"advise", "--offline"}, bad.args...)
		assertOneLineProblem(t, runPgoltp(t, time.Minute, args...), bad.mentions)
	}
}

// TestExperimentAndCrashOnLab runs a one-step plan, the durability audit and
// the doctor through the binary on a fresh managed cluster.
func TestExperimentAndCrashOnLab(t *testing.T) {
	t.Parallel()
	lab := labDir(t)
	r := runPgoltp(t, 5*time.Minute, "cluster", "up", "--lab", lab)
	if r.code != 0 {
		t.Fatalf("cluster up: exit %d: %s", r.code, r.stderr)
	}
	t.Cleanup(func() { runPgoltp(t, time.Minute, "cluster", "destroy", "--lab", lab) })
	plan := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(plan, []byte(`
name: e2e
workload: {kind: ledger, clients: 2}
duration: 2s
repetitions: 2
steps:
  - name: unsafe commit
    settings: {synchronous_commit: 'off'}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runPgoltp(t, 5*time.Minute, "experiment", plan, "--lab", lab, "--allow-unsafe", "--json")
	if r.code != 0 {
		t.Fatalf("experiment: exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Unsafe []string `json:"unsafe"`
		Steps  []struct {
			Settings []struct {
				Name, Value string
				Risk        settings.Risk
			} `json:"settings"`
			Runs []struct {
				Arm      string            `json:"arm"`
				Observed map[string]string `json:"observed"`
			} `json:"runs"`
			InEffect bool   `json:"in_effect"`
			Verdict  string `json:"verdict"`
			Unsafe   bool   `json:"unsafe"`
		} `json:"steps"`
		Restored bool `json:"restored"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("experiment --json: %v\n%s", err, r.stdout)
	}
	// Two pairs: B S B S B, every step run between two baseline runs.
	if len(rep.Steps) != 1 || len(rep.Steps[0].Runs) != 5 || !rep.Steps[0].InEffect || !rep.Restored {
		t.Fatalf("experiment report: %+v", rep)
	}
	s := rep.Steps[0]
	if len(rep.Unsafe) != 1 || !strings.Contains(rep.Unsafe[0], "UNSAFE") || !s.Unsafe || s.Settings[0].Risk != settings.CanLoseDataOnCrash {
		t.Errorf("the unsafe setting is not labelled: %+v / %+v", rep.Unsafe, s)
	}
	for i, run := range s.Runs {
		want := "on"
		if run.Arm == "step" {
			want = "off"
		}
		if run.Observed["synchronous_commit"] != want {
			t.Errorf("run %d (%s): pg_settings said synchronous_commit=%s", i, run.Arm, run.Observed["synchronous_commit"])
		}
	}
	// repetitions: auto, as text: the label, the interval, the minimum
	// detectable effect, why it stopped and the method. Which verdict the
	// runs give is up to this busy machine; its shape is not.
	auto := filepath.Join(t.TempDir(), "auto.yaml")
	if err := os.WriteFile(auto, []byte(`
name: e2e auto
workload: {kind: ledger, clients: 2}
duration: 2s
repetitions: auto
max_repetitions: 3
min_effect: 5%
steps:
  - name: unsafe commit
    settings: {synchronous_commit: 'off'}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runPgoltp(t, 5*time.Minute, "experiment", auto, "--lab", lab, "--allow-unsafe")
	if r.code != 0 {
		t.Fatalf("experiment (auto): exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"UNSAFE SETTINGS USED", "[UNSAFE: can-lose-data-on-crash]", "2 to 3 A/B pairs (auto)",
		"% CI ", "minimum detectable effect: ±", "stopped: ", "(unsafe: can lose data on crash)",
		"method: each step run is compared with the geometric mean of the baseline runs just before and after it",
		"pairs (repetitions: auto): 2 to 3 pairs", "Bonferroni over 2 looks"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text report (auto) lacks %q:\n%s", want, r.stdout)
		}
	}
	if !regexp.MustCompile(`verdict \(objective tps\): (better|worse|no measurable difference) \(unsafe: can lose data on crash\)`).MatchString(r.stdout) {
		t.Errorf("no labelled verdict:\n%s", r.stdout)
	}
	// The report kept in the lab holds the same in JSON. Names are unique
	// (a second report of the same second gets a -2 suffix), so find the
	// auto one by its content rather than by its place in the listing.
	saved, _ := filepath.Glob(filepath.Join(lab, "experiments", "experiment-*.json"))
	if len(saved) < 2 {
		t.Fatalf("experiment reports saved in the lab: %v", saved)
	}
	var autoRep struct {
		Repetitions string  `json:"repetitions"`
		Level       float64 `json:"level"`
		Method      string  `json:"method"`
		StopRule    string  `json:"stop_rule"`
		Steps       []struct {
			Runs       []json.RawMessage `json:"runs"`
			Throughput struct {
				Pairs   int     `json:"pairs"`
				LowPct  float64 `json:"low_pct"`
				HighPct float64 `json:"high_pct"`
				Percent float64 `json:"percent"`
				MDE     float64 `json:"mde_pct"`
				Valid   bool    `json:"valid"`
			} `json:"throughput"`
			StoppedBy string `json:"stopped_by"`
			Verdict   string `json:"verdict"`
			Summary   string `json:"summary"`
		} `json:"steps"`
	}
	for _, f := range saved {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &autoRep); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if autoRep.Repetitions == "auto" {
			break
		}
	}
	if autoRep.Repetitions != "auto" || autoRep.Level < 0.974 || autoRep.Level > 0.976 || autoRep.Method == "" || autoRep.StopRule == "" || len(autoRep.Steps) != 1 {
		t.Fatalf("saved auto report: %+v", autoRep)
	}
	st := autoRep.Steps[0]
	th := st.Throughput
	if th.Pairs < 2 || th.Pairs > 3 || len(st.Runs) != 2*th.Pairs+1 || !th.Valid || !(th.MDE > 0) || th.LowPct > th.Percent || th.Percent > th.HighPct {
		t.Errorf("saved auto step: %d runs, %+v", len(st.Runs), th)
	}
	switch st.StoppedBy {
	case "the interval excludes zero":
		if th.LowPct <= 0 && th.HighPct >= 0 {
			t.Errorf("stopped by an interval excluding zero: %+v", th)
		}
	case "the interval lies within ±min_effect":
		if th.LowPct <= -5 || th.HighPct >= 5 {
			t.Errorf("stopped by an interval within ±5%%: %+v", th)
		}
	case "reached max_repetitions":
		if th.Pairs != 3 {
			t.Errorf("reached the maximum after %d pairs", th.Pairs)
		}
	default:
		t.Errorf("stopped by %q", st.StoppedBy)
	}
	if st.Verdict == "no measurable difference" && !strings.Contains(st.Summary, "cannot be seen with this noise") {
		t.Errorf("summary without the minimum detectable effect: %q", st.Summary)
	}

	r = runPgoltp(t, 5*time.Minute, "experiment", "--crash", "--set", "synchronous_commit=on", "--kill-after", "2s", "--lab", lab, "--json")
	if r.code != 0 {
		t.Fatalf("experiment --crash: exit %d: %s", r.code, r.stderr)
	}
	var crash struct {
		Acknowledged, Missing int64
		Restored              bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &crash); err != nil {
		t.Fatalf("experiment --crash --json: %v\n%s", err, r.stdout)
	}
	if crash.Acknowledged == 0 || crash.Missing != 0 || !crash.Restored {
		t.Errorf("crash audit with synchronous_commit=on: %+v", crash)
	}
	if left, _ := filepath.Glob(filepath.Join(lab, "restore", "*.json")); len(left) != 0 {
		t.Errorf("restore records stay after the experiments and the audit restored: %v", left)
	}

	// Every report is kept in the lab as well: three written (two experiments,
	// possibly in the same second, and the audit), three files, none
	// overwritten, each readable by its owner only.
	saved, _ = filepath.Glob(filepath.Join(lab, "experiments", "*.json"))
	if len(saved) != 3 {
		t.Errorf("want exactly 3 reports saved in the lab, got %v", saved)
	}
	for _, f := range saved {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", f, fi.Mode().Perm(), err)
		}
	}

	r = runPgoltp(t, time.Minute, "doctor", "--lab", lab, "--json")
	if r.code != 0 {
		t.Fatalf("doctor: exit %d: %s", r.code, r.stderr)
	}
	var d struct {
		Local    bool `json:"local"`
		Findings []struct {
			ID, Severity, Evidence, Confidence string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
	}
	if !d.Local || len(d.Findings) < 5 {
		t.Errorf("doctor: local %v, %d findings", d.Local, len(d.Findings))
	}
}
