package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFlagName(t *testing.T) {
	assert.Equal(t, "-t", FlagName("t"))
	assert.Equal(t, "--full-watch", FlagName("-full-watch"))
	assert.Equal(t, "--loop", FlagName("--loop"))
}

func TestUnknownFlag(t *testing.T) {
	known := []string{"c", "cond", "condition", "full-watch", "loop", "loop-index", "on-entry", "on-return", "if-eval-lineno", "t", "timeout", "json"}
	tests := []struct{ flag, want string }{
		{"ful-watch", "adi: unknown flag --ful-watch for break; did you mean --full-watch? (adi break -h lists the flags)"},
		{"-on-retrun", "adi: unknown flag --on-retrun for break; did you mean --on-return? (adi break -h lists the flags)"},
		{"if-eval-line", "adi: unknown flag --if-eval-line for break; did you mean --if-eval-lineno? (adi break -h lists the flags)"},
		{"loop-idx=3", "adi: unknown flag --loop-idx for break; did you mean --loop-index? (adi break -h lists the flags)"},
		{"frobnicate", "adi: unknown flag --frobnicate for break (adi break -h lists the flags)"},
		{"x", "adi: unknown flag -x for break (adi break -h lists the flags)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, UnknownFlag("break", tt.flag, known), tt.flag)
	}
}

func TestUnknownCommand(t *testing.T) {
	known := []string{"break", "call-tree", "continue", "step-in", "step-into", "step-out", "prev"}
	assert.Equal(t, `adi: unknown command "stepin"; did you mean step-in? (adi help lists the commands)`, UnknownCommand("stepin", known))
	assert.Equal(t, `adi: unknown command "step_into"; did you mean step-into? (adi help lists the commands)`, UnknownCommand("step_into", known))
	assert.Equal(t, `adi: unknown command "calltree"; did you mean call-tree? (adi help lists the commands)`, UnknownCommand("calltree", known))
	assert.Equal(t, `adi: unknown command "xyzzy" (adi help lists the commands)`, UnknownCommand("xyzzy", known))
}
