package lang

import "testing"

// BenchmarkEvalTPCBSet evaluates tpcb-like's \set lines as an engine would,
// with Vars: it must not allocate per evaluation.
func BenchmarkEvalTPCBSet(b *testing.B) {
	exprs := []string{"random(1, 100000 * :scale)", "random(1, 1 * :scale)", "random(1, 10 * :scale)", "random(-5000, 5000)",
		"random_zipfian(1, 1000000, 1.07)", "case when :scale > 1 then hash(:scale) else permute(:scale, 100) end"}
	var parsed []*Expr
	for _, s := range exprs {
		e, err := ParseExpr(s)
		if err != nil {
			b.Fatal(err)
		}
		parsed = append(parsed, e)
	}
	vars := NewVars()
	_ = vars.Set("startup", "scale", IntValue(10))
	_ = vars.Set("startup", "default_seed", IntValue(7))
	env := &varsEnv{vars: vars, client: &testClient{rng: NewPRNG(1)}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, e := range parsed {
			if _, err := Eval(e, env); err != nil {
				b.Fatal(err)
			}
		}
	}
}
