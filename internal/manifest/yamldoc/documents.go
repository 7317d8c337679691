package yamldoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/internal/manifest/fieldpath"
)

// Document is one non-empty YAML document of a DocString.
type Document struct {
	File  string     // the file the DocString is in
	Text  string     // the document's text, without its "---" line
	Start int        // the absolute line in File of Text's first line
	Root  *yaml.Node // the document's content (not the DocumentNode)
}

// Problem is a problem at an absolute line of the file, and at a field path
// when known.
type Problem struct {
	Line int
	Path fieldpath.Path
	Msg  string
}

// AbsLine converts a 1-based line of d.Text into an absolute line of the file.
func (d *Document) AbsLine(line int) int {
	if line < 1 {
		line = 1
	}
	return d.Start + line - 1
}

// At is a problem at line (in d.Text) and path.
func (d *Document) At(line int, path fieldpath.Path, msg string) Problem {
	return Problem{Line: d.AbsLine(line), Path: path, Msg: msg}
}

// FirstLine is the line (in d.Text) of the document's first content.
func (d *Document) FirstLine() int {
	if d.Root == nil || d.Root.Line < 1 {
		return 1
	}
	return d.Root.Line
}

// KeyLine is the line (in d.Text) of the key at path, or of the deepest part
// of path that exists; ValueLine is the same for the value.
func (d *Document) KeyLine(path fieldpath.Path) int {
	key, val := fieldpath.LookupNode(d.Root, path)
	switch {
	case key != nil:
		return key.Line
	case val != nil:
		return val.Line
	}
	return d.FirstLine()
}

func (d *Document) ValueLine(path fieldpath.Path) int {
	_, val := fieldpath.LookupNode(d.Root, path)
	if val != nil {
		return val.Line
	}
	return d.KeyLine(path)
}

// Chunk is the text of one document: what stands between two document
// markers, not yet parsed.
type Chunk struct {
	File  string
	Text  string
	Start int // the absolute line in File of Text's first line
}

// Parse splits content (a DocString of file whose first line is the file's
// line first) into YAML documents and parses each with go.yaml.in/yaml/v3.
// Empty and comment-only documents are dropped. A document with a syntax
// error is reported and dropped; the others are still returned, so that all
// problems of a DocString can be reported at once.
func Parse(file string, first int, content string) ([]*Document, []Problem) {
	chunks, errs := Split(file, first, content)
	var docs []*Document
	for _, c := range chunks {
		doc, p := c.Parse()
		switch {
		case p != nil:
			errs = append(errs, *p)
		case doc != nil:
			docs = append(docs, doc)
		}
	}
	return docs, errs
}

// Parse parses the chunk's document: nil, and no problem, when it is
// empty, only comments or an explicit null ("~").
func (c Chunk) Parse() (*Document, *Problem) {
	doc := &Document{File: c.File, Text: c.Text, Start: c.Start}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(c.Text), &n); err != nil {
		p := doc.syntaxError(err, parseV3)
		return nil, &p
	}
	if n.Kind == 0 || len(n.Content) == 0 {
		return nil, nil // empty, or only comments
	}
	root := n.Content[0]
	if n.Kind != yaml.DocumentNode {
		root = &n
	}
	if r := fieldpath.ResolveAlias(root); r.Kind == yaml.ScalarNode && r.Tag == "!!null" {
		return nil, nil // an explicit null document, e.g. "~"
	}
	doc.Root = root
	return doc, nil
}

