// Package doctor holds `pgoltp doctor`: an audit of a running server and,
// when it runs on this host, of its OS, each finding with evidence, reason,
// fix and confidence; and the findings of a stored run (RunFindings). It
// compares the server with the advisor's settings (internal/advise).
package doctor
