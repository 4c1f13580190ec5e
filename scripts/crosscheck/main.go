// Command crosscheck type-checks the module's packages for another platform
// without compiling them. It rejects what `GOOS=darwin go build ./...` would
// reject for a type error (an OS-specific call without its counterpart for
// that platform) for a fiftieth of the build's CPU: the build compiles the
// standard library and every dependency for that platform, modernc's SQLite
// among them, about two minutes of CPU on a fresh machine. Dependencies are
// checked without their function bodies: the module's code sees only their
// declarations.
//
//	go run ./scripts/crosscheck darwin/arm64
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// listed is what `go list -deps -json` says of a package for the target.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	ImportMap  map[string]string
	Module     *struct{ Main bool }
	Error      *struct{ Err string }
}

func main() {
	var goos, goarch string
	if len(os.Args) == 2 {
		goos, goarch, _ = strings.Cut(os.Args[1], "/")
	}
	if goos == "" || goarch == "" {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/crosscheck GOOS/GOARCH (for example darwin/arm64)")
		os.Exit(2)
	}
	pkgs, err := list(goos, goarch)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crosscheck:", err)
		os.Exit(2)
	}
	n, failed := check(pkgs, types.SizesFor("gc", goarch))
	if failed {
		fmt.Printf("crosscheck: the module does not type-check for %s/%s\n", goos, goarch)
		os.Exit(1)
	}
	fmt.Printf("crosscheck: %d packages of the module type-check for %s/%s\n", n, goos, goarch)
}

// list is every package of the module and its dependencies for the target,
// each after those it imports.
func list(goos, goarch string) ([]listed, error) {
	cmd := exec.Command("go", "list", "-e", "-deps", "-json=ImportPath,Dir,GoFiles,CgoFiles,ImportMap,Module,Error", "./...")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0") // as a cross-build has it
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

// check type-checks pkgs in order and prints every error; n is the number
// of the module's own packages.
func check(pkgs []listed, sizes types.Sizes) (n int, failed bool) {
	fset := token.NewFileSet()
	checked := map[string]*types.Package{"unsafe": types.Unsafe}
	for _, p := range pkgs {
		if p.ImportPath == "unsafe" {
			continue
		}
		own := p.Module != nil && p.Module.Main
		if own {
			n++
		}
		if p.Error != nil {
			fmt.Printf("%s: %s\n", p.ImportPath, p.Error.Err)
			failed = true
			continue
		}
		if len(p.CgoFiles) > 0 {
			fmt.Printf("%s: needs cgo, which a cross-build has off\n", p.ImportPath)
			failed = true
			continue
		}
		files, err := parse(fset, p, own)
		if err != nil {
			fmt.Println(err)
			failed = true
			continue
		}
		conf := types.Config{
			Importer:         importer(checked, p.ImportMap),
			Sizes:            sizes,
			IgnoreFuncBodies: !own,
			Error:            func(err error) { fmt.Println(err); failed = true },
		}
		pkg, _ := conf.Check(p.ImportPath, fset, files, nil)
		checked[p.ImportPath] = pkg
	}
	return n, failed
}

// parse reads a package's files; a dependency's comments are left out.
func parse(fset *token.FileSet, p listed, own bool) ([]*ast.File, error) {
	mode := parser.SkipObjectResolution
	if own {
		mode |= parser.ParseComments
	}
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, mode)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// importer resolves an import through the package's import map (the
// standard library's vendored packages) to a package checked before it.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func importer(checked map[string]*types.Package, importMap map[string]string) types.Importer {
	return importerFunc(func(path string) (*types.Package, error) {
		if mapped, ok := importMap[path]; ok {
			path = mapped
		}
		if pkg := checked[path]; pkg != nil {
			return pkg, nil
		}
		return nil, fmt.Errorf("%s: not listed before its importer", path)
	})
}
