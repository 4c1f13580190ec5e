// Package restore puts a server's settings back as they were: a value that
// came from ALTER SYSTEM is set again, any other is reset, the server is
// restarted only when a setting needs it, and every value is read back to
// verify. Experiments, the crash audit, the search, the version study and
// `pgoltp restore` use it; Apply is the last gate before any setting is
// applied (internal/settings.CheckApplicable).
package restore
