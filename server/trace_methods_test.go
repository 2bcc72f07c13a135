package server

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/adi-bridge/adi/adi"
)

func TestFrameMatches(t *testing.T) {
	f := &adi.Frame{N: 3, Arguments: &adi.Arguments{Code: &adi.Code{Func: "t:check"}, Args: []adi.Arg{{Name: "n", Value: "3"}}},
		Outcome: adi.Raising(&adi.Exception{Type: "ValueError", Message: "n too big: 3"})}
	for q, want := range map[string]bool{"check#3": true, "n=3": true, "valueerror": true, "too big": true, "keyerror": false} {
		assert.Equal(t, want, frameMatches(f, q), q)
	}
	assert.False(t, frameMatches(&adi.Frame{N: 1, Arguments: &adi.Arguments{Code: &adi.Code{Func: "t:f"}}, Outcome: adi.NoOutcome}, "valueerror"))
}
