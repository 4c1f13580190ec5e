package tune

import (
	"os"
	"strings"
	"testing"
)

// TestStateKeepsNoSecret: LAB/tune/<id>.json never holds a password, while
// ordinary settings (what --resume needs) are kept as they are.
func TestStateKeepsNoSecret(t *testing.T) {
	lab := t.TempDir()
	s := &State{ID: "tune-20260101T000000Z", Start: map[string]string{"primary_conninfo": "host=x password=hunter2", "work_mem": "4MB"}}
	if err := s.Save(lab); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(Path(lab, s.ID))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "hunter2") {
		t.Errorf("the state holds the password:\n%s", b)
	}
	back, err := Load(lab, s.ID)
	if err != nil || back.Start["work_mem"] != "4MB" {
		t.Errorf("Load: %v, start %v", err, back)
	}
}
