package tpcb

import "strconv"

// preparedName is the name of statement i of a client's script.
func preparedName(i int) string { return "pgoltp_tpcb_" + strconv.Itoa(i) }