// Split splits content (a DocString of file whose first line is the file's
// line first) at lines that are a document marker ("---" or "...",
// optionally followed by a comment), as kubectl does. Each chunk's text is
// a part of content, not a copy.
func Split(file string, first int, content string) ([]Chunk, []Problem) {
	var (
		chunks []Chunk
		errs   []Problem
		from   = 0 // where the current chunk's text begins in content
		start  = 1
		lineNo = 0
	)
	for at := 0; at < len(content); {
		end := strings.IndexByte(content[at:], '\n')
		if end < 0 {
			end = len(content)
		} else {
			end += at + 1
		}
		line := content[at:end]
		lineNo++
		if marker, rest := documentMarker(line); marker {
			chunks = append(chunks, Chunk{File: file, Text: content[from:at], Start: first + start - 1})
			from, start = end, lineNo+1
			if rest != "" && !strings.HasPrefix(rest, "#") {
				errs = append(errs, Problem{
					Line: first + lineNo - 1,
					Msg:  "invalid YAML: content after the document separator " + strconv.Quote(strings.TrimSpace(strings.TrimRight(line, "\r\n"))) + " is not supported; put it on the next line",
				})
			}
		}
		at = end
	}
	chunks = append(chunks, Chunk{File: file, Text: content[from:], Start: first + start - 1})
	return chunks, errs
}

// documentMarker reports whether line is "---" or "..." (alone, or followed
// by blanks and more text, which is returned trimmed).
func documentMarker(line string) (bool, string) {
	t := strings.TrimRight(line, "\r\n")
	for _, m := range []string{"---", "..."} {
		if t == m {
			return true, ""
		}
		if len(t) > len(m) && strings.HasPrefix(t, m) && (t[len(m)] == ' ' || t[len(m)] == '\t') {
			return true, strings.TrimSpace(t[len(m):])
		}
	}
	return false, ""
}

// ToJSON converts the document to JSON as kubectl does (sigs.k8s.io/yaml,
// YAML 1.1 scalars), or says where it cannot.
func (d *Document) ToJSON() ([]byte, *Problem) {
	if d.Root != nil {
		if tree, ok := plainTree(d.Root); ok {
			data, err := json.Marshal(tree)
			if err == nil {
				return data, nil
			}
		}
	}
	data, err := sigsyaml.YAMLToJSON([]byte(d.Text))
	if err != nil {
		p := d.syntaxError(err, parseV2)
		return nil, &p
	}
	return data, nil
}

// Tree is the document as the JSON decoder (with UseNumber) reads the JSON
// ToJSON makes of it: maps, slices, strings, json.Number, booleans and nil.
// A document whose scalars are plain to resolve is read from its nodes
// (plainTree), three times as fast as through JSON text.
func (d *Document) Tree() (any, *Problem) {
	if d.Root != nil {
		if tree, ok := plainTree(d.Root); ok {
			return tree, nil
		}
	}
	data, p := d.ToJSON()
	if p != nil {
		return nil, p
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		p := d.At(d.FirstLine(), nil, "invalid YAML: "+err.Error())
		return nil, &p
	}
	return tree, nil
}

func parseV3(text string) error {
	var n yaml.Node
	return yaml.Unmarshal([]byte(text), &n)
}

func parseV2(text string) error {
	_, err := sigsyaml.YAMLToJSON([]byte(text))
	return err
}

