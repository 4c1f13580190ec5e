// Package report turns stored runs into what people read: one self-contained
// HTML file per run (inline SVG charts and a little inline JavaScript, no CDN,
// opens offline), JSON and CSV exports, and side-by-side comparisons of runs.
// It only reads stored runs: recording them is internal/recorder's job.
//
// It knows nothing about how a workload works: it draws whatever transaction
// types, figures and parameters a run carries.
package report
