package adminconn

import "testing"

// TestDropUnknown: an older server's "unrecognized configuration parameter"
// drops the setting it names; a message naming none (translated) drops
// every newer one; nothing left to drop ends the retries.
func TestDropUnknown(t *testing.T) {
	cfg, err := Config("postgres://u@h/db")
	if err != nil {
		t.Fatal(err)
	}
	if !dropUnknown(cfg, `unrecognized configuration parameter "transaction_timeout"`) {
		t.Fatal("transaction_timeout not dropped")
	}
	if _, ok := cfg.RuntimeParams["transaction_timeout"]; ok {
		t.Fatal("transaction_timeout still sent")
	}
	if _, ok := cfg.RuntimeParams["idle_session_timeout"]; !ok {
		t.Fatal("idle_session_timeout dropped though the server knows it")
	}
	if !dropUnknown(cfg, `paramètre de configuration « idle_session_timeout » non reconnu`) || cfg.RuntimeParams["statement_timeout"] != "0" {
		t.Fatalf("translated message: %v", cfg.RuntimeParams)
	}
	if _, ok := cfg.RuntimeParams["idle_session_timeout"]; ok {
		t.Fatal("idle_session_timeout still sent")
	}
	if dropUnknown(cfg, `unrecognized configuration parameter "statement_timeout"`) {
		t.Fatal("a setting every server knows was dropped, or retried without change")
	}
}
