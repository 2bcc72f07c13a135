package bridge

import (
	"path/filepath"
	"strings"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/probe"
	"github.com/adi-bridge/adi/target"
)

// maxFocus bounds the frame references of Options.Focus that become trace selectors: each one
// is an FLT the first run records besides the eager ones.
const maxFocus = 8

// focusSelectors turns the frame references of Options.Focus (what the session's first command
// names) into trace selectors for the first run, so that its answer needs no second run. There
// is no T yet, so a reference is mapped by the probe's naming rule (probe/PROTOCOL.md, "Names"):
// a file's module is its path relative to the root with "/" as ".", without ".py" and a trailing
// ".__init__"; "module:qualname" is used as it is; a bare name is taken to be in the main script.
// A reference with "#N" selects invocation N, one without it the first invocation (where the
// next continue stops). References that cannot be mapped this way (a line target, a file outside
// the root, a bare name in a module or code target, a pytest parametrize id, one that does not
// parse) are skipped: the command then records its frame as usual.
func focusSelectors(prog *Program, tg target.Target, refs []string) []probe.Selector {
	var out []probe.Selector
	seen := map[probe.Selector]bool{}
	for _, s := range refs {
		if len(out) == maxFocus {
			break
		}
		r, err := adi.ParseRef(s)
		if err != nil || r.Line > 0 || r.Param != "" || r.Name == "" {
			continue
		}
		var module string
		switch {
		case r.Module != "":
			module = r.Module
		case r.Path != "":
			module = moduleOfFile(prog.Root, absIn(prog.Root, r.Path))
		case tg.Mode == target.Script:
			module = moduleOfFile(prog.Root, absIn(prog.Dir, tg.Path))
		}
		if module == "" {
			continue
		}
		sel := probe.Selector{Func: module + ":" + r.Name, Index: max(r.Index, 1)}
		if !seen[sel] {
			seen[sel] = true
			out = append(out, sel)
		}
	}
	return out
}

// moduleOfFile names the module of a .py file under root the way the probe does ("" for a file
// outside root or not a .py file): pkg/mod.py is pkg.mod, pkg/__init__.py is pkg.
func moduleOfFile(root, file string) string {
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || !strings.HasSuffix(rel, ".py") {
		return ""
	}
	module := strings.ReplaceAll(strings.TrimSuffix(rel, ".py"), "/", ".")
	module = strings.TrimSuffix(module, ".__init__")
	if module == "__init__" || strings.HasPrefix(module, ".") {
		return ""
	}
	return module
}
