package config

import (
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// pos is a 1-based line and byte column in a TOML document.
type pos struct{ Line, Col int }

// positions maps dotted key paths ("policy.unmatched", "policy.roots[1]") to where their key or
// element starts in the document, so value validation errors can name file:line:col. Table
// headers are recorded under their own path ("policy.commands").
type positions map[string]pos

// indexPositions walks a TOML document with go-toml's unstable parser. The document is already
// known to parse (the decoder ran first); on a parser error the index is simply partial.
func indexPositions(doc []byte) positions {
	idx := positions{}
	walkKeys(doc, func(path string, pos pos) {
		if _, seen := idx[path]; !seen {
			idx[path] = pos
		}
	})
	return idx
}

// keyAt returns the dotted path of the key or value starting at line:col ("" when none), also
// for a repeated key (which the index keeps only once).
func keyAt(doc []byte, line, col int) string {
	found := ""
	walkKeys(doc, func(path string, p pos) {
		if found == "" && p.Line == line && p.Col == col {
			found = strings.TrimSuffix(path, "#v")
		}
	})
	return found
}

// walkKeys calls fn with the path and position of every table header, key, value ("path#v")
// and array element ("path[i]") in document order.
func walkKeys(doc []byte, fn func(path string, p pos)) {
	p := unstable.Parser{}
	p.Reset(doc)
	at := func(n *unstable.Node, path string) {
		if n == nil || n.Raw.Length == 0 {
			return
		}
		defer func() { _ = recover() }() // a node without input bytes: leave it out
		s := p.Shape(n.Raw)
		fn(path, pos{s.Start.Line, s.Start.Column})
	}
	var keyValue func(prefix []string, kv *unstable.Node)
	keyValue = func(prefix []string, kv *unstable.Node) {
		full := append(append([]string(nil), prefix...), keyParts(kv)...)
		path := strings.Join(full, ".")
		at(firstKey(kv), path)
		v := kv.Value()
		at(v, path+"#v")
		switch v.Kind {
		case unstable.Array:
			it := v.Children()
			for i := 0; it.Next(); i++ {
				at(it.Node(), path+"["+strconv.Itoa(i)+"]")
			}
		case unstable.InlineTable:
			it := v.Children()
			for it.Next() {
				if it.Node().Kind == unstable.KeyValue {
					keyValue(full, it.Node())
				}
			}
		}
	}
	var prefix []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			prefix = keyParts(e)
			for i := 1; i <= len(prefix); i++ { // [a.b] also locates a
				at(firstKey(e), strings.Join(prefix[:i], "."))
			}
		case unstable.KeyValue:
			keyValue(prefix, e)
		}
	}
}

func keyParts(n *unstable.Node) []string {
	var parts []string
	it := n.Key()
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

func firstKey(n *unstable.Node) *unstable.Node {
	it := n.Key()
	if it.Next() {
		return it.Node()
	}
	return nil
}

// value returns where the value of path starts, else the position of its key (see at).
func (idx positions) value(path string) pos {
	if p, ok := idx[path+"#v"]; ok {
		return p
	}
	return idx.at(path)
}

// at returns the position of path, falling back to its parents ("a.b[2]" → "a.b" → "a").
func (idx positions) at(path string) pos {
	for path != "" {
		if p, ok := idx[path]; ok {
			return p
		}
		if i := strings.LastIndexAny(path, ".["); i >= 0 {
			path = path[:i]
		} else {
			break
		}
	}
	return pos{}
}
