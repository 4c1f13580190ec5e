package recorder_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/collect"
	"github.com/pgoltp/pgoltp/internal/pgtest"
	"github.com/pgoltp/pgoltp/internal/recorder"
	"github.com/pgoltp/pgoltp/internal/report"
	"github.com/pgoltp/pgoltp/internal/store"
)

// TestSecretSettingsNeverStoredOrShown: a server with archive_command and
// primary_conninfo holding secrets is recorded; neither the results file nor
// any rendered report (HTML, JSON, CSV) contains them.
func TestSecretSettingsNeverStoredOrShown(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	const token, password = "tok-5ecr3t-4rch1ve", "pw-5ecr3t-c0nn1nf0"
	setAll := func(stmts ...string) {
		for _, s := range append(stmts, "SELECT pg_reload_conf()", "SELECT pg_sleep(0.3)") {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	// archive_mode stays off: nothing is ever archived, the value is only visible.
	setAll("ALTER SYSTEM SET archive_command = 'curl -H \"Authorization: "+token+"\" -T %p https://example.invalid/'",
		"ALTER SYSTEM SET primary_conninfo = 'host=example.invalid user=rep password="+password+"'")
	t.Cleanup(func() { setAll("ALTER SYSTEM RESET archive_command", "ALTER SYSTEM RESET primary_conninfo") })

	lab := t.TempDir()
	run := &store.Run{Workload: "pgbench", Title: "secrets"}
	rec, err := recorder.Begin(ctx, lab, "", dsn, run, collect.Options{Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	id, err := rec.Finish(ctx, store.Complete)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, lab, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, id)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, st := range got.Samples.Settings {
		seen[st.Name] = st.Setting
	}
	if seen["archive_command"] != "(redacted)" || seen["primary_conninfo"] != "(redacted)" {
		t.Errorf("secret settings stored as archive_command=%q primary_conninfo=%q, want (redacted)", seen["archive_command"], seen["primary_conninfo"])
	}
	outputs := map[string][]byte{}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"html": func(b *bytes.Buffer) error { return report.HTML(b, got) },
		"json": func(b *bytes.Buffer) error { return report.JSON(b, got) },
		"csv":  func(b *bytes.Buffer) error { return report.CSV(b, got) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		outputs[name] = b.Bytes()
	}
	files, _ := filepath.Glob(filepath.Join(lab, "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		outputs[f] = b
	}
	for where, b := range outputs {
		for _, secret := range []string{token, password} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s contains the secret %s", where, secret)
			}
		}
	}
	if !strings.Contains(string(outputs["json"]), "(redacted)") {
		t.Error("the JSON export does not show the secret settings as (redacted)")
	}
}
