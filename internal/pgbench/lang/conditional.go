package lang

import "fmt"

// linkConditionals checks the \if structure as pgbench's CheckConditional
// does and precomputes where each branch jumps.
func (s *Script) linkConditionals() error {
	type frame struct {
		branches []int // the \if, then each \elif and \else
		sawElse  bool
	}
	var stack []*frame
	fail := func(i int, msg string) error {
		return &ScriptError{Msg: fmt.Sprintf("condition error in script \"%s\" command %d: %s", s.Name, i+1, msg)}
	}
	for i, c := range s.Commands {
		switch c.Meta {
		case MetaIf:
			stack = append(stack, &frame{branches: []int{i}})
		case MetaElif, MetaElse:
			name := map[Meta]string{MetaElif: "\\elif", MetaElse: "\\else"}[c.Meta]
			if len(stack) == 0 {
				return fail(i, name+" without matching \\if")
			}
			top := stack[len(stack)-1]
			if top.sawElse {
				return fail(i, name+" after \\else")
			}
			top.sawElse = c.Meta == MetaElse
			top.branches = append(top.branches, i)
		case MetaEndif:
			if len(stack) == 0 {
				return fail(i, "\\endif without matching \\if")
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for k, b := range top.branches {
				next := i
				if k+1 < len(top.branches) {
					next = top.branches[k+1]
				}
				s.Commands[b].Endif = i
				if s.Commands[b].Meta == MetaElse {
					s.Commands[b].Jump = i
				} else {
					s.Commands[b].Jump = next
				}
			}
		}
	}
	if len(stack) > 0 {
		return fail(len(s.Commands), "\\if without matching \\endif")
	}
	return nil
}
