package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/examples"
	"github.com/adi-bridge/adi/internal/faces"
)

// demoSteps is the investigation `adi demo` shows: the paper's loop on a silent wrong result. cmd
// is the ADI command line the demo runs; shell is the same command as typed in bash, which the
// CLI answers the same way in the demo's directory (the README shows these lines, and its test
// runs them).
var demoSteps = []struct{ why, cmd, shell string }{
	{"The program prints a total of 29.0; 26.0 was expected. Look at the calls it made:",
		"call-tree --depth 4", `call-tree "python orders.py" --depth 4`},
	{"bulk_rate#3 got rate=0.15 but returned 0.0. Break where a discount rate was given (break shows the first match):",
		`break bulk_rate --cond "rate > 0"`, `break bulk_rate --cond "rate > 0"`},
	{"The first match (apples, qty 12) is right. The next:", "continue", "continue"},
	{"qty is 10, exactly the bulk quantity, yet the discount branch was skipped. Confirm in that frame:",
		`exec bulk_rate#3 -l 16 -s "qty, BULK_QUANTITY, qty > BULK_QUANTITY"`, `exec bulk_rate#3 -l 16 -s "qty, BULK_QUANTITY, qty > BULK_QUANTITY"`},
}

func runDemo(ctx context.Context, g *globals, args []string) error {
	fs := newFlags("demo", "", g)
	if _, err := parse(fs, g, args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "adi-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "orders.py"), examples.Orders, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(g.Stdout, "$ adi: recording `python orders.py` (the bundled example, in %s)\n", dir)
	s, err := bridge.NewSession(ctx, bridge.Options{Command: "python orders.py", Dir: dir, Python: g.Python},
		bridge.SessionConfig{ID: "demo", Dir: filepath.Join(dir, ".adi"), Log: g.log})
	if err != nil {
		return err
	}
	defer s.Close()
	base := s.Base()
	fmt.Fprintf(g.Stdout, "target printed: %s", base.Stdout)
	fmt.Fprintf(g.Stdout, "recorded %d calls in %v\n", s.Trace().Len(), base.Elapsed.Round(1e6))
	for _, st := range demoSteps {
		cmd, err := adi.ParseCommand(st.cmd)
		if err != nil {
			return err
		}
		if st.why != "" {
			fmt.Fprintf(g.Stdout, "\n# %s\n", st.why)
		}
		fmt.Fprintf(g.Stdout, "\n$ adi %s\n", st.shell)
		ans, err := s.Do(ctx, cmd, adi.TextOptions{})
		if err != nil {
			return err
		}
		fmt.Fprint(g.Stdout, faces.CLI.Render(ans.Text))
	}
	fmt.Fprintln(g.Stdout, "\n# Found it: bulk_rate uses `qty > BULK_QUANTITY` where the rule is \"10 or more\" (>=).")
	return nil
}
