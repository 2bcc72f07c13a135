package adi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBreakpointAt(t *testing.T) {
	tests := []struct {
		cond string
		want CondAt
	}{
		{"", AtEntry},
		{"x > 3", AtEntry},
		{"_return is None", AtExit},
		{"isinstance(_exception, ValueError)", AtExit},
		{"x and _return", AtExit},
		{"my_return > 1", AtEntry},
		{"_returned", AtEntry},
		{"self._return", AtEntry},
		{"_exception_count > 0", AtEntry},
		{"(_return)", AtExit},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Breakpoint{Func: "t:f", Cond: tt.cond}.At(), tt.cond)
	}
}

func TestBreakpointString(t *testing.T) {
	assert.Equal(t, "t:f", Breakpoint{Func: "t:f"}.String())
	assert.Equal(t, "t:f if x > 3", Breakpoint{Func: "t:f", Cond: "x > 3"}.String())
}