// maxScans bounds the prefixes parsed one by one while searching for the
// line of a syntax error; past it, the search bisects.
const maxScans = 64

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line \d+: (.*)$`)

// syntaxError reports a YAML syntax error in d, with the parser's message.
// The parsers' own line is often the line where the enclosing block starts
// (0-based, for some errors; none, for errors on the first line), so the line
// reported is found instead as the first line that makes the document
// unparsable.
func (d *Document) syntaxError(err error, parse func(string) error) Problem {
	msg := strings.TrimSpace(err.Error())
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		msg = m[1]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := 0
	if strings.Contains(msg, "UTF-8") || strings.Contains(msg, "Unicode") || strings.Contains(msg, "control characters") {
		line = badCharLine(d.Text) // the reader's errors: the parser has no line for them
	}
	if line == 0 {
		line = problemLine(d.Text, parse)
	}
	switch {
	case strings.HasPrefix(msg, "did not find expected key"),
		strings.HasPrefix(msg, "did not find expected '-' indicator"),
		strings.HasPrefix(msg, "mapping values are not allowed"):
		msg += " (check the indentation of this line and the ones above it)"
	}
	return d.At(line, nil, "invalid YAML: "+msg)
}

// badCharLine returns the 1-based line of the first character that YAML does
// not allow in a stream (invalid UTF-8, control characters), or 0.
func badCharLine(text string) int {
	line := 1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return line
		case r == '\n':
			line++
		case r == '\t' || r == '\r' || r == 0x85:
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0xd800 && r < 0xe000) || r == 0xfffe || r == 0xffff:
			return line
		}
		i += size
	}
	return 0
}

// problemLine returns the 1-based line of text after its longest prefix (of
// whole lines) that parses.
//
// Prefixes are tried from the longest down: a parse stops at the first
// error, so the failing ones are cheap, and a prefix that fails only because
// it is cut inside a multi-line construct (a quoted string, a flow list)
// cannot hide the real problem. When that grows too costly (a long document
// with an early error), the rest of the range is bisected, which assumes that
// a prefix of a parsable prefix parses.
func problemLine(text string, parse func(string) error) int {
	var starts []int // byte offset of the start of each line
	for i := 0; i < len(text); {
		starts = append(starts, i)
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	k := len(starts) - 1
	for n := 0; k > 0 && n < maxScans; k, n = k-1, n+1 {
		if parse(text[:starts[k]]) == nil {
			return k + 1
		}
	}
	lo, hi := 0, k+1 // the prefix of lo lines parses; of hi lines it does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if parse(text[:starts[mid]]) == nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1
}

// DuplicateKeys reports keys written twice in one mapping: the JSON
// conversion would silently keep the last.
func (doc *Document) DuplicateKeys() []Problem {
	var errs []Problem
	doc.duplicateKeys(fieldpath.ResolveAlias(doc.Root), nil, 0, &errs)
	return errs
}

func (doc *Document) duplicateKeys(n *yaml.Node, p fieldpath.Path, depth int, errs *[]Problem) {
	if n == nil || depth > 1000 {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn := n.Content[i]
			if kn.Kind != yaml.ScalarNode {
				continue
			}
			if first, dup := seen[kn.Value]; dup {
				*errs = append(*errs, doc.At(kn.Line, p.Key(kn.Value),
					fmt.Sprintf("duplicate field (first set at line %d)", doc.AbsLine(first))))
			} else {
				seen[kn.Value] = kn.Line
			}
			doc.duplicateKeys(n.Content[i+1], p.Key(kn.Value), depth+1, errs)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			doc.duplicateKeys(c, p.Index(i), depth+1, errs)
		}
	}
}

// Items are the items of a document that is a list of objects (kind List or
// <Kind>List with an items sequence, as `kubectl get -o yaml` prints), each
// as a document of its own whose lines are those of the file; ok is false
// when d is not such a list.
func (d *Document) Items() (items []*Document, ok bool) {
	root := d.Root
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, false
	}
	var kind string
	var seq *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch k, v := root.Content[i], root.Content[i+1]; k.Value {
		case "kind":
			kind = v.Value
		case "items":
			seq = v
		}
	}
	if !strings.HasSuffix(kind, "List") || seq == nil || seq.Kind != yaml.SequenceNode {
		return nil, false
	}
	for _, item := range seq.Content {
		// The item, written out again at column 0 in block style, keeps its
		// lines in order, so its first line is the item's first line.
		text, err := yaml.Marshal(item)
		if err != nil {
			return nil, false
		}
		var n yaml.Node
		if err := yaml.Unmarshal(text, &n); err != nil || len(n.Content) == 0 {
			return nil, false
		}
		items = append(items, &Document{File: d.File, Text: string(text), Start: d.AbsLine(item.Line), Root: n.Content[0]})
	}
	return items, true
}
