package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Machine describes where the benchmark ran.
type Machine struct {
	CPU, Kernel, Memory string
	Cores               int
	Go                  string
	Python, PythonPath  string
	Debugpy, Pydevd     string
	Speedups            bool
	Sympy, Pytest       string
	Date                time.Time
}

// Describe collects the machine facts printed with the tables.
func (e *Env) Describe(ctx context.Context) Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), Python: e.Python.Version, PythonPath: e.Python.Path,
		Debugpy: e.Python.Debugpy, Pydevd: e.Python.Pydevd, Speedups: e.Python.Speedups, Date: time.Now().UTC()}
	m.CPU = procField("/proc/cpuinfo", "model name")
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.Memory = procField("/proc/meminfo", "MemTotal")
	if kb, err := strconv.Atoi(strings.TrimSuffix(m.Memory, " kB")); err == nil {
		m.Memory = fmt.Sprintf("%.0f GiB", float64(kb)/(1<<20))
	}
	version := func(mod string) string {
		v, err := e.pyOutput(ctx, e.Work, "-c", "import "+mod+"; print("+mod+".__version__)")
		if err != nil {
			return "not installed"
		}
		return v
	}
	m.Sympy, m.Pytest = version("sympy"), version("pytest")
	return m
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
