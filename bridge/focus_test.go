package bridge

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/adi-bridge/adi/probe"
	"github.com/adi-bridge/adi/target"
)

func TestFocusSelectors(t *testing.T) {
	prog := &Program{Dir: "/p/src", Root: "/p"}
	script := target.Target{Mode: target.Script, Path: "t.py"}
	got := focusSelectors(prog, script, []string{
		"pkg/mod.py:func#2",              // relative to the root
		"/p/pkg/__init__.py:Cls.meth#3",  // a package's __init__
		"mod:Class.method",               // module:qualname, no index: the first invocation
		"work#4",                         // bare: in the main script, src/t.py
		"tests/test_x.py::TestC::test_m", // a pytest node id
		"pkg/mod.py:func#2",              // again: one selector
		"pkg/mod.py:12#1",                // a line target: skipped
		"/elsewhere/m.py:f#1",            // outside the root: skipped
		"tests/test_x.py::test_f[2-3]",   // a parametrize id: skipped
		"nope#x",                         // does not parse: skipped
	})
	assert.Equal(t, []probe.Selector{
		{Func: "pkg.mod:func", Index: 2},
		{Func: "pkg:Cls.meth", Index: 3},
		{Func: "mod:Class.method", Index: 1},
		{Func: "src.t:work", Index: 4},
		{Func: "tests.test_x:TestC.test_m", Index: 1},
	}, got)

	assert.Empty(t, focusSelectors(prog, target.Target{Mode: target.Module, Module: "pkg"}, []string{"work#1"}),
		"a bare name is mapped only for a script target")
	many := make([]string, 20)
	for i := range many {
		many[i] = "m:f#" + string(rune('1'+i%9)) + "0"
	}
	assert.Len(t, focusSelectors(prog, script, many), maxFocus)
}

func TestModuleOfFile(t *testing.T) {
	for file, want := range map[string]string{
		"/p/t.py":            "t",
		"/p/pkg/mod.py":      "pkg.mod",
		"/p/pkg/__init__.py": "pkg",
		"/p/__init__.py":     "",
		"/p/data.txt":        "",
		"/q/t.py":            "",
		"/p/../p/pkg/a/b.py": "pkg.a.b",
		"/p/.hidden/m.py":    "",
		"/pother/pkg/mod.py": "",
	} {
		assert.Equal(t, want, moduleOfFile("/p", file), file)
	}
}
