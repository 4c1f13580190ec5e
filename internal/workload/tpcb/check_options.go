package tpcb

import "github.com/pgoltp/pgoltp/internal/field"

// Validate checks the options of 'tpcb check'.
func (o CheckOptions) Validate() error {
	if o.ExpectHistory < -1 {
		return field.New("ExpectHistory", o.ExpectHistory, "invalid {} %d", o.ExpectHistory).Fix("give the number of committed transactions, or leave it out")
	}
	return nil
}
