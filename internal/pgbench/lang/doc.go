// Package lang is pgbench's script language in pure Go: the PRNG and random
// distributions (bit for bit with pgbench 15 for the same seed), the \set
// expression language (lexer, grammar, evaluation with pgbench's types,
// overflow and NULL rules) and the script parser (SQL split as psql splits
// it, meta-commands, \if structure, parameter positions for -M extended and
// prepared). Parse errors read as pgbench prints them.
//
// It must not know about connections, clients' scheduling or output: the
// engine that runs a Script lives elsewhere and drives it through Env.
package lang
