package adi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// An answer's text shows output whole up to OutputTextLimit characters, else its start and end.
func TestCutOutput(t *testing.T) {
	short := strings.Repeat("é", OutputTextLimit)
	assert.Equal(t, short, CutOutput(short))
	long := strings.Repeat("a", OutputTextLimit/2) + strings.Repeat("b", 10) + strings.Repeat("c", OutputTextLimit/2)
	assert.Equal(t, strings.Repeat("a", OutputTextLimit/2)+"\n[... 10 characters cut ...]\n"+strings.Repeat("c", OutputTextLimit/2), CutOutput(long))
}
