package adi

import (
	"os"
	"strings"
	"sync"
)

// Parameter defaults, read from a function's def in its source file, let a call tree leave out
// the arguments a call did not change: `sympify(a=-3)` rather than `sympify(a=-3, locals=None,
// convert_xor=True, strict=True, rational=False, evaluate=None)`. Only literal defaults count
// (None, True, False, numbers, plain strings, empty tuples): their repr is their text, so an
// argument whose recorded repr equals it is the default itself.

// defaultsIndex caches, per file, its lines and, per code, its literal defaults by parameter.
type defaultsIndex struct {
	mu    sync.Mutex
	files map[string][]string
	codes map[*Code]map[string]string
}

// Defaults returns the literal defaults of code's parameters by name, as their reprs; nil when
// its source cannot be read or has none.
func (t *Trace) Defaults(code *Code) map[string]string {
	if code == nil || code.File == "" || code.Line <= 0 {
		return nil
	}
	d := &t.defaults
	d.mu.Lock()
	defer d.mu.Unlock()
	if got, ok := d.codes[code]; ok {
		return got
	}
	if d.codes == nil {
		d.codes, d.files = map[*Code]map[string]string{}, map[string][]string{}
	}
	lines, ok := d.files[code.File]
	if !ok {
		if b, err := os.ReadFile(code.File); err == nil && len(b) < 8<<20 {
			lines = strings.Split(string(b), "\n")
		}
		d.files[code.File] = lines
	}
	name := code.Func[strings.LastIndexAny(code.Func, ".:")+1:]
	got := literalDefaults(defHeader(lines, int(code.Line), name))
	d.codes[code] = got
	return got
}

// withoutDefaults returns args without those equal to their literal default (the first argument,
// a method's self, is always kept).
func withoutDefaults(args []Arg, defaults map[string]string) []Arg {
	if len(defaults) == 0 {
		return args
	}
	out := make([]Arg, 0, len(args))
	for i, a := range args {
		if v, ok := defaults[a.Name]; ok && i > 0 && v == a.Value {
			continue
		}
		out = append(out, a)
	}
	return out
}

// defHeader returns the parameter list of "def name(" at or below line (1-based; a decorated
// function's first line is its first decorator), between its parentheses; "" when there is none
// within a few lines (a module, a class body, a lambda).
func defHeader(lines []string, line int, name string) string {
	for k := line - 1; k >= 0 && k < len(lines) && k < line+20; k++ {
		s := strings.TrimPrefix(strings.TrimSpace(lines[k]), "async ")
		if !strings.HasPrefix(s, "def ") {
			continue
		}
		if !strings.HasPrefix(strings.TrimSpace(s[4:]), name+"(") {
			return ""
		}
		text := strings.Join(lines[k:min(k+60, len(lines))], "\n")
		open := strings.IndexByte(text, '(')
		if open < 0 {
			return ""
		}
		var list strings.Builder // the list without its comments
		closed := false
		walkPython(text[open+1:], func(i int, c byte, depth int, code bool) bool {
			if code && depth < 0 {
				closed = true
				return false
			}
			list.WriteByte(c)
			return true
		})
		if !closed {
			return ""
		}
		return list.String()
	}
	return ""
}

// walkPython calls visit for each byte of Python text s but those of comments, with the depth of
// brackets it is at (relative to the start; a closing bracket has the depth after it) and whether
// it is code (not inside a string literal), until visit returns false.
func walkPython(s string, visit func(i int, c byte, depth int, code bool) bool) {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if !visit(i, c, depth, false) {
				return
			}
			if c == '\\' && i+1 < len(s) {
				i++
				if !visit(i, s[i], depth, false) {
					return
				}
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '\'' || c == '"':
			quote = c
			if !visit(i, c, depth, false) {
				return
			}
			continue
		case c == '#':
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		}
		if !visit(i, c, depth, true) {
			return
		}
	}
}

// literalDefaults reads "name=default" parameters of a def's parameter list whose default is a
// literal, as that literal's repr.
func literalDefaults(params string) map[string]string {
	var out map[string]string
	for _, p := range splitTop(params, ',') {
		eq := splitTop(p, '=')
		if len(eq) != 2 {
			continue
		}
		name := strings.TrimSpace(eq[0])
		if colon := strings.IndexByte(name, ':'); colon >= 0 {
			name = strings.TrimSpace(name[:colon])
		}
		if v, ok := literalRepr(strings.TrimSpace(eq[1])); ok && isIdent(name) {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = v
		}
	}
	return out
}

// splitTop splits s at sep where it is code outside brackets ("==", "<=", ">=" and "!=" are not
// a separator '=').
func splitTop(s string, sep byte) []string {
	var out []string
	start := 0
	walkPython(s, func(i int, c byte, depth int, code bool) bool {
		if !code || c != sep || depth != 0 {
			return true
		}
		if sep == '=' && ((i+1 < len(s) && s[i+1] == '=') || (i > 0 && strings.IndexByte("=<>!", s[i-1]) >= 0)) {
			return true
		}
		out = append(out, s[start:i])
		start = i + 1
		return true
	})
	return append(out, s[start:])
}

// literalRepr returns the repr of a default written as a literal whose repr is plain to compute.
func literalRepr(v string) (string, bool) {
	switch v {
	case "None", "True", "False", "()", "''", `""`:
		if v == `""` {
			return "''", true
		}
		return v, true
	}
	if n := len(v); n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n-1] == v[0] {
		body := v[1 : n-1]
		if strings.ContainsAny(body, "'\"\\\n") {
			return "", false
		}
		return "'" + body + "'", true
	}
	digits := strings.TrimPrefix(v, "-")
	if digits == "" || strings.HasPrefix(digits, "0") && len(digits) > 1 && !strings.HasPrefix(digits, "0.") {
		return "", false
	}
	if _, frac, ok := strings.Cut(digits, "."); ok && (strings.HasPrefix(digits, "0.0000") || len(frac) > 1 && strings.HasSuffix(frac, "0") || len(digits) > 16) {
		return "", false // repr writes such a float otherwise (1e-07, 1.5)
	}
	dot := false
	for i := 0; i < len(digits); i++ {
		switch c := digits[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && i > 0 && i < len(digits)-1:
			dot = true
		default:
			return "", false
		}
	}
	return v, true
}

// isIdent reports whether s is a Python identifier.
func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdentByte(s[i]) || i == 0 && s[i] >= '0' && s[i] <= '9' {
			return false
		}
	}
	return s != ""
}
