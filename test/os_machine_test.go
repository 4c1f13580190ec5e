package e2e_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgoltp/pgoltp/internal/ossettings"
	"github.com/pgoltp/pgoltp/internal/pgtest"
)

// osMachine is where every test that changes the machine's OS settings
// starts: a database on this machine, a lab, and the machine's values of
// keys before the test (written back when it ends, whatever happened).
type osMachine struct {
	dsn, lab string
	m        *ossettings.Machine
	keys     []string
	before   ossettings.Values
}

// newOSMachine skips the test unless it runs as root on a machine that
// shows keys, and waits for the machine-wide lock.
func newOSMachine(t *testing.T, keys []string) *osMachine {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	m, before := keepOSKeys(t, dataDirectory(t, dsn), keys)
	return &osMachine{dsn: dsn, lab: labDir(t), m: m, keys: keys, before: before}
}

// changed says whether the machine's keys differ from before the test.
func (o *osMachine) changed() bool {
	now, _ := o.m.Read(o.keys...)
	return !sameValues(now, o.before)
}

// assertAsBefore fails the test now unless the machine's keys are as
// before the test; format takes the values now and before.
func (o *osMachine) assertAsBefore(t *testing.T, format string) {
	t.Helper()
	if now, _ := o.m.Read(o.keys...); !sameValues(now, o.before) {
		t.Fatalf(format, now, o.before)
	}
}

// assertNoRecord fails the test now if a restore record is left in the
// lab; format takes the records.
func (o *osMachine) assertNoRecord(t *testing.T, format string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(o.lab, "restore", "*.json")); len(left) != 0 {
		t.Fatalf(format, left)
	}
}

// keepOSKeys reads the machine's values of keys (for the disk under
// dataDir) and writes them back when the test ends, whatever happened:
// these tests change the whole machine.
func keepOSKeys(t *testing.T, dataDir string, keys []string) (*ossettings.Machine, ossettings.Values) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("changes kernel settings: run as root")
	}
	pgtest.MachineWide(t)
	m := &ossettings.Machine{DataDir: dataDir}
	before, err := m.Read(keys...)
	if err != nil {
		t.Skipf("this machine does not show the keys: %v", err)
	}
	t.Cleanup(func() {
		if now, _ := m.Read(keys...); !sameValues(now, before) {
			if err := m.Restore(before); err != nil {
				t.Errorf("could not put the machine's settings back: %v", err)
			}
		}
	})
	return m, before
}

func sameValues(a, b ossettings.Values) bool {
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

// dataDirectory is the data directory of the server behind dsn.
func dataDirectory(t *testing.T, dsn string) string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var dir string
	if err := conn.QueryRow(t.Context(), "SHOW data_directory").Scan(&dir); err != nil {
		t.Fatal(err)
	}
	return dir
}
