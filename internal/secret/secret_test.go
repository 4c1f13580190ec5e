package secret_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pgoltp/pgoltp/internal/secret"
)

func TestRedact(t *testing.T) {
	for _, name := range []string{"primary_conninfo", "archive_command", "ssl_passphrase_command", "restore_command", "my.password", "ext.secret_token"} {
		if secret.Redact(name, "v") != secret.Redacted {
			t.Errorf("%s not redacted", name)
		}
	}
	for _, value := range []string{"host=x password=hunter2", "host=x PASSWORD = 'a b'", "postgres://u:hunter2@h/db"} {
		if secret.Redact("dsn", value) != secret.Redacted {
			t.Errorf("%q not redacted", value)
		}
	}
	for name, value := range map[string]string{"work_mem": "64MB", "archive_mode": "on", "listen_addresses": "localhost", "dsn": "postgres://u@h:5432/db", "query": "SELECT 1"} {
		if secret.Redact(name, value) != value {
			t.Errorf("%s=%s redacted", name, value)
		}
	}
	if secret.Redact("archive_command", "") != "" {
		t.Error("an empty secret setting says nothing and is shown as empty")
	}
}

// TestJSON: a document keeps its order, numbers and layout, and loses every
// secret: by member name, by the object's "name", or by the value itself.
func TestJSON(t *testing.T) {
	doc := `{"z":1.50,"observed":{"primary_conninfo":"host=x password=secret1","work_mem":"64MB"},` +
		`"settings":[{"name":"archive_command","value":"curl -H token:secret2","risk":"safe"},{"name":"fsync","value":"off"}],` +
		`"notes":["dsn postgres://u:secret3@h/db"],"a":[[],{}],"n":null,"b":true}`
	got, err := secret.JSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "secret") {
		t.Errorf("a secret was kept:\n%s", got)
	}
	for _, kept := range []string{`"z":1.50`, `"work_mem":"64MB"`, `"value":"off"`, `"risk":"safe"`, `"b":true`} {
		if !strings.Contains(string(got), kept) {
			t.Errorf("%s lost from:\n%s", kept, got)
		}
	}
	if strings.Index(string(got), `"z"`) > strings.Index(string(got), `"a"`) {
		t.Errorf("member order changed:\n%s", got)
	}
	var v map[string]any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Errorf("not JSON any more: %v\n%s", err, got)
	}
}

// TestWriteJSONKeepsTheEncoderOutput: without a secret, WriteJSON writes what
// an indenting json.Encoder writes, byte for byte (escapes included).
func TestWriteJSONKeepsTheEncoderOutput(t *testing.T) {
	v := map[string]any{"a": []any{1, 2.5, "x\"y<z>", nil, true, map[string]any{}}, "b": map[string]string{"name": "work_mem", "value": "64MB"}, "": "empty key"}
	var want, got bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := secret.WriteJSON(&got, v); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("WriteJSON wrote\n%s\nwant\n%s", got.String(), want.String())
	}
}
