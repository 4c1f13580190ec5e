// Command funclen lists the module's functions longer than a limit (80
// lines, from "func" to the closing brace), so that long functions get split
// into named steps. scripts/test runs it as a gate: a function over the limit
// is split, or listed in allow.txt with the reason it stays whole. An entry
// of allow.txt that is no longer over the limit is an error too, so the list
// only shrinks.
//
//	go run ./scripts/funclen            # the gate: non-test code
//	go run ./scripts/funclen -tests     # also list long test functions
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	limit := flag.Int("max", 80, "longest function allowed, in lines")
	tests := flag.Bool("tests", false, "also list test functions (listed only, never an error)")
	allowPath := flag.String("allow", "scripts/funclen/allow.txt", "functions allowed to stay long, one per line: PATH FUNC # reason")
	flag.Parse()
	allowed, err := readAllow(*allowPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(2)
	}
	long, err := longFuncs(".", *limit, *tests)
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(2)
	}
	failed := false
	for _, f := range long {
		switch {
		case f.test:
			fmt.Printf("%s:%d %s: %d lines (test, listed only)\n", f.path, f.line, f.name, f.lines)
		case allowed[f.key()] != "":
			delete(allowed, f.key())
		default:
			failed = true
			fmt.Printf("%s:%d %s: %d lines, over %d: split it into named steps, or add it to %s with the reason\n",
				f.path, f.line, f.name, f.lines, *limit, *allowPath)
		}
	}
	for key := range allowed {
		failed = true
		fmt.Printf("%s: listed in %s but no longer over %d lines (or gone): remove the entry\n", key, *allowPath, *limit)
	}
	if failed {
		os.Exit(1)
	}
}

// fn is one long function.
type fn struct {
	path, name  string
	line, lines int
	test        bool
}

func (f fn) key() string { return f.path + " " + f.name }

// longFuncs parses every .go file under root (but testdata, vendor and
// hidden directories) and returns the functions over limit lines.
func longFuncs(root string, limit int, tests bool) ([]fn, error) {
	var out []fn
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		isTest := strings.HasSuffix(name, "_test.go")
		if !strings.HasSuffix(name, ".go") || isTest && !tests {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			d, ok := decl.(*ast.FuncDecl)
			if !ok || d.Body == nil {
				continue
			}
			start, end := fset.Position(d.Pos()).Line, fset.Position(d.End()).Line
			if n := end - start + 1; n > limit {
				out = append(out, fn{path: filepath.ToSlash(path), name: funcName(d), line: start, lines: n, test: isTest})
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].lines > out[j].lines })
	return out, err
}

// funcName is "Name" or "Type.Name" for a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if idx, ok := t.(*ast.IndexExpr); ok { // a generic receiver, T[E]
		t = idx.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

// readAllow reads the allow-list: "PATH FUNC # reason" per line; every entry
// needs its reason.
func readAllow(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		entry, reason, _ := strings.Cut(line, "#")
		fields := strings.Fields(entry)
		if len(fields) != 2 || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s:%d: want PATH FUNC # reason", path, n)
		}
		out[fields[0]+" "+fields[1]] = strings.TrimSpace(reason)
	}
	return out, sc.Err()
}
