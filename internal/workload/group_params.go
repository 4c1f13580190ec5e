package workload

// GroupParams is implemented by workloads whose runs can be parts of one
// group: SharedParams are the parameters every part must run with for the
// parts to be one run (isolation, duration, mode, ...). The group refuses
// a part whose parameters differ from the first registered part's.
type GroupParams interface {
	SharedParams() []Param
}
