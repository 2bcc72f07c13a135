package adi

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// funcInfo describes one recorded function: its name, file, definition line and call count.
type funcInfo struct {
	name, file  string
	line, calls int
}

// funcInfos lists every recorded function, sorted by name.
func (t *Trace) funcInfos() []funcInfo {
	names := t.Funcs()
	out := make([]funcInfo, len(names))
	for i, n := range names {
		inv := t.Invocations(n)
		f := &t.Frames[inv[0]]
		out[i] = funcInfo{name: n, file: f.File, line: int(f.Line), calls: len(inv)}
	}
	return out
}

// funcsIn lists the recorded functions defined in file, sorted by name.
// FrameSummary asks it for every frame an answer shows, so it looks at each function's file once
// (the names are kept sorted).
func (t *Trace) funcsIn(file string) []funcInfo {
	file = path.Clean(file)
	var out []funcInfo
	for _, n := range t.Funcs() { // sorted
		inv := t.Invocations(n)
		f := &t.Frames[inv[0]]
		if f.File == file || path.Clean(f.File) == file {
			out = append(out, funcInfo{name: n, file: f.File, line: int(f.Line), calls: len(inv)})
		}
	}
	return out
}

// moduleOf returns the module part of a "module:qualname" name.
func moduleOf(fn string) string {
	m, _, _ := cutLast(fn, ':')
	return m
}

// ResolveFunc finds the recorded function a reference names (its invocation index is ignored).
// A name matches a function's qualname exactly or, failing that, as a dotted suffix (so a bare
// function name works when it is unique). Unknown names give an error wrapping ErrNotFound that
// lists up to three close names; ambiguous ones an error wrapping ErrBadInput listing candidates.
func (t *Trace) ResolveFunc(r Ref) (string, error) {
	cands := t.funcInfos()
	switch {
	case r.Path != "":
		file := t.absPath(r.Path)
		in := func(file string) func(funcInfo) bool {
			return func(fi funcInfo) bool { return path.Clean(fi.file) == file }
		}
		cands = filterFuncs(cands, in(file))
		if len(cands) == 0 && !path.IsAbs(r.Path) {
			// A relative path may be relative to another directory than the root (pytest's
			// rootdir, say): take the one recorded file it ends.
			var ends []string
			for _, f := range t.files() {
				if strings.HasSuffix(f, "/"+path.Clean(r.Path)) {
					ends = append(ends, f)
				}
			}
			if len(ends) == 1 {
				file = ends[0]
				cands = filterFuncs(t.funcInfos(), in(file))
			}
		}
		if len(cands) == 0 && LibraryPath(file) {
			return "", NotFoundf("%s is library code (the standard library or site-packages), which is not recorded; to record it, pass --allow-external (over JSON-RPC or MCP: include it in the session, e.g. include: [%q])", file, file)
		}
		if len(cands) == 0 {
			return "", NotFoundf("no recorded function is defined in %s%s%s", file, closestText(r.Path, t.files(), fileForms), t.forkHint())
		}
	case r.Module != "":
		cands = filterFuncs(cands, func(fi funcInfo) bool { return moduleOf(fi.name) == r.Module })
		if len(cands) == 0 {
			return "", NotFoundf("no module %q in the recording%s%s", r.Module, closestText(r.Module, t.modules(), nameForms), t.forkHint())
		}
	}
	if r.Line > 0 {
		return t.lineOwner(cands, r.Line)
	}
	exact := filterFuncs(cands, func(fi funcInfo) bool { return ShortName(fi.name) == r.Name })
	suffix := filterFuncs(cands, func(fi funcInfo) bool { return strings.HasSuffix(ShortName(fi.name), "."+r.Name) })
	for _, tier := range [][]funcInfo{exact, suffix} {
		switch {
		case len(tier) == 1:
			return tier[0].name, nil
		case len(tier) > 1:
			return "", BadInputf("%q matches %d functions: %s; write one of them in full", r.String(), len(tier), listNames(tier))
		}
	}
	all := t.funcInfos()
	names := make([]string, len(all))
	for i, fi := range all {
		names[i] = fi.name
	}
	return "", NotFoundf("no function %q in the recording%s%s", r.Func().String(), closestText(r.Name, names, nameForms), t.forkHint())
}

