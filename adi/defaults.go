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
		var out strings.Builder // the list without its comments
		depth, quote := 0, byte(0)
		for i := open; i < len(text); i++ {
			c := text[i]
			switch {
			case quote != 0:
				if c == '\\' && i+1 < len(text) {
					out.WriteByte(c)
					i++
					c = text[i]
				} else if c == quote {
					quote = 0
				}
			case c == '\'' || c == '"':
				quote = c
			case c == '#':
				for i+1 < len(text) && text[i+1] != '\n' {
					i++
				}
				continue
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth--
				if depth == 0 {
					return out.String()[1:]
				}
			}
			out.WriteByte(c)
		}
		return ""
	}
	return ""
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

// splitTop splits s at sep where it is outside brackets and strings ("==", "<=", ">="
// and "!=" are not a separator '=').
func splitTop(s string, sep byte) []string {
	var out []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == sep && depth == 0:
			if sep == '=' && ((i+1 < len(s) && s[i+1] == '=') || (i > 0 && strings.IndexByte("=<>!", s[i-1]) >= 0)) {
				continue
			}
			out = append(out, s[start:i])
			start = i + 1
		}
	}
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

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && i > 0 || c > 127) {
			return false
		}
	}
	return true
}
