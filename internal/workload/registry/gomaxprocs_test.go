package registry_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyCmdSetsGOMAXPROCS: how many CPUs the process uses is the command's
// to decide (issue 26 point 5). A domain package says what it needs (tpcb's
// RunOptions.CPUs, tpcc's AllConns) and cmd applies it with driver.UseCPUs,
// the one place that sets GOMAXPROCS; reading it (GOMAXPROCS(0)) is fine.
func TestOnlyCmdSetsGOMAXPROCS(t *testing.T) {
	internal := filepath.Join(root, "internal")
	err := filepath.WalkDir(internal, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if rel, _ := filepath.Rel(internal, path); filepath.Dir(rel) == "driver" {
			return nil // the policy itself
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			reads := len(call.Args) == 1 && isZero(call.Args[0])
			if sel.Sel.Name == "UseCPUs" || sel.Sel.Name == "GOMAXPROCS" && !reads {
				t.Errorf("%s: %s sets GOMAXPROCS outside cmd; return what is needed and let the command apply it", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isZero(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Value == "0"
}
