package presetsim_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// maxPublicPackages bounds the public surface: what a user can import is
// what the project promises to keep.
const maxPublicPackages = 20

// publicPackages parses every importable package of the module outside
// internal/ (commands are not importable), by directory, without tests.
func publicPackages(t *testing.T) map[string]*ast.Package {
	t.Helper()
	fset := token.NewFileSet()
	pkgs := map[string]*ast.Package{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || name == "internal" || name == "testdata" || name == "vendor") {
			return filepath.SkipDir
		}
		if path != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module (hack/tools)
			}
		}
		parsed, err := parser.ParseDir(fset, path, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for n, p := range parsed {
			if n != "main" {
				pkgs[path] = p
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestPublicSurface: at most maxPublicPackages packages can be imported,
// and no exported declaration of one names a type of an internal package
// (a user could hold a value of it and not name its type, and the project
// could not change it without breaking them).
func TestPublicSurface(t *testing.T) {
	pkgs := publicPackages(t)
	var dirs []string
	for dir := range pkgs {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	if len(dirs) > maxPublicPackages {
		t.Errorf("%d public packages, at most %d: %s", len(dirs), maxPublicPackages, strings.Join(dirs, " "))
	}
	for _, dir := range dirs {
		for file, f := range pkgs[dir].Files {
			internal := map[string]string{} // local name → import path
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !strings.Contains(p, "/internal/") && !strings.HasSuffix(p, "/internal") {
					continue
				}
				name := p[strings.LastIndex(p, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				internal[name] = p
			}
			if len(internal) == 0 {
				continue
			}
			for _, leak := range leaks(f, internal) {
				t.Errorf("%s: %s", file, leak)
			}
		}
	}
}

// leaks lists the exported declarations of f whose types name a package
// of internal.
func leaks(f *ast.File, internal map[string]string) []string {
	var out []string
	check := func(what string, expr ast.Expr) {
		if expr == nil {
			return
		}
		ast.Inspect(expr, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok {
					if p, ok := internal[id.Name]; ok {
						out = append(out, what+" names "+p+"."+n.Sel.Name)
					}
				}
				return false
			case *ast.StructType:
				checkFields(n.Fields, what, func(w string, e ast.Expr) { out = append(out, leaks1(w, e, internal)...) })
				return false
			case *ast.InterfaceType:
				checkFields(n.Methods, what, func(w string, e ast.Expr) { out = append(out, leaks1(w, e, internal)...) })
				return false
			}
			return true
		})
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || (d.Recv != nil && !exportedReceiver(d.Recv)) {
				continue
			}
			check("func "+d.Name.Name, d.Type)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						check("type "+s.Name.Name, s.Type)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							check(d.Tok.String()+" "+n.Name, s.Type)
							for _, v := range s.Values {
								if c, ok := v.(*ast.CompositeLit); ok {
									check(d.Tok.String()+" "+n.Name, c.Type)
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// leaks1 is leaks for one expression.
func leaks1(what string, expr ast.Expr, internal map[string]string) []string {
	f := &ast.File{Decls: []ast.Decl{&ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{&ast.TypeSpec{Name: ast.NewIdent("X"), Type: expr}}}}}
	var out []string
	for _, l := range leaks(f, internal) {
		out = append(out, what+": "+strings.TrimPrefix(l, "type X "))
	}
	return out
}

// checkFields calls check for the exported and the embedded fields (or
// methods) of a list.
func checkFields(l *ast.FieldList, what string, check func(string, ast.Expr)) {
	if l == nil {
		return
	}
	for _, field := range l.List {
		if len(field.Names) == 0 {
			check(what+" (embedded)", field.Type)
			continue
		}
		for _, n := range field.Names {
			if n.IsExported() {
				check(what+"."+n.Name, field.Type)
			}
		}
	}
}

// exportedReceiver reports whether a method's receiver type is exported.
func exportedReceiver(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if g, ok := t.(*ast.IndexListExpr); ok {
		t = g.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
