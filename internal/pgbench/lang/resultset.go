package lang

import "fmt"

// QueryResult is what an engine received for one query of an SQL command.
type QueryResult struct {
	HasTuples bool     // the query returned a row set (even empty), not a command tag
	Columns   []string // column names
	LastRow   [][]byte // text of the last row, empty for NULL (as PQgetvalue); nil without rows
	Rows      int
	// RowText holds LastRow's values end to end: an engine reuses it (and
	// the slices) from row to row, so that reading results allocates nothing.
	RowText []byte
}

// StoreResult applies the command's \gset or \aset to the result of one of
// its queries (query counts from 0, last says whether no result follows),
// as pgbench's readCommandResponse: \gset takes the last query, which must
// return exactly one row; \aset takes the last row of every query that
// returns rows. client, script and command (from 0) number the error texts.
func (c *Command) StoreResult(vars *Vars, client, script, command, query int, last bool, r QueryResult) error {
	gset := c.ResultSet == MetaGset
	if !(last && gset) && c.ResultSet != MetaAset {
		return nil
	}
	if gset && r.Rows != 1 {
		return fmt.Errorf("client %d script %d command %d query %d: expected one row, got %d", client, script, command, query, r.Rows)
	}
	if !r.HasTuples || r.Rows <= 0 {
		return nil
	}
	context := "aset"
	if gset {
		context = "gset"
	}
	for i, col := range r.Columns {
		name := c.Prefix + col
		if err := vars.SetBytes(context, name, r.LastRow[i]); err != nil {
			return fmt.Errorf("%v\npgbench: error: client %d script %d command %d query %d: error storing into variable %s",
				err, client, script, command, query, name)
		}
	}
	return nil
}
