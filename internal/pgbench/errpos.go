package pgbench

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// queryErrorText is PQerrorMessage for a failed query: errorText with the
// "LINE n: ..." and caret lines libpq adds when the server gives a position.
func queryErrorText(err error, sql string) string {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Position <= 0 {
		return errorText(err)
	}
	return pgErrorText(pg, errorPosition(sql, int(pg.Position)))
}

// errorPosition is libpq's reportErrorPosition for ASCII text: the line
// holding the 1-based character position, cut to 60 columns around it, and
// a caret under it.
func errorPosition(sql string, pos int) string {
	const displaySize, minRightCut = 60, 10
	runes := []rune(strings.ReplaceAll(sql, "\t", " "))
	if pos > len(runes) {
		pos = len(runes) + 1
	}
	line, beg := 1, 0
	for i := 0; i < pos-1 && i < len(runes); i++ {
		if runes[i] == '\n' {
			line, beg = line+1, i+1
		}
	}
	end := beg
	for end < len(runes) && runes[end] != '\n' && runes[end] != '\r' {
		end++
	}
	loc := pos - 1
	begTrunc, endTrunc := false, false
	if end-beg > displaySize {
		if loc+minRightCut-beg <= displaySize {
			end, endTrunc = beg+displaySize, true
		} else {
			if loc+minRightCut < end {
				end, endTrunc = loc+minRightCut, true
			}
			for end-beg > displaySize {
				beg, begTrunc = beg+1, true
			}
		}
	}
	prefix := fmt.Sprintf("LINE %d: ", line)
	text := string(runes[beg:end])
	indent := len(prefix) + loc - beg
	if begTrunc {
		text, indent = "..."+text, indent+3
	}
	if endTrunc {
		text += "..."
	}
	return prefix + text + "\n" + strings.Repeat(" ", indent) + "^"
}
