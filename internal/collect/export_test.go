package collect

// EnsureExtension lets the external tests (which need pgtest, and so cannot
// live in this package without an import cycle) create extensions the way
// the collectors do.
var EnsureExtension = ensureExtension