// forkHint is the tail of a not-found error in a run that forked: what the children called is
// not recorded, and may be what was asked for.
func (t *Trace) forkHint() string {
	if t.Forks == 0 {
		return ""
	}
	return "; " + ForkNote(t.Forks, t.forkedInFID())
}

// ResolveFrame finds the index in T of the frame a reference names; the reference must carry an
// invocation index, or be a pytest node id (see Ref).
func (t *Trace) ResolveFrame(r Ref) (int, error) {
	if !r.NamesFrame() {
		return -1, BadInputf("%s names a function, not a frame; add the invocation index, e.g. %s#1", r.String(), r.String())
	}
	fn, err := t.ResolveFunc(r)
	if err != nil {
		return -1, err
	}
	if r.Param != "" {
		return t.paramInvocation(r, fn)
	}
	return t.Lookup(FID{Func: fn, Index: max(r.Index, 1)})
}

// lineOwner picks the function of funcs whose definition contains line: the one with the greatest
// definition line not after it. Frames carry only the definition's first line, not its last, so a
// line after the end of a function's body (or inside an unrecorded function) is attributed to the
// recorded function defined last before it.
func (t *Trace) lineOwner(funcs []funcInfo, line int) (string, error) {
	if len(funcs) == 0 {
		return "", NotFoundf("no recorded function contains line %d", line)
	}
	best := -1
	for _, fi := range funcs {
		if fi.line <= line && fi.line > best {
			best = fi.line
		}
	}
	if best < 0 {
		first := funcs[0]
		for _, fi := range funcs {
			if fi.line < first.line {
				first = fi
			}
		}
		return "", NotFoundf("line %d of %s is before every recorded function there (the first is %s at line %d)", line, first.file, first.name, first.line)
	}
	owners := filterFuncs(funcs, func(fi funcInfo) bool { return fi.line == best })
	if len(owners) > 1 {
		return "", BadInputf("line %d of %s: %s are all defined at line %d; name the function instead", line, owners[0].file, listNames(owners), best)
	}
	return owners[0].name, nil
}

// absPath makes a typed file path absolute against the project root.
func (t *Trace) absPath(p string) string {
	if path.IsAbs(p) || t.Root == "" {
		return path.Clean(p)
	}
	return path.Join(t.Root, p)
}

// files lists the distinct files of the recorded functions, sorted.
func (t *Trace) files() []string {
	return distinct(t.funcInfos(), func(fi funcInfo) string { return fi.file })
}

// modules lists the distinct modules of the recorded functions, sorted.
func (t *Trace) modules() []string {
	return distinct(t.funcInfos(), func(fi funcInfo) string { return moduleOf(fi.name) })
}

func distinct(fis []funcInfo, key func(funcInfo) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, fi := range fis {
		if k := key(fi); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func filterFuncs(fis []funcInfo, keep func(funcInfo) bool) []funcInfo {
	var out []funcInfo
	for _, fi := range fis {
		if keep(fi) {
			out = append(out, fi)
		}
	}
	return out
}

// listNames joins function names for an error, at most ten of them.
func listNames(fis []funcInfo) string {
	names := make([]string, 0, len(fis))
	for i, fi := range fis {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(fis)-10))
			break
		}
		names = append(names, fi.name)
	}
	return strings.Join(names, ", ")
}

// LibraryPath reports whether an absolute path looks like library code that is not recorded by
// default: the standard library (a pythonX.Y directory under a lib directory) or an installed
// package (site-packages, dist-packages).
func LibraryPath(p string) bool {
	parts := strings.Split(path.Clean(p), "/")
	for i, part := range parts {
		if part == "site-packages" || part == "dist-packages" {
			return true
		}
		if i > 0 && strings.HasPrefix(parts[i-1], "lib") && strings.HasPrefix(part, "python3") {
			return true
		}
	}
	return false
}
